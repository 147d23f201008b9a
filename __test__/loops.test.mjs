import test from 'node:test'
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { createToolRegistry, dispatchToolCall, dispatchToolCallsInOrder, resolveToolConcurrency, singleShotLoop } from 'prism-native'

const calls = (n, name = 'slow') => Array.from({ length: n }, (_, i) => ({ type: 'tool_call', id: `c${i}`, name, arguments: { i } }))

function loopContext(fields = {}) {
  const appended = []
  const ctx = {
    sessionId: 's',
    runId: 'r',
    metadata: {},
    signal: new AbortController().signal,
    history: [],
    input: 'go',
    inputMessages: [],
    maxToolRounds: 1,
    toolConcurrency: 1,
    appended,
    assemble: async () => ({}),
    generate: async () => ({}),
    dispatchToolCall: async (call) => ({ toolCallId: call.id, name: call.name, value: call.arguments.i }),
    appendMessage: async (m) => void appended.push(m),
    emit: () => {},
    ...fields,
  }
  return ctx
}

/** A dispatch that counts calls in flight with real timers; later calls finish sooner. */
function counting(n, delay = (i) => 2 + ((n - i) % 5)) {
  const stats = { inFlight: 0, peak: 0, order: [] }
  const dispatch = async (call) => {
    stats.inFlight++
    stats.peak = Math.max(stats.peak, stats.inFlight)
    await sleep(delay(call.arguments.i))
    stats.inFlight--
    stats.order.push(call.id)
    return { toolCallId: call.id, name: call.name, value: call.arguments.i }
  }
  return { stats, dispatch }
}

for (const [concurrency, n, expectedPeak] of [
  [1, 6, 1],
  [2, 6, 2],
  [3, 7, 3],
  [8, 20, 8],
  [8, 3, 3],
  [4, 1, 1],
]) {
  test(`concurrency ${concurrency} over ${n} calls: at most ${expectedPeak} in flight, appended in call order`, async () => {
    const { stats, dispatch } = counting(n)
    const ctx = loopContext({ toolConcurrency: concurrency, dispatchToolCall: dispatch })
    await dispatchToolCallsInOrder(calls(n), ctx)
    assert.equal(stats.peak, expectedPeak)
    assert.deepEqual(ctx.history.map((m) => m.content[0].toolCallId), calls(n).map((c) => c.id))
    assert.deepEqual(ctx.appended, ctx.history)
  })
}

test('2,000 calls at concurrency 8: order and bound hold', async () => {
  const { stats, dispatch } = counting(2000, (i) => i % 3)
  const ctx = loopContext({ toolConcurrency: 8, dispatchToolCall: dispatch })
  await dispatchToolCallsInOrder(calls(2000), ctx)
  assert.equal(stats.peak, 8)
  assert.equal(ctx.history.length, 2000)
  assert.ok(ctx.history.every((m, i) => m.content[0].result === i))
  assert.notDeepEqual(stats.order, calls(2000).map((c) => c.id), 'completion order differs from call order')
})

test('a turn whose program spans several buffers: 400 calls one at a time, then 2,000 at concurrency 3, twice each', async () => {
  // One at a time takes three ops a call (start, wait, append): more than one buffer of the
  // engine's program; a second turn of the same shape runs the same way.
  for (const [n, concurrency] of [[400, 1], [400, 1], [2000, 3], [2000, 3]]) {
    const { stats, dispatch } = counting(n, (i) => (concurrency === 1 ? 0 : i % 4))
    const ctx = loopContext({ toolConcurrency: concurrency, dispatchToolCall: dispatch })
    await dispatchToolCallsInOrder(calls(n), ctx)
    assert.equal(stats.peak, concurrency)
    assert.ok(ctx.history.length === n && ctx.history.every((m, i) => m.content[0].result === i))
  }
})

test('turns of more shapes than the driver keeps programs for still run in order and bound', async () => {
  // 40 shapes (the driver keeps the last 32), then the first shapes again, and concurrencies
  // the driver keeps no program for (past 2^23), twice.
  const shapes = Array.from({ length: 40 }, (_, k) => [1 + (k % 5), 2 + k])
  const unkept = [[2 ** 23, 3], [2 ** 23, 3], [1e12, 4], [1e12, 4]]
  for (const [concurrency, n] of [...shapes, ...shapes.slice(0, 3), ...unkept]) {
    const { stats, dispatch } = counting(n, (i) => i % 2)
    const ctx = loopContext({ toolConcurrency: concurrency, dispatchToolCall: dispatch })
    await dispatchToolCallsInOrder(calls(n), ctx)
    assert.equal(stats.peak, Math.min(concurrency, n))
    assert.ok(ctx.history.length === n && ctx.history.every((m, i) => m.content[0].result === i))
  }
})

