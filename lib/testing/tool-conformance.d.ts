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

/** One dispatch to probe: the options of `dispatchToolCall` that the probe passes on. */
export interface ToolDispatchProbeOptions {
  /** The call to dispatch. */
  readonly call: ToolCallContent
  /** The registry it is dispatched against. */
  readonly registry: ToolRegistry
  /** Laid over the base context `{sessionId:"conformance", runId:"r", toolCallId:"call"}`. */
  readonly context?: Partial<ToolExecutionContext>
  /** Passed to `dispatchToolCall` as is. Default none. */
  readonly filter?: ToolFilterInput
  /** Passed to `dispatchToolCall` as is. Default none. */
  readonly permission?: PermissionPolicy
  /** Passed to `dispatchToolCall` as is. Default none. */
  readonly validate?: ToolValidator
  /** Passed to `dispatchToolCall` as is. Default none. */
  readonly secrets?: readonly (string | undefined)[]
}
export interface ToolConformanceOptions {
  /** The tool under test; it is registered in the registry given. */
  readonly tool: ToolDefinition
  /** Arguments the tool accepts: the valid path must execute with them. */
  readonly validArgs: JsonObject
  /** Used for the valid path only (each blocked reason is provoked with its own hook). Default none. */
  readonly permission?: PermissionPolicy
  /** Used for the valid path only. Default none. */
  readonly validate?: ToolValidator
  /** Used for the valid path only. Default none. */
  readonly filter?: ToolFilterInput
  /** Passed to every probe's dispatch. Default none. */
  readonly secrets?: readonly (string | undefined)[]
}
/** Registers the tool, then checks every blocked reason and the valid path; throws on a mismatch. */
export function assertToolDispatchConforms(registry: ToolRegistry, options: ToolConformanceOptions): Promise<void>
/** Throws unless the probe is blocked with `expectedReason`, carries an error and never started. */
export function assertToolBlocked(probe: ToolDispatchProbeOptions, expectedReason: string): Promise<void>
/** Dispatches the probe and collects every event. */
export function dispatchAndCollect(probe: ToolDispatchProbeOptions): Promise<{ result: ToolResult; events: AgentEvent[] }>
