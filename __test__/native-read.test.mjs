// createToolDispatcher: the calls of a read tool made without host code (no execution policy,
// `operations`, `documentReader` or `transformImage`) run in the engine, a turn's reads of
// one tool crossing together (their schema checks in one crossing, their reads in one more per
// 16 reads),
// and each gives exactly what dispatchToolCall gives for the same call (the tool's own
// `execute`). A read tool with host code, or a wrapped one, keeps dispatchToolCall's path.
// The crossings are counted by wrapping the binding's functions.
import { test, after } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createJsonSchemaToolArgumentValidator } from '../lib/validation/json-schema.js'
import { createReadTool } from '../lib/coding-tools/agent.js'
import { createCodingApprovalPolicy } from '../lib/coding-tools/security.js'
import {
  createToolDispatcher,
  createToolRegistry,
  createStaticPermissionPolicy,
  createStaticTrustPolicy,
  dispatchToolCall,
  dispatchToolCallsInOrder,
} from '../index.mjs'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')

const dir = mkdtempSync(join(tmpdir(), 'prism-native-read-'))
after(() => rmSync(dir, { recursive: true, force: true }))
writeFileSync(join(dir, 'a.txt'), 'alpha\nbeta\ngamma\ndelta\n')
writeFileSync(join(dir, 'long.txt'), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join('\n'))
writeFileSync(join(dir, 'empty.txt'), '')
// The smallest PNG: its magic bytes make it an image.
writeFileSync(join(dir, 'dot.png'), Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'))
mkdirSync(join(dir, 'sub'))
// A file whose name has a curly apostrophe: asked for with a straight one, the tool finds it.
writeFileSync(join(dir, 'it\u2019s.txt'), 'curly\n')

const call = (id, args, extra = {}) => ({ type: 'tool_call', id, name: 'read', arguments: args, ...extra })

/** The history a turn of `calls` through `dispatch` appends (at most `concurrency` at once). */
async function turn(calls, dispatch, concurrency = 64) {
  const history = []
  await dispatchToolCallsInOrder(calls, { history, toolConcurrency: concurrency, appendMessage: async () => {}, dispatchToolCall: dispatch })
  return history
}

/** Counts calls of the binding's read functions (and the validator's batch check, the approval policy's JS check) while `fn` runs. */
async function crossings(fn) {
  const counts = {}
  const wrap = (owner, name, label) => {
    const original = owner[name]
    owner[name] = function (...args) {
      counts[label] = (counts[label] ?? 0) + 1
      return original.apply(this, args)
    }
    return () => {
      owner[name] = original
    }
  }
  const restore = [
    wrap(native, 'codingReadBatch', 'batch'),
    wrap(native, 'codingRead', 'read'),
    wrap(native.NativeJsonSchemaValidator.prototype, 'checkTexts', 'checkTexts'),
    wrap(native.NativeApprovalPolicy.prototype, 'decide', 'decide'),
  ]
  try {
    await fn()
  } finally {
    for (const r of restore) r()
  }
  return counts
}

function options(tool, extra = {}) {
  return {
    registry: createToolRegistry([tool]),
    permission: createStaticPermissionPolicy({ allow: ['tool:read:execute'] }),
    trust: createStaticTrustPolicy(true),
    validate: createJsonSchemaToolArgumentValidator(),
    secrets: ['sk-secret'],
    context: { sessionId: 's', runId: 'r' },
    ...extra,
  }
}

const CASES = [
  call('page', { path: 'a.txt' }),
  call('offset', { path: 'a.txt', offset: 2, limit: 2 }),
  call('truncated', { path: 'long.txt' }),
  call('find', { path: 'long.txt', findText: 'LINE 2500', findMode: 'case-insensitive' }),
  call('find-none', { path: 'a.txt', findText: 'omega' }),
  call('empty', { path: 'empty.txt' }),
  call('image', { path: 'dot.png' }),
  call('absolute', { path: join(dir, 'a.txt') }),
  call('at-sign', { path: '@a.txt' }),
  call('directory', { path: 'sub' }),
  call('missing', { path: 'nope.txt' }),
  call('variant', { path: "it's.txt" }),
  call('past-end', { path: 'a.txt', offset: 99 }),
  // Refused by the schema (the validator words it), or by the engine's own check.
  call('no-path', {}),
  call('wrong-type', { path: 5 }),
  call('empty-path', { path: '' }),
  call('find-mode', { path: 'a.txt', findText: 'x', findMode: 'fuzzy' }),
  call('limit-zero', { path: 'a.txt', limit: 0 }),
  call('null-offset', { path: 'a.txt', offset: null }),
  call('extra', { path: 'a.txt', nope: 1 }),
]

test('each read gives what dispatchToolCall gives, in the engine or not', async () => {
  for (const validate of [createJsonSchemaToolArgumentValidator(), undefined]) {
    const readPathSet = new Set()
    const tool = createReadTool(dir, { readPathSet })
    const opts = options(tool, { validate })
    const dispatch = createToolDispatcher(opts)
    for (const c of CASES) {
      const expected = await dispatchToolCall({ ...opts, call: c })
      const got = await dispatch(c)
      assert.deepEqual(got, expected, `${c.id} (validator: ${validate !== undefined})`)
    }
    // A turn of all of them at once gives the same, in call order.
    const native = await turn(CASES, dispatch)
    const js = await turn(CASES, (c) => dispatchToolCall({ ...opts, call: c }))
    assert.equal(native.length, CASES.length)
    assert.deepEqual(native, js, `the turn (validator: ${validate !== undefined})`)
    // Three at a time: each later read starts in the engine when a read finishes.
    assert.deepEqual(await turn(CASES, dispatch, 3), js, `three at a time (validator: ${validate !== undefined})`)
    assert.ok(readPathSet.has(join(dir, 'a.txt')) && readPathSet.has(join(dir, 'it\u2019s.txt')))
    assert.ok(!readPathSet.has(join(dir, 'nope.txt')))
  }
})

test("a turn's reads cross together: one schema check, and one read task per 16 reads", async () => {
  const tool = createReadTool(dir)
  const dispatch = createToolDispatcher(options(tool))
  const calls = Array.from({ length: 64 }, (_, i) => call(`c${i}`, { path: 'a.txt', offset: (i % 4) + 1 }))
  await dispatch(call('warm', { path: 'a.txt' }))
  let history
  const counts = await crossings(async () => {
    history = await turn(calls, dispatch)
  })
  // 64 reads: four tasks on libuv's thread pool (16 reads each), so that its threads share them.
  assert.deepEqual(counts, { checkTexts: 1, batch: 4 })
  assert.equal(history.length, 64)
  const js = await turn(calls, (c) => dispatchToolCall({ ...options(tool), call: c }))
  assert.deepEqual(history, js)
})

test('a read tool with host code, or a wrapped one, keeps the JS path', async () => {
  const policy = { check: async () => ({ allowed: true }) }
  const wrapped = createReadTool(dir)
  const tools = [
    createReadTool(dir, { executionPolicy: policy }),
    createReadTool(dir, { transformImage: async ({ buffer }) => buffer }),
    { ...wrapped, execute: (args, ctx) => wrapped.execute(args, ctx) },
  ]
  for (const tool of tools) {
    const dispatch = createToolDispatcher(options(tool))
    const counts = await crossings(async () => {
      const r = await dispatch(call('x', { path: 'a.txt' }))
      assert.equal(r.content[0].text.split('\n')[0], 'alpha')
    })
    assert.deepEqual(counts, { read: 1 })
  }
})

test('a read whose signal aborts gives the aborted result, as execute does', async () => {
  const tool = createReadTool(dir)
  const controller = new AbortController()
  const opts = options(tool, { context: { sessionId: 's', runId: 'r', signal: controller.signal } })
  const dispatch = createToolDispatcher(opts)
  // Planned (its reads started) before the signal aborts.
  const pending = Promise.all(Array.from({ length: 8 }, (_, i) => dispatch(call(`c${i}`, { path: 'long.txt' }))))
  controller.abort()
  const results = await pending
  const expected = await dispatchToolCall({ ...opts, call: call('c0', { path: 'long.txt' }) })
  assert.ok(expected.error, 'the JS path gives an error result for an aborted read')
  for (const [i, r] of results.entries()) assert.deepEqual(r, { ...expected, toolCallId: `c${i}` })
})

test('the gated path (emit) runs the reads in the engine and gives the same events', async () => {
  const tool = createReadTool(dir)
  const events = { native: [], js: [] }
  // Times differ from run to run: they are zeroed where the events have them.
  const zero = (o, keys) => {
    const out = { ...o }
    for (const k of keys) if (k in out) out[k] = 0
    return out
  }
  const strip = (e) => zero({ ...e, ...(e.metadata && { metadata: zero(e.metadata, ['durationMs']) }) }, ['durationMs', 'timestamp', 'startedAt', 'finishedAt'])
  const optsFor = (list) => options(tool, { emit: (e) => void list.push(strip(e)) })
  const dispatch = createToolDispatcher(optsFor(events.native))
  const calls = CASES
  let history
  const counts = await crossings(async () => {
    history = await turn(calls, dispatch)
  })
  const expected = await turn(calls, (c) => dispatchToolCall({ ...optsFor(events.js), call: c }))
  assert.deepEqual(history, expected)
  // Events of concurrent calls interleave: compare them per call.
  const byCall = (list) => Object.groupBy(list, (e) => e.toolCallId ?? e.call?.id ?? e.result?.toolCallId)
  assert.deepEqual(byCall(events.native), byCall(events.js))
  // Only the missing path with a macOS spelling took the tool's execute (which reads twice).
  assert.equal(counts.read, 2)
  assert.ok(counts.batch >= 1)
})

test('under createCodingApprovalPolicy, reads it allows run in the engine beneath their root; the rest ask it through execute', async () => {
  const root = mkdtempSync(join(tmpdir(), 'prism-native-read-root-'))
  const outside = mkdtempSync(join(tmpdir(), 'prism-native-read-out-'))
  after(() => {
    rmSync(root, { recursive: true, force: true })
    rmSync(outside, { recursive: true, force: true })
  })
  writeFileSync(join(root, 'in.txt'), 'inside\n')
  writeFileSync(join(outside, 'secret.txt'), 'outside\n')
  const links = process.platform !== 'win32'
  if (links) symlinkSync(join(outside, 'secret.txt'), join(root, 'escape.txt'))
  const cases = [
    call('inside', { path: 'in.txt' }),
    call('inside-abs', { path: join(root, 'in.txt') }),
    call('missing', { path: 'nope.txt' }),
    call('outside', { path: join(outside, 'secret.txt') }),
    call('dot-dot', { path: '../' + join(outside, 'secret.txt').split(/[\\/]/).slice(-2).join('/') }),
    ...(links ? [call('escape', { path: 'escape.txt' })] : []),
  ]
  for (const approveAnswer of [undefined, true, false]) {
    const asked = []
    const approve = approveAnswer === undefined ? undefined : async ({ action }) => (asked.push(action.paths[0]), approveAnswer)
    const policy = createCodingApprovalPolicy({ roots: [root], approve })
    const tool = createReadTool(root, { executionPolicy: policy })
    const opts = options(tool)
    let history
    const counts = await crossings(async () => {
      history = await turn(cases, createToolDispatcher(opts))
    })
    const nativeAsked = asked.splice(0)
    const js = await turn(cases, (c) => dispatchToolCall({ ...opts, call: c }))
    assert.deepEqual(history, js, `approve: ${approveAnswer}`)
    assert.deepEqual(nativeAsked, asked, 'approve is asked once per read it decides, as on the JS path')
    // One batch; the reads the policy did not allow outright (outside the root: denied, with
    // or without `approve`) each took execute, which asked it and read nothing.
    assert.equal(counts.batch, 1)
    assert.equal(counts.read, undefined)
    assert.equal(counts.decide, cases.length - 3, `the policy asked through JS for the reads outside the root only (approve: ${approveAnswer})`)
    assert.match(JSON.stringify(history[0]), /inside/)
  }
  // A policy whose check the host replaced is the host's: every read takes execute.
  const policy = createCodingApprovalPolicy({ roots: [root] })
  const tool = createReadTool(root, { executionPolicy: policy })
  const original = policy.check
  let checked = 0
  policy.check = (action) => (checked++, original(action))
  const counts = await crossings(async () => {
    const r = await createToolDispatcher(options(tool))(call('x', { path: 'in.txt' }))
    assert.equal(r.content[0].text.split('\n')[0], 'inside')
  })
  assert.equal(checked, 1)
  assert.deepEqual(counts, { read: 1, decide: 1 })
})

test('a host context whose getter throws is refused as dispatchToolCall refuses it', async () => {
  const context = { sessionId: 's' }
  Object.defineProperty(context, 'boom', { enumerable: true, get: () => { throw new Error('unreadable') } })
  const opts = options(createReadTool(dir), { context })
  const c = call('x', { path: 'a.txt' })
  const expected = await dispatchToolCall({ ...opts, call: c }).then(() => assert.fail('dispatchToolCall resolved'), (e) => e)
  const got = await createToolDispatcher(opts)(c).then(() => assert.fail('the dispatcher resolved'), (e) => e)
  assert.equal(got.code, expected.code)
  assert.equal(got.message, expected.message)
  assert.equal(got.constructor, expected.constructor)
})
