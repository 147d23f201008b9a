// RSS over many MCP connect/call/close cycles against a stdio server, to show that a cycle
// leaves nothing behind on the native side. Run: node --expose-gc bench/mcp-cycles.mjs [cycles]
// Prints the RSS (after a full GC) at a few points and the growth per cycle after warm-up.
import { connectMcpTools } from '../lib/mcp/index.mjs'
import { misbehaving } from '../__test__/fixtures/mcp-helpers.mjs'
import { rssAfterGc } from './_stats.mjs'

const cycles = Number(process.argv[2] ?? 1000)
const warmup = Math.min(100, Math.floor(cycles / 5))
const ctx = { sessionId: 's', runId: 'r', toolCallId: 'c' }

async function cycle() {
  const bridge = await connectMcpTools({ serverId: 'rss', transport: misbehaving() })
  const echo = bridge.tools.find((t) => t.name === 'mcp:rss:echo')
  const r = await echo.execute({ message: 'x' }, ctx)
  if (r.error) throw new Error(r.error.message)
  await bridge.close()
}

if (!globalThis.gc) console.warn('run with node --expose-gc for RSS after GC')
for (let i = 0; i < warmup; i++) await cycle()
const start = rssAfterGc()
const points = [[0, start]]
for (let i = 1; i <= cycles; i++) {
  await cycle()
  if (i % Math.max(1, Math.floor(cycles / 5)) === 0) points.push([i, rssAfterGc()])
}
const end = rssAfterGc()
for (const [i, mib] of points) console.log(`after ${String(i).padStart(5)} cycles: ${mib.toFixed(1)} MiB`)
console.log(`growth over ${cycles} cycles (after ${warmup} warm-up): ${(end - start).toFixed(2)} MiB, ${(((end - start) * 1024) / cycles).toFixed(2)} KiB per cycle`)
