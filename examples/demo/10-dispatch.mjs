// One scripted model turn with four tool calls through the native dispatch: one succeeds
// with progress, one is blocked by permission, one by the validator, one throws.
import {
  createToolParameterValidator,
  createStaticPermissionPolicy,
  createToolRegistry,
  dispatchToolCall,
  dispatchToolCallsInOrder,
} from 'prism-native'

export const title = 'Tool harness: one model turn, four calls'

const tools = [
  {
    name: 'weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    async execute(args, context) {
      await context.progress({ step: 'looking up', city: args.city })
      return { toolCallId: context.toolCallId, name: 'weather', content: [{ type: 'text', text: `Sunny in ${args.city}` }] }
    },
  },
  { name: 'delete_repo', execute: () => ({ toolCallId: 'x', name: 'delete_repo' }) },
  { name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] }, execute: () => ({}) },
  {
    name: 'flaky',
    execute() {
      throw new Error('upstream returned 503 for token sk-demo-secret')
    },
  },
]

// A tiny stand-in for a JSON Schema adapter: required properties only.
const requiredOnly = {
  validate(schema, value) {
    const missing = (schema.required ?? []).filter((k) => !(k in value))
    return missing.length === 0 ? { ok: true } : { ok: false, errors: missing.map((k) => ({ path: '#/required', message: `must have required property '${k}'` })) }
  },
}

// What a scripted provider returned for this turn.
const turn = [
  { type: 'tool_call', id: 'call_1', name: 'weather', arguments: { city: 'Lisbon' } },
  { type: 'tool_call', id: 'call_2', name: 'delete_repo', arguments: {} },
  { type: 'tool_call', id: 'call_3', name: 'add', arguments: { b: 2 } },
  { type: 'tool_call', id: 'call_4', name: 'flaky', arguments: {} },
]

export async function run() {
  const registry = createToolRegistry(tools)
  const t0 = performance.now()
  const stamp = () => `${(performance.now() - t0).toFixed(1).padStart(6)} ms`
  const emit = (e) => {
    const detail = e.reason ? `${e.reason}: ${e.error.message}` : e.error ? e.error.message : e.progress ? JSON.stringify(e.progress) : ''
    console.log(`${stamp()}  ${e.type.padEnd(24)} ${e.call?.id ?? e.toolCallId ?? e.result?.toolCallId}  ${detail}`)
  }
  const history = []
  await dispatchToolCallsInOrder(turn, {
    sessionId: 'demo',
    runId: 'run-1',
    signal: new AbortController().signal,
    history,
    toolConcurrency: 1,
    appendMessage: async () => {},
    dispatchToolCall: (call) =>
      dispatchToolCall({
        call,
        registry,
        context: { sessionId: 'demo', runId: 'run-1', toolCallId: call.id },
        permission: createStaticPermissionPolicy({ deny: ['tool:delete_repo:execute'] }),
        validate: createToolParameterValidator(requiredOnly),
        secrets: ['sk-demo-secret'],
        emit,
      }),
  })
  console.log('transcript:')
  for (const m of history) {
    const r = m.content[0]
    console.log(`  ${r.toolCallId}  ${r.error ? `error: ${r.error.message}` : m.content[1]?.text}`)
  }
}
