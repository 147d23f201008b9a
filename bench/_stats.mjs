// Shared helpers for the benchmarks: medians, RSS after GC, and table printing.
import { readFileSync } from 'node:fs'
import { collectGarbage } from '../__test__/fixtures/runtime.mjs'

/** The median of `xs`. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Runs `fn` `rounds` times (after one warm-up) and returns the median result of `measure`. */
export async function medianOf(rounds, fn) {
  await fn()
  const xs = []
  for (let i = 0; i < rounds; i++) xs.push(await fn())
  return median(xs)
}

/** Resident set size in MiB after a full GC (V8's under node, `Bun.gc` under Bun). */
export function rssAfterGc() {
  collectGarbage()
  collectGarbage()
  return process.memoryUsage().rss / 1048576
}

/** RssAnon from /proc/self/status in MiB (NaN where there is none). */
export function rssAnon() {
  try {
    const kb = /^RssAnon:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    return kb === undefined ? NaN : Number(kb) / 1024
  } catch {
    return NaN
  }
}

/** Prints rows of `{case, native, peer, unit, ratio, target}` as an aligned table. */
export function printTable(title, rows) {
  console.log(`\n${title}`)
  const head = ['case', 'native', 'peer', 'ratio', 'target']
  const body = rows.map((r) => [r.case, `${fmt(r.native)} ${r.unit}`, `${fmt(r.peer)} ${r.unit}`, r.ratio === undefined ? '' : r.ratio.toFixed(2), r.target ?? ''])
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)))
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ')
  console.log(line(head))
  for (const b of body) console.log(line(b))
}

function fmt(x) {
  if (typeof x !== 'number') return String(x)
  return x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3)
}
