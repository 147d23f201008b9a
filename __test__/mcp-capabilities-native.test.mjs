// connectMcpCapabilities on the engine's own session (stdio and Streamable HTTP): server-everything
// and the official Python SDK's server compared with the SDK client (resources, templates,
// prompts, and the server's roots, sampling and elicitation requests answered by the host's
// callbacks), each bound at its edge on this path, and the callbacks' signal aborted when the
// session closes under them.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import * as mcp from '../lib/mcp/index.mjs'
import { everythingStdio, freePort, misbehaving, startEverythingHttp, startHttpServer } from './fixtures/mcp-helpers.mjs'
import { optionalTest, pythonMcp } from './fixtures/optional-tools.mjs'
import { underWine, WINE_NO_LOOPBACK_FETCH } from './fixtures/platform.mjs'

const { connectMcpCapabilities, McpBridgeError, McpUnsupportedCapabilityError } = mcp
const here = dirname(fileURLToPath(import.meta.url))
const PYTHON_SERVER = join(here, 'fixtures', 'python-mcp-server.py')
const wire = (v) => JSON.parse(JSON.stringify(v))
const bytes = (v) => Buffer.byteLength(JSON.stringify(v))

/** Every page of an SDK client's listing `method` (`listResources`, ...), items under `key`. */
async function sdkAll(sdk, method, key) {
  const out = []
  let cursor
  do {
    const page = await sdk[method](cursor ? { cursor } : undefined)
    out.push(...page[key])
    cursor = page.nextCursor
  } while (cursor)
  return out
}

/** The host's callbacks, recording what they were asked. */
function callbacks(events) {
  return {
    roots: () => [{ uri: 'file:///workspace', name: 'workspace' }],
    sampling: ({ params, signal }) => {
      events.push(['sampling', signal instanceof AbortSignal])
      return { model: 'host-model', role: 'assistant', content: { type: 'text', text: `echo ${params.messages.length}` } }
    },
    elicitation: ({ params, signal }) => {
      events.push(['elicitation', params.mode ?? 'form', signal instanceof AbortSignal])
      return { action: 'accept', content: { name: 'Ada' }, humanInteraction: true }
    },
  }
}

/** Calls `remote`; server-everything adds its roots, sampling and elicitation tools once the
 * client is initialized (with tools/list_changed), so a listing may come before them. */
async function callTool(bridge, remote, args = {}) {
  const find = () => bridge.tools.find((t) => t.name.endsWith(`:${remote}`))
  if (!find()) await bridge.refresh()
  return find().execute(args, { toolCallId: 'c' })
}

/** server-everything through connectMcpCapabilities over `transport`, compared with `sdk`. */
async function compareEverything(transport, sdk) {
  const events = []
  const bridge = await connectMcpCapabilities({ serverId: 'everything', transport, ...callbacks(events) })
  try {
    assert.deepEqual(bridge.serverVersion, wire(sdk.getServerVersion()))
    // rmcp keeps the capabilities it knows (not the 2025-11-25 experimental `tasks`).
    for (const name of ['tools', 'resources', 'prompts', 'logging', 'completions']) {
      assert.deepEqual(bridge.serverCapabilities[name], wire(sdk.getServerCapabilities()[name]), name)
    }
    const resources = await bridge.listResources()
    assert.deepEqual(resources, wire(await sdkAll(sdk, 'listResources', 'resources')))
    const uri = resources[0].uri
    assert.deepEqual(await bridge.readResource(uri), wire(await sdk.readResource({ uri })))
    assert.deepEqual(await bridge.listResourceTemplates(), wire(await sdkAll(sdk, 'listResourceTemplates', 'resourceTemplates')))
    assert.deepEqual(await bridge.listPrompts(), wire(await sdkAll(sdk, 'listPrompts', 'prompts')))
    assert.deepEqual(await bridge.getPrompt('simple-prompt'), wire(await sdk.getPrompt({ name: 'simple-prompt' })))
    const args = { city: 'Paris', state: 'x' }
    assert.deepEqual(await bridge.getPrompt('args-prompt', args), wire(await sdk.getPrompt({ name: 'args-prompt', arguments: args })))

    assert.match(JSON.stringify(await callTool(bridge, 'get-roots-list')), /file:\/\/\/workspace/)
    assert.match(JSON.stringify(await callTool(bridge, 'trigger-sampling-request', { prompt: 'hi', maxTokens: 10 })), /echo 1/)
    const elicited = JSON.stringify(await callTool(bridge, 'trigger-elicitation-request'))
    assert.match(elicited, /Ada/)
    assert.doesNotMatch(elicited, /humanInteraction/)
    assert.deepEqual(events, [
      ['sampling', true],
      ['elicitation', 'form', true],
    ])
  } finally {
    await bridge.close()
  }
}

test('server-everything over stdio: connectMcpCapabilities sees what the SDK client sees, and answers its requests', async () => {
  const t = everythingStdio()
  const sdk = new Client({ name: 'sdk', version: '1' }, { capabilities: {} })
  await sdk.connect(new StdioClientTransport({ command: t.command, args: t.args, stderr: 'ignore' }))
  try {
    await compareEverything(t, sdk)
  } finally {
    await sdk.close()
  }
})

