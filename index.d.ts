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
/** Audio, as base64 `data`, a `url` or a `resourceUri`; `mediaType` is its MIME type. */
export interface AudioContent {
  readonly type: 'audio'
  readonly mediaType: string
  readonly name?: string
  readonly data?: string
  readonly url?: string
  readonly resourceUri?: string
  readonly durationMs?: number
  readonly transcript?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
/** A file, as base64 `data`, a `url` or a `resourceUri`; `mediaType` is its MIME type. */
export interface FileContent {
  readonly type: 'file'
  readonly mediaType: string
  readonly name?: string
  readonly data?: string
  readonly url?: string
  readonly resourceUri?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
/** A document (PDF, office file), as base64 `data`, a `url` or a `resourceUri`. */
export interface DocumentContent {
  readonly type: 'document'
  readonly mediaType: string
  readonly name?: string
  readonly data?: string
  readonly url?: string
  readonly resourceUri?: string
  readonly transcript?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface ThinkingContent {
  readonly type: 'thinking'
  readonly text: string
  readonly signature?: string
}
/** A streamed fragment of the tool call at position `index` of the turn. */
export interface ToolCallDeltaContent {
  readonly type: 'tool_call_delta'
  readonly index: number
  readonly id?: string
  readonly name?: string
  /** The next piece of the call's JSON argument text. */
  readonly argumentsText?: string
  /** `"provider-hosted"`: the provider runs the call itself; the host must not dispatch it. */
  readonly authority?: ToolCallAuthority
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

/** An authenticated actor: a user, a service or an agent. */
export interface Principal {
  readonly kind: 'user' | 'service' | 'agent' | (string & {})
  readonly id: string
  readonly displayName?: string
}
/**
 * The host-verified identity of a run or tool call (passed through to tools here; the
 * reference's identity checks belong to its agent runtime).
 */
export interface AgentIdentity {
  readonly tenantId: string
  readonly accountId?: string
  readonly userId?: string
  /** Who acts in this run, tool call or delegation. */
  readonly principal: Principal
  readonly sponsor?: Principal
  readonly owner?: Principal
  /** The parent principal when this identity is a narrowed delegation. */
  readonly delegatedFrom?: Principal
  readonly scopes: readonly string[]
  /** Keys for a late-bound credential resolver; never secret material. */
  readonly credentialRefs?: readonly string[]
  readonly issuedAt: string
  readonly expiresAt?: string
  readonly revokedAt?: string
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly verified: true
}
/** Ownership fields copied into ledger rows (passed through). */
export interface OwnershipScope {
  readonly tenantId?: string
  readonly accountId?: string
  readonly userId?: string
}
/** What a tool asks the user for instead of running (consumed by the host's durable runtime). */
export interface ToolElicitationRequest {
  /** The payload contract the answer must satisfy. */
  readonly schema: JsonObject
  /** Shown to the person answering. */
  readonly reason?: string
  /** Checks an answer beyond the schema; throws to reject it. */
  readonly validate?: (payload: JsonObject) => void
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
/** Token and cost counters of a turn or a run. */
export interface Usage {
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly totalTokens?: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
  readonly cost?: number
  readonly currency?: string
}
export type PromptCacheKind = 'implicit' | 'openai_key' | 'cache_control' | 'provider_specific' | 'none'
export interface ModelCacheCapabilities {
  readonly kind?: PromptCacheKind
  readonly maxKeyLength?: number
  readonly maxBreakpoints?: number
  readonly minCacheableTokens?: number
  readonly longRetention?: boolean
}
export interface ModelCapabilities {
  /** Input kinds such as `text`, `image`, `audio`, `file`, `document`. */
  readonly input?: readonly string[]
  readonly output?: readonly string[]
  readonly reasoning?: boolean
  readonly tools?: boolean
  readonly streaming?: boolean
  readonly structuredOutput?: boolean | 'json_schema'
}
export interface ModelLimits {
  readonly contextWindow?: number
  readonly maxOutputTokens?: number
}
export interface ModelCost {
  readonly input?: number
  readonly output?: number
  readonly cacheRead?: number
  readonly cacheWrite?: number
  readonly currency?: string
  readonly unit?: string
}
/** The model a provider turn runs on (the host's; passed through). */
export interface ModelConfig {
  readonly provider: string
  readonly model: string
  readonly displayName?: string
  readonly capabilities?: ModelCapabilities
  readonly limits?: ModelLimits
  readonly cost?: ModelCost
  readonly cache?: ModelCacheCapabilities
  readonly compat?: JsonObject
  readonly parameters?: Readonly<Record<string, unknown>>
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface ProviderTurnMetadata {
  readonly providerId: string
  readonly model: ModelConfig
  readonly requestId?: string
  readonly latencyMs?: number
  readonly attempt?: number
  readonly httpStatus?: number
  readonly rateLimitRemaining?: number
  readonly rateLimitResetMs?: number
}

/** Why a loop stopped at a ceiling (absent: the run ended naturally). */
export type AgentFinishReason = 'turn_limit' | 'token_limit' | 'refusal'

/** The ceilings of a run (enforced by the host's runtime). */
export interface RunLimits {
  readonly maxTurns?: number
  readonly maxProviderAttempts?: number
  readonly maxToolRounds?: number
  readonly maxToolCalls?: number
  readonly maxWallTimeMs?: number
  readonly maxRequestBytes?: number
  readonly maxResponseBytes?: number
  readonly maxInputTokens?: number
  readonly maxOutputTokens?: number
  readonly maxTotalTokens?: number
  readonly maxCost?: { readonly amount: number; readonly currency: string }
}
export type RunLimitName = keyof Required<RunLimits>
export interface RunLimitBreach {
  readonly limit: RunLimitName
  readonly maximum: number
  readonly observed: number
  readonly currency?: string
}
export type GuardrailStage = 'input' | 'output' | 'tool_input' | 'tool_output'
export type GuardrailAction = 'allow' | 'block' | 'tripwire' | 'interrupt'
export interface GuardrailRecord {
  readonly guardrail: string
  readonly stage: GuardrailStage
  readonly action: GuardrailAction
  readonly reason?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export type SubscriberOverflowPolicy = 'close' | 'drop_oldest' | 'drop_newest'
export interface ArtifactValidation {
  readonly ok: boolean
  readonly errors?: readonly { readonly path?: string; readonly message: string }[]
  readonly metadata?: Readonly<Record<string, unknown>>
}

export type AgentRunInterruptionKind = 'input_guardrail' | 'tool_approval' | 'elicitation'
export type PendingDecisionKind = 'tool_approval' | 'elicitation'
/** What a pending or remembered decision applies to (redacted; never raw arguments). */
export interface DecisionScope {
  readonly toolName?: string
  readonly effectKind?: ToolEffectKind
  readonly identity?: string
  readonly actionConstraints?: Readonly<Record<string, JsonValue>>
  readonly argumentsHash?: string
}
export interface PendingDecision {
  readonly approvalId: string
  readonly kind: PendingDecisionKind
  readonly toolCallId?: string
  readonly scope: DecisionScope
  readonly reason: string
  readonly elicitationSchema?: JsonObject
  readonly attribution?: { readonly path: readonly string[] }
}
/** Where and why a durable run suspended (redacted). */
export interface AgentRunInterruption {
  readonly kind: AgentRunInterruptionKind
  readonly reason: string
  readonly toolCallId?: string
  readonly toolName?: string
  readonly pendingDecisions?: readonly PendingDecision[]
}

export type DelegatedAgentStepState = 'active' | 'done' | 'error'
export type DelegatedAgentStepKind = 'assistant' | 'tool' | 'subagent' | 'checkpoint' | 'unknown'
export interface DelegatedAgentStepUsage {
  readonly inputTokens?: number
  readonly outputTokens?: number
  readonly thinkingTokens?: number
  readonly cacheReadTokens?: number
  readonly cacheWriteTokens?: number
  readonly totalTokens?: number
}
/** One step of a delegated (external) agent, as timeline metadata only. */
export interface DelegatedAgentStep {
  readonly type: 'delegated_agent_step'
  readonly sessionId: string
  readonly runId: string
  readonly adapterId: string
  readonly externalConversationId: string
  readonly stepIndex: number
  readonly state: DelegatedAgentStepState
  readonly kind: DelegatedAgentStepKind
  readonly durationMs?: number
  readonly usage?: DelegatedAgentStepUsage
  readonly toolName?: string
  readonly subagentType?: string
  readonly detail?: { readonly referenceId?: string; readonly label?: string }
}

/**
 * Every event of an agent run. Dispatch here emits the `tool_execution_*` members; the others
 * come from the host's runtime and pass through a loop's `emit` untouched. The union is
 * discriminated by `type`, so a `switch (event.type)` narrows each case.
 */
export type AgentEvent =
  | { readonly type: 'agent_started'; readonly sessionId: string; readonly runId: string }
  | {
      readonly type: 'agent_finished'
      readonly sessionId: string
      readonly runId: string
      readonly usage?: Usage
      readonly finishReason?: AgentFinishReason
    }
  | {
      readonly type: 'agent_suspended'
      readonly sessionId: string
      readonly runId: string
      readonly interruption: AgentRunInterruption
      readonly version: number
    }
  | { readonly type: 'agent_resumed'; readonly sessionId: string; readonly runId: string; readonly version: number }
  | {
      readonly type: 'agent_denied'
      readonly sessionId: string
      readonly runId: string
      readonly interruption: AgentRunInterruption
      readonly version: number
    }
  | { readonly type: 'turn_started'; readonly sessionId: string; readonly runId: string; readonly turn: number }
  | { readonly type: 'turn_finished'; readonly sessionId: string; readonly runId: string; readonly turn: number }
  | {
      readonly type: 'provider_turn_started'
      readonly sessionId: string
      readonly runId: string
      readonly turn: number
      readonly metadata: ProviderTurnMetadata
    }
  | {
      readonly type: 'provider_turn_finished'
      readonly sessionId: string
      readonly runId: string
      readonly turn: number
      readonly metadata: ProviderTurnMetadata
      readonly usage?: Usage
      readonly error?: ErrorInfo
    }
  | { readonly type: 'message_started'; readonly sessionId: string; readonly runId: string; readonly message: Message }
  | { readonly type: 'message_delta'; readonly sessionId: string; readonly runId: string; readonly content: ContentBlock }
  | { readonly type: 'message_finished'; readonly sessionId: string; readonly runId: string; readonly message: Message }
  | DelegatedAgentStep
  | ToolExecutionStartedEvent
  | ToolExecutionProgressEvent
  | ToolExecutionFinishedEvent
  | ToolExecutionErrorEvent
  | ToolExecutionBlockedEvent
  | {
      readonly type: 'guardrail_decision'
      readonly sessionId: string
      readonly runId: string
      readonly toolCallId?: string
      readonly toolName?: string
      readonly record: GuardrailRecord
    }
  | { readonly type: 'run_limit_exceeded'; readonly sessionId: string; readonly runId: string; readonly breach: RunLimitBreach }
  | { readonly type: 'queue_updated'; readonly sessionId: string; readonly runId: string; readonly size: number }
  | {
      readonly type: 'steer_rejected'
      readonly sessionId: string
      readonly runId: string
      readonly message: Message
      readonly record: GuardrailRecord
    }
  | {
      readonly type: 'event_subscriber_overflow'
      readonly sessionId: string
      readonly runId?: string
      readonly droppedEvents: number
      readonly maxQueuedEvents: number
      readonly overflow: SubscriberOverflowPolicy
    }
  | { readonly type: 'compaction_started'; readonly sessionId: string; readonly runId?: string }
  | { readonly type: 'compaction_finished'; readonly sessionId: string; readonly runId?: string; readonly summary: string }
  | {
      readonly type: 'retry_scheduled'
      readonly sessionId: string
      readonly runId: string
      readonly attempt: number
      readonly delayMs: number
      readonly error: ErrorInfo
    }
  | { readonly type: 'error'; readonly sessionId?: string; readonly runId?: string; readonly error: ErrorInfo }
  | {
      readonly type: 'artifact_validation_started'
      readonly sessionId: string
      readonly runId: string
      readonly turn: number
      readonly attempt: number
    }
  | {
      readonly type: 'artifact_validation_finished'
      readonly sessionId: string
      readonly runId: string
      readonly turn: number
      readonly attempt: number
      readonly result: ArtifactValidation
    }
  | {
      readonly type: 'artifact_revision_started'
      readonly sessionId: string
      readonly runId: string
      readonly turn: number
      readonly attempt: number
      readonly failure: ArtifactValidation
    }
  | {
      readonly type: 'artifact_finished'
      readonly sessionId: string
      readonly runId: string
      readonly turn: number
      readonly attempt: number
      readonly result: ArtifactValidation
    }
  | {
      readonly type: 'artifact_failed'
      readonly sessionId: string
      readonly runId: string
      readonly turn: number
      readonly attempt: number
      readonly result: ArtifactValidation
    }
export type AgentEventType = AgentEvent['type']

/** A ledger row of one tool call (`RunLedger.appendToolCall`). */
export interface ToolCallRecord extends OwnershipScope {
  readonly id: string
  readonly sessionId: string
  readonly runId?: string
  readonly entryId?: string
  readonly toolCallId: string
  readonly name: string
  readonly arguments: JsonObject
  /** The (redacted) result of a finished call. */
  readonly result?: ToolResult
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
export type RunStatus = 'queued' | 'running' | 'suspended' | 'denied' | 'succeeded' | 'failed' | 'aborted'
/** A ledger row of one run (written by the host's runtime). */
export interface RunRecord extends OwnershipScope {
  readonly id: string
  readonly sessionId: string
  readonly branchId?: string
  readonly agentDefinitionId?: string
  readonly agentDefinitionVersion?: string
  readonly model?: ModelConfig
  readonly provider?: string
  readonly idempotencyKey?: string
  readonly status?: RunStatus
  readonly startedAt: string
  readonly finishedAt?: string
  readonly abortReason?: string
  readonly error?: ErrorInfo
  readonly metadata?: Readonly<Record<string, unknown>>
}
/** A ledger row of one event (written by the host's runtime). */
export interface AgentEventRecord extends OwnershipScope {
  readonly id: string
  readonly sessionId: string
  readonly runId?: string
  readonly sequence?: number
  readonly entryId?: string
  readonly type: AgentEventType
  readonly timestamp: string
  readonly event: AgentEvent
  readonly redacted: boolean
  readonly metadata?: Readonly<Record<string, unknown>>
}
export type UsageScope = 'provider_turn' | 'run_total'
/** A ledger row of usage (written by the host's runtime). */
export interface UsageRecord extends OwnershipScope {
  readonly id: string
  readonly sessionId: string
  readonly runId?: string
  readonly entryId?: string
  readonly scope: UsageScope
  readonly turn?: number
  readonly attempt?: number
  readonly usage: Usage
  readonly recordedAt: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
/**
 * The host's write-side ledger. Dispatch here writes only `appendToolCall` rows; the other
 * methods belong to the contract so one ledger object serves the host's whole runtime.
 */
export interface RunLedger {
  appendRun(record: RunRecord): Promise<void> | void
  appendEvent(record: AgentEventRecord): Promise<void> | void
  appendToolCall(record: ToolCallRecord): Promise<void> | void
  appendUsage(record: UsageRecord): Promise<void> | void
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

export type ToolEffectStatus = 'pending' | 'dispatched' | 'completed' | 'failed_retryable' | 'failed_terminal' | 'unknown'
export interface ToolEffectRecord extends OwnershipScope {
  readonly key: string
  readonly sessionId: string
  readonly runId: string
  readonly toolCallId: string
  readonly toolName: string
  readonly argumentsHash: string
  readonly status: ToolEffectStatus
  readonly attempt: number
  readonly version: number
  readonly claimToken?: string
  readonly result?: ToolResult
  readonly resultRef?: string
  readonly failure?: { readonly code: string; readonly reference?: string }
  readonly createdAt: string
  readonly updatedAt: string
  readonly expiresAt?: string
}
export interface ToolEffectKey {
  readonly identity: AgentIdentity
  readonly ownership: OwnershipScope
  readonly key: string
  readonly sessionId: string
  readonly runId: string
  readonly toolCallId: string
  readonly toolName: string
  readonly argumentsHash: string
  readonly signal?: AbortSignal
}
export interface ToolEffectTransition extends ToolEffectKey {
  readonly claimToken: string
  readonly expectedVersion: number
}
/** The reference's durable effect store (out of scope here: accepted and ignored by dispatch). */
export interface ToolEffectStore {
  get(input: ToolEffectKey): Promise<ToolEffectRecord | undefined>
  begin(
    input: ToolEffectKey & { readonly claimTtlMs?: number; readonly maxAttempts?: number },
  ): Promise<{ readonly outcome: 'acquired' | 'existing'; readonly record: ToolEffectRecord }>
  markDispatched(input: ToolEffectTransition): Promise<ToolEffectRecord>
  complete(input: ToolEffectTransition & { readonly result?: ToolResult; readonly resultRef?: string }): Promise<ToolEffectRecord>
  fail(
    input: ToolEffectTransition & {
      readonly status: 'failed_retryable' | 'failed_terminal'
      readonly failure: { readonly code: string; readonly reference?: string }
    },
  ): Promise<ToolEffectRecord>
  markUnknown(input: ToolEffectTransition & { readonly failure?: { readonly code: string; readonly reference?: string } }): Promise<ToolEffectRecord>
  resolveUnknown(
    input: ToolEffectKey & {
      readonly expectedVersion: number
      readonly status: 'completed' | 'failed_retryable' | 'failed_terminal'
      readonly result?: ToolResult
      readonly resultRef?: string
      readonly failure?: { readonly code: string; readonly reference?: string }
    },
  ): Promise<ToolEffectRecord>
  cleanup(input: {
    readonly ownership: OwnershipScope
    readonly before: string
    readonly limit?: number
    readonly signal?: AbortSignal
  }): Promise<{ readonly deleted: number }>
}
export type GuardrailValue<S extends GuardrailStage> = S extends 'input'
  ? readonly Message[]
  : S extends 'output'
    ? ProviderTurnResult
    : S extends 'tool_input'
      ? ToolCallContent
      : ToolResult
export interface GuardrailContext<S extends GuardrailStage> {
  readonly stage: S
  readonly value: GuardrailValue<S>
  readonly sessionId: string
  readonly runId: string
  readonly toolCallId?: string
  readonly toolName?: string
  readonly metadata: Readonly<Record<string, unknown>>
  readonly signal: AbortSignal
}
export interface GuardrailDecision {
  readonly action: GuardrailAction
  readonly reason?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface Guardrail<S extends GuardrailStage = GuardrailStage> {
  readonly name: string
  readonly stage: S
  readonly revision?: string
  evaluate(context: GuardrailContext<S>): GuardrailDecision | Promise<GuardrailDecision>
}
/** The reference's guardrail stages (out of scope here: accepted and ignored by dispatch). */
export interface Guardrails {
  readonly input?: readonly Guardrail<'input'>[]
  readonly output?: readonly Guardrail<'output'>[]
  readonly toolInput?: readonly Guardrail<'tool_input'>[]
  readonly toolOutput?: readonly Guardrail<'tool_output'>[]
  readonly maxConcurrency?: number
}
/**
 * The reference runtime's run-limit tracker (a class of that runtime). Out of scope here:
 * accepted and ignored, so any value, the reference's tracker included, type-checks.
 */
export type RunLimitTracker = unknown

export interface DispatchToolCallOptions {
  /** The model's call. Required: a non-object rejects with a TypeError (`ERR_PRISM_INVALID_DISPATCH`). */
  readonly call: ToolCallContent
  /** Where the call's tool is looked up (`unknown_tool` when missing). Required: absent rejects with a TypeError. */
  readonly registry: ToolRegistry
  /**
   * The host's context (`sessionId`, `runId`, `signal`, `metadata`, `progress`). `execute` gets a
   * copy with `toolCallId` from the call and without `idempotencyKey`.
   */
  readonly context: ToolExecutionContext
  /** `{allow?, deny?}` or an array of them: exact names, deny wins (`tool_denied`). Default none. Compiled once per filter object. */
  readonly filter?: ToolFilterInput
  /** Its `tool_call` middleware sees the call before every gate, `tool_result` the raw result. Default none. */
  readonly middleware?: MiddlewareRegistry
  /** Runs after permission; a non-empty string or an `ErrorInfo` blocks (`validation_failed`). Default none. */
  readonly validate?: ToolValidator
  /** The last hook before execution; a throw blocks (`execution_denied`), except the suspension codes, which reject. Default none. */
  readonly beforeExecute?: (call: ToolCallContent, tool: ToolDefinition, context: ToolExecutionContext) => void | Promise<void>
  /** Receives every `tool_execution_*` event; awaited when it returns a promise. Default none. */
  readonly emit?: (event: AgentEvent) => void | Promise<void>
  /** Strings replaced by `[REDACTED]` in error names, messages, string codes, causes and validator `ErrorInfo`s. */
  readonly secrets?: readonly (string | undefined)[]
  /** Asked with the key `tool:<name>:execute`; a denial blocks (`permission_denied`). Default none (allowed). */
  readonly permission?: PermissionPolicy
  /** Asked for `tool:<name>`, capability `execute`, before `permission`; a denial blocks (`permission_denied`). Default none. */
  readonly trust?: TrustPolicy
  /** `redact(value)` applied to successful results and ledger rows. Default none. */
  readonly redactor?: SecretRedactor
  /** Gets `appendToolCall` rows (`started`, `finished`, `error`, `blocked`, progress); awaited. Default none. */
  readonly ledger?: RunLedger
  /** Accepted for compatibility and ignored (the reference runtime's durable effects are out of scope). */
  readonly effectStore?: ToolEffectStore
  /** Ownership fields copied into ledger rows. */
  readonly ownership?: OwnershipScope
  /** The agent identity for the context. */
  readonly identity?: AgentIdentity
  /** Accepted for compatibility and ignored (out of scope). */
  readonly guardrails?: Guardrails
  /** Accepted for compatibility and ignored (out of scope). */
  readonly limitTracker?: RunLimitTracker
}

/**
 * A registry in insertion order. `duplicate: "replace"` (default) keeps a replaced tool's
 * position; `"error"` throws `Duplicate tool: <name>`. `get` returns the registered object
 * itself; `resolve` throws `Unknown tool: <name>`.
 */
export function createToolRegistry(tools?: readonly ToolDefinition[], options?: ToolRegistryOptions): ToolRegistry
/** The tools the filter lets through (exact names, deny wins, every non-empty `allow` must list the tool); all of them without a filter. */
export function filterTools(tools: readonly ToolDefinition[], filter?: ToolFilterInput): readonly ToolDefinition[]
/**
 * Runs a tool call through the frozen gates: `tool_call` middleware → lookup/filter/args →
 * trust + permission → validator → `beforeExecute` → started → execute → `tool_result`
 * middleware → redaction → finished event + ledger. Blocked and failed calls resolve to a
 * result with `error`; a non-object `call` or a missing `registry` rejects with a TypeError
 * (`code: "ERR_PRISM_INVALID_DISPATCH"`).
 */
export function dispatchToolCall(options: DispatchToolCallOptions): Promise<ToolResult>
/**
 * `dispatchToolCall` with its options bound once (read now; every option but `call`):
 * `(call) => Promise<ToolResult>`, the same result as `dispatchToolCall({ ...options, call })`,
 * for `LoopContext.dispatchToolCall`. This package's addition (not in the reference).
 *
 * A call of an MCP bridge's tool from `connectMcpTools` (with its own `execute`) runs in the
 * engine, the host's callbacks crossing at their own gates only: its arguments cross once as
 * JSON text, are checked against the tool's schema in the engine (when `validate` is made by
 * `createJsonSchemaToolArgumentValidator`; a validator of the host's is called at its gate)
 * and sent to the server as the same bytes. Middleware, `trust`, `permission`,
 * `beforeExecute`, `emit`, the ledger and `redactor` are each called at their gate, awaited,
 * as `dispatchToolCall` calls them. With none of them but the static policies of
 * `createStaticTrustPolicy` and `createStaticPermissionPolicy`, `dispatchToolCallsInOrder`
 * with this dispatcher starts a turn's calls together (one crossing per MCP server); otherwise
 * the checks and starts of one tick cross together. A read tool's calls (a tool of
 * `createReadTool` with no `executionPolicy`, `operations`, `documentReader` or
 * `transformImage`, with its own `execute`) run in the engine too: the reads that start
 * together cross together and are read off the JS thread. A call the engine does not take goes on
 * through `dispatchToolCall`'s driver from the gate where it stopped, and every other call
 * takes `dispatchToolCall`'s path. A bad options
 * value (not an object, an unreadable field, unreadable `secrets`) throws here.
 */
export function createToolDispatcher(options: Omit<DispatchToolCallOptions, 'call'> & { readonly call?: never }): (call: ToolCallContent) => Promise<ToolResult>
/**
 * A `ToolValidator` over a schema adapter (`validate(schema, value)`): a failure blocks with the
 * errors as `path: message` joined by `"; "`. A tool without `parameters` passes, or with
 * `missingSchema: "reject"` fails (`Tool <name> has no parameters schema`). A bad
 * `missingSchema` throws a TypeError at creation.
 */
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
/** A denied execution (`assertExecutionAllowed`); `code` `ERR_PRISM_EXECUTION_DENIED`. */
export class ExecutionDeniedError extends Error {
  readonly code: 'ERR_PRISM_EXECUTION_DENIED'
  readonly action: ExecutionAction
  readonly decision: ExecutionDecision
  constructor(action: ExecutionAction, decision: ExecutionDecision)
}
/** The policy's decision for `action`; without a policy, `{ allowed: true }`. */
export function checkExecution(policy: ExecutionPolicy | undefined, action: ExecutionAction): Promise<ExecutionDecision>
/** `action` with the decision's `modified` fields laid over it (shallow). */
export function applyExecutionDecision(action: ExecutionAction, decision: ExecutionDecision): ExecutionAction
/**
 * The action to perform: `action` itself without a policy, the modified action when allowed.
 * Rejects with `ExecutionDeniedError` (`ERR_PRISM_EXECUTION_DENIED`; message the decision's
 * reason, else `Execution denied for <kind>:<operation>`) when `allowed` is not `true`.
 */
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
/** A denied permission (`assertPermission`); `code` `ERR_PRISM_PERMISSION_DENIED`. */
export class PermissionDeniedError extends Error {
  readonly code: 'ERR_PRISM_PERMISSION_DENIED'
  readonly request: PermissionRequest
  readonly decision: PermissionDecision
  constructor(request: PermissionRequest, decision: PermissionDecision)
}
/** The policy's decision; without a policy, `{ allowed: true }`. */
export function checkPermission(policy: PermissionPolicy | undefined, request: PermissionRequest): Promise<PermissionDecision>
/**
 * Resolves when allowed (or without a policy); otherwise rejects with `PermissionDeniedError`
 * (`ERR_PRISM_PERMISSION_DENIED`; message the decision's reason, else `Permission denied for <key>`).
 */
export function assertPermission(policy: PermissionPolicy | undefined, request: PermissionRequest): Promise<void>
/**
 * A policy over keys `<kind>:<target>:<action>` (`tool:<name>:execute` for dispatch): deny wins
 * (`Permission denied: <key>`); with a non-empty `allow`, an unlisted key is refused
 * (`Permission not allowed: <key>`); otherwise allowed. `true`/`false` give a constant decision.
 * A list that is not iterable throws a TypeError.
 */
export function createStaticPermissionPolicy(options: { readonly allow?: readonly string[]; readonly deny?: readonly string[] } | boolean): PermissionPolicy

export interface TrustRequest {
  readonly kind: 'project' | 'resource' | 'extension' | 'tool' | (string & {})
  readonly target: string
  readonly capability?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface TrustDecision {
  readonly trusted: boolean
  readonly reason?: string
  readonly metadata?: Readonly<Record<string, unknown>>
}
/** `check` answers with a decision object; `isTrusted` reduces it to a boolean. */
export interface TrustPolicy {
  check(request: TrustRequest): TrustDecision | Promise<TrustDecision>
}
/** An untrusted request (`assertTrusted`); `code` `ERR_PRISM_UNTRUSTED`. */
export class TrustDeniedError extends Error {
  readonly code: 'ERR_PRISM_UNTRUSTED'
  readonly request: TrustRequest
  readonly decision: TrustDecision
  constructor(request: TrustRequest, decision: TrustDecision)
}
/** Whether the policy trusts the request (`true` without a policy). */
export function isTrusted(policy: TrustPolicy | undefined, request: TrustRequest): Promise<boolean>
/**
 * Resolves when trusted (or without a policy); otherwise rejects with `TrustDeniedError`
 * (`ERR_PRISM_UNTRUSTED`; message the decision's reason, else `Untrusted <kind>: <target>`).
 */
export function assertTrusted(policy: TrustPolicy | undefined, request: TrustRequest): Promise<void>
/** A policy that always answers `decision` (a boolean becomes `{ trusted }`). */
export function createStaticTrustPolicy(decision: boolean | TrustDecision): TrustPolicy
/** The `ErrorInfo` (`name`, `message`, `code`, ...) of a permission, trust or execution denial. */
export function denialToErrorInfo(error: unknown): ErrorInfo

// ---------------------------------------------------------------------------------------------
// 5. Middleware
// ---------------------------------------------------------------------------------------------

/** The hooks of the reference's runtime; dispatch here runs `tool_call` and `tool_result`. */
export type MiddlewareHookName =
  | 'provider_request'
  | 'input_assembly'
  | 'prompt_build'
  | 'context'
  | 'tool_call'
  | 'tool_result'
  | 'retry'
  | 'compaction'
  | 'session_start'
  | 'session_shutdown'
export type MiddlewareHook = MiddlewareHookName | (string & {})
/** Runs the rest of the chain on `value` and resolves to its result. */
export type MiddlewareNext<T> = (value: T) => Promise<T>
export type Middleware<T = unknown> = (value: T, next: MiddlewareNext<T>) => T | Promise<T>
export interface ExtensionEvent {
  readonly type: 'extension_error' | (string & {})
  readonly payload?: unknown
  /** The failing middleware's extension name, when known. */
  readonly extension?: string
  readonly error?: ErrorInfo
  readonly metadata?: Readonly<Record<string, unknown>>
}
export interface MiddlewareRegistryOptions {
  /** `"event"` (default): a throwing middleware is skipped and reported; `"throw"`: rethrown. */
  readonly errorPolicy?: 'event' | 'throw'
  /** Strings replaced by `[REDACTED]` in reported errors. Default none. */
  readonly secrets?: readonly (string | undefined)[]
  /** Gets the `extension_error` event of a middleware that threw (with `errorPolicy: "event"`). Default none. */
  readonly onError?: (event: ExtensionEvent) => void | Promise<void>
}
export interface MiddlewareRegistry {
  /** Adds a middleware; the returned function removes it. */
  use<T>(hook: MiddlewareHook, middleware: Middleware<T>): () => void
  run<T>(hook: MiddlewareHook, value: T): Promise<T>
  list(hook: MiddlewareHook): readonly Middleware[]
}
/**
 * Middleware per hook, run in registration order; `next(v)` makes `v` current and a second
 * `next()` is an error. `errorPolicy: "event"` (default) skips a throwing middleware and reports
 * an `extension_error` to `onError` (its message redacted with `secrets`); `"throw"` rethrows.
 * A bad `errorPolicy` throws a TypeError at creation.
 */
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

/** A block of context the host's runtime adds to a provider request. */
export interface ContextBlock {
  readonly id?: string
  readonly title?: string
  readonly content: string | readonly ContentBlock[]
  readonly priority?: number
  readonly metadata?: Readonly<Record<string, unknown>>
}
export type CacheRetention = 'none' | 'short' | 'long'
export type PromptCacheMode = 'auto' | 'on' | 'off'
export type PromptCacheBreakpointLocation =
  | 'system_prompt'
  | 'tools'
  | 'stable_context'
  | 'last_stable_message'
  | 'last_user_message'
  | 'message_id'
export type PromptCacheBreakpointTtl = 'short' | 'long'
export interface PromptCacheBreakpoint {
  readonly location: PromptCacheBreakpointLocation
  readonly messageId?: string
  readonly ttl?: PromptCacheBreakpointTtl
}
export interface PromptCacheHints {
  readonly mode?: PromptCacheMode
  readonly key?: string
  readonly retention?: CacheRetention
  readonly breakpoints?: readonly PromptCacheBreakpoint[]
}
export interface StructuredOutputOptions {
  readonly name: string
  readonly schema: JsonObject
  readonly strict?: boolean
}
export interface ProviderRequestOptions {
  readonly sessionId?: string
  readonly cacheRetention?: CacheRetention
  readonly cacheKey?: string
  readonly cache?: PromptCacheHints
  readonly headers?: Readonly<Record<string, string>>
  readonly compat?: JsonObject
  readonly extra?: JsonObject
  readonly structuredOutput?: StructuredOutputOptions
  readonly continuation?: { readonly cursor: string }
}
/** The provider request the host's runtime assembles (`LoopContext.assemble`); the loop passes it on. */
export interface ProviderRequest {
  readonly model: ModelConfig
  readonly messages: readonly Message[]
  readonly tools?: readonly ToolDefinition[]
  readonly context?: readonly ContextBlock[]
  readonly options?: ProviderRequestOptions
  readonly metadata?: Readonly<Record<string, unknown>>
  readonly signal?: AbortSignal
}
/**
 * One provider turn as `LoopContext.generate` returns it: the streamed content blocks, the
 * complete tool calls, the assistant message id, whether the turn started, and its usage.
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
  /** Set by a loop that stops at a ceiling (`turn_limit`); the runtime reports it. */
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
  /** Runs the loop; resolves to the run's usage when the strategy tracks it. */
  run(ctx: LoopContext): Promise<Usage | undefined>
  /** Loop-local state captured at a durable suspension (declared together with `restore`). */
  snapshot?(): JsonValue
  restore?(snapshot: JsonValue): void
}

export interface ArtifactContext {
  readonly sessionId: string
  readonly runId: string
  readonly turn: number
  readonly signal: AbortSignal
  readonly metadata: Readonly<Record<string, unknown>>
}
export interface ArtifactParseResult<T> {
  readonly ok: boolean
  readonly value?: T
  readonly error?: string
}
export type ArtifactParser<T> = (text: string, ctx: ArtifactContext) => ArtifactParseResult<T> | Promise<ArtifactParseResult<T>>
export type ArtifactValidator<T> = (value: T, ctx: ArtifactContext) => ArtifactValidation | Promise<ArtifactValidation>
export type ArtifactRepairer<T> = (value: T | undefined, failure: ArtifactValidation, ctx: ArtifactContext) => AgentInput | Promise<AgentInput>

/** Loop options; only `single-shot` runs here (generate-validate-revise is the host runtime's). */
export type AgentLoopOptions =
  | { readonly strategy: 'single-shot'; readonly toolConcurrency?: number }
  | {
      readonly strategy: 'generate-validate-revise'
      readonly validator: ArtifactValidator<unknown>
      readonly parser?: ArtifactParser<unknown>
      readonly repairer?: ArtifactRepairer<unknown>
      readonly maxRevisions?: number
      readonly toolCalls?: 'disabled' | 'bounded'
      readonly structuredOutput?: StructuredOutputOptions
      readonly structuredOutputMode?: 'native' | 'artifact-loop'
      readonly structuredOutputTiming?: 'every-turn' | 'final-turn-only'
    }

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
