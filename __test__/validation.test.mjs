// prism-native/validation/json-schema: options, drafts, the compile cache, bounds at their
// edges, hostile input, and the ToolValidator composition (API.md sections 2.4 and 7).
import test from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as esm from 'prism-native/validation/json-schema'
import { createJsonSchemaArgumentValidator as create, createJsonSchemaToolArgumentValidator, packageName } from 'prism-native/validation/json-schema'
import { createToolRegistry, dispatchToolCall } from 'prism-native'

const require = createRequire(import.meta.url)
const objectSchema = (properties, extra = {}) => ({ type: 'object', properties, ...extra })
const messages = (result) => (result.ok ? [] : result.errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)))

test('ESM and CommonJS entries export the same objects', () => {
  const cjs = require('prism-native/validation/json-schema')
  assert.deepEqual(Object.keys(esm).filter((k) => k !== 'default').sort(), Object.keys(cjs).sort())
  for (const k of Object.keys(cjs)) assert.equal(esm[k], cjs[k], k)
  assert.equal(packageName, '@arnilo/prism-tool-validator-json-schema')
})

const LIMITS = {
  maxErrors: 64, maxDepth: 128, maxProperties: 100_000, maxStringLength: 8_388_608, maxArrayLength: 100_000,
  maxSchemaBytes: 1_048_576, maxSchemaDepth: 128, maxSchemaProperties: 100_000, maxSchemaRefs: 1_024,
  maxSchemaKeywords: 100_000, maxCompiledSchemas: 1_024,
}

test('every bound is checked at creation with the reference RangeError', () => {
  for (const [name, hard] of Object.entries(LIMITS)) {
    for (const ok of [1, hard]) assert.doesNotThrow(() => create({ [name]: ok }), `${name}=${ok}`)
    for (const bad of [0, -1, hard + 1, 1.5, Number.NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER + 1, '8']) {
      assert.throws(() => create({ [name]: bad }), (err) => err instanceof RangeError && err.message === `${name} must be a positive safe integer no greater than ${hard}`, `${name}=${bad}`)
      assert.throws(() => createJsonSchemaToolArgumentValidator({ [name]: bad }), RangeError)
    }
  }
})

test('draft-07 by default; 2019-09 and 2020-12 by $schema', () => {
  const v = create()
  const tuple = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }], minItems: 1, items: false }
  assert.deepEqual(v.validate(tuple, ['a']), { ok: true })
  assert.deepEqual(messages(v.validate(tuple, [1])), ['/0: must be string'])
  const dependent = { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object', properties: { a: {}, b: {} }, dependentRequired: { a: ['b'] } }
  assert.equal(v.validate(dependent, { a: 1 }).ok, false)
  assert.deepEqual(v.validate(dependent, { a: 1, b: 2 }), { ok: true })
  // Draft-07 does not know prefixItems: Ajv's unknown-keyword error.
  assert.deepEqual(messages(v.validate({ type: 'array', prefixItems: [] }, [])), ['strict mode: unknown keyword: "prefixItems"'])
})

test('strict: false accepts what Ajv strict mode rejects and ignores formats', () => {
  const v = create({ strict: false })
  assert.deepEqual(v.validate({ properties: { a: { type: 'string' } }, 'x-tag': 1 }, { a: 'x' }), { ok: true })
  assert.deepEqual(v.validate(objectSchema({ e: { type: 'string', format: 'email' } }), { e: 'nope' }), { ok: true })
  const formats = create({ strict: false, validateFormats: true })
  assert.deepEqual(messages(formats.validate(objectSchema({ e: { type: 'string', format: 'email' } }), { e: 'nope' })), ['/e: must match format "email"'])
})

test('an already-seen schema object is not compiled again; equal content shares one compile', () => {
  const v = create()
  const schema = objectSchema({ a: { type: 'string' } })
  for (let i = 0; i < 5; i++) assert.deepEqual(v.validate(schema, { a: 'x' }), { ok: true })
  assert.deepEqual(v.stats(), { compiles: 1, cached: 1 })
  v.validate(structuredClone(schema), { a: 'x' })
  v.validate({ properties: { a: { type: 'string' } }, type: 'object' }, { a: 'x' })
  assert.deepEqual(v.stats(), { compiles: 1, cached: 1 })
  v.validate(objectSchema({ a: { type: 'number' } }), { a: 1 })
  assert.deepEqual(v.stats(), { compiles: 2, cached: 2 })
})