test('server-everything over Streamable HTTP: the same', { skip: underWine(WINE_NO_LOOPBACK_FETCH) }, async () => {
  const server = await startEverythingHttp()
  const sdk = new Client({ name: 'sdk', version: '1' }, { capabilities: {} })
  try {
    await sdk.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    await compareEverything({ type: 'streamable-http', url: server.url, allowedOrigins: [server.origin], allowLoopbackHttp: true }, sdk)
  } finally {
    await sdk.close()
    await server.stop()
  }
})

test('native path: reads, listings, sampling requests and answers bounded by maxCapabilityBytes at the edge', async () => {
  const connect = (maxCapabilityBytes, extra = {}) =>
    connectMcpCapabilities({ serverId: 'everything', transport: everythingStdio(), maxCapabilityBytes, ...extra })
  const sdk = new Client({ name: 'sdk', version: '1' }, { capabilities: {} })
  const t = everythingStdio()
  await sdk.connect(new StdioClientTransport({ command: t.command, args: t.args, stderr: 'ignore' }))
  const page = wire(await sdk.listPrompts())
  await sdk.close()
  assert.equal(page.nextCursor, undefined)
  const probe = await connect(undefined)
  const uri = (await probe.listResources())[0].uri
  const read = await probe.readResource(uri)
  await probe.close()
  const edge = await connect(bytes(read))
  try {
    assert.deepEqual(await edge.readResource(uri), read)
  } finally {
    await edge.close()
  }
  const listing = await connect(bytes(page))
  try {
    assert.equal((await listing.listPrompts()).length, page.prompts.length)
  } finally {
    await listing.close()
  }
  const listingOver = await connect(bytes(page) - 1)
  try {
    await assert.rejects(listingOver.listPrompts(), new RegExp(`^McpBridgeError: MCP prompts/list exceeds ${bytes(page) - 1} bytes$`))
  } finally {
    await listingOver.close()
  }
  const over = await connect(bytes(read) - 1)
  try {
    await assert.rejects(over.readResource(uri), (e) => e instanceof McpBridgeError && e.message === `MCP resource result exceeds ${bytes(read) - 1} bytes`)
  } finally {
    await over.close()
  }

  // A sampling answer past the bound never reaches the server; a request past it never reaches the host.
  let asked = 0
  const text = 'x'.repeat(300)
  const sampling = () => (asked++, { model: 'm', role: 'assistant', content: { type: 'text', text } })
  const small = await connect(1024, { sampling })
  try {
    const answered = JSON.stringify(await callTool(small, 'trigger-sampling-request', { prompt: 'hi', maxTokens: 1 }))
    assert.match(answered, /x{300}/)
    const big = JSON.stringify(await callTool(small, 'trigger-sampling-request', { prompt: 'y'.repeat(1100), maxTokens: 1 }))
    assert.match(big, /MCP sampling request exceeds 1024 bytes/)
    assert.equal(asked, 1)
  } finally {
    await small.close()
  }
  const tiny = await connect(256, { sampling })
  try {
    const refused = JSON.stringify(await callTool(tiny, 'trigger-sampling-request', { prompt: 'hi', maxTokens: 1 }))
    assert.match(refused, /MCP sampling result exceeds 256 bytes/)
  } finally {
    await tiny.close()
  }
  await assert.rejects(connect(8 * 1024 * 1024 + 1), /maxCapabilityBytes must be a positive safe integer <= 8388608/)
})

test('native path: an accept without the host mark, roots that are not file:, and callbacks the host did not give', async () => {
  const bridge = await connectMcpCapabilities({
    serverId: 'everything',
    transport: everythingStdio(),
    roots: () => [{ uri: 'https://example.test/' }],
    elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }),
  })
  try {
    assert.match(JSON.stringify(await callTool(bridge, 'trigger-elicitation-request')), /Accepted MCP elicitation requires explicit human interaction/)
    // The refused roots/list reaches server-everything as an error, which it reports as no roots.
    const roots = JSON.stringify(await callTool(bridge, 'get-roots-list'))
    assert.doesNotMatch(roots, /example\.test/)
    assert.match(roots, /no roots are currently configured/)
    // No sampling callback: the capability is not declared (server-everything offers its
    // sampling tool only to clients that declare it).
    await bridge.refresh()
    assert.equal(bridge.tools.some((t) => t.name.endsWith(':trigger-sampling-request')), false)
    assert.equal(bridge.serverCapabilities.tools !== undefined, true)
  } finally {
    await bridge.close()
  }
})

test('native path: a capability the server lacks is McpUnsupportedCapabilityError, before any request', async () => {
  const bridge = await connectMcpCapabilities({ serverId: 'tools', transport: misbehaving('normal') })
  try {
    assert.ok(bridge.tools.length > 0)
    for (const call of [() => bridge.listResources(), () => bridge.readResource('file:///x'), () => bridge.listResourceTemplates(), () => bridge.listPrompts(), () => bridge.getPrompt('p')]) {
      await assert.rejects(call(), (e) => e instanceof McpUnsupportedCapabilityError && /^Unsupported MCP capability: (resources|prompts)$/.test(e.message))
    }
  } finally {
    await bridge.close()
  }
})

