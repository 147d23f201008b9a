import test from 'node:test'
import assert from 'node:assert/strict'
import {
  createToolRegistry,
  createMiddlewareRegistry,
  createStaticPermissionPolicy,
  createStaticTrustPolicy,
  dispatchToolCall,
  filterTools,
} from 'prism-native'

const ctx = { sessionId: 's1', runId: 'r1', toolCallId: 'ignored' }
const call = (fields = {}) => ({ type: 'tool_call', id: 'c1', name: 'echo', arguments: { text: 'hi' }, ...fields })

function echoTool(trace = [], extra = {}) {
  return {
    name: 'echo',
    async execute(args, context) {
      trace.push('execute')
      return { toolCallId: context.toolCallId, name: 'echo', content: [{ type: 'text', text: String(args.text) }] }
    },
    ...extra,
  }
}

async function run(options) {
  const events = []
  const rows = []
  const result = await dispatchToolCall({
    registry: createToolRegistry([echoTool()]),
    context: ctx,
    emit: (e) => {
      events.push(e)
    },
    ledger: { appendToolCall: (row) => void rows.push(row) },
    call: call(),
    ...options,
  })
  return { result, events, rows }
}

test('success: started then finished, result returned, ledger rows started + finished', async () => {
  const { result, events, rows } = await run({})
  assert.deepEqual(result, { toolCallId: 'c1', name: 'echo', content: [{ type: 'text', text: 'hi' }] })
  assert.deepEqual(events.map((e) => e.type), ['tool_execution_started', 'tool_execution_finished'])
  assert.deepEqual(events[0], { type: 'tool_execution_started', sessionId: 's1', runId: 'r1', call: call() })
  assert.equal(events[1].result, result)
  assert.equal(events[1].metadata.status, 'finished')
  assert.equal(typeof events[1].metadata.durationMs, 'number')
  assert.deepEqual(rows.map((r) => r.status), ['started', 'finished'])
  assert.equal(rows[0].id, rows[1].id)
  assert.match(rows[0].id, /^toolcall/)
  assert.equal(rows[1].result, result)
  assert.equal(rows[1].redacted, false)
  assert.equal(typeof rows[1].finishedAt, 'string')
  assert.deepEqual(rows[0].arguments, { text: 'hi' })
})

