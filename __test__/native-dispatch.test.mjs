// createToolDispatcher: a call to an MCP bridge's tool runs in the engine (its arguments
// checked against the tool's schema there and sent as the same bytes), the host's callbacks
// crossing at their own gates only, and gives exactly what dispatchToolCall gives for the same
// call. A call of any other tool takes dispatchToolCall's path. Against server-everything over
// stdio; the crossings are counted by wrapping the bridge's native methods.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { connectMcpTools } from '../lib/mcp/index.mjs'
import { createJsonSchemaToolArgumentValidator } from '../lib/validation/json-schema.js'
import {
  createToolDispatcher,
  createToolRegistry,
  createStaticPermissionPolicy,
  createStaticTrustPolicy,
  dispatchToolCall,
  dispatchToolCallsInOrder,
} from '../index.mjs'
import { everythingStdio } from './fixtures/mcp-helpers.mjs'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')

const bridge = await connectMcpTools({ serverId: 'everything', transport: everythingStdio() })
after(() => bridge.close())

const ECHO = 'mcp:everything:echo'
const SUM = 'mcp:everything:get-sum'
const call = (id, name, args, extra = {}) => ({ type: 'tool_call', id, name, arguments: args, ...extra })

/**
 * Counts the bridge's native method calls while `fn` runs: `callTool`, and `callTools` by kind:
 * `check` (checkOnly), `validated` (with the engine validator: a native dispatch) or `plain`
 * (the tools' own execute, whose calls of a tick start together, or a native start after a
 * check).
 */
async function crossings(fn) {
  const counts = {}
  const proto = native.NativeMcpBridge.prototype
  const names = ['callTool', 'callTools']
  const label = (n, args) => (n === 'callTool' ? n : `callTools(${args[4] ? 'check' : args[2] ? 'validated' : 'plain'})`)
  const originals = names.map((n) => proto[n])
  names.forEach((n, i) => {
    proto[n] = function (...args) {
      const l = label(n, args)
      counts[l] = (counts[l] ?? 0) + 1
      return originals[i].apply(this, args)
    }
  })
  try {
    await fn()
  } finally {
    names.forEach((n, i) => {
      proto[n] = originals[i]
    })
  }
  return counts
}

function options(extra = {}) {
  return {
    registry: createToolRegistry(bridge.tools),
    permission: createStaticPermissionPolicy({ allow: [`tool:${ECHO}:execute`, `tool:${SUM}:execute`] }),
    trust: createStaticTrustPolicy(true),
    validate: createJsonSchemaToolArgumentValidator(),
    secrets: ['sk-secret'],
    context: { sessionId: 's', runId: 'r' },
    ...extra,
  }
}

test('each call gives what dispatchToolCall gives, native or not', async () => {
  const opts = options()
  const dispatch = createToolDispatcher(opts)
  const calls = [
    call('ok', ECHO, { message: 'hello' }),
    call('sum', SUM, { a: 2, b: 3 }),
    call('wrong-type', ECHO, { message: 5 }),
    call('missing', ECHO, {}),
    call('unknown', 'mcp:everything:nope', {}),
    call('denied', 'mcp:everything:get-env', {}),
    call('args-error', ECHO, {}, { argumentsError: { message: 'bad JSON from the model sk-secret' } }),
    call('not-json', ECHO, { message: Number.NaN }),
    call('forbidden-key', ECHO, JSON.parse('{"message":"x","__proto__":{"a":1}}')),
  ]
  for (const c of calls) {
    const viaDispatcher = await dispatch(c)
    const viaDispatch = await dispatchToolCall({ ...opts, call: c })
    assert.deepEqual(viaDispatcher, viaDispatch, c.id)
  }
})

test('a call whose gates need no host code crosses once (callTools), never through execute', async () => {
  const dispatch = createToolDispatcher(options())
  let result
  const counts = await crossings(async () => {
    result = await dispatch(call('one', ECHO, { message: 'native' }))
  })
  assert.deepEqual(counts, { 'callTools(validated)': 1 })
  assert.equal(result.content[0].text, 'Echo: native')
})

