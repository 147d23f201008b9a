// The JSON Schema ToolValidator crosses into the engine once per call, failing or not: the
// engine validates and words the refusal in the same call (and, inside dispatchToolCall,
// decides the blocked call too). Counted by wrapping every function
// of the native module and every method of its validator class; the words are the same as the
// core's `createToolParameterValidator` over the same ToolArgumentValidator gives.
import test from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { readFileSync, existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createJsonSchemaArgumentValidator, createJsonSchemaToolArgumentValidator } from 'prism-native/validation/json-schema'
import { createToolParameterValidator, createToolRegistry, dispatchToolCall } from 'prism-native'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')

/** Wraps every native function and validator method with a counter; returns the calls made. */
function countCrossings() {
  const calls = []
  const restore = []
  const wrap = (owner, key, label) => {
    const original = owner[key]
    owner[key] = function (...args) {
      calls.push(label)
      return original.apply(this, args)
    }
    restore.push(() => {
      owner[key] = original
    })
  }
  for (const key of Object.keys(native)) {
    const value = native[key]
    if (typeof value !== 'function') continue
    if (value === native.NativeJsonSchemaValidator) {
      for (const method of Object.getOwnPropertyNames(value.prototype)) {
        const d = Object.getOwnPropertyDescriptor(value.prototype, method)
        if (method !== 'constructor' && typeof d.value === 'function') wrap(value.prototype, method, `validator.${method}`)
      }
    } else if (!/^[A-Z]/.test(key)) {
      wrap(native, key, key)
    }
  }
  return { calls, restore: () => restore.forEach((r) => r()) }
}

const schema = {
  type: 'object',
  properties: { text: { type: 'string' }, count: { type: 'integer', minimum: 0 }, tags: { type: 'array', items: { type: 'string' } } },
  required: ['count'],
  additionalProperties: false,
}
const tool = { name: 'note', parameters: schema, execute: () => ({ toolCallId: 'c', name: 'note', content: [] }) }

test('a failing call crosses once (warm), and so do a passing call and a call that cannot be JSON', (t) => {
  const validate = createJsonSchemaToolArgumentValidator()
  assert.equal(validate(tool, { count: 1 }), undefined) // compiles: prepare + check
  const counted = countCrossings()
  t.after(counted.restore)
  const { calls } = counted

  assert.equal(validate(tool, { text: 5, extra: true }), "#/required: must have required property 'count'; #/additionalProperties: must NOT have additional properties; /text: must be string")
  assert.deepEqual(calls, ['validator.checkCall'], 'one crossing for a failing call')

  calls.length = 0
  assert.equal(validate(tool, { count: 2, tags: ['a'] }), undefined)
  assert.deepEqual(calls, ['validator.checkCall'], 'one crossing for a passing call')

  calls.length = 0
  assert.equal(validate(tool, { count: Number.NaN }), 'count: value must be JSON-serializable')
  assert.deepEqual(calls, ['validator.problem'], 'one crossing for arguments JSON text cannot carry')

  // The counter sees the generic path's crossings too: the refusal is worded in a second one.
  calls.length = 0
  const generic = createToolParameterValidator(createJsonSchemaArgumentValidator())
  generic(tool, { count: 1 })
  calls.length = 0
  generic(tool, { text: 5 })
  assert.deepEqual(calls, ['validator.validate', 'validationFailureMessage'])
})

test('an evicted schema is compiled again and the call still crosses into one check', () => {
  const validate = createJsonSchemaToolArgumentValidator({ maxCompiledSchemas: 1 })
  const other = { name: 'other', parameters: { type: 'object', properties: { a: { type: 'string' } } } }
  assert.equal(validate(tool, { count: 1 }), undefined)
  assert.equal(validate(other, { a: 1 }), '/a: must be string') // evicts tool's schema
  const counted = countCrossings()
  try {
    assert.equal(validate(tool, { count: -1 }), '/count: must be >= 0')
    assert.deepEqual(counted.calls, ['validator.checkCall', 'validator.prepare', 'validator.checkCall'])
  } finally {
    counted.restore()
  }
  assert.equal(validate.stats().compiles, 3)
})

