// A host written in the reference SDK's documented style, with its imports pointed at
// prism-native: it narrows events with `switch (event.type)`, passes a verified identity,
// plugs in its own read, edit and shell backends, answers trust checks with a decision,
// and calls `next(value)` in middleware. `tsc --noEmit --strict` must accept it unchanged.
import {
  createMiddlewareRegistry,
  createToolRegistry,
  dispatchToolCall,
  isTrusted,
  singleShotLoop,
  type AgentEvent,
  type AgentIdentity,
  type AgentLoopStrategy,
  type LoopContext,
  type Message,
  type ProviderTurnResult,
  type RunLedger,
  type ToolCallDeltaContent,
  type ToolCallRecord,
  type ToolDefinition,
  type ToolResult,
  type TrustPolicy,
  type Usage,
} from 'prism-native'
import {
  createEditTool,
  createReadPathSet,
  createReadTool,
  createShellTool,
  createWriteTool,
  type BashOperations,
  type BashSpawnHook,
  type DocumentReader,
  type EditOperations,
  type ReadOperations,
  type ReadTextResult,
  type WriteOperations,
} from 'prism-native/coding-tools/agent'
import type { McpToolBridge } from 'prism-native/mcp'

/** Every event kind a UI shows; the compiler checks each case's fields. */
export function describe(event: AgentEvent): string {
  switch (event.type) {
    case 'tool_execution_started':
      return `start ${event.call.name}(${JSON.stringify(event.call.arguments)})`
    case 'tool_execution_progress':
      return `progress ${event.name} ${event.toolCallId}`
    case 'tool_execution_finished':
      return `done ${event.result.name} in ${event.metadata.durationMs} ms${event.result.error ? ` (${event.result.error.message})` : ''}`
    case 'tool_execution_error':
      return `error ${event.call.name}: ${event.error.message}`
    case 'tool_execution_blocked':
      return `blocked ${event.name}: ${event.reason}`
    case 'agent_finished':
      return `finished${event.finishReason ? ` (${event.finishReason})` : ''} ${event.usage?.totalTokens ?? 0} tokens`
    case 'provider_turn_finished':
      return `turn ${event.turn} on ${event.metadata.model.model}`
    case 'message_delta':
      return event.content.type === 'text' ? event.content.text : event.content.type
    case 'run_limit_exceeded':
      return `limit ${event.breach.limit}: ${event.breach.observed} > ${event.breach.maximum}`
    default:
      return event.type
  }
}

const identity: AgentIdentity = {
  tenantId: 'acme',
  userId: 'u-1',
  principal: { kind: 'user', id: 'u-1', displayName: 'Ada' },
  scopes: ['tools:read'],
  issuedAt: '2026-01-01T00:00:00.000Z',
  verified: true,
}

const trust: TrustPolicy = {
  check: (request) => ({ trusted: request.kind === 'tool' && request.target === 'echo', reason: 'allow-list' }),
}

const rows: ToolCallRecord[] = []
const ledger: RunLedger = {
  appendRun: () => undefined,
  appendEvent: () => undefined,
  appendToolCall: (record) => {
    rows.push(record)
  },
  appendUsage: async () => undefined,
}

const echo: ToolDefinition = {
  name: 'echo',
  parameters: { type: 'object', properties: { text: { type: 'string' } } },
  execute: (args, context): ToolResult => ({
    toolCallId: context.toolCallId,
    name: 'echo',
    content: [{ type: 'text', text: `${context.identity?.principal.id ?? 'anon'}: ${String(args.text)}` }],
  }),
}