/** Runs a turn of 64 echo calls through `dispatch`; asserts its rows in call order and returns its crossings. */
async function echoTurn(dispatch) {
  const history = []
  const calls = Array.from({ length: 64 }, (_, i) => call(`t${i}`, ECHO, { message: `m${i}` }))
  const counts = await crossings(() =>
    dispatchToolCallsInOrder(calls, { history, toolConcurrency: 64, appendMessage: async () => {}, dispatchToolCall: dispatch }),
  )
  assert.deepEqual(
    history.map((m) => [m.content[0].toolCallId, m.content[0].error, m.content[1].text]),
    calls.map((c, i) => [c.id, undefined, `Echo: m${i}`]),
  )
  return counts
}

test('a turn of 64 native calls starts in one crossing, results in call order', async () => {
  assert.deepEqual(await echoTurn(createToolDispatcher(options())), { 'callTools(validated)': 1 })
})

test('a turn of 64 native calls at concurrency 8: a finish starts the next call natively, results in call order', async () => {
  const history = []
  const calls = Array.from({ length: 64 }, (_, i) => call(`q${i}`, ECHO, { message: `m${i}` }))
  const counts = await crossings(() =>
    dispatchToolCallsInOrder(calls, { history, toolConcurrency: 8, appendMessage: async () => {}, dispatchToolCall: createToolDispatcher(options()) }),
  )
  assert.deepEqual(
    history.map((m) => [m.content[0].toolCallId, m.content[1].text]),
    calls.map((c, i) => [c.id, `Echo: m${i}`]),
  )
  // The first 8 start in one crossing; each later one starts when a call finishes, those that
  // finish together starting theirs in one crossing: never fewer than 8 crossings (8 a time),
  // never more than one per later call.
  const n = counts['callTools(validated)']
  assert.ok(n >= 8 && n <= 57, `crossings: ${JSON.stringify(counts)}`)
  assert.deepEqual(Object.keys(counts), ['callTools(validated)'])
})

test('a mixed turn: JS tools, refused calls and native calls, in call order', async () => {
  const local = { name: 'local', execute: async (args) => ({ toolCallId: 'x', name: 'local', value: args.n * 2 }) }
  const opts = options({ registry: createToolRegistry([...bridge.tools, local]), permission: undefined })
  const dispatch = createToolDispatcher(opts)
  const calls = [call('a', ECHO, { message: 'one' }), call('b', 'local', { n: 21 }), call('c', ECHO, { message: 7 }), call('d', SUM, { a: 1, b: 1 })]
  const run = async (dispatchToolCall) => {
    const history = []
    await dispatchToolCallsInOrder(calls, { history, toolConcurrency: 4, appendMessage: async () => {}, dispatchToolCall })
    return history
  }
  const viaDispatcher = await run(dispatch)
  const viaDispatch = await run((c) => dispatchToolCall({ ...opts, call: c }))
  assert.deepEqual(viaDispatcher, viaDispatch)
  assert.equal(viaDispatcher[1].content[0].result, 42)
  assert.match(viaDispatcher[2].content[0].error.message, /must be string/)
})

// Host code at a gate: the JS driver performs that gate (the host's callback crosses there
// only), the engine checks the arguments and starts the call. A wrapped `execute` is the host's
// tool: the JS path.
test('host code at a gate crosses at that gate only: the engine checks and starts the call', async () => {
  let validated = 0
  const wrapped = bridge.tools.map((t) => ({ ...t, execute: (a, c) => t.execute(a, c) }))
  const cases = [
    [options({ middleware: { run: async (_hook, v) => v } }), { 'callTools(validated)': 1 }],
    [options({ redactor: { redact: (v) => v } }), { 'callTools(validated)': 1 }],
    [options({ permission: { check: () => ({ allowed: true }) } }), { 'callTools(validated)': 1 }],
    [options({ trust: { check: async () => true } }), { 'callTools(validated)': 1 }],
    // The host's validator is called at its gate; the engine only starts the call.
    [options({ validate: () => void validated++ }), { 'callTools(plain)': 1 }],
    // `beforeExecute` runs between the check and the start.
    [options({ beforeExecute: () => {} }), { 'callTools(check)': 1, 'callTools(plain)': 1 }],
    [options({ registry: createToolRegistry(wrapped) }), { callTool: 1 }],
  ]
  for (const [opts, want] of cases) {
    const dispatch = createToolDispatcher(opts)
    let result
    const counts = await crossings(async () => {
      result = await dispatch(call('js', ECHO, { message: 'js' }))
    })
    assert.deepEqual(counts, want)
    assert.equal(result.content[0].text, 'Echo: js')
    assert.deepEqual(result, await dispatchToolCall({ ...opts, call: call('js', ECHO, { message: 'js' }) }))
  }
  assert.equal(validated, 2, "the host's validator was asked once per dispatch")
})