test("a host signal whose aborted getter throws at a queued start fails the turn with that error", async () => {
  const boom = new Error('signal getter')
  let reads = 0
  const signal = {
    get aborted() {
      if (++reads > 3) throw boom
      return false
    },
  }
  const { dispatch } = counting(5, () => 1)
  const ctx = loopContext({ toolConcurrency: 2, dispatchToolCall: dispatch })
  ctx.signal = signal
  await assert.rejects(dispatchToolCallsInOrder(calls(5), ctx), (e) => e === boom)
  assert.deepEqual(ctx.history, [])
  // The calls in flight end on their own; nothing else rejects (the runner reports an unhandled rejection as a failure).
  await sleep(20)
})

test('the transcript row shape, approvalPending rows skipped', async () => {
  const results = [
    { toolCallId: 'c0', name: 'slow', value: { v: 1 }, content: [{ type: 'text', text: 'hello' }], metadata: { m: 1 } },
    { toolCallId: 'c1', name: 'slow', metadata: { approvalPending: true } },
    { toolCallId: 'c2', name: 'slow', error: { message: 'no' } },
  ]
  const ctx = loopContext({ toolConcurrency: 2, dispatchToolCall: async (c) => results[Number(c.id.slice(1))] })
  await dispatchToolCallsInOrder(calls(3), ctx)
  assert.deepEqual(ctx.history, [
    {
      role: 'tool',
      content: [{ type: 'tool_result', toolCallId: 'c0', name: 'slow', result: { v: 1 }, error: undefined }, { type: 'text', text: 'hello' }],
      metadata: { m: 1 },
    },
    { role: 'tool', content: [{ type: 'tool_result', toolCallId: 'c2', name: 'slow', result: undefined, error: { message: 'no' } }], metadata: undefined },
  ])
})

test('empty batches return at once without charging a round', async () => {
  let charged = 0
  const ctx = loopContext({ chargeToolRound: () => void charged++ })
  await dispatchToolCallsInOrder([], ctx)
  assert.equal(charged, 0)
})

test('chargeToolRound is awaited once before any dispatch, and its throw stops the batch', async () => {
  const trace = []
  const ctx = loopContext({
    toolConcurrency: 3,
    chargeToolRound: async (c) => {
      await sleep(2)
      trace.push(`charge:${c.length}`)
    },
    dispatchToolCall: async (c) => (trace.push(c.id), { toolCallId: c.id, name: c.name }),
  })
  await dispatchToolCallsInOrder(calls(3), ctx)
  assert.deepEqual(trace, ['charge:3', 'c0', 'c1', 'c2'])
  const limited = loopContext({ chargeToolRound: () => Promise.reject(new Error('limit')), dispatchToolCall: () => assert.fail('dispatched') })
  await assert.rejects(dispatchToolCallsInOrder(calls(2), limited), { message: 'limit' })
})

test('an exclusive call serializes only its own turn', async () => {
  const registry = new Set(['shell'])
  const run = async (batch) => {
    const { stats, dispatch } = counting(batch.length)
    const ctx = loopContext({ toolConcurrency: 4, dispatchToolCall: dispatch, isToolCallExclusive: (c) => registry.has(c.name) })
    await dispatchToolCallsInOrder(batch, ctx)
    return stats.peak
  }
  assert.equal(await run([...calls(3), { type: 'tool_call', id: 'x', name: 'shell', arguments: { i: 9 } }]), 1)
  assert.equal(await run(calls(6)), 4)
})

test('abort mid-turn with an Error reason: no new claims, nothing appended, the reason thrown', async () => {
  const controller = new AbortController()
  const started = []
  const ctx = loopContext({
    toolConcurrency: 2,
    signal: controller.signal,
    dispatchToolCall: async (c) => {
      started.push(c.id)
      if (c.id === 'c1') controller.abort(new Error('user stop'))
      await sleep(5)
      return { toolCallId: c.id, name: c.name }
    },
  })
  await assert.rejects(dispatchToolCallsInOrder(calls(6), ctx), { message: 'user stop' })
  assert.deepEqual(started, ['c0', 'c1'])
  assert.deepEqual(ctx.history, [])
  assert.deepEqual(ctx.appended, [])
})

