// A turn of six independent slow tools, dispatched at concurrency 1 and then 4.
import { createToolRegistry, dispatchToolCall, dispatchToolCallsInOrder } from 'prism-native'

export const title = 'Parallel dispatch: six 50 ms tools at concurrency 1 and 4'

const registry = createToolRegistry([
  {
    name: 'fetch_page',
    async execute(args, context) {
      await new Promise((r) => setTimeout(r, 50))
      return { toolCallId: context.toolCallId, name: 'fetch_page', value: `page ${args.n}` }
    },
  },
])
const calls = Array.from({ length: 6 }, (_, n) => ({ type: 'tool_call', id: `call_${n}`, name: 'fetch_page', arguments: { n } }))

async function turn(toolConcurrency) {
  const history = []
  const t0 = performance.now()
  await dispatchToolCallsInOrder(calls, {
    sessionId: 'demo',
    runId: 'run-2',
    signal: new AbortController().signal,
    history,
    toolConcurrency,
    appendMessage: async () => {},
    dispatchToolCall: (call) => dispatchToolCall({ call, registry, context: { sessionId: 'demo', runId: 'run-2', toolCallId: call.id } }),
  })
  const ms = performance.now() - t0
  console.log(`concurrency ${toolConcurrency}: ${ms.toFixed(0)} ms, results in call order: ${history.map((m) => m.content[0].result.split(' ')[1]).join(',')}`)
}

export async function run() {
  await turn(1)
  await turn(4)
}
