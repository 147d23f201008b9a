// RSS over 100,000 native MCP calls (issue: "RSS flat over 100,000 native calls"): turns of 64
// `echo` calls to server-everything over stdio through dispatchToolCallsInOrder with a
// createToolDispatcher dispatcher (static permission, the JSON Schema validator, secrets), so
// every call runs in the engine. Prints RSS (and its anonymous part on Linux), V8 heap and
// external memory after a full GC at a few points, and the growth per call after the warm-up.
// With `js` after the count, the same turns go through a closure over dispatchToolCall (the
// JS driver and the tool's own execute), for comparison; with `gated`, the dispatcher also has
// an `emit` callback, so its calls take the gated path (the events at their gates, the check
// and the start in the engine); with `reads`, the turns are 64 reads of 4 KB files by a read
// tool through the same dispatcher (a native read turn), and no MCP server is started.
// Run: node --expose-gc bench/native-turn-memory.mjs [calls] [js|gated|reads]
import { createToolDispatcher, createToolRegistry, createStaticPermissionPolicy, dispatchToolCall as dispatchOne, dispatchToolCallsInOrder } from '../index.mjs'
import { connectMcpTools } from '../lib/mcp/index.mjs'
import { createJsonSchemaToolArgumentValidator } from '../lib/validation/json-schema.js'
import { createReadTool } from '../lib/coding-tools/agent.js'
import { everythingStdio } from '../__test__/fixtures/mcp-helpers.mjs'
import { rssAfterGc, rssAnon } from './_stats.mjs'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const CALLS = Number(process.argv[2] ?? 100_000)
const PATH = ['js', 'gated', 'reads'].includes(process.argv[3]) ? process.argv[3] : 'native'
const PER_TURN = 64
// The warm-up: V8 grows its young generation (about 24 MiB) and the allocators their pools
// over the first tens of thousands of calls, then the RSS stays put. NATIVE_MEMORY_WARM_CALLS
// overrides it.
const WARM_CALLS = Number(process.env.NATIVE_MEMORY_WARM_CALLS ?? 100_000)
const POINTS = 5

/** The lowest of three readings after a full GC and a short pause (see mcp-cycles.mjs). */
async function point(calls) {
  let rss = Infinity
  let anon = Infinity
  for (let k = 0; k < 3; k++) {
    if (k > 0) await new Promise((resolve) => setTimeout(resolve, 20))
    rss = Math.min(rss, rssAfterGc())
    anon = Math.min(anon, rssAnon())
  }
  const m = process.memoryUsage()
  return { calls, rss, anon, heap: m.heapUsed / 1048576, heapTotal: m.heapTotal / 1048576, external: m.external / 1048576 }
}

const READS = PATH === 'reads'
const bridge = READS ? undefined : await connectMcpTools({ serverId: 'everything', transport: everythingStdio() })
// The read turn's files: one per call of a turn, 4 KB each.
const dir = READS ? mkdtempSync(join(tmpdir(), 'prism-native-turn-memory-')) : undefined
for (let i = 0; READS && i < PER_TURN; i++) writeFileSync(join(dir, `f${i}.js`), `// file ${i}\n${'const value = compute(input) // a line of ordinary source text\n'.repeat(64)}`)
const options = {
  registry: createToolRegistry(READS ? [createReadTool(dir)] : bridge.tools),
  permission: createStaticPermissionPolicy({ allow: ['tool:mcp:everything:echo:execute', 'tool:read:execute'] }),
  validate: createJsonSchemaToolArgumentValidator(),
  secrets: ['sk-bench-secret'],
  context: { sessionId: 's', runId: 'r' },
  emit: PATH === 'gated' ? (event) => void event.type : undefined,
}
const dispatchToolCall = PATH === 'js' ? (call) => dispatchOne({ ...options, call }) : createToolDispatcher(options)
let done = 0
async function turn() {
  const calls = Array.from({ length: PER_TURN }, (_, i) =>
    READS
      ? { type: 'tool_call', id: `c${done + i}`, name: 'read', arguments: { path: `f${i}.js` } }
      : { type: 'tool_call', id: `c${done + i}`, name: 'mcp:everything:echo', arguments: { message: `m${i}` } },
  )
  const history = []
  await dispatchToolCallsInOrder(calls, { history, toolConcurrency: PER_TURN, appendMessage: async () => {}, dispatchToolCall })
  if (history.length !== PER_TURN || history[0].content[0].error) throw new Error('a native turn failed')
  done += PER_TURN
}

try {
  while (done < WARM_CALLS) await turn()
  done = 0
  const points = [await point(0)]
  const every = Math.ceil(CALLS / POINTS / PER_TURN) * PER_TURN
  while (done < CALLS) {
    await turn()
    if (done % every === 0) points.push(await point(done))
  }
  if (points.at(-1).calls !== done) points.push(await point(done))
  for (const p of points) {
    console.log(`after ${String(p.calls).padStart(7)} calls: rss ${p.rss.toFixed(1)} MiB (anon ${p.anon.toFixed(1)}), heapUsed ${p.heap.toFixed(2)} MiB (of ${p.heapTotal.toFixed(1)} MiB V8 holds), external ${p.external.toFixed(2)} MiB`)
  }
  const [start, end] = [points[0], points.at(-1)]
  const per = (mib) => `${mib.toFixed(2)} MiB, ${((mib * 1048576) / done).toFixed(1)} bytes per call`
  console.log(`${PATH} calls: growth over ${done} calls (after ${WARM_CALLS} warm-up): rss ${per(end.rss - start.rss)}; anonymous ${per(end.anon - start.anon)}; V8's heap ${per(end.heapTotal - start.heapTotal)}`)
  const half = points.find((p) => p.calls >= done / 2) ?? start
  console.log(`over the second half (${done - half.calls} calls): rss ${per(end.rss - half.rss)}`)
} finally {
  await bridge?.close()
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
}
