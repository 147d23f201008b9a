// An MCP server's own key order, end to end: the bridge hands a tool's input schema and a
// result's structuredContent to JavaScript with their keys in the order the official
// TypeScript SDK client gives them (the reference's parameters and values are those objects),
// at every level. The fixture lists its keys in neither alphabetical nor reverse order.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { connectMcpTools } from '../lib/mcp/index.mjs'
import { misbehaving } from './fixtures/mcp-helpers.mjs'

const ctx = (toolCallId) => ({ sessionId: 's', runId: 'r', toolCallId })
const ARGS = { thought: 'first', nextThoughtNeeded: false }

/** Every object's keys, depth first, with its path: `[path, keys]` pairs. */
function keyOrders(value, path = '', out = []) {
  if (Array.isArray(value)) value.forEach((v, i) => keyOrders(v, `${path}/${i}`, out))
  else if (value !== null && typeof value === 'object') {
    out.push([path, Object.keys(value)])
    for (const [k, v] of Object.entries(value)) keyOrders(v, `${path}/${k}`, out)
  }
  return out
}

/** `actual` has the keys of `expected` in the same order at every level, and is equal. */
function assertSameOrder(actual, expected, label) {
  assert.deepEqual(keyOrders(actual), keyOrders(expected), `${label}: key order at every level`)
  assert.equal(JSON.stringify(actual), JSON.stringify(expected), `${label}: the same JSON text`)
}

async function both(fn) {
  const transport = misbehaving('ordered')
  const client = new Client({ name: 'key-order-test', version: '1.0.0' })
  await client.connect(new StdioClientTransport({ command: transport.command, args: transport.args, env: transport.env, stderr: 'ignore' }))
  const bridge = await connectMcpTools({ serverId: 'o', transport })
  try {
    await fn(client, bridge)
  } finally {
    await bridge.close()
    await client.close()
  }
}

test("a bridged tool's parameters keep the key order the SDK client sees, nested and at the top", async () => {
  await both(async (client, bridge) => {
    const { tools } = await client.listTools()
    assert.deepEqual(bridge.tools.map((t) => t.name), tools.map((t) => `mcp:o:${t.name}`))
    for (const sdkTool of tools) {
      const parameters = bridge.tools.find((t) => t.name === `mcp:o:${sdkTool.name}`).parameters
      assertSameOrder(parameters, sdkTool.inputSchema, sdkTool.name)
    }
    // What the fixture's order is, as seen by both: not sorted, and the model reads
    // `thought` first.
    const ordered = tools.find((t) => t.name === 'ordered').inputSchema
    assert.deepEqual(Object.keys(ordered), ['type', 'properties', 'required', 'description', 'additionalProperties'])
    assert.deepEqual(Object.keys(ordered.properties), ['2', '10', 'thought', 'nextThoughtNeeded', 'branch', 'aardvark'])
    assert.deepEqual(Object.keys(ordered.properties.branch.properties), ['zeta', 'alpha', 'mid'])
    assert.deepEqual(ordered.properties.branch.required, ['zeta', 'alpha'])
    // The SDK puts the members its tool schema declares first; the rest keep the server's order.
    const untyped = tools.find((t) => t.name === 'ordered-untyped').inputSchema
    assert.deepEqual(Object.keys(untyped), ['type', 'properties', 'required', 'description', 'additionalProperties'])
  })
})

test("a result's structuredContent keeps the key order the SDK client sees, with or without an output schema", async () => {
  await both(async (client, bridge) => {
    for (const name of ['ordered', 'ordered-untyped']) {
      const sdk = await client.callTool({ name, arguments: ARGS })
      const bridged = await bridge.tools.find((t) => t.name === `mcp:o:${name}`).execute(ARGS, ctx(name))
      assert.equal(bridged.error, undefined, `${name}: no error`)
      assertSameOrder(bridged.value, sdk.structuredContent, `${name} structuredContent`)
      assert.deepEqual(Object.keys(bridged.value), ['3', 'zulu', 'alpha', 'mike', 'echo'])
      assert.deepEqual(Object.keys(bridged.value.alpha), ['7', 'yankee', 'bravo', 'kilo'])
      assert.deepEqual(Object.keys(bridged.value.alpha.bravo[0].a), ['n', 'c'])
      // The text block carries the server's own JSON text unchanged.
      assert.equal(bridged.content[0].text, sdk.content[0].text)
      // The result's _meta reaches the SDK client in the server's order; the bridge's
      // ToolResult has no place for it (its metadata is the bridge's own).
      assert.deepEqual(Object.keys(sdk._meta), ['z.example/last', 'a.example/first', 'middle'])
      assert.deepEqual(Object.keys(bridged.metadata), ['mcp'])
    }
  })
})

test("structuredContent that breaks its output schema is reported in the schema's order, as the SDK client reports it", async () => {
  await both(async (client, bridge) => {
    await client.listTools() // the SDK client checks calls against the schemas it has listed
    const sdkError = await client.callTool({ name: 'ordered-wrong', arguments: ARGS }).then(
      () => assert.fail('the SDK client accepted structuredContent that breaks the output schema'),
      (err) => err,
    )
    const sdkPaths = [...sdkError.message.matchAll(/data(\/\w+)/g)].map((m) => m[1])
    assert.deepEqual(sdkPaths, ['/zulu', '/alpha', '/mike'])
    const bridged = await bridge.tools.find((t) => t.name === 'mcp:o:ordered-wrong').execute(ARGS, ctx('w'))
    assert.equal(
      bridged.error.message,
      'MCP tool ordered-wrong returned structuredContent that does not match its outputSchema: /zulu must be number; /alpha must be object; /mike must be string',
    )
  })
})