test('the compile cache is a true LRU of maxCompiledSchemas', () => {
  const v = create({ maxCompiledSchemas: 2 })
  const a = { type: 'string' }
  const b = { type: 'number' }
  const c = { type: 'boolean' }
  v.validate(a, 'x')
  v.validate(b, 1)
  v.validate(a, 'x') // a is now the most recent
  v.validate(c, true) // evicts b
  assert.deepEqual(v.stats(), { compiles: 3, cached: 2 })
  assert.deepEqual(v.validate(a, 'x'), { ok: true })
  assert.equal(v.stats().compiles, 3, 'a survived')
  assert.deepEqual(messages(v.validate(b, 'x')), ['#/type: must be number'])
  assert.equal(v.stats().compiles, 4, 'b was evicted and compiled again')
})

test('schema bounds at their edges', () => {
  const deep = (n) => { let s = { type: 'string' }; for (let i = 0; i < n; i++) s = { allOf: [s] }; return s }
  // allOf + array: each level adds 2 to the depth; the innermost "type" value sits at 2n + 1.
  assert.deepEqual(create({ maxSchemaDepth: 7 }).validate(deep(3), 'x'), { ok: true })
  assert.deepEqual(messages(create({ maxSchemaDepth: 6 }).validate(deep(3), 'x')), ['schema.allOf[0].allOf[0].allOf[0].type: exceeds maximum schema depth 6'])
  const three = objectSchema({ a: {} }) // keys: type, properties, a
  assert.deepEqual(create({ maxSchemaProperties: 3 }).validate(three, {}), { ok: true })
  assert.deepEqual(messages(create({ maxSchemaProperties: 2 }).validate(three, {})), ['schema exceeds maximum properties 2'])
  assert.deepEqual(create({ maxSchemaKeywords: 3 }).validate(three, {}), { ok: true })
  assert.deepEqual(messages(create({ maxSchemaKeywords: 2 }).validate(three, {})), ['schema exceeds maximum keywords 2'])
  const refs = { type: 'object', properties: { a: { $ref: '#/$defs/s' }, b: { $ref: '#/$defs/s' } }, $defs: { s: { type: 'string' } } }
  assert.deepEqual(create({ maxSchemaRefs: 2 }).validate(refs, { a: 'x' }), { ok: true })
  assert.deepEqual(messages(create({ maxSchemaRefs: 1 }).validate(refs, {})), ['schema exceeds maximum refs 1'])
  const bytes = Buffer.byteLength(JSON.stringify(three))
  assert.deepEqual(create({ maxSchemaBytes: bytes }).validate(three, {}), { ok: true })
  assert.deepEqual(messages(create({ maxSchemaBytes: bytes - 1 }).validate(three, {})), [`schema exceeds maximum bytes ${bytes - 1}`])
})

test('remote and file $refs are refused, never fetched', () => {
  const v = create()
  for (const ref of ['http://127.0.0.1:9/x.json', 'file:///etc/passwd', 'other.json#/a']) {
    assert.deepEqual(messages(v.validate(objectSchema({ a: { $ref: ref } }), {})), ['schema.properties.a.$ref: remote $ref is not allowed'])
  }
  const loose = create({ strict: false })
  assert.deepEqual(messages(loose.validate({ $ref: 'https://example.com/s.json' }, {})), ['schema.$ref: remote $ref is not allowed'])
})

