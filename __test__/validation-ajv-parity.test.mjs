// Side by side with Ajv 8 configured as the reference adapter configures it: the same schemas
// give the same compile errors, and the same instances the same `{path, message}` lists.
import test from 'node:test'
import assert from 'node:assert/strict'
import Ajv from 'ajv'
import Ajv2019Module from 'ajv/dist/2019.js'
import Ajv2020Module from 'ajv/dist/2020.js'
import { createJsonSchemaArgumentValidator } from 'prism-native/validation/json-schema'
import { ENGINE_STACK_OVERFLOW_MESSAGE, stackOverflowMessage } from './fixtures/runtime.mjs'

const ajvOptions = { strict: true, allErrors: true, validateSchema: true, allowUnionTypes: true, addUsedSchema: false }

const Ajv2019 = Ajv2019Module.default ?? Ajv2019Module
const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module

// The Ajv class for a schema's draft: the reference's draft-07 Ajv, or (for the 2019-09 and
// 2020-12 schemas accepted beyond it) Ajv's own class for that draft, configured the same.
function ajvFor(schema) {
  const uri = typeof schema?.$schema === 'string' ? schema.$schema : ''
  if (uri.includes('2020-12')) return new Ajv2020(ajvOptions)
  if (uri.includes('2019-09')) return new Ajv2019(ajvOptions)
  return new Ajv(ajvOptions)
}

function ajvResult(schema, value, maxErrors = 8) {
  const ajv = ajvFor(schema)
  let validate
  try {
    validate = ajv.compile(schema)
  } catch (err) {
    // A schema whose $refs only cycle overflows Ajv's stack: the engine words that as V8 does
    // (Ajv under node, the reference); under another runtime Ajv's message is that runtime's.
    const overflow = err instanceof RangeError && err.message === stackOverflowMessage
    return { ok: false, errors: [{ message: overflow ? ENGINE_STACK_OVERFLOW_MESSAGE : err.message }] }
  }
  if (validate(value)) return { ok: true }
  return {
    ok: false,
    errors: validate.errors.slice(0, maxErrors).map((e) => ({ path: e.instancePath || e.schemaPath || undefined, message: e.message ?? 'invalid' })),
  }
}

function normalise(result) {
  return result.ok ? result : { ok: false, errors: result.errors.map((e) => (e.path === undefined ? { message: e.message } : e)) }
}

const object = (properties, extra = {}) => ({ type: 'object', properties, ...extra })

