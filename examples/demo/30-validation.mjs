// JSON Schema argument validation: a model's tool call checked against the tool's schema before
// anything runs, with Ajv's messages; a 2020-12 schema as MCP servers publish them; a hostile
// schema that is refused instead of crashing; the compile cache at work.
import { createJsonSchemaArgumentValidator, createJsonSchemaToolArgumentValidator } from 'prism-native/validation/json-schema'
import { createToolRegistry, dispatchToolCall } from 'prism-native'

export const title = 'JSON Schema validation (prism-native/validation/json-schema)'

export async function run() {
  const validate = createJsonSchemaToolArgumentValidator()
  const note = {
    name: 'note',
    description: 'Write a note',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string', minLength: 1 }, count: { type: 'integer', minimum: 1 } },
      required: ['count'],
      additionalProperties: false,
    },
    execute: (args) => ({ toolCallId: 'c', name: 'note', content: [{ type: 'text', text: `noted ${args.count}x` }] }),
  }
  const registry = createToolRegistry([note])
  const context = { sessionId: 'demo', runId: 'r1', toolCallId: 'c' }
  for (const args of [{ text: 5, color: 'red' }, { text: 'milk', count: 2 }]) {
    const result = await dispatchToolCall({ call: { type: 'toolCall', id: 'c', name: 'note', arguments: args }, registry, context, validate })
    console.log(`arguments ${JSON.stringify(args)} ->`, result.error ? `blocked: ${result.error.message}` : result.content[0].text)
  }

  const v = createJsonSchemaArgumentValidator()
  const mcpSchema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], minItems: 2, items: false } },
  }
  console.log('2020-12 schema, point [1, 2]:', JSON.stringify(v.validate(mcpSchema, { point: [1, 2] })))
  console.log('2020-12 schema, point [1, "x"]:', JSON.stringify(v.validate(mcpSchema, { point: [1, 'x'] })))

  const cyclic = { type: 'object', properties: {} }
  cyclic.properties.self = cyclic
  console.log('cyclic schema:', JSON.stringify(v.validate(cyclic, {})))
  console.log('remote $ref:', JSON.stringify(v.validate({ $ref: 'https://example.com/s.json' }, {})))
  console.log('x-* keyword (Ajv strict parity):', JSON.stringify(v.validate({ type: 'string', 'x-hint': 1 }, 'a')))

  for (let i = 0; i < 1000; i++) v.validate(mcpSchema, { point: [i, i] })
  console.log('after 1,000 more validations:', JSON.stringify(v.stats()), '(each schema compiled once)')
}
