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
  for (const bad of [undefined, 0, 0.5, -3, NaN, Infinity, '4']) assert.equal(resolveToolConcurrency(ss(bad), {}), 1, String(bad))
  assert.equal(resolveToolConcurrency({ loop: { strategy: 'generate-validate-revise', toolConcurrency: 4 } }, {}), 1)
  assert.equal(resolveToolConcurrency({ loop: { name: 'custom', run: async () => {}, toolConcurrency: 4 } }, {}), 1)
})

test('singleShotLoop end to end: parallel turn, provider-hosted calls skipped, rounds limited', async () => {
  const registry = createToolRegistry([
    { name: 'slow', exclusive: false, execute: async (a, c) => (await sleep(5), { toolCallId: c.toolCallId, name: 'slow', value: a.i }) },
  ])
  const turns = [
    { message: { role: 'assistant', content: [{ type: 'text', text: 'working' }] }, toolCalls: [...calls(3), { type: 'tool_call', id: 'h', name: 'web', arguments: {}, authority: 'provider-hosted' }] },
    { message: { role: 'assistant', content: [...calls(1).map((c) => ({ ...c, id: 'again' }))] } },
  ]
  const events = []
  let generated = 0
  const dispatched = []
  const ctx = loopContext({
    toolConcurrency: 3,
    maxToolRounds: 1,
    inputMessages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
    generate: async () => turns[generated++],
    emit: (e) => void events.push(e.type),
    dispatchToolCall: (call) => (dispatched.push(call.id), dispatchToolCall({ call, registry, context: { sessionId: 's', runId: 'r', toolCallId: call.id } })),
    isToolCallExclusive: (c) => registry.get(c.name)?.exclusive === true,
  })
  await singleShotLoop.run(ctx)
  assert.equal(singleShotLoop.name, 'single-shot')
  assert.equal(singleShotLoop.revision, '1')
  assert.deepEqual(dispatched, ['c0', 'c1', 'c2'])
  assert.equal(ctx.finishReason, 'turn_limit')
  assert.deepEqual(ctx.history.map((m) => m.role), ['user', 'assistant', 'tool', 'tool', 'tool', 'assistant'])
  assert.deepEqual(events, ['turn_started', 'message_finished', 'turn_finished', 'turn_started', 'message_finished', 'turn_finished'])
})

test('singleShotLoop stops without a turn limit when the model calls no tool', async () => {
  const ctx = loopContext({ generate: async () => ({ message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] } }) })
  await singleShotLoop.run(ctx)
  assert.equal(ctx.finishReason, undefined)
  assert.equal(ctx.history.length, 1)
})

test('singleShotLoop: an aborted signal stops before generating', async () => {
  const controller = new AbortController()
  controller.abort(new Error('cancelled'))
  const ctx = loopContext({ signal: controller.signal, generate: () => assert.fail('generated') })
  await assert.rejects(singleShotLoop.run(ctx), { message: 'cancelled' })
})

test('singleShotLoop: a late steer continues the loop', async () => {
  let steers = 1
  let applied = 0
  let generated = 0
  const ctx = loopContext({
    generate: async () => (generated++, { message: { role: 'assistant', content: [] } }),
    hasPendingSteers: () => steers > 0,
    applyPendingSteers: async () => {
      if (steers > 0) {
        steers--
        applied++
      }
      return true
    },
  })
  // The first check consumes nothing: steers are applied at the start of each turn.
  steers = 0
  let late = true
  ctx.hasPendingSteers = () => {
    if (late) {
      late = false
      steers = 1
      return true
    }
    return false
  }
  await singleShotLoop.run(ctx)
  assert.equal(generated, 2)
  assert.equal(applied, 1)
})
