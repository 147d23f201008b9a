// An MCP server's tools registered next to a local tool, dispatched through the same harness.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createToolRegistry, dispatchToolCall } from '../../index.js'
import { connectMcpTools } from '../../lib/mcp/index.mjs'

export const title = 'MCP bridge: server-everything tools next to a local tool'

const require = createRequire(import.meta.url)
const server = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js')

export async function run() {
  const started = performance.now()
  const bridge = await connectMcpTools({
    serverId: 'everything',
    transport: { type: 'stdio', command: process.execPath, args: [server, 'stdio'], stderr: 'ignore' },
    callTimeoutMs: 5_000,
  })
  console.log(`connected over stdio in ${(performance.now() - started).toFixed(0)} ms (server pid ${bridge.serverPid}); ${bridge.tools.length} remote tools`)
  try {
    const registry = createToolRegistry()
    registry.register({
      name: 'local_upper',
      description: 'Upper-cases text (a local tool)',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (args, ctx) => ({ toolCallId: ctx.toolCallId, name: 'local_upper', content: [{ type: 'text', text: String(args.text).toUpperCase() }] }),
    })
    for (const tool of bridge.tools) registry.register(tool)
    console.log('registry:', registry.list().map((t) => t.name).slice(0, 5).join(', '), '...')

    const calls = [
      { type: 'tool_call', id: 'call-1', name: 'local_upper', arguments: { text: 'local tools and' } },
      { type: 'tool_call', id: 'call-2', name: 'mcp:everything:echo', arguments: { message: 'remote tools share one harness' } },
      { type: 'tool_call', id: 'call-3', name: 'mcp:everything:get-sum', arguments: { a: 20, b: 22 } },
    ]
    for (const call of calls) {
      const events = []
      const result = await dispatchToolCall({
        call,
        registry,
        context: { sessionId: 'demo', runId: 'run-1', toolCallId: call.id },
        emit: (e) => events.push(e.type),
      })
      const mcp = result.metadata?.mcp ? ` mcp=${JSON.stringify(result.metadata.mcp)}` : ''
      console.log(`  ${call.name} -> ${JSON.stringify(result.content)}${mcp}\n    events: ${events.join(', ')}`)
    }

    const slow = registry.get('mcp:everything:trigger-long-running-operation')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 100)
    const aborted = await slow.execute({ duration: 10, steps: 5 }, { sessionId: 'demo', runId: 'run-1', toolCallId: 'call-4', signal: controller.signal })
    console.log(`  aborted long-running call -> ${aborted.error.message} (the server got notifications/cancelled)`)
    const again = await registry.get('mcp:everything:echo').execute({ message: 'still usable' }, { toolCallId: 'call-5' })
    console.log(`  after the abort -> ${again.content[0].text}`)
  } finally {
    const t = performance.now()
    await bridge.close()
    console.log(`closed in ${(performance.now() - t).toFixed(0)} ms; the server's process group is gone`)
  }
}
