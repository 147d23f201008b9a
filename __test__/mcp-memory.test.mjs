// MCP connect/call/close cycles leave nothing behind in the host: 1,000 cycles against a stdio
// server (the POSIX sh fixture, which starts in about a millisecond), after a warm-up, in a
// child node with --expose-gc. Reads memory and open file descriptors, never time.
//
// What is asserted: open fds are exactly as many after as before, and the anonymous RSS (the
// memory the process holds: heaps, V8's spaces, native allocations) is flat: it grows less
// than 1 MiB over the last 800 cycles, and less than 4 MiB in all. The first window may take a
// one-time step (measured once under CPU load: +1.9 MiB in the first 200 cycles, then +0.2 MiB
// over the next 800); a leak grows in every window, so the steady window is the one that
// finds it. The total RSS is printed, not
// asserted: its file-backed rest is code of the node binary paged in the first time it runs
// (V8 optimizing hot functions adds a few MiB once, at an unpredictable cycle), shared and
// reclaimable, not memory the cycles hold.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const BENCH = fileURLToPath(new URL('../bench/mcp-cycles.mjs', import.meta.url))
const CYCLES = 1000
const WARMUP = 300
const MAX_STEADY_ANON_GROWTH_MIB = 1
const MAX_ANON_GROWTH_MIB = 4

test(`${CYCLES} MCP connect/call/close cycles keep open fds and anonymous memory flat`, { skip: !existsSync('/proc/self/status') && 'needs /proc (Linux)' }, () => {
  const run = spawnSync(process.execPath, ['--expose-gc', BENCH, String(CYCLES), 'sh'], {
    env: { ...process.env, MCP_CYCLES_WARMUP: String(WARMUP), MCP_CYCLES_JSON: '1' },
    encoding: 'utf8',
    timeout: 600_000,
  })
  assert.equal(run.status, 0, `the cycles failed:\n${run.stdout}\n${run.stderr}`)
  const lines = run.stdout.trim().split('\n')
  const { start, end, points } = JSON.parse(lines.at(-1))
  const report = lines.slice(0, -1).join('\n')
  console.log(report)
  assert.equal(end.fds, start.fds, `open fds changed over ${CYCLES} cycles:\n${report}`)
  const steadyFrom = points[1]
  const steady = end.anon - steadyFrom.anon
  assert.ok(steady < MAX_STEADY_ANON_GROWTH_MIB, `anonymous RSS grew ${steady.toFixed(2)} MiB from cycle ${steadyFrom.i} to ${CYCLES}:\n${report}`)
  const anon = end.anon - start.anon
  assert.ok(anon < MAX_ANON_GROWTH_MIB, `anonymous RSS grew ${anon.toFixed(2)} MiB over ${CYCLES} cycles:\n${report}`)
})