test("native path: closing the session aborts a host callback's signal that is still waiting", async () => {
  let signal
  let asked
  const waiting = new Promise((resolve) => (asked = resolve))
  const bridge = await connectMcpCapabilities({
    serverId: 'everything',
    transport: everythingStdio(),
    elicitation: (request) => {
      signal = request.signal
      asked()
      return new Promise(() => {})
    },
  })
  const call = callTool(bridge, 'trigger-elicitation-request')
  await waiting
  assert.equal(signal.aborted, false)
  await bridge.close()
  const aborted = await new Promise((resolve) => {
    if (signal.aborted) return resolve(true)
    signal.addEventListener('abort', () => resolve(true), { once: true })
    setTimeout(() => resolve(signal.aborted), 5000)
  })
  assert.equal(aborted, true)
  assert.ok((await call).error)
})

// --- The official Python SDK's server: a resource, a prompt and an elicitation ----------------

const py = pythonMcp()

/** The Python server through connectMcpCapabilities over `transport`, compared with `sdk`. */
async function comparePython(transport, sdk) {
  const asked = []
  // Elicitation as a server request needs a revision with a back-channel (2026-07-28 has none).
  const bridge = await connectMcpCapabilities({
    serverId: 'py',
    transport,
    protocolVersion: '2025-11-25',
    elicitation: ({ params }) => (asked.push(params.message), { action: 'accept', content: { name: 'Ada' }, humanInteraction: true }),
  })
  try {
    assert.deepEqual(await bridge.listResources(), wire(await sdkAll(sdk, 'listResources', 'resources')))
    assert.deepEqual(await bridge.readResource('prism://greeting'), wire(await sdk.readResource({ uri: 'prism://greeting' })))
    assert.deepEqual(await bridge.listPrompts(), wire(await sdkAll(sdk, 'listPrompts', 'prompts')))
    assert.deepEqual(await bridge.getPrompt('review', { code: 'x' }), wire(await sdk.getPrompt({ name: 'review', arguments: { code: 'x' } })))
    assert.equal((await callTool(bridge, 'ask_name')).content[0].text, 'accept: Ada')
    assert.deepEqual(asked, ['What is your name?'])
  } finally {
    await bridge.close()
  }
}

optionalTest('Python SDK server over stdio: a resource, a prompt and an elicitation as the SDK client sees them', py.missing, async () => {
  const sdk = new Client({ name: 'sdk', version: '1' }, { capabilities: {} })
  await sdk.connect(new StdioClientTransport({ command: py.python, args: [PYTHON_SERVER, 'stdio'], stderr: 'ignore' }))
  try {
    await comparePython({ type: 'stdio', command: py.python, args: [PYTHON_SERVER, 'stdio'], stderr: 'ignore' }, sdk)
  } finally {
    await sdk.close()
  }
})

optionalTest('Python SDK server over Streamable HTTP: the same', py.missing, async () => {
  const port = await freePort()
  const server = await startHttpServer(py.python, [PYTHON_SERVER, 'streamable-http', String(port)], port)
  const sdk = new Client({ name: 'sdk', version: '1' }, { capabilities: {} })
  try {
    await sdk.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    await comparePython({ type: 'streamable-http', url: server.url, allowedOrigins: [server.origin], allowLoopbackHttp: true }, sdk)
  } finally {
    await sdk.close()
    await server.stop()
  }
})

test('native path: resources/subscribe delivers notifications/resources/updated to the host, within the bound', async () => {
  const run = async (maxCapabilityBytes, uri) => {
    const updates = []
    const bridge = await connectMcpCapabilities({ serverId: 'everything', transport: everythingStdio(), maxCapabilityBytes, onResourceUpdated: (params) => updates.push(params) })
    try {
      uri ??= (await bridge.listResources())[0].uri
      assert.deepEqual(await bridge.subscribeResource(uri), {})
      await callTool(bridge, 'toggle-subscriber-updates') // sends one update at once
      await new Promise((r) => setTimeout(r, 300))
      await bridge.unsubscribeResource(uri)
      return { uri, updates }
    } finally {
      await bridge.close()
    }
  }
  const { uri, updates } = await run(undefined)
  assert.ok(updates.length >= 1)
  assert.deepEqual(updates[0], { uri })
  assert.equal((await run(bytes({ uri }), uri)).updates.length >= 1, true)
  assert.deepEqual((await run(bytes({ uri }) - 1, uri)).updates, [])
  const tools = await connectMcpCapabilities({ serverId: 'tools', transport: misbehaving('normal') })
  try {
    await assert.rejects(tools.subscribeResource('file:///x'), (e) => e instanceof McpUnsupportedCapabilityError && e.message === 'Unsupported MCP capability: resources.subscribe')
  } finally {
    await tools.close()
  }
})