test("each host callback is asked once, at its gate, in dispatchToolCall's order, also when the engine refuses the call", async () => {
  const calls = [
    call('ok', ECHO, { message: 'hello' }),
    call('wrong-type', ECHO, { message: 5 }),
    call('unknown', 'mcp:everything:nope', {}),
    call('args-error', ECHO, {}, { argumentsError: { message: 'bad JSON' } }),
    call('denied', SUM, { a: 1, b: 2 }),
  ]
  const hosted = (log) => ({
    middleware: {
      run: async (hook, v) => {
        log.push(`${hook}:${v.id ?? v.toolCallId}`)
        return hook === 'tool_result' ? { ...v, metadata: { ...v.metadata, seen: true } } : v
      },
    },
    trust: { check: async (r) => (log.push(`trust:${r.target}`), true) },
    permission: { check: (r) => (log.push(`permission:${r.target}`), r.target === SUM ? { allowed: false, reason: 'no sums' } : { allowed: true }) },
    beforeExecute: async (c) => void log.push(`before:${c.id}`),
    redactor: { redact: (v) => (log.push('redact'), v) },
    emit: async (e) => void log.push(e.type),
  })
  const viaDispatcher = []
  const a = []
  const dispatch = createToolDispatcher(options(hosted(a)))
  for (const c of calls) viaDispatcher.push(await dispatch(c))
  const viaDispatch = []
  const b = []
  for (const c of calls) viaDispatch.push(await dispatchToolCall({ ...options(hosted(b)), call: c }))
  assert.deepEqual(viaDispatcher, viaDispatch)
  assert.deepEqual(a, b)
  assert.equal(viaDispatcher[0].metadata.seen, true)
  assert.match(viaDispatcher[4].error.message, /no sums/)
})

test('a turn of 64 calls with a host permission policy: its checks and starts cross together', async () => {
  for (const check of [(r) => ({ allowed: r.target === ECHO }), async (r) => ({ allowed: r.target === ECHO })]) {
    assert.deepEqual(await echoTurn(createToolDispatcher(options({ permission: { check } }))), { 'callTools(validated)': 1 })
  }
})

test('a signal aborted while a started event is awaited: the call is not sent, as execute would not send it', async () => {
  const run = async (makeDispatch) => {
    const controller = new AbortController()
    const emit = (e) => {
      if (e.type === 'tool_execution_started') controller.abort()
    }
    const opts = options({ emit, context: { sessionId: 's', runId: 'r', signal: controller.signal } })
    return makeDispatch(opts)(call('a', ECHO, { message: 'x' }))
  }
  let viaDispatcher
  const counts = await crossings(async () => {
    viaDispatcher = await run((opts) => createToolDispatcher(opts))
  })
  const viaDispatch = await run((opts) => (c) => dispatchToolCall({ ...opts, call: c }))
  assert.deepEqual(viaDispatcher, viaDispatch)
  assert.ok(viaDispatcher.error, 'the aborted call failed')
  assert.deepEqual(counts, { 'callTools(check)': 1 })
})

/** The events a dispatch delivers, without their timings. */
function recorder(respond = () => undefined) {
  const events = []
  const emit = (e) => {
    const { metadata, ...rest } = e
    events.push(metadata ? { ...rest, status: metadata.status, timed: typeof metadata.durationMs === 'number' } : rest)
    return respond(e)
  }
  return { events, emit }
}

