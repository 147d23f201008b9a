// The shared turn scenarios (fixtures/turn-vectors.json) through the Node driver of the engine's
// turn scheduler; crates/engine/tests/turn_vectors.rs runs the same table against the engine,
// so the two paths cannot drift. Also what the driver does on a failed call, an abort and a
// turn too large to schedule.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { dispatchToolCallsInOrder } from 'prism-native'

const vectors = JSON.parse(fs.readFileSync(new URL('./fixtures/turn-vectors.json', import.meta.url), 'utf8'))
const callsOf = (n) => Array.from({ length: n }, (_, i) => ({ type: 'tool_call', id: `c${i}`, name: 't', arguments: { i } }))
const tick = () => new Promise((resolve) => setImmediate(resolve))

/** Runs a scenario: whenever the driver is waiting, the call in flight first in `finish` finishes. */
async function traceOf({ toolConcurrency, exclusive, finish }) {
  const trace = []
  const flying = new Map()
  const ctx = {
    signal: new AbortController().signal,
    history: [],
    toolConcurrency,
    isToolCallExclusive: () => exclusive,
    dispatchToolCall: (call) => {
      const i = call.arguments.i
      trace.push(`s${i}`)
      return new Promise((resolve) => flying.set(i, () => resolve({ toolCallId: call.id, name: call.name, value: i })))
    },
    appendMessage: async (m) => void trace.push(`a${m.content[0].result}`),
  }
  let done = false
  const run = dispatchToolCallsInOrder(callsOf(finish.length), ctx).finally(() => (done = true))
  while (!done) {
    await tick()
    const next = finish.find((i) => flying.has(i))
    if (next === undefined) continue
    trace.push(`f${next}`)
    const resolve = flying.get(next)
    flying.delete(next)
    resolve()
  }
  await run
  return trace
}

for (const scenario of vectors.scenarios) {
  test(`turn scenario: ${scenario.name}`, async () => {
    assert.deepEqual(await traceOf(scenario), scenario.trace)
    // A second turn of the same shape runs the program the driver kept from the first.
    assert.deepEqual(await traceOf(scenario), scenario.trace)
  })
}

test('a failed call ends the turn with its error: nothing is appended and no further call starts', async () => {
  const started = []
  const appended = []
  const boom = new Error('boom')
  const ctx = {
    signal: new AbortController().signal,
    history: [],
    toolConcurrency: 2,
    dispatchToolCall: async (call) => {
      started.push(call.arguments.i)
      await tick()
      if (call.arguments.i === 0) throw boom
      await tick()
      await tick()
      return { toolCallId: call.id, name: call.name, value: call.arguments.i }
    },
    appendMessage: async (m) => void appended.push(m),
  }
  await assert.rejects(dispatchToolCallsInOrder(callsOf(5), ctx), (e) => e === boom)
  for (let i = 0; i < 5; i++) await tick()
  assert.deepEqual(started, [0, 1])
  assert.deepEqual(appended, [])
})

test('an abort stops the next start and the next append, with the signal reason', async () => {
  const controller = new AbortController()
  const started = []
  const ctx = {
    signal: controller.signal,
    history: [],
    toolConcurrency: 2,
    dispatchToolCall: async (call) => {
      started.push(call.arguments.i)
      if (call.arguments.i === 1) controller.abort(new Error('stop'))
      await tick()
      return { toolCallId: call.id, name: call.name, value: call.arguments.i }
    },
    appendMessage: async () => assert.fail('nothing is appended after an abort'),
  }
  await assert.rejects(dispatchToolCallsInOrder(callsOf(4), ctx), /^Error: stop$/)
  assert.deepEqual(started, [0, 1])
})

test('a turn with more calls than a scheduler step can name is refused before any call starts', async () => {
  let started = 0
  const ctx = { history: [], toolConcurrency: 4, dispatchToolCall: async () => void started++, appendMessage: async () => {} }
  const huge = new Array(2 ** 28 + 1)
  await assert.rejects(dispatchToolCallsInOrder(huge, ctx), (e) => e.code === 'ERR_PRISM_TURN_TOO_LARGE')
  assert.equal(started, 0)
})