const INSTANCE_CASES = [
  ['required at the root', object({ count: { type: 'integer' }, text: { type: 'string' } }, { required: ['count'] }), { text: 5 }],
  ['nested type', object({ a: object({ b: { type: 'integer' } }) }), { a: { b: 1.5 } }],
  ['additionalProperties, one per extra key', object({ a: { type: 'string' } }, { additionalProperties: false }), { z: 1, a: 'x', y: 2 }],
  ['enum', object({ mode: { enum: ['a', 'b'] } }), { mode: 'c' }],
  ['minLength', object({ s: { type: 'string', minLength: 2 } }), { s: 'x' }],
  ['maxLength, pattern', object({ s: { type: 'string', maxLength: 2, pattern: '^[a-z]+$' } }), { s: 'ABC' }],
  ['number bounds', object({ n: { type: 'number', minimum: 1, maximum: 3, multipleOf: 2 } }), { n: 5 }],
  ['exclusive bounds', object({ n: { type: 'number', exclusiveMinimum: 1 }, m: { type: 'number', exclusiveMaximum: 1 } }), { n: 1, m: 1 }],
  ['array bounds and items', object({ xs: { type: 'array', minItems: 3, items: { type: 'string' } } }), { xs: ['a', 1] }],
  ['uniqueItems', object({ xs: { type: 'array', uniqueItems: true } }), { xs: [1, 2, 1] }],
  ['uniqueItems, equal objects with their keys in another order', object({ xs: { type: 'array', uniqueItems: true } }), { xs: [{ b: { d: 1, c: 2 }, a: 1 }, { a: 1, b: { c: 2, d: 1 } }] }],
  ['const', object({ k: { const: 'x' } }), { k: 'y' }],
  ['anyOf branches then anyOf', object({ v: { anyOf: [{ type: 'string' }, { type: 'number' }] } }), { v: true }],
  ['oneOf none', object({ v: { oneOf: [{ type: 'string' }, { type: 'integer' }] } }), { v: null }],
  ['oneOf many', object({ v: { oneOf: [{ type: 'number' }, { type: 'integer' }] } }), { v: 1 }],
  ['not', object({ v: { not: { type: 'string' } } }), { v: 'x' }],
  ['union type', object({ v: { type: ['string', 'null'] } }), { v: 1 }],
  ['nullable accepts null', object({ v: { type: 'string', nullable: true } }), { v: null }],
  ['$defs ref', { type: 'object', properties: { a: { $ref: '#/$defs/n' } }, $defs: { n: { type: 'integer' } } }, { a: 'x' }],
  ['definitions ref', { type: 'object', properties: { a: { $ref: '#/definitions/n' } }, definitions: { n: { type: 'integer' } } }, { a: 1.5 }],
  ['min/max properties', object({}, { minProperties: 2 }), { a: 1 }],
  ['items objects, errors per item in order', object({ xs: { type: 'array', items: object({ a: { type: 'string' } }, { required: ['a'] }) } }), { xs: [{}, { a: 1 }, {}] }],
  ['type fails at root', object({}), []],
  ['default is not applied', object({ a: { type: 'string', default: 'x' } }, { required: ['a'] }), {}],
  ['valid', object({ a: { type: 'string' } }, { required: ['a'] }), { a: 'x' }],
  ['multipleOf 0.1, 0.3 is not (float quotient)', object({ n: { type: 'number', multipleOf: 0.1 } }), { n: 0.3 }],
  ['multipleOf 0.01, 19.99 is not', object({ n: { type: 'number', multipleOf: 0.01 } }), { n: 19.99 }],
  ['multipleOf 0.0001, 0.0075 is', object({ n: { type: 'number', multipleOf: 0.0001 } }), { n: 0.0075 }],
  ['multipleOf 1e-8 prints with an exponent', object({ n: { type: 'number', multipleOf: 1e-8 } }), { n: 3e-8 }],
  ['multipleOf with a quotient past 1e21', object({ n: { type: 'number', multipleOf: 2 } }), { n: 1e308 }],
  ['multipleOf 1.1 of 3.3', object({ n: { type: 'number', multipleOf: 1.1 } }), { n: 3.3 }],
  ['uniqueItems on many items, duplicates at the start', object({ xs: { type: 'array', uniqueItems: true } }), { xs: [0, 0, ...Array.from({ length: 5000 }, (_, i) => i + 1)] }],
  ['if with an empty then is not compiled', { if: { type: 'string' }, then: {} }, 1],
  ['an unused cycle in definitions is not compiled', { definitions: { a: { $ref: '#/definitions/a' } }, type: 'string' }, 1],
  ['recursive definitions through properties', { $ref: '#/definitions/n', definitions: { n: { type: 'object', properties: { c: { $ref: '#/definitions/n' } } } } }, { c: { c: 1 } }],
  ['2020-12 contains with minContains and maxContains, satisfied', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', contains: { type: 'string' }, minContains: 2, maxContains: 3 }, ['a', 1, 'b']],
  ['many errors are cut at maxErrors', object({ a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' }, d: { type: 'string' }, e: { type: 'string' }, f: { type: 'string' }, g: { type: 'string' }, h: { type: 'string' }, i: { type: 'string' } }), { a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1, h: 1, i: 1 }],
]

for (const [name, schema, value] of INSTANCE_CASES) {
  test(`same errors as Ajv: ${name}`, () => {
    const ours = createJsonSchemaArgumentValidator().validate(schema, value)
    assert.deepEqual(normalise(ours), normalise(ajvResult(schema, value)))
  })
}

const COMPILE_CASES = [
  ['unknown keyword', { foo: 1 }],
  ['x-* keyword', { type: 'string', 'x-internal': true }],
  ['properties without type object', { properties: { a: { type: 'string' } } }],
  ['required name not in properties', { type: 'object', required: ['b'], properties: { a: {} } }],
  ['unknown format', object({ e: { type: 'string', format: 'email' } })],
  ['keyword of another type', { type: 'string', minimum: 1 }],
  ['open tuple', { type: 'array', items: [{ type: 'string' }] }],
  ['invalid against the meta-schema', { type: 'integer', minimum: 'a' }],
  ['unresolvable local ref', object({ a: { $ref: '#/$defs/missing' } })],
  ['draft-04 $schema', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' }],
  ['minLength without type', { minLength: 2 }],
  ['type not allowed by context', { type: 'string', anyOf: [{ type: 'number' }] }],
  ['if without then and else', { if: { type: 'string' } }],
  ['then without if', { then: { type: 'string' } }],
  ['else without if', { else: {} }],
  ['additionalItems without a tuple', { type: 'array', items: { type: 'string' }, additionalItems: false }],
  ['a property matched by patternProperties', object({ foo: { type: 'string' } }, { patternProperties: { '^f': { type: 'string' } } })],
  ['minContains in draft-07 is unknown', { type: 'array', contains: {}, minContains: 1 }],
  ['pure $ref cycle of two', { $ref: '#/definitions/a', definitions: { a: { $ref: '#/definitions/b' }, b: { $ref: '#/definitions/a' } } }],
  ['pure $ref to itself', object({ a: { $ref: '#/properties/a' } })],
  ['pure $ref cycle beside annotations', { $ref: '#/definitions/a', definitions: { a: { title: 't', $ref: '#/definitions/a' } } }],
  ['$ref to the root without $id', object({ a: { $ref: '#' } })],
  ['$ref to the root as #/', object({ a: { $ref: '#/' } })],
  ['2020-12 minContains without contains', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', minContains: 2 }],
  ['2020-12 maxContains without contains', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', maxContains: 2 }],
  ['2020-12 minContains 0 without maxContains', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', contains: {}, minContains: 0 }],
  ['2020-12 minContains above maxContains', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', contains: {}, minContains: 3, maxContains: 2 }],
  ['2019-09 $recursiveAnchor false', { $schema: 'https://json-schema.org/draft/2019-09/schema', $recursiveAnchor: false, type: 'string' }],
]

for (const [name, schema] of COMPILE_CASES) {
  test(`same compile error as Ajv: ${name}`, () => {
    const ours = createJsonSchemaArgumentValidator().validate(schema, {})
    const theirs = ajvResult(schema, {})
    assert.equal(theirs.ok, false)
    assert.deepEqual(normalise(ours), normalise(theirs))
  })
}

// multipleOf over many operand pairs (a fixed pseudo-random sequence): Ajv divides in floating
// point and requires an integer quotient; the engine must agree on every pair.
test('multipleOf agrees with Ajv on 2,000 fractional operand pairs', () => {
  let seed = 12345
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  const ours = createJsonSchemaArgumentValidator({ maxCompiledSchemas: 1024 })
  const ajv = new Ajv(ajvOptions)
  const disagreements = []
  for (let i = 0; i < 2000; i++) {
    const m = Number((next() * 10).toFixed(1 + Math.floor(next() * 4))) || 0.5
    const n = Number((m * Math.floor(next() * 1000)).toFixed(1 + Math.floor(next() * 6)))
    const schema = { type: 'number', multipleOf: m }
    const theirs = ajv.compile(schema)(n)
    if (ours.validate(schema, n).ok !== theirs) disagreements.push([m, n, theirs])
  }
  assert.deepEqual(disagreements, [])
})