test('instance bounds at their edges', () => {
  const schema = {}
  const nest = (n) => { let v = 1; for (let i = 0; i < n; i++) v = [v]; return v }
  assert.deepEqual(create({ maxDepth: 3 }).validate(schema, nest(3)), { ok: true })
  assert.deepEqual(messages(create({ maxDepth: 3 }).validate(schema, nest(4))), ['[0][0][0][0]: exceeds maximum depth 3'])
  // At the hard cap, past serde_json's own recursion limit of 128.
  assert.deepEqual(create({ maxDepth: 128 }).validate(schema, nest(128)), { ok: true })
  assert.deepEqual(messages(create({ maxDepth: 128 }).validate(schema, nest(129))), [`${'[0]'.repeat(129)}: exceeds maximum depth 128`])
  const nestSchema = (n) => { let s = {}; for (let i = 0; i < n; i++) s = { not: s }; return s }
  assert.deepEqual(create({ maxSchemaDepth: 128 }).validate(nestSchema(128), 1), { ok: true }, 'an even number of "not"s accepts all')
  assert.deepEqual(messages(create({ maxSchemaDepth: 128 }).validate(nestSchema(127), 1)), ['#/not: must NOT be valid'])
  assert.match(messages(create({ maxSchemaDepth: 128 }).validate(nestSchema(129), 1))[0], /: exceeds maximum schema depth 128$/)
  assert.deepEqual(create({ maxStringLength: 3 }).validate(schema, { s: 'abc' }), { ok: true })
  assert.deepEqual(messages(create({ maxStringLength: 3 }).validate(schema, { s: 'abcd' })), ['s: string exceeds maximum length 3'])
  assert.deepEqual(create({ maxStringLength: 2 }).validate(schema, '😀'), { ok: true }, 'JS length: 2 UTF-16 units')
  assert.deepEqual(create({ maxArrayLength: 2 }).validate(schema, { a: [1, 2] }), { ok: true })
  assert.deepEqual(messages(create({ maxArrayLength: 2 }).validate(schema, { a: [1, 2, 3] })), ['a: array exceeds maximum length 2'])
  assert.deepEqual(create({ maxProperties: 2 }).validate(schema, { a: 1, b: 2 }), { ok: true })
  assert.deepEqual(messages(create({ maxProperties: 2 }).validate(schema, { o: { a: 1, b: 2, c: 3 } })), ['o: object exceeds maximum properties 2'])
  const many = objectSchema(Object.fromEntries('abcdefghij'.split('').map((k) => [k, { type: 'string' }])))
  const bad = Object.fromEntries('abcdefghij'.split('').map((k) => [k, 1]))
  assert.equal(create({ maxErrors: 3 }).validate(many, bad).errors.length, 3)
  assert.equal(create().validate(many, bad).errors.length, 8)
})

test('hostile schemas give {ok:false}: cycles, 1 MiB, depth 10,000, __proto__, 1e400, non-JSON values', () => {
  const v = create()
  const cyclic = { type: 'object', properties: {} }
  cyclic.properties.self = cyclic
  assert.deepEqual(messages(v.validate(cyclic, {})), ['schema.properties.self: schema contains a cycle'])
  const huge = { type: 'object', description: 'x'.repeat(1024 * 1024) }
  assert.deepEqual(messages(v.validate(huge, {})), ['schema exceeds maximum bytes 262144'])
  assert.deepEqual(messages(create({ maxSchemaBytes: 1_048_576 }).validate(huge, {})), ['schema exceeds maximum bytes 1048576'])
  const wide = { type: 'object', properties: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`p${i}`, { description: 'x'.repeat(20) }])) }
  assert.deepEqual(messages(v.validate(wide, {})), ['schema exceeds maximum bytes 262144'])
  let deep = {}
  for (let i = 0; i < 10_000; i++) deep = { not: deep }
  assert.match(messages(v.validate(deep, {}))[0], /^schema(\.not){65}: exceeds maximum schema depth 64$/)
  const proto = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}')
  assert.deepEqual(messages(v.validate(proto, {})), ['schema.properties.__proto__ uses forbidden JSON key: __proto__'])
  assert.deepEqual(messages(v.validate(JSON.parse('{"type":"number","maximum":1e400}'), 1)), ['schema.maximum: schema number must be finite'])
  assert.deepEqual(messages(v.validate({ type: 'string', default: () => 1 }, 'x')), ['schema.default: schema must be JSON-serializable'])
  assert.deepEqual(messages(v.validate({ type: 'string', default: new Date(0) }, 'x')), ['schema.default: schema must be JSON-serializable'])
  assert.deepEqual(messages(v.validate({ type: 'string', default: 1n }, 'x')), ['schema.default: schema must be JSON-serializable'])
  assert.deepEqual(v.validate({ type: 'string', enum: ['\ud800'] }, '\ud800'), { ok: true }, 'lone surrogate in a schema')
})