test('abort with a non-Error reason throws "Agent run aborted"', async () => {
  const controller = new AbortController()
  const ctx = loopContext({
    toolConcurrency: 3,
    signal: controller.signal,
    dispatchToolCall: async (c) => {
      await sleep(1)
      controller.abort('just a string')
      return { toolCallId: c.id, name: c.name }
    },
  })
  await assert.rejects(dispatchToolCallsInOrder(calls(5), ctx), { message: 'Agent run aborted' })
  assert.equal(ctx.history.length, 0)
})

test('abort after every call finished still appends nothing', async () => {
  const controller = new AbortController()
  let done = 0
  const ctx = loopContext({
    toolConcurrency: 2,
    signal: controller.signal,
    dispatchToolCall: async (c) => {
      if (++done === 2) controller.abort(new Error('late'))
      return { toolCallId: c.id, name: c.name }
    },
  })
  await assert.rejects(dispatchToolCallsInOrder(calls(2), ctx), { message: 'late' })
  assert.equal(ctx.history.length, 0)
})

test('the sequential path does not check abort between calls (reference behaviour)', async () => {
  const controller = new AbortController()
  const ctx = loopContext({
    signal: controller.signal,
    dispatchToolCall: async (c) => {
      controller.abort(new Error('x'))
      return { toolCallId: c.id, name: c.name }
    },
  })
  await dispatchToolCallsInOrder(calls(3), ctx)
  assert.equal(ctx.history.length, 3)
})

test('a rejecting dispatch rejects the parallel batch and appends no rows', async () => {
  const ctx = loopContext({
    toolConcurrency: 3,
    dispatchToolCall: async (c) => {
      await sleep(1)
      if (c.id === 'c2') throw new Error('dispatch broke')
      return { toolCallId: c.id, name: c.name }
    },
  })
  await assert.rejects(dispatchToolCallsInOrder(calls(4), ctx), { message: 'dispatch broke' })
  assert.equal(ctx.history.length, 0)
})

test('a permission denial in a parallel batch keeps its slot', async () => {
  const registry = createToolRegistry([{ name: 'ok', execute: (a, c) => ({ toolCallId: c.toolCallId, name: 'ok', value: a.i }) }])
  const permission = { check: (r) => ({ allowed: r.target !== 'denied' }) }
  const ctx = loopContext({
    toolConcurrency: 3,
    dispatchToolCall: (call) => dispatchToolCall({ call, registry: createToolRegistry([...registry.list(), { name: 'denied', execute: () => assert.fail() }]), context: { sessionId: 's', runId: 'r', toolCallId: call.id }, permission }),
  })
  const batch = [calls(1, 'ok')[0], { type: 'tool_call', id: 'd', name: 'denied', arguments: {} }, { ...calls(1, 'ok')[0], id: 'c9' }]
  await dispatchToolCallsInOrder(batch, ctx)
  assert.deepEqual(ctx.history.map((m) => [m.content[0].toolCallId, m.content[0].error?.code]), [
    ['c0', undefined],
    ['d', 'ERR_PRISM_PERMISSION_DENIED'],
    ['c9', undefined],
  ])
})

test('resolveToolConcurrency', () => {
  const ss = (toolConcurrency) => ({ loop: { strategy: 'single-shot', toolConcurrency } })
  assert.equal(resolveToolConcurrency({}, {}), 1)
  assert.equal(resolveToolConcurrency(ss(4), ss(2)), 4)
  assert.equal(resolveToolConcurrency({}, ss(2)), 2)
  assert.equal(resolveToolConcurrency(ss(2.9), {}), 2)
  assert.equal(resolveToolConcurrency(ss(1e6), {}), 1e6)
  assert.equal(resolveToolConcurrency(ss(2 ** 53), {}), 2 ** 53, 'no upper cap, and no rounding of a huge value')
  for (const bad of [undefined, 0, 0.5, -3, NaN, Infinity, '4']) assert.equal(resolveToolConcurrency(ss(bad), {}), 1, String(bad))
  assert.equal(resolveToolConcurrency({ loop: { strategy: 'generate-validate-revise', toolConcurrency: 4 } }, {}), 1)
  assert.equal(resolveToolConcurrency({ loop: { name: 'custom', run: async () => {}, toolConcurrency: 4 } }, {}), 1)
})

/** A provider turn as the host runtime's `generate` resolves it. */
const providerTurn = (content, fields = {}) => ({
  content,
  calls: content.filter((b) => b.type === 'tool_call'),
  started: true,
  ...fields,
})
const text = (t) => ({ type: 'text', text: t })

