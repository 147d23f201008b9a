import test from 'node:test'
import assert from 'node:assert/strict'
import {
  applyExecutionDecision,
  assertExecutionAllowed,
  assertPermission,
  assertTrusted,
  checkExecution,
  checkPermission,
  createMiddlewareRegistry,
  createStaticPermissionPolicy,
  createStaticTrustPolicy,
  createToolParameterValidator,
  createToolRegistry,
  denialToErrorInfo,
  ExecutionDeniedError,
  isTrusted,
  PermissionDeniedError,
  TrustDeniedError,
} from 'prism-native'
import { assertToolBlocked, assertToolDispatchConforms, dispatchAndCollect } from 'prism-native/testing/tool-conformance'

const req = { kind: 'tool', action: 'execute', target: 'echo' }

test('static permission policy: deny wins, allow-list, constants', async () => {
  const p = createStaticPermissionPolicy({ allow: ['tool:echo:execute', 'tool:x:execute'], deny: ['tool:x:execute'] })
  assert.deepEqual(await p.check(req), { allowed: true })
  assert.deepEqual(await p.check({ ...req, target: 'x' }), { allowed: false, reason: 'Permission denied: tool:x:execute' })
  assert.deepEqual(await p.check({ ...req, target: 'y' }), { allowed: false, reason: 'Permission not allowed: tool:y:execute' })
  assert.deepEqual(await createStaticPermissionPolicy({}).check(req), { allowed: true })
  assert.equal((await createStaticPermissionPolicy(false).check(req)).allowed, false)
  assert.equal((await createStaticPermissionPolicy(true).check(req)).allowed, true)
})

test('static permission policy: lists as the reference reads them (any iterable; entries that are not strings)', async () => {
  // An allow list whose only entry is not a string matches no key, yet is not empty.
  assert.deepEqual(await createStaticPermissionPolicy({ allow: [123] }).check(req), { allowed: false, reason: 'Permission not allowed: tool:echo:execute' })
  assert.deepEqual(await createStaticPermissionPolicy({ allow: new Set(['tool:echo:execute']) }).check(req), { allowed: true })
  assert.deepEqual(await createStaticPermissionPolicy({ deny: [null, 'tool:echo:execute'] }).check(req), { allowed: false, reason: 'Permission denied: tool:echo:execute' })
  assert.throws(() => createStaticPermissionPolicy({ allow: 5 }), TypeError)
  // The lists are read once: a later change to the host's array changes nothing.
  const allow = ['tool:echo:execute']
  const p = createStaticPermissionPolicy({ allow })
  allow.length = 0
  assert.deepEqual(await p.check({ ...req, target: 'y' }), { allowed: false, reason: 'Permission not allowed: tool:y:execute' })
})

test('checkPermission / assertPermission', async () => {
  assert.deepEqual(await checkPermission(undefined, req), { allowed: true })
  await assertPermission(undefined, req)
  const err = await assertPermission({ check: async () => ({ allowed: false }) }, req).catch((e) => e)
  assert.ok(err instanceof PermissionDeniedError)
  assert.equal(err.message, 'Permission denied for tool:echo:execute')
  assert.equal(err.code, 'ERR_PRISM_PERMISSION_DENIED')
  assert.equal(err.name, 'PermissionDeniedError')
  assert.deepEqual(err.request, req)
  assert.deepEqual(denialToErrorInfo(err), { name: 'PermissionDeniedError', message: err.message, code: 'ERR_PRISM_PERMISSION_DENIED' })
})

test("denialToErrorInfo: an Error's own name, message and code; anything else only its message", () => {
  const err = Object.assign(new Error('m', { cause: new Error('c') }), { code: 7, retryAfterMs: 3 })
  assert.deepStrictEqual(denialToErrorInfo(err), { name: 'Error', message: 'm', code: 7 })
  assert.deepStrictEqual(denialToErrorInfo(new TypeError('t')), { name: 'TypeError', message: 't', code: undefined })
  assert.deepStrictEqual(denialToErrorInfo('no'), { message: 'no' })
  assert.deepStrictEqual(denialToErrorInfo({ message: 'm', code: 'C' }), { message: '[object Object]' })
  assert.deepStrictEqual(denialToErrorInfo(undefined), { message: 'undefined' })
  assert.deepStrictEqual(denialToErrorInfo(Symbol.for('s')), { message: 'Symbol(s)' })
})