test('hostile instances give {ok:false}: cycles, depth 10,000, __proto__, huge arrays, 1e400, non-JSON values', () => {
  const v = create()
  const cyclic = { a: {} }
  cyclic.a.b = cyclic
  assert.equal(v.validate({}, cyclic).ok, false)
  assert.match(messages(v.validate({}, cyclic))[0], /value must be JSON-serializable$/)
  let deep = 1
  for (let i = 0; i < 10_000; i++) deep = [deep]
  assert.match(messages(v.validate({}, deep))[0], /: exceeds maximum depth 64$/)
  assert.deepEqual(messages(v.validate({}, JSON.parse('{"a":{"__proto__":{"x":1}}}'))), ['__proto__: forbidden property key'])
  assert.deepEqual(messages(v.validate({}, { constructor: 1 })), ['constructor: forbidden property key'])
  assert.deepEqual(messages(v.validate({ type: 'array' }, new Array(100_001).fill(0))), ['/: array exceeds maximum length 10000'])
  assert.deepEqual(messages(v.validate({ type: 'number' }, JSON.parse('1e400'))), ['/: value must be JSON-serializable'])
  assert.deepEqual(messages(v.validate({}, { f() {} })), ['f: value must be JSON-serializable'])
  assert.deepEqual(messages(v.validate({}, { d: new Date(0) })), ['d: value must be JSON-serializable'])
  assert.deepEqual(messages(v.validate({}, { n: 1n })), ['n: value must be JSON-serializable'])
  assert.deepEqual(messages(v.validate({}, { u: undefined })), ['u: value must be JSON-serializable'])
  // Lone surrogates are valid JavaScript strings: validated, not thrown on.
  assert.deepEqual(v.validate({ type: 'string', maxLength: 3 }, 'a\ud800b'), { ok: true })
  assert.deepEqual(messages(v.validate({ type: 'string', maxLength: 2 }, 'a\udc00b')), ['#/maxLength: must NOT have more than 2 characters'])
  const throwing = { get x() { throw new Error('boom') } }
  assert.deepEqual(v.validate({}, throwing), { ok: false, errors: [{ message: 'boom' }] })
})

test('the ToolValidator formats errors like the core and honours missingSchema', async () => {
  const validate = createJsonSchemaToolArgumentValidator()
  const tool = { name: 'note', parameters: objectSchema({ text: { type: 'string' }, count: { type: 'integer' } }, { required: ['count'] }), execute: () => ({ toolCallId: 'c', name: 'note', content: [] }) }
  assert.equal(validate(tool, { text: 5 }), "#/required: must have required property 'count'; /text: must be string")
  assert.equal(validate(tool, { count: 1 }), undefined)
  assert.equal(validate({ name: 'bare' }, {}), undefined)
  assert.equal(createJsonSchemaToolArgumentValidator({ missingSchema: 'reject' })({ name: 'bare' }, {}), 'Tool bare has no parameters schema')
  assert.equal(validate.stats().compiles, 1)

  const registry = createToolRegistry([tool])
  const result = await dispatchToolCall({
    call: { type: 'toolCall', id: 'c1', name: 'note', arguments: { text: 5 } },
    registry,
    context: { sessionId: 's', runId: 'r', toolCallId: 'c1' },
    validate,
  })
  assert.equal(result.error.message, "#/required: must have required property 'count'; /text: must be string")
})

test('a schema whose shared $refs expand exponentially fails at compile instead of hanging', () => {
  const definitions = {}
  for (let i = 0; i < 40; i++) definitions[`d${i}`] = { anyOf: [{ $ref: `#/definitions/d${i + 1}` }, { $ref: `#/definitions/d${i + 1}` }] }
  definitions.d40 = { type: 'string' }
  const result = create().validate({ $ref: '#/definitions/d0', definitions }, 1)
  assert.deepEqual(result, { ok: false, errors: [{ message: 'schema expands to more than 100000 subschemas through $ref' }] })
  // Sharing that stays small (one definition under many properties) is fine.
  const properties = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`p${i}`, { $ref: '#/definitions/c' }]))
  const shared = { type: 'object', properties, definitions: { c: { type: 'string' } } }
  assert.deepEqual(create().validate(shared, { p1: 'x' }), { ok: true })
})
