// prism-native: the public types of the core entry. Names and shapes match the
// @arnilo/prism 0.3.0 reference (see the API contract), so a host compiles unchanged.

// ---------------------------------------------------------------------------------------------
// 1. Core contracts
// ---------------------------------------------------------------------------------------------

export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | JsonObject | JsonValue[]
export interface JsonObject {
  readonly [key: string]: JsonValue
}

export interface ErrorInfo {
  readonly name?: string
  readonly message: string
  readonly code?: string | number
  readonly retryAfterMs?: number
  readonly cause?: unknown
}

export interface TextContent {
  readonly type: 'text'
  readonly text: string
}
export interface ImageContent {
  readonly type: 'image'
  readonly mimeType?: string
  readonly data?: string
  readonly url?: string
  readonly resourceUri?: string
  readonly name?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface AudioContent {
  readonly type: 'audio'
  readonly mimeType?: string
  readonly data?: string
  readonly url?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface FileContent {
  readonly type: 'file'
  readonly mimeType?: string
  readonly data?: string
  readonly url?: string
  readonly name?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface DocumentContent {
  readonly type: 'document'
  readonly mimeType?: string
  readonly data?: string
  readonly url?: string
  readonly name?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface ThinkingContent {
  readonly type: 'thinking'
  readonly text: string
  readonly signature?: string
}
export interface ToolCallDeltaContent {
  readonly type: 'tool_call_delta'
  readonly id?: string
  readonly name?: string
  readonly argumentsDelta: string
}
export type ToolCallAuthority = 'host' | 'provider-hosted'
export interface ToolCallContent {
  readonly type: 'tool_call'
  readonly id: string
  readonly name: string
  readonly arguments: JsonObject
  readonly argumentsError?: ErrorInfo
  readonly authority?: ToolCallAuthority
}
export interface ToolResultContent {
  readonly type: 'tool_result'
  readonly toolCallId: string
  readonly name: string
  readonly result?: unknown
  readonly error?: ErrorInfo
}
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | FileContent
  | DocumentContent
  | ThinkingContent
  | ToolCallDeltaContent
  | ToolCallContent
  | ToolResultContent

/** An identity the host attaches to a run (passed through, not interpreted here). */
export interface AgentIdentity {
  readonly id: string
  readonly [key: string]: unknown
}
/** Ownership fields copied into ledger rows (passed through). */
export interface OwnershipScope {
  readonly tenantId?: string
  readonly userId?: string
  readonly [key: string]: unknown
}
/** An elicitation request a tool may declare (passed through). */
export interface ToolElicitationRequest {
  readonly message: string
  readonly requestedSchema?: JsonObject
  readonly [key: string]: unknown
}

export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other'
export type ToolEffectKind = 'none' | 'local_mutation' | 'external_mutation'
export type ToolEffectIdempotency = 'none' | 'optional' | 'required' | 'tool_managed' | 'unsupported'
export interface ToolEffectDeclaration {
  readonly kind: ToolEffectKind
  readonly idempotency: ToolEffectIdempotency
}
export type ToolEffectClassifier = (args: JsonObject, context: ToolExecutionContext) => ToolEffectDeclaration

export interface ToolDefinition {
  readonly name: string
  readonly kind?: ToolKind
  readonly description?: string
  readonly parameters?: JsonObject
  /** Force any provider turn containing this tool to dispatch sequentially. */
  readonly exclusive?: boolean
  readonly effect?: ToolEffectDeclaration | ToolEffectClassifier
  readonly elicitation?: (args: JsonObject, context: ToolExecutionContext) => ToolElicitationRequest | undefined
  execute(args: JsonObject, context: ToolExecutionContext): Promise<ToolResult> | ToolResult
}

export interface ToolRegistry {
  register(tool: ToolDefinition): void
  get(name: string): ToolDefinition | undefined
  /** Throws `Error("Unknown tool: <name>")` when missing. */
  resolve(name: string): ToolDefinition
  /** Every tool in insertion order; a replaced tool keeps its position. */
  list(): readonly ToolDefinition[]
}

export interface ToolExecutionContext {
  readonly sessionId: string
  readonly runId: string
  readonly toolCallId: string
  readonly signal?: AbortSignal
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly identity?: AgentIdentity
  readonly idempotencyKey?: string
  progress?(progress?: unknown, metadata?: Readonly<Record<string, unknown>>): void | Promise<void>
}

export interface ToolResult {
  readonly toolCallId: string
  readonly name: string
  readonly content?: readonly ContentBlock[]
  readonly value?: unknown
  readonly error?: ErrorInfo
  readonly metadata?: Readonly<Record<string, unknown>>
}

export type ToolCallStatus = 'started' | 'finished' | 'error' | 'blocked'
export interface ToolExecutionMetadata {
  readonly durationMs: number
  readonly status: ToolCallStatus
}

/** The reasons `dispatchToolCall` blocks a call before `execute`. */
export type ToolBlockedReason =
  | 'unknown_tool'
  | 'tool_denied'
  | 'invalid_arguments'
  | 'guardrail_blocked'
  | 'permission_denied'
  | 'validation_failed'
  | 'execution_denied'

export interface ToolExecutionStartedEvent {
  readonly type: 'tool_execution_started'
  readonly sessionId: string
  readonly runId: string
  readonly call: ToolCallContent
}
export interface ToolExecutionProgressEvent {
  readonly type: 'tool_execution_progress'
  readonly sessionId: string
  readonly runId: string
  readonly toolCallId: string
  readonly name: string
  readonly progress?: unknown
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface ToolExecutionFinishedEvent {
  readonly type: 'tool_execution_finished'
  readonly sessionId: string
  readonly runId: string
  readonly result: ToolResult
  readonly metadata: ToolExecutionMetadata
}
export interface ToolExecutionErrorEvent {
  readonly type: 'tool_execution_error'
  readonly sessionId: string
  readonly runId: string
  readonly call: ToolCallContent
  readonly error: ErrorInfo
  readonly metadata: ToolExecutionMetadata
}
export interface ToolExecutionBlockedEvent {
  readonly type: 'tool_execution_blocked'
  readonly sessionId: string
  readonly runId: string
  readonly toolCallId: string
  readonly name: string
  readonly reason: ToolBlockedReason | string
  readonly error: ErrorInfo
  readonly metadata: ToolExecutionMetadata
}
/** Any other event of the host's agent runtime, passed through untouched. */
export interface OtherAgentEvent {
  readonly type: string
  readonly [key: string]: unknown
}
export type AgentEvent =
  | ToolExecutionStartedEvent
  | ToolExecutionProgressEvent
  | ToolExecutionFinishedEvent
  | ToolExecutionErrorEvent
  | ToolExecutionBlockedEvent
  | OtherAgentEvent

/** A ledger row of one tool call (`RunLedger.appendToolCall`). */
export interface ToolCallRecord extends OwnershipScope {
  readonly id: string
  readonly sessionId: string
  readonly runId?: string
  readonly entryId?: string
  readonly toolCallId: string
  readonly name: string
  readonly arguments: JsonObject
  readonly result?: unknown
  readonly status?: ToolCallStatus
  readonly reason?: string
  readonly progress?: unknown
  readonly progressMetadata?: Readonly<Record<string, unknown>>
  readonly progressAt?: string
  readonly startedAt: string
  readonly finishedAt?: string
  readonly redacted: boolean
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface RunLedger {
  appendToolCall(record: ToolCallRecord): void | Promise<void>
}
/** Redacts successful results and ledger rows. */
export interface SecretRedactor {
  redact<T>(value: T): T
}

// ---------------------------------------------------------------------------------------------
// 2. Registry, filter, validator seam, dispatch
// ---------------------------------------------------------------------------------------------

export interface ToolFilter {
  readonly allow?: readonly string[]
  readonly deny?: readonly string[]
}
/** Filters are read as immutable: a filter object is compiled once and cached. */
export type ToolFilterInput = ToolFilter | readonly ToolFilter[]
export type ToolValidator = (
  tool: ToolDefinition,
  args: JsonObject,
  context: ToolExecutionContext,
) => undefined | string | ErrorInfo | Promise<undefined | string | ErrorInfo>
export interface ToolArgumentValidationError {
  readonly path?: string
  readonly message: string
}
export interface ToolArgumentValidationResult {
  readonly ok: boolean
  readonly errors?: readonly ToolArgumentValidationError[]
}
export interface ToolArgumentValidator {
  validate(schema: JsonObject, value: unknown): ToolArgumentValidationResult
}
export interface ToolParameterValidatorOptions {
  /** A tool without `parameters`: `"allow"` (default) passes it, `"reject"` fails it. */
  readonly missingSchema?: 'allow' | 'reject'
}
export interface DuplicateRegistrationOptions {
  /** `"replace"` (default) keeps the old position; `"error"` throws `Duplicate tool: <name>`. */
  readonly duplicate?: 'replace' | 'error'
}
export interface ToolRegistryOptions extends DuplicateRegistrationOptions {}

/** Out of scope here (accepted and ignored so hosts that set them still compile). */
export type ToolEffectStore = unknown
/** Out of scope here (accepted and ignored). */
export type Guardrails = unknown
/** Out of scope here (accepted and ignored). */
export type RunLimitTracker = unknown

export interface DispatchToolCallOptions {
  readonly call: ToolCallContent
  readonly registry: ToolRegistry
  readonly context: ToolExecutionContext
  readonly filter?: ToolFilterInput
  readonly middleware?: MiddlewareRegistry
  readonly validate?: ToolValidator
  readonly beforeExecute?: (call: ToolCallContent, tool: ToolDefinition, context: ToolExecutionContext) => void | Promise<void>
  readonly emit?: (event: AgentEvent) => void | Promise<void>
  /** Strings replaced by `[REDACTED]` in error messages. */
  readonly secrets?: readonly (string | undefined)[]
  readonly permission?: PermissionPolicy
  readonly trust?: TrustPolicy
  readonly redactor?: SecretRedactor
  readonly ledger?: RunLedger
  readonly effectStore?: ToolEffectStore
  readonly ownership?: OwnershipScope
  readonly identity?: AgentIdentity
  readonly guardrails?: Guardrails
  readonly limitTracker?: RunLimitTracker
}

export function createToolRegistry(tools?: readonly ToolDefinition[], options?: ToolRegistryOptions): ToolRegistry
export function filterTools(tools: readonly ToolDefinition[], filter?: ToolFilterInput): readonly ToolDefinition[]
/**
 * Runs a tool call through the frozen gates: `tool_call` middleware → lookup/filter/args →
 * trust + permission → validator → `beforeExecute` → started → execute → `tool_result`
 * middleware → redaction → finished event + ledger. Blocked and failed calls resolve to a
 * result with `error`; a non-object `call` or a missing `registry` rejects with a TypeError
 * (`code: "ERR_PRISM_INVALID_DISPATCH"`).
 */
export function dispatchToolCall(options: DispatchToolCallOptions): Promise<ToolResult>
export function createToolParameterValidator(validator: ToolArgumentValidator, options?: ToolParameterValidatorOptions): ToolValidator

// ---------------------------------------------------------------------------------------------
// 4. Execution policy and security
// ---------------------------------------------------------------------------------------------

export type ExecutionRisk = 'low' | 'medium' | 'high'
export interface ExecutionAction {
  readonly kind: 'shell' | 'read' | 'write' | 'edit' | (string & {})
  readonly operation: string
  readonly paths?: readonly string[]
  readonly command?: string
  readonly risk?: ExecutionRisk
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface ExecutionDecision {
  readonly allowed: boolean
  readonly reason?: string
  readonly modified?: Partial<ExecutionAction>
  readonly exclusive?: boolean
  /**
   * prism-native extension, set (not enumerable) by `createCodingApprovalPolicy` on allowed
   * write and edit decisions: the real trusted root and the real target it approved. The
   * coding write and edit tools then open and replace the file through that root's directory
   * handle, so a directory swapped for a symlink after the check cannot redirect them.
   */
  readonly writeBeneath?: { readonly root: string; readonly path: string }
}
export interface ExecutionPolicy {
  check(action: ExecutionAction): ExecutionDecision | Promise<ExecutionDecision>
}
export class ExecutionDeniedError extends Error {
  readonly code: 'ERR_PRISM_EXECUTION_DENIED'
  readonly action: ExecutionAction
  readonly decision: ExecutionDecision
  constructor(action: ExecutionAction, decision: ExecutionDecision)
}
export function checkExecution(policy: ExecutionPolicy | undefined, action: ExecutionAction): Promise<ExecutionDecision>
export function applyExecutionDecision(action: ExecutionAction, decision: ExecutionDecision): ExecutionAction
export function assertExecutionAllowed(policy: ExecutionPolicy | undefined, action: ExecutionAction): Promise<ExecutionAction>

export interface PermissionRequest {
  readonly kind: 'tool' | 'extension' | 'resource' | (string & {})
  readonly action: string
  readonly target: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface PermissionDecision {
  readonly allowed: boolean
  readonly reason?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface PermissionPolicy {
  check(request: PermissionRequest): PermissionDecision | Promise<PermissionDecision>
}
export class PermissionDeniedError extends Error {
  readonly code: 'ERR_PRISM_PERMISSION_DENIED'
  readonly request: PermissionRequest
  readonly decision?: PermissionDecision
  constructor(request: PermissionRequest, decision?: PermissionDecision)
}
export function checkPermission(policy: PermissionPolicy | undefined, request: PermissionRequest): Promise<PermissionDecision>
export function assertPermission(policy: PermissionPolicy | undefined, request: PermissionRequest): Promise<void>
export function createStaticPermissionPolicy(options: { readonly allow?: readonly string[]; readonly deny?: readonly string[] } | boolean): PermissionPolicy

export interface TrustRequest {
  readonly kind: 'tool' | 'extension' | 'resource' | (string & {})
  readonly target: string
  readonly capability: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface TrustDecision {
  readonly trusted: boolean
  readonly reason?: string
}
export interface TrustPolicy {
  check(request: TrustRequest): TrustDecision | boolean | Promise<TrustDecision | boolean>
}
export class TrustDeniedError extends Error {
  readonly code: 'ERR_PRISM_UNTRUSTED'
  readonly request: TrustRequest
  readonly decision?: TrustDecision
  constructor(request: TrustRequest, decision?: TrustDecision)
}
export function isTrusted(policy: TrustPolicy | undefined, request: TrustRequest): Promise<boolean>
export function assertTrusted(policy: TrustPolicy | undefined, request: TrustRequest): Promise<void>
export function createStaticTrustPolicy(decision: boolean | TrustDecision): TrustPolicy
export function denialToErrorInfo(error: unknown): ErrorInfo

// ---------------------------------------------------------------------------------------------
// 5. Middleware
// ---------------------------------------------------------------------------------------------

export type MiddlewareHook = 'tool_call' | 'tool_result' | (string & {})
export type MiddlewareNext<T = unknown> = (value?: T) => Promise<T>
export type Middleware<T = unknown> = (value: T, next: MiddlewareNext<T>) => T | Promise<T>
export interface ExtensionEvent {
  readonly type: 'extension_error' | (string & {})
  readonly extension: string
  readonly error?: ErrorInfo
}
export interface MiddlewareRegistryOptions {
  /** `"event"` (default): a throwing middleware is skipped and reported; `"throw"`: rethrown. */
  readonly errorPolicy?: 'event' | 'throw'
  readonly secrets?: readonly (string | undefined)[]
  readonly onError?: (event: ExtensionEvent) => void | Promise<void>
}
export interface MiddlewareRegistry {
  /** Adds a middleware; the returned function removes it. */
  use<T>(hook: MiddlewareHook, middleware: Middleware<T>): () => void
  run<T>(hook: MiddlewareHook, value: T): Promise<T>
  list(hook: MiddlewareHook): readonly Middleware[]
}
export function createMiddlewareRegistry(options?: MiddlewareRegistryOptions): MiddlewareRegistry

// ---------------------------------------------------------------------------------------------
// 3. Loops and parallel dispatch
// ---------------------------------------------------------------------------------------------

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool'
export interface Message {
  readonly id?: string
  readonly role: MessageRole
  readonly content: readonly ContentBlock[]
  readonly metadata?: Readonly<Record<string, unknown>>
}
export type AgentInput = string | Message | readonly Message[]
export type AgentFinishReason = 'stop' | 'turn_limit' | 'aborted' | 'error' | (string & {})
/** The host's provider request (assembled by the host's runtime; opaque to the loop). */
export interface ProviderRequest {
  readonly messages?: readonly Message[]
  readonly [key: string]: unknown
}
/** Token and cost accounting of a provider turn. */
export interface Usage {
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly totalTokens?: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
  readonly cost?: number
  readonly currency?: string
}
/**
 * One provider turn as the host runtime's `generate` resolves it: the assistant content, its
 * tool calls, and whether an assistant message started (the loop then records
 * `{ id: messageId, role: "assistant", content }`).
 */
export interface ProviderTurnResult {
  readonly content: readonly ContentBlock[]
  readonly calls: readonly ToolCallContent[]
  readonly messageId?: string
  readonly started: boolean
  readonly usage?: Usage
}

export interface LoopContext {
  readonly sessionId: string
  readonly runId: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly signal: AbortSignal
  readonly history: Message[]
  readonly input: AgentInput
  readonly inputMessages: readonly Message[]
  readonly maxToolRounds: number
  finishReason?: AgentFinishReason
  /** Maximum independent tool calls dispatched concurrently per provider turn. Default `1`. */
  readonly toolConcurrency: number
  assemble(nextInput: AgentInput, toolResults?: readonly ToolResult[], turn?: number): Promise<ProviderRequest>
  chargeToolRound?(calls: readonly ToolCallContent[]): void | Promise<void>
  generate(request: ProviderRequest): Promise<ProviderTurnResult>
  dispatchToolCall(call: ToolCallContent): Promise<ToolResult>
  isToolCallExclusive?(call: ToolCallContent): boolean
  appendMessage(message: Message): Promise<void>
  emit(event: AgentEvent): void
  hasPendingSteers?(): boolean
  applyPendingSteers?(): Promise<boolean>
  readonly restoredLoopState?: JsonValue
}

export interface AgentLoopStrategy {
  readonly name: string
  readonly revision?: string
  /** Resolves to the run's usage (the last a turn reported), if any. */
  run(ctx: LoopContext): Promise<Usage | undefined>
}
export type AgentLoopOptions =
  | { readonly strategy: 'single-shot'; readonly toolConcurrency?: number }
  | { readonly strategy: 'generate-validate-revise'; readonly [key: string]: unknown }

/** The single-shot loop (name `"single-shot"`, revision `"1"`), dispatching through this package. */
export const singleShotLoop: AgentLoopStrategy
/**
 * `toolConcurrency` of `options.loop ?? config.loop`: 1 unless it is single-shot options with a
 * finite value >= 1, which is rounded down. No upper cap.
 */
export function resolveToolConcurrency(
  options: { readonly loop?: AgentLoopStrategy | AgentLoopOptions },
  config: { readonly loop?: AgentLoopStrategy | AgentLoopOptions },
): number
/**
 * Dispatches one turn with at most `ctx.toolConcurrency` calls in flight (1 when any call is
 * exclusive) and appends the results to `ctx.history` in call order.
 */
export function dispatchToolCallsInOrder(calls: readonly ToolCallContent[], ctx: LoopContext): Promise<void>