test('trust: static policies, isTrusted, assertTrusted', async () => {
  const t = { kind: 'tool', target: 'echo', capability: 'execute' }
  assert.equal(await isTrusted(undefined, t), true)
  assert.equal(await isTrusted(createStaticTrustPolicy(false), t), false)
  assert.equal(await isTrusted(createStaticTrustPolicy({ trusted: true }), t), true)
  const err = await assertTrusted(createStaticTrustPolicy(false), t).catch((e) => e)
  assert.ok(err instanceof TrustDeniedError)
  assert.equal(err.message, 'Untrusted tool: echo')
  assert.equal(err.code, 'ERR_PRISM_UNTRUSTED')
  const withReason = await assertTrusted(createStaticTrustPolicy({ trusted: false, reason: 'quarantined' }), t).catch((e) => e)
  assert.equal(withReason.message, 'quarantined')
})

test('execution policy seam', async () => {
  const action = { kind: 'shell', operation: 'execute', command: 'ls', paths: ['/a'] }
  assert.equal(await assertExecutionAllowed(undefined, action), action)
  assert.deepEqual(await checkExecution(undefined, action), { allowed: true })
  const modified = await assertExecutionAllowed({ check: () => ({ allowed: true, modified: { command: 'ls -la' } }) }, action)
  assert.deepEqual(modified, { ...action, command: 'ls -la' })
  assert.deepEqual(applyExecutionDecision(action, { allowed: true }), action)
  const err = await assertExecutionAllowed({ check: async () => ({ allowed: false }) }, action).catch((e) => e)
  assert.ok(err instanceof ExecutionDeniedError)
  assert.equal(err.message, 'Execution denied for shell:execute')
  assert.equal(err.code, 'ERR_PRISM_EXECUTION_DENIED')
  assert.equal(err.name, 'ExecutionDeniedError')
  assert.deepEqual(err.decision, { allowed: false })
  const reasoned = await assertExecutionAllowed({ check: () => ({ allowed: false, reason: 'outside roots' }) }, action).catch((e) => e)
  assert.equal(reasoned.message, 'outside roots')
})

test('middleware: sequential in registration order, next() value wins, remove', async () => {
  const errors = []
  const m = createMiddlewareRegistry({ onError: (e) => void errors.push(e) })
  m.use('h', (v) => v + 'a')
  const off = m.use('h', (v, next) => next(v + 'b'))
  m.use('h', async (v, next) => {
    await next(v + 'c')
    return 'ignored'
  })
  assert.equal(await m.run('h', ''), 'abc')
  assert.equal(errors.length, 1)
  assert.equal(errors[0].type, 'extension_error')
  assert.equal(errors[0].extension, 'middleware:h')
  assert.equal(
    errors[0].error.message,
    'Middleware hook "h" #2: called next(value) and returned a different value; the value given to next() is kept and the return value is dropped',
  )
  off()
  off()
  assert.equal(m.list('h').length, 2)
  assert.equal(await m.run('other', 5), 5)
})

test('middleware: next() twice, throwing middleware under "event" and "throw" policies', async () => {
  const errors = []
  const m = createMiddlewareRegistry({ onError: (e) => void errors.push(e), secrets: ['s3cret'] })
  m.use('h', async (v, next) => {
    await next(v)
    await next(v)
  })
  m.use('h', () => {
    throw new Error('boom s3cret')
  })
  m.use('h', (v) => v + 1)
  assert.equal(await m.run('h', 1), 2)
  assert.deepEqual(errors.map((e) => e.error.message), ['Middleware hook "h" #0: next() called more than once', 'boom [REDACTED]'])
  const strict = createMiddlewareRegistry({ errorPolicy: 'throw' })
  strict.use('h', (v, next) => {
    next(v)
    next(v)
  })
  await assert.rejects(strict.run('h', 1), { message: 'Middleware hook "h" #0: next() called more than once' })
  assert.throws(() => createMiddlewareRegistry({ errorPolicy: 'nope' }), TypeError)
})