/** A promise with its resolve function, to order concurrent work without timers. */
function deferred() {
  let resolve
  const promise = new Promise((r) => (resolve = r))
  return { promise, resolve }
}

test('singleShotLoop end to end: parallel turn, provider-hosted calls skipped, rounds limited', async () => {
  const registry = createToolRegistry([
    { name: 'slow', exclusive: false, execute: async (a, c) => (await sleep(5), { toolCallId: c.toolCallId, name: 'slow', value: a.i }) },
  ])
  const hosted = { type: 'tool_call', id: 'h', name: 'web', arguments: {}, authority: 'provider-hosted' }
  const turns = [
    providerTurn([text('working'), ...calls(3), hosted], { messageId: 'm1' }),
    providerTurn([{ ...calls(1)[0], id: 'again' }], { messageId: 'm2' }),
  ]
  const events = []
  const assembled = []
  let generated = 0
  const dispatched = []
  const ctx = loopContext({
    toolConcurrency: 3,
    maxToolRounds: 1,
    inputMessages: [{ role: 'user', content: [text('go')] }],
    assemble: async (nextInput, toolResults, turn) => (assembled.push([nextInput, toolResults, turn]), {}),
    generate: async () => turns[generated++],
    emit: (e) => void events.push(e.type),
    dispatchToolCall: (call) => (dispatched.push(call.id), dispatchToolCall({ call, registry, context: { sessionId: 's', runId: 'r', toolCallId: call.id } })),
    isToolCallExclusive: (c) => registry.get(c.name)?.exclusive === true,
  })
  await singleShotLoop.run(ctx)
  assert.equal(singleShotLoop.name, 'single-shot')
  assert.equal(singleShotLoop.revision, '1')
  assert.deepEqual(dispatched, ['c0', 'c1', 'c2'], 'the provider-hosted call is not dispatched')
  assert.equal(ctx.finishReason, 'turn_limit', 'calls were left when the round ceiling ended the run')
  assert.deepEqual(assembled, [['go', undefined, 1], [[], undefined, 2]], "the user's input goes out on turn 1 only")
  assert.deepEqual(ctx.history.map((m) => m.role), ['user', 'assistant', 'tool', 'tool', 'tool', 'assistant'])
  assert.deepEqual(ctx.history[1], { id: 'm1', role: 'assistant', content: turns[0].content }, 'the loop builds the assistant message')
  assert.deepEqual(ctx.appended.map((m) => m.role), ['assistant', 'tool', 'tool', 'tool', 'assistant'], 'input messages are stored by the runtime, not the loop')
  assert.deepEqual(events, ['turn_started', 'message_finished', 'turn_finished', 'turn_started', 'message_finished', 'turn_finished'])
})

test('singleShotLoop: a natural end sets no finish reason and resolves to the last usage reported', async () => {
  const first = { inputTokens: 3, outputTokens: 4 }
  const turns = [
    providerTurn([text('a'), ...calls(1)], { messageId: 'm1', usage: first }),
    providerTurn([text('b')], { messageId: 'm2' }),
  ]
  let generated = 0
  const ctx = loopContext({ maxToolRounds: 5, generate: async () => turns[generated++] })
  assert.equal(await singleShotLoop.run(ctx), first, 'a turn without usage keeps the earlier one')
  assert.equal(ctx.finishReason, undefined)
  assert.deepEqual(ctx.history.map((m) => m.role), ['assistant', 'tool', 'assistant'])

  const last = { inputTokens: 9, outputTokens: 1 }
  let n = 0
  const replaced = loopContext({
    maxToolRounds: 5,
    generate: async () => (n++ === 0 ? providerTurn(calls(1), { usage: first }) : providerTurn([], { usage: last })),
  })
  assert.equal(await singleShotLoop.run(replaced), last)

  const none = loopContext({ generate: async () => providerTurn([text('hi')]) })
  assert.equal(await singleShotLoop.run(none), undefined)
})

test('singleShotLoop: a turn that never started records no assistant message', async () => {
  const events = []
  const ctx = loopContext({
    generate: async () => ({ content: [], calls: [], started: false }),
    emit: (e) => void events.push(e.type),
  })
  await singleShotLoop.run(ctx)
  assert.deepEqual(ctx.history, [])
  assert.deepEqual(ctx.appended, [])
  assert.deepEqual(events, ['turn_started', 'turn_finished'])
})

