import type {
  AgentEvent,
  JsonObject,
  PermissionPolicy,
  ToolCallContent,
  ToolDefinition,
  ToolExecutionContext,
  ToolFilterInput,
  ToolRegistry,
  ToolResult,
  ToolValidator,
} from '../../index.js'

export interface ToolDispatchProbeOptions {
  readonly call: ToolCallContent
  readonly registry: ToolRegistry
  /** Laid over the base context `{sessionId:"conformance", runId:"r", toolCallId:"call"}`. */
  readonly context?: Partial<ToolExecutionContext>
  readonly filter?: ToolFilterInput
  readonly permission?: PermissionPolicy
  readonly validate?: ToolValidator
  readonly secrets?: readonly (string | undefined)[]
}
export interface ToolConformanceOptions {
  readonly tool: ToolDefinition
  readonly validArgs: JsonObject
  readonly permission?: PermissionPolicy
  readonly validate?: ToolValidator
  readonly filter?: ToolFilterInput
  readonly secrets?: readonly (string | undefined)[]
}
/** Registers the tool, then checks every blocked reason and the valid path; throws on a mismatch. */
export function assertToolDispatchConforms(registry: ToolRegistry, options: ToolConformanceOptions): Promise<void>
/** Throws unless the probe is blocked with `expectedReason`, carries an error and never started. */
export function assertToolBlocked(probe: ToolDispatchProbeOptions, expectedReason: string): Promise<void>
/** Dispatches the probe and collects every event. */
export function dispatchAndCollect(probe: ToolDispatchProbeOptions): Promise<{ result: ToolResult; events: AgentEvent[] }>