test('createToolParameterValidator formats adapter errors', () => {
  const tool = { name: 't', parameters: { type: 'object' }, execute() {} }
  const bare = { name: 'bare', execute() {} }
  const failing = { validate: () => ({ ok: false, errors: [{ path: '#/required', message: "must have required property 'count'" }, { path: '/text', message: 'must be string' }, { message: 'plain' }] }) }
  assert.equal(createToolParameterValidator(failing)(tool, {}), "#/required: must have required property 'count'; /text: must be string; plain")
  assert.equal(createToolParameterValidator({ validate: () => ({ ok: false }) })(tool, {}), 'Tool arguments failed validation: t')
  assert.equal(createToolParameterValidator({ validate: () => ({ ok: false, errors: [] }) })(tool, {}), 'Tool arguments failed validation: t')
  assert.equal(createToolParameterValidator({ validate: () => ({ ok: true }) })(tool, {}), undefined)
  assert.equal(createToolParameterValidator(failing)(bare, {}), undefined)
  assert.equal(createToolParameterValidator(failing, { missingSchema: 'reject' })(bare, {}), 'Tool bare has no parameters schema')
})

test('conformance helpers pass a good tool and catch bad ones', async () => {
  const echo = { name: 'echo', execute: (a, c) => ({ toolCallId: c.toolCallId, name: 'echo', value: a }) }
  await assertToolDispatchConforms(createToolRegistry(), { tool: echo, validArgs: { x: 1 } })
  const broken = { name: 'broken', execute: () => { throw new Error('always') } }
  await assert.rejects(assertToolDispatchConforms(createToolRegistry(), { tool: broken, validArgs: {} }), { message: 'Valid tool call was not executed: always' })
  const registry = createToolRegistry([echo])
  const probe = { call: { type: 'tool_call', id: 'x', name: 'echo', arguments: {} }, registry }
  await assert.rejects(assertToolBlocked(probe, 'unknown_tool'), { message: 'Expected tool_execution_blocked for "unknown_tool", but no blocked event was emitted' })
  await assert.rejects(assertToolBlocked({ ...probe, validate: () => 'no' }, 'permission_denied'), { message: 'Blocked reason mismatch: expected permission_denied, got validation_failed' })
  const { result, events } = await dispatchAndCollect({ ...probe, context: { sessionId: 'mine' } })
  assert.equal(result.value !== undefined, true)
  assert.equal(events[0].sessionId, 'mine')
  assert.equal(events[0].runId, 'r')
})

test('a static permission policy answers the dispatch gate by tool name exactly as by its key', () => {
  const policy = createStaticPermissionPolicy({
    allow: ['tool:a:execute', 'tool:mcp:s:t:execute', 'tool::execute', 'tool:execute', 'x:y:z'],
    deny: ['tool:b:execute', 'tool:mcp:s:t:execute:execute'],
  })
  const requests = [
    ['a', { allowed: true }],
    ['mcp:s:t', { allowed: true }],
    ['', { allowed: true }],
    ['b', { allowed: false, reason: 'Permission denied: tool:b:execute' }],
    ['mcp:s:t:execute', { allowed: false, reason: 'Permission denied: tool:mcp:s:t:execute:execute' }],
    ['c', { allowed: false, reason: 'Permission not allowed: tool:c:execute' }],
    ['a:execute:x', { allowed: false, reason: 'Permission not allowed: tool:a:execute:x:execute' }],
  ]
  for (const [target, expected] of requests) {
    assert.deepEqual(policy.check({ kind: 'tool', action: 'execute', target }), expected, target)
  }
  // `tool:execute` is not a tool key (no target): it matches only its own key.
  assert.deepEqual(policy.check({ kind: 'tool', action: 'execute', target: undefined }), { allowed: false, reason: 'Permission not allowed: tool:undefined:execute' })
  assert.deepEqual(policy.check({ kind: 'x', action: 'z', target: 'y' }), { allowed: true })
})
