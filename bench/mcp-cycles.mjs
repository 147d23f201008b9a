// RSS over many MCP connect/call/close cycles, to show that a cycle leaves nothing behind.
// Run: node --expose-gc bench/mcp-cycles.mjs [cycles] [stdio|http|sh]
// stdio (default) starts the misbehaving fixture server in its normal mode for every cycle;
// http connects each cycle to one server-everything over Streamable HTTP on loopback; sh
// starts the POSIX sh fixture server (a millisecond to start, so 1,000 cycles take seconds).
// With MCP_CYCLES_JSON=1 the last line is the measurements as JSON (the memory test reads it).
// Prints the RSS, V8 heap and external memory (after a full GC) at a few points and the RSS
// growth per cycle after warm-up. A leak on the JS side shows in heapUsed; one on the native
// side only in RSS. On Linux the anonymous part of the RSS is printed too: the file-backed
// rest is code paged in as it first runs (V8 optimizing hot functions after the warm-up adds
// a few MiB), shared and reclaimable, not memory the cycles hold.
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { connectMcpTools } from '../lib/mcp/index.mjs'
import { misbehaving, startEverythingHttp } from '../__test__/fixtures/mcp-helpers.mjs'
import { rssAfterGc, rssAnon } from './_stats.mjs'

const cycles = Number(process.argv[2] ?? 1000)
const kind = process.argv[3] ?? 'stdio'
// MCP_CYCLES_WARMUP overrides the warm-up (default: a fifth of the cycles, at most 100).
const warmup = Number(process.env.MCP_CYCLES_WARMUP ?? Math.min(100, Math.floor(cycles / 5)))
// MCP_CYCLES_POINTS sets how many times memory is read after the start (default 5, evenly).
const samples = Math.max(1, Number(process.env.MCP_CYCLES_POINTS ?? 5))
const ctx = { sessionId: 's', runId: 'r', toolCallId: 'c' }

const server = kind === 'http' ? await startEverythingHttp() : undefined
const SH_SERVER = fileURLToPath(new URL('../__test__/fixtures/mcp-sh-server.sh', import.meta.url))
const transport = () => {
  if (server !== undefined) return { type: 'streamable-http', url: server.url, allowedOrigins: [server.origin], allowLoopbackHttp: true }
  return kind === 'sh' ? { type: 'stdio', command: '/bin/sh', args: [SH_SERVER] } : misbehaving()
}

async function cycle() {
  const bridge = await connectMcpTools({ serverId: 'rss', transport: transport() })
  const echo = bridge.tools.find((t) => t.name === 'mcp:rss:echo')
  const r = await echo.execute({ message: 'x' }, ctx)
  if (r.error) throw new Error(r.error.message)
  await bridge.close()
}

/** Open file descriptors of this process (NaN where /proc is missing). */
function openFds() {
  try {
    return readdirSync('/proc/self/fd').length
  } catch {
    return NaN
  }
}

/** Readings per point: each after a full GC and a pause; the point keeps the lowest. */
const READINGS = 5

/**
 * Memory after cycle `i`: the lowest of READINGS readings, each after a full GC and a 20 ms
 * pause, so that garbage a collector has not yet given back (Bun's more than Node's) does not
 * show as growth; memory the cycles hold is in every reading, so it still shows.
 */
async function point(i) {
  let rss = Infinity
  let anon = Infinity
  for (let k = 0; k < READINGS; k++) {
    if (k > 0) await new Promise((resolve) => setTimeout(resolve, 20))
    rss = Math.min(rss, rssAfterGc())
    anon = Math.min(anon, rssAnon())
  }
  const m = process.memoryUsage()
  return { i, rss, anon, heap: m.heapUsed / 1048576, external: m.external / 1048576, fds: openFds() }
}

const perCycle = (mib) => `${mib.toFixed(2)} MiB, ${((mib * 1024) / cycles).toFixed(2)} KiB per cycle`

try {
  for (let i = 0; i < warmup; i++) await cycle()
  const points = [await point(0)]
  for (let i = 1; i <= cycles; i++) {
    await cycle()
    if (i % Math.max(1, Math.floor(cycles / samples)) === 0) points.push(await point(i))
  }
  const [start, end] = [points[0], await point(cycles)]
  for (const p of points) {
    console.log(
      `after ${String(p.i).padStart(5)} cycles: rss ${p.rss.toFixed(1)} MiB (anon ${p.anon.toFixed(1)}), heapUsed ${p.heap.toFixed(2)} MiB, external ${p.external.toFixed(2)} MiB, ${p.fds} fds`,
    )
  }
  if (process.env.MCP_CYCLES_JSON === '1') console.log(JSON.stringify({ cycles, warmup, start, end, points }))
  else console.log(`${kind}: growth over ${cycles} cycles (after ${warmup} warm-up): ${perCycle(end.rss - start.rss)}; anonymous: ${perCycle(end.anon - start.anon)}`)
} finally {
  await server?.stop()
}
