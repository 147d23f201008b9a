// A host written against the public signatures; `npm test` type-checks it with `tsc --noEmit`.
import {
  createToolRegistry,
  dispatchToolCall,
  filterTools,
  createMiddlewareRegistry,
  createStaticPermissionPolicy,
  createStaticTrustPolicy,
  createToolParameterValidator,
  assertExecutionAllowed,
  checkExecution,
  applyExecutionDecision,
  ExecutionDeniedError,
  PermissionDeniedError,
  dispatchToolCallsInOrder,
  resolveToolConcurrency,
  singleShotLoop,
  type AgentEvent,
  type ExecutionPolicy,
  type JsonObject,
  type LoopContext,
  type ProviderTurnResult,
  type Usage,
  type ToolArgumentValidator,
  type ToolDefinition,
  type ToolResult,
  type ToolValidator,
} from 'prism-native'
import { assertToolDispatchConforms, assertToolBlocked, dispatchAndCollect } from 'prism-native/testing/tool-conformance'

const echo: ToolDefinition = {
  name: 'echo',
  kind: 'other',
  description: 'Echoes its text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  effect: { kind: 'none', idempotency: 'none' },
  async execute(args: JsonObject, context): Promise<ToolResult> {
    await context.progress?.({ step: 1 })
    return { toolCallId: context.toolCallId, name: 'echo', content: [{ type: 'text', text: String(args.text) }] }
  },
}

const registry = createToolRegistry([echo], { duplicate: 'error' })
const visible: readonly ToolDefinition[] = filterTools(registry.list(), [{ allow: ['echo'] }, { deny: ['rm'] }])
const middleware = createMiddlewareRegistry({ errorPolicy: 'event', onError: (e) => void e.extension })
const off: () => void = middleware.use<ToolResult>('tool_result', (result, next) => next(result))
off()
const adapter: ToolArgumentValidator = { validate: () => ({ ok: false, errors: [{ path: '/text', message: 'must be string' }] }) }
const validate: ToolValidator = createToolParameterValidator(adapter, { missingSchema: 'reject' })
const events: AgentEvent[] = []

async function main(): Promise<void> {
  const result: ToolResult = await dispatchToolCall({
    call: { type: 'tool_call', id: 'c1', name: 'echo', arguments: { text: 'hi' } },
    registry,
    context: { sessionId: 's', runId: 'r', toolCallId: 'c1', signal: new AbortController().signal },
    filter: { allow: ['echo'] },
    middleware,
    validate,
    permission: createStaticPermissionPolicy({ allow: ['tool:echo:execute'] }),
    trust: createStaticTrustPolicy(true),
    secrets: ['token', undefined],
    emit: (event) => {
      events.push(event)
    },
    ledger: {
      appendRun: () => undefined,
      appendEvent: () => undefined,
      appendToolCall: (row) => void row.result?.error,
      appendUsage: () => undefined,
    },
  })
  void result.error?.message
  void visible

  const policy: ExecutionPolicy = { check: (action) => ({ allowed: action.kind === 'read' }) }
  const action = await assertExecutionAllowed(policy, { kind: 'read', operation: 'read', paths: ['/tmp/x'] })
  const decision = await checkExecution(undefined, action)
  applyExecutionDecision(action, decision)
  const denied = new ExecutionDeniedError(action, { allowed: false })
  const code: 'ERR_PRISM_EXECUTION_DENIED' = denied.code
  const perm: 'ERR_PRISM_PERMISSION_DENIED' = new PermissionDeniedError({ kind: 'tool', action: 'execute', target: 'x' }, { allowed: false }).code
  void code
  void perm

  const n: number = resolveToolConcurrency({ loop: { strategy: 'single-shot', toolConcurrency: 4 } }, {})
  const ctx = {} as LoopContext
  const turn: ProviderTurnResult = { content: [{ type: 'text', text: 'hi' }], calls: [], messageId: 'm1', started: true, usage: { inputTokens: 1 } }
  void turn
  if (n < 0) {
    await dispatchToolCallsInOrder([], ctx)
    const usage: Usage | undefined = await singleShotLoop.run(ctx)
    void usage?.outputTokens
  }

  await assertToolDispatchConforms(createToolRegistry(), { tool: echo, validArgs: { text: 'x' } })
  await assertToolBlocked({ call: { type: 'tool_call', id: 'x', name: 'nope', arguments: {} }, registry }, 'unknown_tool')
  const collected = await dispatchAndCollect({ call: { type: 'tool_call', id: 'y', name: 'echo', arguments: { text: 'y' } }, registry })
  void collected.events.length
}

void main()