test('singleShotLoop: maxToolRounds 0 ends a calling turn with turn_limit and dispatches nothing', async () => {
  const ctx = loopContext({
    maxToolRounds: 0,
    generate: async () => providerTurn(calls(2)),
    dispatchToolCall: () => assert.fail('dispatched'),
  })
  await singleShotLoop.run(ctx)
  assert.equal(ctx.finishReason, 'turn_limit')
  assert.deepEqual(ctx.history.map((m) => m.role), ['assistant'])
})

for (const toolConcurrency of [1, undefined, 0, NaN]) {
  test(`singleShotLoop: toolConcurrency ${toolConcurrency} dispatches one call after another, in call order`, async () => {
    const trace = []
    let n = 0
    const ctx = loopContext({
      toolConcurrency,
      generate: async () => (n++ === 0 ? providerTurn(calls(3)) : providerTurn([])),
      dispatchToolCall: async (c) => {
        trace.push(`start:${c.id}`)
        await Promise.resolve()
        trace.push(`end:${c.id}`)
        return { toolCallId: c.id, name: c.name }
      },
    })
    await singleShotLoop.run(ctx)
    assert.deepEqual(trace, ['start:c0', 'end:c0', 'start:c1', 'end:c1', 'start:c2', 'end:c2'])
    assert.deepEqual(ctx.history.filter((m) => m.role === 'tool').map((m) => m.content[0].toolCallId), ['c0', 'c1', 'c2'])
  })
}

test('singleShotLoop: calls run concurrently and their rows are appended in call order', { timeout: 10_000 }, async () => {
  const gates = [deferred(), deferred()]
  const started = []
  let n = 0
  const ctx = loopContext({
    toolConcurrency: 2,
    generate: async () => (n++ === 0 ? providerTurn(calls(2)) : providerTurn([])),
    dispatchToolCall: async (c) => {
      started.push(c.id)
      // Both calls are in flight before either finishes; the second finishes first.
      if (started.length === 2) gates[1].resolve()
      await gates[c.arguments.i].promise
      if (c.id === 'c1') gates[0].resolve()
      return { toolCallId: c.id, name: c.name }
    },
  })
  await singleShotLoop.run(ctx)
  assert.deepEqual(started, ['c0', 'c1'])
  assert.deepEqual(ctx.history.filter((m) => m.role === 'tool').map((m) => m.content[0].toolCallId), ['c0', 'c1'])
})

test('singleShotLoop: an abort during a parallel turn rejects with the reason and appends no tool row', async () => {
  const controller = new AbortController()
  const started = []
  const ctx = loopContext({
    toolConcurrency: 2,
    signal: controller.signal,
    generate: async () => providerTurn(calls(2)),
    dispatchToolCall: async (c) => {
      started.push(c.id)
      controller.abort(new Error('stopped by host'))
      await Promise.resolve()
      return { toolCallId: c.id, name: c.name }
    },
  })
  await assert.rejects(singleShotLoop.run(ctx), { message: 'stopped by host' })
  assert.deepEqual(started, ['c0'], 'no call is claimed after the abort')
  assert.equal(ctx.history.filter((m) => m.role === 'tool').length, 0)
})

test('singleShotLoop: an aborted signal stops before generating', async () => {
  const controller = new AbortController()
  controller.abort(new Error('cancelled'))
  const ctx = loopContext({ signal: controller.signal, generate: () => assert.fail('generated') })
  await assert.rejects(singleShotLoop.run(ctx), { message: 'cancelled' })
})

test('singleShotLoop: steers applied at the end of a final turn keep the run going', async () => {
  const assembled = []
  let generated = 0
  let pending = 0
  const ctx = loopContext({
    assemble: async (nextInput, _results, turn) => (assembled.push([nextInput, turn]), {}),
    generate: async () => {
      generated++
      if (generated === 1) pending = 1 // a steer arrives while turn 1 is generating
      return providerTurn([text(`t${generated}`)])
    },
    applyPendingSteers: async () => {
      const applied = pending > 0
      pending = 0
      return applied
    },
  })
  await singleShotLoop.run(ctx)
  assert.equal(generated, 2)
  assert.deepEqual(assembled, [['go', 1], [[], 2]])
})

test('singleShotLoop: a generate result that is not a provider turn is a TypeError', async () => {
  for (const bad of [undefined, null, 'text', { content: [] }, { calls: 'x', started: false }, { calls: [], started: true }]) {
    const ctx = loopContext({ generate: async () => bad })
    await assert.rejects(singleShotLoop.run(ctx), TypeError, JSON.stringify(bad))
  }
})