test('with emit, each event is delivered at its gate, awaited, as dispatchToolCall delivers it', async () => {
  const calls = [call('e1', ECHO, { message: 'a' }), call('e2', ECHO, { message: 7 }), call('e3', 'mcp:everything:nope', {}), call('e4', SUM, { a: 1, b: 2 })]
  for (const respond of [() => undefined, () => new Promise((r) => setTimeout(r, 5))]) {
    const a = recorder(respond)
    const b = recorder(respond)
    const viaDispatcher = createToolDispatcher(options({ emit: a.emit }))
    let got
    const counts = await crossings(async () => {
      got = await Promise.all(calls.map((c) => viaDispatcher(c)))
    })
    const want = await Promise.all(calls.map((c) => dispatchToolCall({ ...options({ emit: b.emit }), call: c })))
    assert.deepEqual(got, want)
    const byCall = (events) => calls.map((c) => events.filter((e) => (e.call ?? e.result ?? e).toolCallId === c.id || e.call?.id === c.id))
    assert.deepEqual(byCall(a.events), byCall(b.events))
    assert.ok(
      byCall(a.events).every((list) => list.length > 0),
      'every call had its events',
    )
    // The three calls of the engine's tools (e1, e2, e4) are checked in the engine together;
    // the two that pass start after their started events (e2 fails its schema: the JS driver
    // blocks it at the validator): together when the events return at once, each after its
    // own timer otherwise.
    assert.deepEqual(counts, { 'callTools(check)': 1, 'callTools(plain)': respond() === undefined ? 1 : 2 })
  }
})

test('with emit, a throwing or rejecting emit rejects the dispatch, as it does in dispatchToolCall', async () => {
  const cases = [
    (e) => {
      if (e.type === 'tool_execution_started') throw new Error('started refused')
    },
    async (e) => {
      if (e.type === 'tool_execution_finished') throw new Error('finished refused')
    },
  ]
  for (const emit of cases) {
    const c = call('x', ECHO, { message: 'x' })
    const viaDispatch = await dispatchToolCall({ ...options({ emit }), call: c }).then(() => 'resolved', (e) => e.message)
    const viaDispatcher = await createToolDispatcher(options({ emit }))(c).then(() => 'resolved', (e) => e.message)
    assert.equal(viaDispatcher, viaDispatch)
    assert.notEqual(viaDispatcher, 'resolved')
  }
})

test('with emit, a bridge closed while a started event is awaited fails the call as execute would', async () => {
  const c = call('late', 'mcp:closing2:echo', { message: 'x' })
  const run = async (makeDispatch) => {
    const own = await connectMcpTools({ serverId: 'closing2', transport: everythingStdio() })
    const { events, emit } = recorder(async (e) => {
      if (e.type === 'tool_execution_started') await own.close()
    })
    const opts = options({ registry: createToolRegistry(own.tools), permission: undefined, emit })
    const result = await makeDispatch(opts)(c)
    return { result, events }
  }
  const viaDispatcher = await run((opts) => createToolDispatcher(opts))
  const viaDispatch = await run((opts) => (cc) => dispatchToolCall({ ...opts, call: cc }))
  assert.deepEqual(viaDispatcher, viaDispatch)
  assert.equal(viaDispatcher.events.at(-1).type, 'tool_execution_error')
})

test('a policy replaced after the dispatcher was made is asked (the JS path)', async () => {
  const opts = options()
  const dispatch = createToolDispatcher(opts)
  opts.permission.check = () => ({ allowed: false, reason: 'changed my mind' })
  const result = await dispatch(call('p', ECHO, { message: 'x' }))
  assert.deepEqual(result, await dispatchToolCall({ ...opts, call: call('p', ECHO, { message: 'x' }) }))
  assert.match(result.error.message, /changed my mind/)
})

test('an aborted signal cancels a native call as it cancels execute', async () => {
  const controller = new AbortController()
  const opts = options({ context: { sessionId: 's', runId: 'r', signal: controller.signal }, permission: undefined, validate: undefined })
  const dispatch = createToolDispatcher(opts)
  const long = call('long', 'mcp:everything:trigger-long-running-operation', { duration: 30, steps: 5 })
  const pending = dispatch(long)
  setTimeout(() => controller.abort(), 200)
  const native = await pending
  const viaDispatch = await dispatchToolCall({ ...opts, call: long })
  assert.ok(native.error, 'the aborted call failed')
  assert.deepEqual(native, viaDispatch)
})

