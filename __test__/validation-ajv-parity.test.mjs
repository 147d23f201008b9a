// Side by side with Ajv 8 configured as the reference adapter configures it: the same schemas
// give the same compile errors, and the same instances the same `{path, message}` lists.
import test from 'node:test'
import assert from 'node:assert/strict'
import Ajv from 'ajv'
import { createJsonSchemaArgumentValidator } from 'prism-native/validation/json-schema'

const ajvOptions = { strict: true, allErrors: true, validateSchema: true, allowUnionTypes: true, addUsedSchema: false }

function ajvResult(schema, value, maxErrors = 8) {
  const ajv = new Ajv(ajvOptions)
  let validate
  try {
    validate = ajv.compile(schema)
  } catch (err) {
    return { ok: false, errors: [{ message: err.message }] }
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
]

for (const [name, schema] of COMPILE_CASES) {
  test(`same compile error as Ajv: ${name}`, () => {
    const ours = createJsonSchemaArgumentValidator().validate(schema, {})
    const theirs = ajvResult(schema, {})
    assert.equal(theirs.ok, false)
    assert.deepEqual(normalise(ours), normalise(theirs))
  })
}