// A host's in-memory file store behind the coding tools.
const files = new Map<string, string>()
const readOperations: ReadOperations = {
  readFile: async (path, { maxBytes }) => {
    const text = files.get(path) ?? ''
    if (Buffer.byteLength(text) > maxBytes) throw new Error(`${path} is larger than ${maxBytes} bytes`)
    return Buffer.from(text)
  },
  readText: async (path, { offset, limit, maxLines }): Promise<ReadTextResult> => {
    const lines = (files.get(path) ?? '').split('\n')
    const page = lines.slice(offset - 1, offset - 1 + Math.min(limit ?? maxLines, maxLines))
    const hasMore = offset - 1 + page.length < lines.length
    return {
      content: page.join('\n'),
      startLine: offset,
      outputLines: page.length,
      hasMore,
      nextOffset: hasMore ? offset + page.length : undefined,
      truncatedBy: hasMore ? 'lines' : null,
      firstLineExceedsLimit: false,
      scannedBytes: Buffer.byteLength(page.join('\n')),
      totalLines: lines.length,
    }
  },
  access: async (path) => {
    if (!files.has(path)) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' })
  },
  statFile: async (path) => ({ size: Buffer.byteLength(files.get(path) ?? '') }),
  detectImageMimeType: async () => null,
}
const editOperations: EditOperations = {
  readFile: readOperations.readFile,
  access: readOperations.access,
  statFile: readOperations.statFile,
  writeFile: async (path, content) => {
    files.set(path, content)
  },
}
const writeOperations: WriteOperations = {
  writeFile: async (path, content) => {
    files.set(path, content)
  },
  mkdir: async () => undefined,
}
const bashOperations: BashOperations = {
  exec: async (command, _cwd, { onData, signal }) => {
    if (signal?.aborted) return { exitCode: null }
    onData(Buffer.from(`ran ${command}\n`))
    return { exitCode: 0 }
  },
}
const spawnHook: BashSpawnHook = (context) => ({ ...context, env: { ...context.env, CI: '1' } })
const documentReader: DocumentReader = {
  maxInputBytes: 1 << 20,
  maxTextBytes: 1 << 16,
  extract: async ({ buffer, path }) => (path.endsWith('.pdf') ? { text: buffer.toString('latin1'), format: 'pdf', pages: 1, truncatedBy: null } : null),
}
const readPathSet = createReadPathSet()
export const codingTools: ToolDefinition[] = [
  createReadTool('/workspace', { operations: readOperations, readPathSet, documentReader }),
  createWriteTool('/workspace', { operations: writeOperations, requireReadBeforeWrite: true, readPathSet }),
  createEditTool('/workspace', {
    operations: editOperations,
    requireReadBeforeWrite: true,
    readPathSet,
    onEvent: (event) => {
      if (event.type === 'file_changed') console.log(event.op, event.path)
    },
  }),
  createShellTool('/workspace', { operations: bashOperations, spawnHook }),
]

export async function run(signal: AbortSignal): Promise<readonly string[]> {
  const middleware = createMiddlewareRegistry()
  middleware.use<ToolResult>('tool_result', async (result, next) => next({ ...result, metadata: { ...result.metadata, audited: true } }))
  const registry = createToolRegistry([echo, ...codingTools])
  const lines: string[] = []
  const result = await dispatchToolCall({
    call: { type: 'tool_call', id: 'c1', name: 'echo', arguments: { text: 'hi' } },
    registry,
    context: { sessionId: 's', runId: 'r', toolCallId: 'c1', signal, identity },
    identity,
    ownership: { tenantId: identity.tenantId, userId: identity.userId },
    middleware,
    trust,
    ledger,
    emit: (event) => {
      lines.push(describe(event))
    },
  })
  const trusted: boolean = await isTrusted(trust, { kind: 'tool', target: 'echo' })
  lines.push(`${result.name} ${trusted} ${rows[0]?.result?.name ?? ''}`)
  return lines
}

/** A host's own loop context around prism-native's single-shot loop. */
export function loopContext(history: Message[], turns: readonly ProviderTurnResult[]): LoopContext {
  let turn = 0
  return {
    sessionId: 's',
    runId: 'r',
    metadata: {},
    signal: new AbortController().signal,
    history,
    input: 'hello',
    inputMessages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }],
    maxToolRounds: 4,
    toolConcurrency: 2,
    assemble: async (_input, _results, n) => ({
      model: { provider: 'mock', model: 'm' },
      messages: history,
      metadata: { turn: n },
    }),
    generate: async () => turns[turn++] ?? { content: [], calls: [], started: true },
    dispatchToolCall: async (call) => ({ toolCallId: call.id, name: call.name, value: 'ok' }),
    appendMessage: async (message) => {
      history.push(message)
    },
    emit: (event) => void describe(event),
  }
}
export const loop: AgentLoopStrategy = singleShotLoop
export async function runLoop(ctx: LoopContext): Promise<Usage | undefined> {
  return loop.run(ctx)
}

/** Streamed tool-call fragments, reassembled by position. */
export function joinDeltas(deltas: readonly ToolCallDeltaContent[]): Map<number, string> {
  const byIndex = new Map<number, string>()
  for (const d of deltas) byIndex.set(d.index, (byIndex.get(d.index) ?? '') + (d.argumentsText ?? ''))
  return byIndex
}

/** A bridge from either package: `serverPid` is a prism-native extra. */
export function pidOf(bridge: McpToolBridge): number {
  return bridge.serverPid ?? 0
}