test('a closed bridge: the JS path says so, as dispatchToolCall does', async () => {
  const own = await connectMcpTools({ serverId: 'closing', transport: everythingStdio() })
  const opts = options({ registry: createToolRegistry(own.tools), permission: undefined })
  const dispatch = createToolDispatcher(opts)
  await own.close()
  const c = call('late', 'mcp:closing:echo', { message: 'x' })
  assert.deepEqual(await dispatch(c), await dispatchToolCall({ ...opts, call: c }))
})

test('bad options throw when the dispatcher is made', () => {
  assert.throws(() => createToolDispatcher(null), { code: 'ERR_PRISM_INVALID_DISPATCH' })
  const hostile = {
    [Symbol.iterator]() {
      throw new Error('no')
    },
  }
  assert.throws(() => createToolDispatcher({ registry: createToolRegistry(), secrets: hostile }), { code: 'ERR_PRISM_INVALID_DISPATCH' })
})

test('a schema evicted before the engine checks it: the call takes the JS path, which prepares it again', async () => {
  const opts = options({ validate: createJsonSchemaToolArgumentValidator({ maxCompiledSchemas: 1 }) })
  const dispatch = createToolDispatcher(opts)
  const calls = [call('e1', ECHO, { message: 'a' }), call('s1', SUM, { a: 1, b: 2 }), call('e2', ECHO, { message: 'b' }), call('s2', SUM, { a: 'x', b: 2 })]
  const history = []
  await dispatchToolCallsInOrder(calls, { history, toolConcurrency: 4, appendMessage: async () => {}, dispatchToolCall: dispatch })
  const rows = history.map((m) => m.content[0])
  assert.deepEqual(
    rows.map((r) => [r.toolCallId, r.error?.message]),
    [
      ['e1', undefined],
      ['s1', undefined],
      ['e2', undefined],
      ['s2', '/a: must be number'],
    ],
  )
})

test("the tools' own execute: the first call of a tick goes at once, the others of the tick together", async () => {
  const echo = bridge.tools.find((t) => t.name === ECHO)
  let results
  const counts = await crossings(async () => {
    results = await Promise.all(Array.from({ length: 64 }, (_, i) => echo.execute({ message: `x${i}` }, { toolCallId: `x${i}` })))
  })
  assert.deepEqual(counts, { callTool: 1, 'callTools(plain)': 1 })
  assert.deepEqual(
    results.map((r) => [r.toolCallId, r.content[0].text]),
    results.map((_, i) => [`x${i}`, `Echo: x${i}`]),
  )
})

test("the tools' own execute: a queued call aborted before its tick ends is never sent; odd ids still get their own answer", async () => {
  const echo = bridge.tools.find((t) => t.name === ECHO)
  const controller = new AbortController()
  let results
  const counts = await crossings(async () => {
    const first = echo.execute({ message: 'first' }, { toolCallId: 'first' })
    const queued = echo.execute({ message: 'a' }, { toolCallId: 'a', signal: controller.signal })
    controller.abort()
    results = await Promise.all([
      first,
      queued,
      echo.execute({ message: 'b' }, { toolCallId: 42 }),
      echo.execute({ message: 'c' }, { toolCallId: 'c' }),
      echo.execute({ message: 'd' }, { toolCallId: 'd' }),
    ])
  })
  // `first` alone at once, `42` alone (its conversion error is its own), `c` and `d` together.
  assert.deepEqual(counts, { callTool: 2, 'callTools(plain)': 1 })
  const [first, aborted, odd, c, d] = results
  assert.equal(first.content[0].text, 'Echo: first')
  assert.equal(aborted.toolCallId, 'a')
  assert.ok(aborted.error, 'the aborted call failed')
  assert.ok(odd.error, 'a tool call id that is not a string fails that call alone')
  assert.deepEqual([c.content[0].text, d.content[0].text], ['Echo: c', 'Echo: d'])
})

/** A ledger that keeps its rows without their ids and times; `respond` answers each append. */
function rowKeeper(respond = () => undefined) {
  const rows = []
  const ledger = {
    appendToolCall(row) {
      const { id, startedAt, finishedAt, durationMs, ...rest } = row
      rows.push({ ...rest, timed: [id, startedAt].every((v) => v !== undefined) })
      return respond(row)
    },
  }
  return { rows, ledger }
}

