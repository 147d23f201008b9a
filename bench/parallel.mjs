// Parallel dispatch: dispatchToolCallsInOrder vs a plain-JS worker pool written here as the
// baseline, in one run. (1) six independent 20 ms tools at concurrency 2 and 6: the makespan's
// excess over the same-run floor of bare timers; (2) 10,000 trivial async tools at concurrency
// 8: per-call overhead; (3) 100,000 calls in batches: RSS after GC.
import { setTimeout as sleep } from 'node:timers/promises'
import { dispatchToolCallsInOrder } from 'prism-native'
import { median, printTable, rssAfterGc } from './_stats.mjs'

function ctxFor(dispatch, toolConcurrency) {
  return {
    sessionId: 's',
    runId: 'r',
    signal: new AbortController().signal,
    history: [],
    toolConcurrency,
    dispatchToolCall: dispatch,
    appendMessage: async () => {},
  }
}

// The baseline: the same contract (claims with abort checks, index slots, in-order appends).
async function plainPool(calls, ctx) {
  const results = new Array(calls.length)
  let next = 0
  const n = Math.max(1, Math.min(ctx.toolConcurrency, calls.length))
  const worker = async () => {
    while (next < calls.length) {
      if (ctx.signal.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('Agent run aborted')
      const i = next++
      results[i] = await ctx.dispatchToolCall(calls[i])
    }
  }
  await Promise.all(Array.from({ length: n }, worker))
  for (const r of results) {
    if (ctx.signal.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('Agent run aborted')
    if (r?.metadata?.approvalPending === true) continue
    const message = { role: 'tool', content: [{ type: 'tool_result', toolCallId: r.toolCallId, name: r.name, result: r.value, error: r.error }, ...(r.content ?? [])], metadata: r.metadata }
    ctx.history.push(message)
    await ctx.appendMessage(message)
  }
}

const calls = (n) => Array.from({ length: n }, (_, i) => ({ type: 'tool_call', id: `c${i}`, name: 't', arguments: { i } }))
const slow = async (c) => (await sleep(20), { toolCallId: c.id, name: c.name })
const trivial = async (c) => ({ toolCallId: c.id, name: c.name })

async function floorMs(concurrency) {
  const t0 = performance.now()
  for (let w = 0; w < Math.ceil(6 / concurrency); w++) await Promise.all(Array.from({ length: concurrency }, () => sleep(20)))
  return performance.now() - t0
}
async function makespan(impl, concurrency) {
  const t0 = performance.now()
  await impl(calls(6), ctxFor(slow, concurrency))
  return performance.now() - t0
}

// Warm-up, not timed: the case timed first would otherwise also time each side's JIT (the
// driver has more code to optimize than the pool), which showed as excess at concurrency 2 only.
for (let r = 0; r < 5; r++) {
  for (const concurrency of [2, 6]) {
    await makespan(dispatchToolCallsInOrder, concurrency)
    await makespan(plainPool, concurrency)
  }
}

const rows = []
for (const concurrency of [2, 6]) {
  const floor = []
  const nat = []
  const peer = []
  // 41 rounds: the excess is tens of microseconds on a 20-60 ms makespan, so 15 rounds left
  // its median moving by more than the target between runs.
  // Each round also alternates which side goes first, and pairs the two sides' makespans: a
  // round's timer jitter (a spread of about a millisecond here) hits both.
  const paired = []
  for (let r = 0; r < 41; r++) {
    floor.push(await floorMs(concurrency))
    const first = r % 2 ? dispatchToolCallsInOrder : plainPool
    const a = await makespan(first, concurrency)
    const b = await makespan(first === plainPool ? dispatchToolCallsInOrder : plainPool, concurrency)
    const [n, p] = first === plainPool ? [b, a] : [a, b]
    nat.push(n)
    peer.push(p)
    paired.push(n - p)
  }
  const f = median(floor)
  rows.push({ case: `6 x 20 ms, concurrency ${concurrency}: makespan (floor ${f.toFixed(2)} ms)`, native: median(nat), peer: median(peer), unit: 'ms', ratio: median(nat) / median(peer) })
  rows.push({ case: `  excess over floor`, native: median(nat) - f, peer: median(peer) - f, unit: 'ms' })
  rows.push({ case: `  native minus pool, paired by round (median)`, native: median(paired), peer: 0, unit: 'ms', target: 'excess <= the pool\'s + 0.05 ms' })
}

async function perCall(impl) {
  const batch = calls(10_000)
  globalThis.gc?.()
  const t0 = process.hrtime.bigint()
  await impl(batch, ctxFor(trivial, 8))
  return Number(process.hrtime.bigint() - t0) / batch.length
}
const nat = []
const peer = []
for (let r = 0; r < 31; r++) {
  // Alternate which side goes first so that warm-up and GC drift hit both alike.
  if (r % 2) {
    nat.push(await perCall(dispatchToolCallsInOrder))
    peer.push(await perCall(plainPool))
  } else {
    peer.push(await perCall(plainPool))
    nat.push(await perCall(dispatchToolCallsInOrder))
  }
}
rows.push({ case: '10,000 trivial tools, concurrency 8', native: median(nat), peer: median(peer), unit: 'ns/call', ratio: median(nat) / median(peer), target: '<= 1.1' })
printTable('dispatchToolCallsInOrder vs a plain-JS worker pool (medians)', rows)

const before = rssAfterGc()
for (let b = 0; b < 100; b++) await dispatchToolCallsInOrder(calls(1000), ctxFor(trivial, 8))
const after = rssAfterGc()
console.log(`\n100,000 calls in batches of 1,000: RSS after GC ${before.toFixed(1)} -> ${after.toFixed(1)} MiB (growth ${(after - before).toFixed(1)} MiB; target <= 20 MiB)`)