// The instances the refusals are compared on: every kind of failure the tool validator words.
function cases() {
  const here = dirname(fileURLToPath(import.meta.url))
  const out = [
    [tool, { text: 5 }],
    [tool, { count: 1.5, tags: [1, 'a', null] }],
    [tool, { count: 1 }],
    [tool, 'not an object'],
    [tool, { count: Infinity }],
    [tool, { count: 1, f() {} }],
    [tool, { count: 1, d: new Date(0) }],
    [tool, { get count() { throw new Error('getter boom') } }],
    [tool, JSON.parse('{"count":1,"__proto__":{"x":1}}')],
    [tool, { count: 1, tags: 'x'.repeat(10) }],
    [{ name: 'bad', parameters: { type: 'object', properties: { a: { type: 'strin' } } } }, { a: 1 }],
    [{ name: 'cyclic', parameters: (() => { const s = { type: 'object' }; s.properties = { a: s }; return s })() }, {}],
    [{ name: 'loose', parameters: { type: 'array', maxItems: 1 } }, [1, 2]],
    [{ name: 'bare' }, {}],
    [{ name: 7, parameters: schema }, {}],
  ]
  const deep = []
  let node = deep
  for (let i = 0; i < 80; i++) node = node[0] = []
  out.push([{ name: 'deep', parameters: {} }, deep])
  const cyclic = { count: 1 }
  cyclic.self = cyclic
  out.push([tool, cyclic])
  const data = process.env.BENCH_SCHEMAS ?? resolve(here, '..', '..', 'shared', 'data', 'bench-schemas')
  if (existsSync(join(data, 'tools.json'))) {
    for (const t of JSON.parse(readFileSync(join(data, 'tools.json'), 'utf8'))) {
      const named = { name: t.name, parameters: t.schema }
      out.push([named, t.valid], [named, t.invalid])
    }
  }
  return out
}

test("the refusals are the core's words over the same ToolArgumentValidator, byte for byte", () => {
  for (const options of [{}, { strict: false }, { missingSchema: 'reject', maxErrors: 1 }, { maxDepth: 3, maxStringLength: 4 }]) {
    const fast = createJsonSchemaToolArgumentValidator(options)
    const generic = createToolParameterValidator(createJsonSchemaArgumentValidator(options), { missingSchema: options.missingSchema ?? 'allow' })
    for (const [t, args] of cases()) {
      // Twice: cold (compiling) and warm.
      for (let i = 0; i < 2; i++) assert.equal(fast(t, args), generic(t, args), `${JSON.stringify(options)} ${t.name}`)
    }
  }
})

test('a failing dispatch crosses once: the engine validates, words and decides the blocked call', async () => {
  const validate = createJsonSchemaToolArgumentValidator()
  const registry = createToolRegistry([tool])
  const call = { type: 'toolCall', id: 'c1', name: 'note', arguments: { text: 5 } }
  const context = { sessionId: 's', runId: 'r', toolCallId: 'c1' }
  await dispatchToolCall({ call, registry, context, validate })
  const counted = countCrossings()
  try {
    const result = await dispatchToolCall({ call, registry, context, validate })
    assert.equal(result.error.message, "#/required: must have required property 'count'; /text: must be string")
    assert.deepEqual(counted.calls, ['validator.checkDispatch'])
    counted.calls.length = 0
    const ok = await dispatchToolCall({ call: { ...call, arguments: { count: 1 } }, registry, context, validate })
    assert.equal(ok.error, undefined)
    assert.deepEqual(counted.calls, ['validator.checkDispatch'])
  } finally {
    counted.restore()
  }
})

test("a dispatch blocked by the engine's check ends as the generic validator's does: result, event, ledger row", async () => {
  const secrets = ['count', 'sk-1']
  const run = async (validate, args, name = 'note') => {
    const events = []
    const rows = []
    const ledger = { appendToolCall: (row) => rows.push(row) }
    const registry = createToolRegistry([tool, { name: 'bare', execute: tool.execute }])
    const call = { type: 'toolCall', id: 'c1', name, arguments: args }
    const result = await dispatchToolCall({ call, registry, context: { sessionId: 's', runId: 'r' }, validate, emit: (e) => events.push(e), ledger, secrets })
    const strip = (o) => JSON.parse(JSON.stringify(o, (k, v) => (['durationMs', 'id', 'startedAt', 'finishedAt'].includes(k) ? undefined : v)))
    return strip({ result, events, rows })
  }
  for (const options of [{}, { missingSchema: 'reject' }]) {
    const fast = createJsonSchemaToolArgumentValidator(options)
    const generic = createToolParameterValidator(createJsonSchemaArgumentValidator(options), { missingSchema: options.missingSchema ?? 'allow' })
    for (const [args, name] of [[{ text: 5 }], [{ text: 'sk-1 here', count: 'x' }], [{ count: 1 }], [{ count: Number.NaN }], [{}, 'bare']]) {
      const want = await run(generic, args, name)
      assert.deepEqual(await run(fast, args, name), want, JSON.stringify([options, args, name]))
      assert.deepEqual(await run(fast, args, name), want, 'warm')
    }
  }
})