test('with a ledger, each row is appended at its gate, awaited, as dispatchToolCall appends it', async () => {
  const calls = [call('l1', ECHO, { message: 'a' }), call('l2', ECHO, { message: 7 }), call('l3', SUM, { a: 1, b: 2 })]
  for (const respond of [() => undefined, () => new Promise((r) => setTimeout(r, 5))]) {
    const a = rowKeeper(respond)
    const b = rowKeeper(respond)
    const events = recorder()
    let got
    const counts = await crossings(async () => {
      got = []
      for (const c of calls) got.push(await createToolDispatcher(options({ ledger: a.ledger, emit: events.emit }))(c))
    })
    const want = []
    for (const c of calls) want.push(await dispatchToolCall({ ...options({ ledger: b.ledger, emit: recorder().emit }), call: c }))
    assert.deepEqual(got, want)
    assert.deepEqual(a.rows, b.rows)
    assert.ok(a.rows.length >= 5, 'started and finished rows for the two that ran, a blocked row for the third')
    assert.deepEqual(counts, { 'callTools(check)': 3, 'callTools(plain)': 2 })
  }
})

test('with a ledger, a throwing append rejects the dispatch, as it does in dispatchToolCall', async () => {
  const c = call('x', ECHO, { message: 'x' })
  const ledger = {
    appendToolCall(row) {
      if (row.status === 'finished') throw new Error('the ledger is full')
    },
  }
  const viaDispatch = await dispatchToolCall({ ...options({ ledger }), call: c }).then(() => 'resolved', (e) => e.message)
  const viaDispatcher = await createToolDispatcher(options({ ledger }))(c).then(() => 'resolved', (e) => e.message)
  assert.equal(viaDispatcher, viaDispatch)
  assert.equal(viaDispatcher, 'the ledger is full')
})

// The gated path's edges: each gives what dispatchToolCall gives.
test('gated: an evicted schema, a rename to a JS tool, a suspending beforeExecute and a result middleware', async () => {
  const local = { name: 'local', execute: async (args, c) => ({ toolCallId: c.toolCallId, name: 'local', value: args.message }) }
  const registry = createToolRegistry([...bridge.tools, local])
  const suspended = Object.assign(new Error('run suspended'), { code: 'ERR_PRISM_AGENT_RUN_SUSPENDED' })
  const cases = [
    // One compiled schema at a time: the checks of one tick meet evicted schemas, and the JS
    // validator prepares them again.
    [{ validate: createJsonSchemaToolArgumentValidator({ maxCompiledSchemas: 1 }), beforeExecute: () => {} }, [call('e1', ECHO, { message: 'a' }), call('s1', SUM, { a: 1, b: 2 }), call('s2', SUM, { a: 'x', b: 2 })]],
    // Middleware that sends an MCP call to a JS tool, and a JS call to an MCP tool.
    [
      {
        middleware: {
          run: async (hook, v) => (hook === 'tool_call' ? { ...v, name: v.name === ECHO ? 'local' : v.name === 'local' ? ECHO : v.name } : { ...v, metadata: { ...v.metadata, after: hook } }),
        },
      },
      [call('r1', ECHO, { message: 'to local' }), call('r2', 'local', { message: 'to echo' })],
    ],
    // A suspension thrown by beforeExecute rejects the dispatch, as the reference rethrows it.
    [
      {
        beforeExecute: () => {
          throw suspended
        },
      },
      [call('b1', ECHO, { message: 'x' })],
    ],
  ]
  for (const [extra, calls] of cases) {
    const opts = options({ registry, permission: undefined, ...extra })
    const dispatch = createToolDispatcher(opts)
    const settle = (p) => p.then((r) => ['resolved', r], (e) => ['rejected', e.code ?? e.message])
    const got = await Promise.all(calls.map((c) => settle(dispatch(c))))
    const want = await Promise.all(calls.map((c) => settle(dispatchToolCall({ ...opts, call: c }))))
    assert.deepEqual(got, want)
  }
})