const blockedCases = [
  ['unknown tool', { call: call({ name: 'nope' }) }, 'unknown_tool', { message: 'Unknown tool: nope' }],
  ['filter deny', { filter: { deny: ['echo'] } }, 'tool_denied', { message: 'Tool denied: echo' }],
  ['filter allow without the name', { filter: [{ allow: ['other'] }] }, 'tool_denied', { message: 'Tool denied: echo' }],
  ['argumentsError passes through', { call: call({ argumentsError: { message: 'bad json', code: 'E_PARSE', extra: 1 } }) }, 'invalid_arguments', { message: 'bad json', code: 'E_PARSE', extra: 1 }],
  ['null arguments', { call: call({ arguments: null }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['array arguments', { call: call({ arguments: [] }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['string arguments', { call: call({ arguments: 'x' }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['NaN nested', { call: call({ arguments: { a: [1, NaN] } }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['Infinity', { call: call({ arguments: { a: Infinity } }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['non-plain object', { call: call({ arguments: new Map() }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['nested Date', { call: call({ arguments: { d: new Date() } }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['undefined value', { call: call({ arguments: { u: undefined } }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['__proto__ key', { call: call({ arguments: JSON.parse('{"a":{"__proto__":{"x":1}}}') }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['prototype key', { call: call({ arguments: { a: [{ prototype: 1 }] } }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  ['constructor key', { call: call({ arguments: { constructor: 'x' } }) }, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' }],
  [
    'permission deny',
    { permission: createStaticPermissionPolicy({ deny: ['tool:echo:execute'] }) },
    'permission_denied',
    { name: 'PermissionDeniedError', message: 'Permission denied: tool:echo:execute', code: 'ERR_PRISM_PERMISSION_DENIED', cause: undefined },
  ],
  [
    'permission allow-list without the key',
    { permission: createStaticPermissionPolicy({ allow: ['tool:other:execute'] }) },
    'permission_denied',
    { name: 'PermissionDeniedError', message: 'Permission not allowed: tool:echo:execute', code: 'ERR_PRISM_PERMISSION_DENIED', cause: undefined },
  ],
  [
    'trust denial reports permission_denied',
    { trust: createStaticTrustPolicy(false) },
    'permission_denied',
    { name: 'TrustDeniedError', message: 'Untrusted tool: echo', code: 'ERR_PRISM_UNTRUSTED', cause: undefined },
  ],
  ['validator string', { validate: () => 'bad args' }, 'validation_failed', { message: 'bad args', code: undefined }],
  ['validator ErrorInfo keeps extra fields', { validate: async () => ({ message: 'no', code: 7, path: '/x' }) }, 'validation_failed', { message: 'no', code: 7, path: '/x' }],
  [
    'beforeExecute throw',
    {
      beforeExecute: () => {
        throw Object.assign(new Error('not now'), { code: 'E_NOPE' })
      },
    },
    'execution_denied',
    { name: 'Error', message: 'not now', code: 'E_NOPE', cause: undefined },
  ],
]

for (const [label, options, reason, error] of blockedCases) {
  test(`blocked (${label}): ${reason}, one blocked event, never started, nothing executed`, async () => {
    const trace = []
    const { result, events, rows } = await run({ registry: createToolRegistry([echoTool(trace)]), ...options })
    assert.deepEqual(trace, [])
    assert.deepEqual(events.map((e) => e.type), ['tool_execution_blocked'])
    const [ev] = events
    assert.equal(ev.reason, reason)
    assert.deepEqual(ev.error, error)
    assert.equal(ev.toolCallId, 'c1')
    assert.equal(ev.metadata.status, 'blocked')
    assert.equal(ev.sessionId, 's1')
    assert.equal(ev.runId, 'r1')
    assert.deepEqual(result, { toolCallId: 'c1', name: ev.name, error })
    assert.deepEqual(rows.map((r) => [r.status, r.reason]), [['blocked', reason]])
    assert.deepEqual(rows[0].result, result)
  })
}

test('validator results "", null and undefined pass', async () => {
  for (const verdict of ['', null, undefined]) {
    const { result } = await run({ validate: () => verdict })
    assert.equal(result.error, undefined)
  }
})

test('gate order: middleware, lookup, trust, permission, validator, beforeExecute, execute, result middleware', async () => {
  const trace = []
  const middleware = createMiddlewareRegistry()
  middleware.use('tool_call', (c) => {
    trace.push('tool_call')
    return c
  })
  middleware.use('tool_result', (r) => {
    trace.push('tool_result')
    return r
  })
  const registry = {
    get(name) {
      trace.push('lookup')
      return name === 'echo' ? echoTool(trace) : undefined
    },
  }
  await run({
    registry,
    middleware,
    trust: { check: () => (trace.push('trust'), { trusted: true }) },
    permission: { check: () => (trace.push('permission'), { allowed: true }) },
    validate: () => void trace.push('validate'),
    beforeExecute: () => void trace.push('beforeExecute'),
    emit: (e) => void trace.push(e.type),
  })
  assert.deepEqual(trace, [
    'tool_call',
    'lookup',
    'trust',
    'permission',
    'validate',
    'beforeExecute',
    'tool_execution_started',
    'execute',
    'tool_result',
    'tool_execution_finished',
  ])
})

test('a denied permission never reaches the validator', async () => {
  let validated = false
  await run({ permission: createStaticPermissionPolicy(false), validate: () => void (validated = true) })
  assert.equal(validated, false)
})

test('tool_call middleware rewrites the call before every gate', async () => {
  const middleware = createMiddlewareRegistry()
  middleware.use('tool_call', (c) => ({ ...c, id: 'c2', arguments: { text: 'rewritten' } }))
  const { result, events } = await run({ middleware })
  assert.equal(result.content[0].text, 'rewritten')
  assert.equal(events[0].call.id, 'c2')
})

test('middleware can turn an unknown tool into a known one and vice versa', async () => {
  const middleware = createMiddlewareRegistry()
  middleware.use('tool_call', (c) => ({ ...c, name: 'gone' }))
  const { events } = await run({ middleware })
  assert.equal(events[0].reason, 'unknown_tool')
  assert.equal(events[0].name, 'gone')
})

test('execute throwing (sync or async) gives an error result and an error event, secrets redacted', async () => {
  for (const execute of [
    () => {
      throw Object.assign(new Error('key sk-123 leaked'), { code: 'E_X', retryAfterMs: 5 })
    },
    async () => {
      throw Object.assign(new Error('key sk-123 leaked'), { code: 'E_X', retryAfterMs: 5 })
    },
  ]) {
    const { result, events, rows } = await run({ registry: createToolRegistry([{ name: 'echo', execute }]), secrets: ['sk-123', undefined] })
    const error = { name: 'Error', message: 'key [REDACTED] leaked', code: 'E_X', cause: undefined, retryAfterMs: 5 }
    assert.deepEqual(result, { toolCallId: 'c1', name: 'echo', error })
    assert.deepEqual(events.map((e) => e.type), ['tool_execution_started', 'tool_execution_error'])
    assert.deepEqual(events[1].error, error)
    assert.deepEqual(events[1].call, call())
    assert.equal(events[1].metadata.status, 'error')
    assert.deepEqual(rows.map((r) => r.status), ['started', 'error'])
  }
})

test('a thrown non-Error value and a thrown Error with a cause', async () => {
  const { result } = await run({ registry: createToolRegistry([{ name: 'echo', execute: () => Promise.reject('plain') }]) })
  assert.deepEqual(result.error, { name: 'Error', message: 'plain', code: undefined, cause: undefined })
  const inner = new Error('root cause')
  const { result: r2 } = await run({ registry: createToolRegistry([{ name: 'echo', execute: () => { throw new Error('outer', { cause: inner }) } }]) })
  assert.equal(r2.error.cause, 'root cause')
})

test('execute returning a non-promise value works; returning garbage is an error result', async () => {
  const sync = { name: 'echo', execute: (a, c) => ({ toolCallId: c.toolCallId, name: 'echo', value: 1 }) }
  assert.equal((await run({ registry: createToolRegistry([sync]) })).result.value, 1)
  for (const garbage of [undefined, null, 42, 'str', [1]]) {
    const { result, events } = await run({ registry: createToolRegistry([{ name: 'echo', execute: () => garbage }]) })
    assert.equal(result.error.code, 'ERR_PRISM_INVALID_TOOL_RESULT')
    assert.match(result.error.message, /^Tool echo returned .* instead of a ToolResult object$/)
    assert.equal(events.at(-1).type, 'tool_execution_error')
  }
})

test('the result is returned as the tool produced it (ids not rewritten)', async () => {
  const odd = { name: 'echo', execute: () => ({ toolCallId: 'other', name: 'renamed' }) }
  const { result } = await run({ registry: createToolRegistry([odd]) })
  assert.deepEqual(result, { toolCallId: 'other', name: 'renamed' })
})

test('result middleware throwing under "throw" policy becomes an error result', async () => {
  const middleware = createMiddlewareRegistry({ errorPolicy: 'throw' })
  middleware.use('tool_result', () => {
    throw new Error('result hook failed')
  })
  const { result, events } = await run({ middleware })
  assert.equal(result.error.message, 'result hook failed')
  assert.deepEqual(events.map((e) => e.type), ['tool_execution_started', 'tool_execution_error'])
})

test('redactor redacts the finished result and ledger rows; secrets only touch errors', async () => {
  const redactor = { redact: (v) => JSON.parse(JSON.stringify(v).replaceAll('hi', '***')) }
  const { result, events, rows } = await run({ redactor, secrets: ['hi'] })
  assert.equal(result.content[0].text, '***')
  assert.equal(events[1].result.content[0].text, '***')
  assert.equal(rows[0].redacted, true)
  assert.deepEqual(rows[0].arguments, { text: '***' })
})

test('validator string messages are redacted with secrets', async () => {
  const { result } = await run({ validate: () => 'token abc is wrong', secrets: ['abc'] })
  assert.deepEqual(result.error, { message: 'token [REDACTED] is wrong', code: undefined })
})

test('context: toolCallId from the call, idempotencyKey dropped, identity from options, signal passed', async () => {
  let seen
  const controller = new AbortController()
  const tool = { name: 'echo', execute: (a, c) => ((seen = c), { toolCallId: c.toolCallId, name: 'echo' }) }
  await run({
    registry: createToolRegistry([tool]),
    context: { ...ctx, idempotencyKey: 'k', metadata: { m: 1 }, signal: controller.signal, identity: { id: 'ctx' } },
    identity: { id: 'opt' },
  })
  assert.equal(seen.toolCallId, 'c1')
  assert.equal('idempotencyKey' in seen, false)
  assert.deepEqual(seen.identity, { id: 'opt' })
  assert.equal(seen.signal, controller.signal)
  assert.deepEqual(seen.metadata, { m: 1 })
})

test('the abort signal reaches a running tool', async () => {
  const controller = new AbortController()
  const tool = {
    name: 'echo',
    execute: (a, c) =>
      new Promise((resolve, reject) => {
        c.signal.addEventListener('abort', () => reject(c.signal.reason), { once: true })
        setImmediate(() => controller.abort(new Error('stop')))
      }),
  }
  const { result } = await run({ registry: createToolRegistry([tool]), context: { ...ctx, signal: controller.signal } })
  assert.equal(result.error.message, 'stop')
})

test('progress calls the host, emits tool_execution_progress and writes a started row', async () => {
  const hostSeen = []
  const tool = {
    name: 'echo',
    async execute(a, c) {
      await c.progress({ pct: 50 }, { phase: 'half' })
      return { toolCallId: c.toolCallId, name: 'echo' }
    },
  }
  const { events, rows } = await run({
    registry: createToolRegistry([tool]),
    context: { ...ctx, progress: (p, m) => void hostSeen.push([p, m]) },
  })
  assert.deepEqual(hostSeen, [[{ pct: 50 }, { phase: 'half' }]])
  assert.deepEqual(events[1], {
    type: 'tool_execution_progress',
    sessionId: 's1',
    runId: 'r1',
    toolCallId: 'c1',
    name: 'echo',
    progress: { pct: 50 },
    metadata: { phase: 'half' },
  })
  assert.deepEqual(rows.map((r) => r.status), ['started', 'started', 'finished'])
  assert.deepEqual(rows[1].progress, { pct: 50 })
  assert.deepEqual(rows[1].progressMetadata, { phase: 'half' })
  assert.equal(typeof rows[1].progressAt, 'string')
})

test('beforeExecute rethrows suspension and loop codes', async () => {
  for (const code of ['ERR_PRISM_AGENT_RUN_SUSPENDED', 'ERR_PRISM_LOOP_X', 'ERR_PRISM_DELEGATION_SUSPENDED']) {
    await assert.rejects(
      run({ beforeExecute: () => { throw Object.assign(new Error('suspend'), { code }) } }),
      { code },
    )
  }
})

test('contract violations reject with ERR_PRISM_INVALID_DISPATCH instead of crashing', async () => {
  await assert.rejects(dispatchToolCall(null), { code: 'ERR_PRISM_INVALID_DISPATCH' })
  await assert.rejects(run({ call: null }), { code: 'ERR_PRISM_INVALID_DISPATCH' })
  await assert.rejects(run({ call: 'x' }), { code: 'ERR_PRISM_INVALID_DISPATCH' })
  await assert.rejects(run({ registry: undefined }), { code: 'ERR_PRISM_INVALID_DISPATCH' })
})

test('a cyclic or very deep argument object is rejected without a stack overflow', async () => {
  const cyclic = { a: {} }
  cyclic.a.self = cyclic
  assert.equal((await run({ call: call({ arguments: cyclic }) })).result.error.message, 'Tool arguments must be a JSON object')
  let deep = { leaf: 1 }
  for (let i = 0; i < 100_000; i++) deep = { n: deep }
  assert.equal((await run({ call: call({ arguments: deep }) })).result.error, undefined)
  let deepBad = { constructor: 1 }
  for (let i = 0; i < 100_000; i++) deepBad = { n: [deepBad] }
  assert.equal((await run({ call: call({ arguments: deepBad }) })).result.error.message, 'Tool arguments must be a JSON object')
  const shared = { x: 1 }
  assert.equal((await run({ call: call({ arguments: { a: shared, b: shared } }) })).result.error, undefined)
})

test('an async emit and ledger are awaited in order', async () => {
  const order = []
  await run({
    emit: async (e) => {
      await new Promise((r) => setTimeout(r, 2))
      order.push(e.type)
    },
    ledger: { appendToolCall: async (row) => void order.push(`row:${row.status}`) },
  })
  assert.deepEqual(order, ['tool_execution_started', 'row:started', 'tool_execution_finished', 'row:finished'])
})

test('ownership fields are copied into ledger rows', async () => {
  const { rows } = await run({ ownership: { tenantId: 't', userId: 'u' } })
  assert.equal(rows[0].tenantId, 't')
  assert.equal(rows[0].userId, 'u')
})

test('secrets are replaced in a thrown error name and string code too', async () => {
  const execute = () => {
    throw Object.assign(new Error('uses sk-9'), { name: 'Err sk-9', code: 'E_sk-9' })
  }
  const { result } = await run({ registry: createToolRegistry([{ name: 'echo', execute }]), secrets: ['sk-9'] })
  assert.deepEqual(result.error, { name: 'Err [REDACTED]', message: 'uses [REDACTED]', code: 'E_[REDACTED]', cause: undefined })
  const numeric = () => {
    throw Object.assign(new Error('n'), { code: 42 })
  }
  assert.equal((await run({ registry: createToolRegistry([{ name: 'echo', execute: numeric }]) })).result.error.code, 42)
})

test('a validator verdict object is copied with its strings redacted; a cycle in it is kept', async () => {
  const verdict = { message: 'bad abc', code: 'E_V', details: [{ hint: 'abc again' }] }
  verdict.self = verdict
  const { result, events } = await run({ validate: () => verdict, secrets: ['abc'] })
  assert.equal(result.error.message, 'bad [REDACTED]')
  assert.equal(result.error.details[0].hint, '[REDACTED] again')
  assert.equal(result.error.self, verdict)
  assert.equal(verdict.message, 'bad abc', 'the host object is not mutated')
  assert.equal(events[0].reason, 'validation_failed')
  assert.equal(events[0].error, result.error)
})

test('the blocked event, the blocked result and the blocked ledger row share the error object', async () => {
  const argumentsError = { message: 'bad json' }
  const { result, events, rows } = await run({ call: call({ argumentsError }) })
  assert.equal(result.error, argumentsError)
  assert.equal(events[0].error, argumentsError)
  assert.deepEqual(rows.map((r) => [r.status, r.reason]), [['blocked', 'invalid_arguments']])
  assert.equal(rows[0].result, result)
  assert.match(rows[0].startedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.match(rows[0].finishedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
})

test('a filter object is compiled once and filterTools agrees with dispatch', async () => {
  const filter = [{ allow: ['echo', 'b'] }, undefined, { deny: ['b'] }]
  assert.deepEqual(filterTools([{ name: 'echo' }, { name: 'b' }, { name: 'c' }], filter).map((t) => t.name), ['echo'])
  assert.equal((await run({ filter })).result.error, undefined)
  assert.equal((await run({ filter: { deny: ['echo'] } })).result.error.message, 'Tool denied: echo')
})

// Hostile input: Proxies whose every trap throws, getters that throw, thrown values that
// cannot be read. Each is a blocked result or an ERR_PRISM_INVALID_DISPATCH TypeError with
// our message (never the trap's, which here carries a secret); nothing rejects otherwise.
const TRAPS = ['get', 'has', 'ownKeys', 'getPrototypeOf', 'getOwnPropertyDescriptor', 'set', 'defineProperty', 'deleteProperty']
const hostile = (target = {}) => new Proxy(target, Object.fromEntries(TRAPS.map((t) => [t, () => { throw new Error(`trap ${t} sk-hostile`) }])))

test('arguments that are throwing Proxies (at the top or nested) are blocked as invalid_arguments', async () => {
  for (const args of [hostile({ text: 'hi' }), { text: hostile({}) }, [hostile({})]]) {
    const { result, events } = await run({ call: call({ arguments: args }) })
    assert.deepEqual(result, { toolCallId: 'c1', name: 'echo', error: { message: 'Tool arguments must be a JSON object' } })
    assert.equal(events[0].reason, 'invalid_arguments')
  }
})

test('options, call, context, registry, filter and secrets that cannot be read reject with a clean TypeError', async () => {
  const good = () => ({ registry: createToolRegistry([echoTool()]), context: ctx, call: call() })
  const cases = [
    [hostile(good()), 'dispatchToolCall: options could not be read'],
    [{ ...good(), call: hostile(call()) }, 'dispatchToolCall: options.call must be a tool call object'],
    [{ ...good(), context: hostile(ctx) }, 'dispatchToolCall: options.context could not be read'],
    [{ ...good(), context: 'session' }, 'dispatchToolCall: options.context must be an object'],
    [{ ...good(), registry: hostile(createToolRegistry([echoTool()])) }, 'dispatchToolCall: options.registry must be a ToolRegistry'],
    [{ ...good(), filter: hostile({}) }, 'dispatchToolCall: options.filter could not be read'],
    [{ ...good(), secrets: hostile([]) }, 'dispatchToolCall: options.secrets must be an array of strings'],
    [{ ...good(), call: { ...call(), get name() { throw new Error('sk-hostile') } } }, 'dispatchToolCall: options.call must be a tool call object'],
  ]
  for (const [options, message] of cases) {
    await assert.rejects(dispatchToolCall(options), (err) => {
      assert.ok(err instanceof TypeError)
      assert.equal(err.code, 'ERR_PRISM_INVALID_DISPATCH')
      assert.equal(err.message, message)
      return true
    })
  }
})

test('a tool_call middleware returning a throwing Proxy is a middleware error; the call goes on unchanged', async () => {
  const reported = []
  const middleware = createMiddlewareRegistry({ onError: (e) => void reported.push(e) })
  middleware.use('tool_call', () => hostile(call()))
  const { result } = await run({ middleware })
  assert.deepEqual(result, { toolCallId: 'c1', name: 'echo', content: [{ type: 'text', text: 'hi' }] })
  assert.equal(reported.length, 1)
})

test('a thrown value that cannot be read becomes an error result', async () => {
  const throwers = [
    () => { throw hostile({}) },
    () => { throw { get message() { throw new Error('sk-hostile') } } },
    () => { throw Object.assign(new Error('bad'), { get code() { throw new Error('sk-hostile') } }) },
    () => { throw { toString() { throw new Error('sk-hostile') } } },
  ]
  for (const execute of throwers) {
    const { result, events } = await run({ registry: createToolRegistry([{ name: 'echo', execute }]), secrets: ['sk-hostile'] })
    assert.equal(result.toolCallId, 'c1')
    assert.equal(typeof result.error.message, 'string')
    assert.ok(!JSON.stringify(result).includes('sk-hostile'))
    assert.equal(events.at(-1).type, 'tool_execution_error')
  }
})

test('a thrown error has secrets redacted in its name and code as in its message', async () => {
  const execute = () => {
    const err = new Error('failed with sk-123')
    err.name = 'Sk-123Error sk-123'
    err.code = 'E_sk-123'
    throw err
  }
  const { result, events } = await run({ registry: createToolRegistry([{ name: 'echo', execute }]), secrets: ['sk-123'] })
  assert.equal(result.error.message, 'failed with [REDACTED]')
  assert.equal(result.error.name, 'Sk-123Error [REDACTED]')
  assert.equal(result.error.code, 'E_[REDACTED]')
  assert.deepEqual(events.at(-1).error, result.error)
  const denied = await run({
    beforeExecute: () => {
      throw Object.assign(new Error('no'), { name: 'sk-123', code: 'sk-123' })
    },
    secrets: ['sk-123'],
  })
  assert.equal(denied.result.error.name, '[REDACTED]')
  assert.equal(denied.result.error.code, '[REDACTED]')
})
