// attachMcpToolBridge / listAllMcpTools over a client the host already holds: a real JS SDK
// Client (server-everything over stdio, and an in-memory SDK server for list_changed), plus
// scripted clients for the edges a real server will not produce on demand.
import { createRequire } from 'node:module'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as mcp from '../lib/mcp/index.mjs'
import { createToolRegistry, dispatchToolCall } from '../index.js'
import { EVERYTHING_MAIN, isAlive, waitGone } from './fixtures/mcp-helpers.mjs'

const CTX = { sessionId: 's', runId: 'r', toolCallId: 'call-1' }
const tool = (name, extra = {}) => ({ name, inputSchema: { type: 'object' }, ...extra })

/** A client that answers `tools/list` with `pages` in turn and `tools/call` with `onCall`. */
function scripted({ pages = [{ tools: [tool('t')] }], onCall } = {}) {
  const seen = { lists: [], calls: [], closed: 0, listChanged: undefined }
  let page = 0
  const client = {
    async request(request, _schema, options) {
      if (request.method === 'tools/list') {
        seen.lists.push(request.params)
        const next = pages[Math.min(page++, pages.length - 1)]
        return typeof next === 'function' ? next(options) : next
      }
      if (request.method === 'tools/call') {
        seen.calls.push({ params: request.params, options })
        return onCall(request.params, options)
      }
      throw new Error(`unexpected ${request.method}`)
    },
    setNotificationHandler(_schema, handler) {
      seen.listChanged = handler
    },
    async close() {
      seen.closed++
    },
  }
  return { client, seen }
}

async function callOnly(result, options = {}) {
  const { client, seen } = scripted({ onCall: typeof result === 'function' ? result : () => result })
  const bridge = await mcp.attachMcpToolBridge(client, undefined, { serverId: 'h', ...options })
  const out = await bridge.tools[0].execute({}, CTX)
  await bridge.close()
  return { out, seen }
}

// ---- a real SDK client ------------------------------------------------------------------------

test('real SDK client over stdio (server-everything): names, calls, listing, close', async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_MAIN, 'stdio'], stderr: 'ignore' })
  const client = new Client({ name: 'host', version: '1.0.0' })
  await client.connect(transport)
  const pid = transport.pid
  assert.ok(pid > 0)

  const listed = await mcp.listAllMcpTools(client)
  const echoListed = listed.find((t) => t.name === 'echo')
  assert.equal(echoListed.inputSchema.type, 'object')
  assert.equal(typeof echoListed.description, 'string')

  const bridge = await mcp.attachMcpToolBridge(client, transport, { serverId: 'every', maxTools: mcp.HARD_MAX_TOOLS })
  assert.equal(bridge.serverPid, 0)
  assert.deepEqual(
    bridge.tools.map((t) => t.name),
    listed.map((t) => `mcp:every:${t.name}`),
  )
  const registry = createToolRegistry(bridge.tools)
  const echo = await dispatchToolCall({
    registry,
    call: { type: 'tool_call', id: 'e1', name: 'mcp:every:echo', arguments: { message: 'hello' } },
    context: { ...CTX, toolCallId: 'e1' },
  })
  // the same ToolResult connectMcpTools gives for this call (mcp-everything.test.mjs)
  assert.deepEqual(echo, {
    toolCallId: 'e1',
    name: 'mcp:every:echo',
    content: [{ type: 'text', text: 'Echo: hello' }],
    metadata: { mcp: { serverId: 'every', remoteName: 'echo', truncated: false, bytesUsed: 11 } },
  })
  const structured = await bridge.tools.find((t) => t.name === 'mcp:every:get-structured-content').execute({ location: 'New York' }, CTX)
  assert.ok('temperature' in structured.value)
  const image = await bridge.tools.find((t) => t.name === 'mcp:every:get-tiny-image').execute({}, CTX)
  assert.equal(image.content.find((b) => b.type === 'image').mimeType, 'image/png')

  await bridge.close()
  await bridge.close() // idempotent
  assert.throws(() => bridge.tools, mcp.McpBridgeClosedError)
  // close() closed the host's client and transport: the server process is gone
  assert.deepEqual(await waitGone([pid]), [])
  assert.equal(isAlive(pid), false)
})

test('real SDK client: list_changed reaches the bridge and invalidates the cached catalogue', async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const server = new McpServer({ name: 'mem', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } })
  server.registerTool('one', { description: 'first' }, async () => ({ content: [{ type: 'text', text: '1' }] }))
  await server.connect(serverSide)
  const client = new Client({ name: 'host', version: '1.0.0' })
  await client.connect(clientSide)
  // Observe the handler the bridge registers through the SDK's own dispatch.
  const register = client.setNotificationHandler.bind(client)
  let handled
  const notified = new Promise((resolve) => {
    handled = resolve
  })
  client.setNotificationHandler = (schema, handler) =>
    register(schema, async (n) => {
      await handler(n)
      handled(n)
    })

  const bridge = await mcp.attachMcpToolBridge(client, clientSide, { serverId: 'mem', listCacheTtlMs: 600_000 })
  const first = bridge.tools
  assert.deepEqual(
    first.map((t) => t.name),
    ['mcp:mem:one'],
  )
  assert.strictEqual(bridge.tools, first) // within the TTL: reused
  server.registerTool('two', {}, async () => ({ content: [{ type: 'text', text: '2' }] }))
  server.sendToolListChanged()
  const notification = await notified
  assert.equal(notification.method, 'notifications/tools/list_changed')
  assert.strictEqual(bridge.tools, first) // stale now: a background refresh has started
  await bridge.refresh() // joins it
  assert.deepEqual(
    bridge.tools.map((t) => t.name),
    ['mcp:mem:one', 'mcp:mem:two'],
  )
  const r = await bridge.tools[1].execute({}, CTX)
  assert.deepEqual(r.content, [{ type: 'text', text: '2' }])
  await bridge.close()
  await server.close()
})

// ---- listing edges --------------------------------------------------------------------------

test('listAllMcpTools: pages in order, cursors passed on, tools kept as listed', async () => {
  const { client, seen } = scripted({
    pages: [{ tools: [tool('a', { annotations: { readOnlyHint: true } })], nextCursor: 'c2' }, { tools: [tool('b')], nextCursor: '' }],
  })
  const listed = await mcp.listAllMcpTools(client)
  assert.deepEqual(listed, [tool('a', { annotations: { readOnlyHint: true } }), tool('b')])
  assert.deepEqual(seen.lists, [undefined, { cursor: 'c2' }])
})

test('listAllMcpTools: repeated cursor, page overflow and tool overflow are refused', async () => {
  const pages = (...cursors) => cursors.map((nextCursor) => ({ tools: [], nextCursor }))
  await assert.rejects(mcp.listAllMcpTools(scripted({ pages: pages('a', 'b', 'a') }).client), {
    name: 'McpBridgeError',
    code: 'ERR_PRISM_MCP_REPEATED_CURSOR',
    message: 'MCP tools/list repeated a pagination cursor',
  })
  // maxListPages: 2 pages are fine, a third is refused before it is requested
  const two = scripted({ pages: [...pages('a'), { tools: [] }] })
  assert.equal((await mcp.listAllMcpTools(two.client, undefined, { maxListPages: 2 })).length, 0)
  const three = scripted({ pages: pages('a', 'b', 'c') })
  await assert.rejects(mcp.listAllMcpTools(three.client, undefined, { maxListPages: 2 }), {
    code: 'ERR_PRISM_MCP_TOO_MANY_PAGES',
    message: 'MCP tools/list exceeds 2 pages',
  })
  assert.equal(three.seen.lists.length, 2)
  const many = scripted({ pages: [{ tools: [tool('a'), tool('b')] }] })
  await assert.rejects(mcp.listAllMcpTools(many.client, undefined, { maxTools: 1 }), { message: 'MCP tools/list exceeds 1 tools' })
  assert.equal((await mcp.listAllMcpTools(scripted({ pages: [{ tools: [tool('a')] }] }).client, undefined, { maxTools: 1 })).length, 1)
})

test('listAllMcpTools: oversize names, descriptions, cursors, schemas and malformed pages', async () => {
  const cases = [
    [{ tools: [tool('abcd')] }, { maxToolNameBytes: 3 }, 'MCP tool name exceeds 3 bytes'],
    [{ tools: [tool('a', { description: 'long' })] }, { maxToolDescriptionBytes: 3 }, 'MCP tool a description exceeds 3 bytes'],
    [{ tools: [], nextCursor: 'long' }, { maxCursorBytes: 3 }, 'MCP tools/list cursor exceeds 3 bytes'],
    [{ tools: [tool('a')] }, { maxToolSchemaBytes: 16 }, 'MCP tool a schema exceeds 16 bytes'],
    [{ tools: [tool('a'), tool('b')] }, { maxTotalToolSchemaBytes: 33 }, 'MCP tool schemas exceed 33 aggregate bytes'],
    [{ tools: [{ name: 'a', inputSchema: { a: { b: { c: true } } } }] }, { maxJsonDepth: 3 }, 'MCP tool a schema exceeds depth 3'],
    [{ tools: [{ name: 'a', inputSchema: { a: 1, b: 2 } }] }, { maxJsonProperties: 1 }, 'MCP tool a schema exceeds 1 properties'],
    [{ nextCursor: 'x' }, {}, 'MCP tools/list returned an invalid page: missing tools array'],
    [{ tools: [{ name: 'a', inputSchema: { max: Infinity } }] }, {}, 'MCP tools/list returned an invalid page: contains a non-finite number'],
  ]
  for (const [page, limits, message] of cases) {
    await assert.rejects(mcp.listAllMcpTools(scripted({ pages: [page] }).client, undefined, limits), { name: 'McpBridgeError', message })
  }
  const cyclic = { tools: [] }
  cyclic.tools.push(cyclic)
  await assert.rejects(mcp.listAllMcpTools(scripted({ pages: [cyclic] }).client), {
    message: 'MCP tools/list returned an invalid page: contains a cycle',
  })
  // the same page within the same limits plus one byte passes
  const ok = await mcp.listAllMcpTools(scripted({ pages: [{ tools: [tool('a')] }] }).client, undefined, { maxToolSchemaBytes: 17 })
  assert.equal(ok.length, 1)
})

test('listAllMcpTools: limits are checked before any request, at their hard edges', async () => {
  for (const [name, { hard }] of Object.entries(mcp.MCP_LIMITS)) {
    if (name === 'maxResponseBytes') continue
    for (const bad of [0, -1, 1.5, Number.NaN, Infinity, hard + 1, '10']) {
      const { client, seen } = scripted()
      await assert.rejects(mcp.listAllMcpTools(client, undefined, { [name]: bad }), {
        name: 'McpBridgeError',
        code: 'ERR_PRISM_MCP_INVALID_LIMIT',
        message: `${name} must be a positive safe integer <= ${hard}`,
      })
      assert.equal(seen.lists.length, 0)
    }
    await assert.doesNotReject(mcp.listAllMcpTools(scripted().client, undefined, { [name]: hard }))
  }
})

test('listAllMcpTools: abort before and during a page; a client error passes through', async () => {
  const reason = new Error('stop')
  const before = scripted()
  await assert.rejects(mcp.listAllMcpTools(before.client, AbortSignal.abort(reason)), (err) => err === reason)
  assert.equal(before.seen.lists.length, 0)

  // a client that ignores the signal and never answers: the abort still ends the listing
  const controller = new AbortController()
  let asked
  const requested = new Promise((resolve) => {
    asked = resolve
  })
  const hanging = scripted({
    pages: [
      (options) => {
        asked(options)
        return new Promise(() => {})
      },
    ],
  })
  const listing = mcp.listAllMcpTools(hanging.client, controller.signal)
  const options = await requested
  assert.strictEqual(options.signal, controller.signal)
  assert.equal(options.timeout, mcp.DEFAULT_CALL_TIMEOUT_MS)
  controller.abort(reason)
  await assert.rejects(listing, (err) => err === reason)

  // a client that honours its signal rejects too; that late rejection is not left unhandled
  const unhandled = []
  const onUnhandled = (err) => unhandled.push(err)
  process.on('unhandledRejection', onUnhandled)
  const honest = new AbortController()
  const polite = scripted({
    pages: [(options) => new Promise((_, reject) => options.signal.addEventListener('abort', () => reject(new Error('client saw abort'))))],
  })
  const politeListing = mcp.listAllMcpTools(polite.client, honest.signal)
  honest.abort(reason)
  await assert.rejects(politeListing, (err) => err === reason)
  await new Promise((resolve) => setImmediate(resolve))
  process.off('unhandledRejection', onUnhandled)
  assert.deepEqual(unhandled, [])

  const failing = { request: async () => Promise.reject(new TypeError('transport down')) }
  await assert.rejects(mcp.listAllMcpTools(failing), { name: 'TypeError', message: 'transport down' })
  await assert.rejects(mcp.listAllMcpTools({}), { name: 'McpBridgeError' })
})

// ---- calls ----------------------------------------------------------------------------------

test('calls: arguments, timeout option and a signal reach the client; results map as natively', async () => {
  const { out, seen } = await callOnly({ content: [{ type: 'text', text: 'hi' }], structuredContent: { n: 1 } }, { callTimeoutMs: 5000 })
  assert.deepEqual(out, {
    toolCallId: 'call-1',
    name: 'mcp:h:t',
    content: [{ type: 'text', text: 'hi' }],
    value: { n: 1 },
    metadata: { mcp: { serverId: 'h', remoteName: 't', truncated: false, bytesUsed: 2 } },
  })
  const [call] = seen.calls
  assert.deepEqual(call.params, { name: 't', arguments: {} })
  // The bridge's own clock (callTimeoutMs, restarted by progress) decides; the client's timer
  // is a backstop at maxTotalTimeoutMs, and a progress handler makes it ask for progress.
  assert.equal(call.options.timeout, mcp.DEFAULT_MAX_TOTAL_TIMEOUT_MS + 1000)
  assert.equal(call.options.maxTotalTimeout, mcp.DEFAULT_MAX_TOTAL_TIMEOUT_MS + 1000)
  assert.equal(typeof call.options.onprogress, 'function')
  assert.ok(call.options.signal instanceof AbortSignal)
  const legacy = await callOnly({ toolResult: { x: 1 } })
  assert.deepEqual(legacy.out.value, { x: 1 })
})

test('calls: isError becomes an error ToolResult with the content summary', async () => {
  const { out } = await callOnly({ isError: true, content: [{ type: 'text', text: 'nope' }] })
  assert.deepEqual(out.error, { name: 'McpToolError', message: 'nope', code: 'ERR_PRISM_MCP_TOOL' })
  assert.deepEqual(out.content, [{ type: 'text', text: 'nope' }])
})

test('calls: a client that never answers ends at callTimeoutMs, and its request is aborted', async () => {
  const { out, seen } = await callOnly(() => new Promise(() => {}), { callTimeoutMs: 1 })
  assert.deepEqual(out, {
    toolCallId: 'call-1',
    name: 'mcp:h:t',
    error: { name: 'McpToolError', message: 'MCP tool call timed out after 1ms', code: 'ERR_PRISM_MCP_TOOL' },
    metadata: { mcp: { serverId: 'h', remoteName: 't' } },
  })
  assert.equal(seen.calls[0].options.signal.aborted, true)
})

test('calls: the caller aborting (before or during) ends the call with the abort error', async () => {
  let asked
  const requested = new Promise((resolve) => {
    asked = resolve
  })
  const { client, seen } = scripted({
    onCall: () => {
      asked()
      return new Promise(() => {})
    },
  })
  const bridge = await mcp.attachMcpToolBridge(client, undefined, { serverId: 'h' })
  const pre = await bridge.tools[0].execute({}, { ...CTX, signal: AbortSignal.abort() })
  assert.equal(pre.error.message, 'MCP tool call was aborted')
  assert.equal(seen.calls.length, 0)
  const controller = new AbortController()
  const pending = bridge.tools[0].execute({}, { ...CTX, signal: controller.signal })
  await requested
  controller.abort(new Error('user'))
  const during = await pending
  assert.equal(during.error.message, 'MCP tool call was aborted')
  assert.equal(seen.calls[0].options.signal.aborted, true)
  await bridge.close()
})

test('calls: oversize, non-JSON and thrown results are bounded error ToolResults', async () => {
  const big = await callOnly({ content: [{ type: 'text', text: 'x'.repeat(80) }] }, { maxResultBytes: 64 })
  assert.equal(big.out.error.message, 'MCP tool t result exceeds 64 bytes')
  assert.equal(big.out.content, undefined)
  const structured = await callOnly({ content: [], structuredContent: { v: 'x'.repeat(80) } }, { maxResultBytes: 64 })
  assert.equal(structured.out.value, undefined)
  assert.match(structured.out.error.message, /exceeds 64 bytes/)
  const deep = await callOnly({ toolResult: { a: { b: { c: true } } } }, { maxJsonDepth: 3 })
  assert.equal(deep.out.error.message, 'MCP tool t result exceeds depth 3')
  const wide = await callOnly({ toolResult: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, i])) }, { maxJsonProperties: 10 })
  assert.equal(wide.out.error.message, 'MCP tool t result exceeds 10 properties')
  const nonFinite = await callOnly({ toolResult: { v: Number.NaN } })
  assert.equal(nonFinite.out.error.message, 'MCP tool t result contains a non-finite number')
  const cyclic = { toolResult: {} }
  cyclic.toolResult.self = cyclic.toolResult
  assert.equal((await callOnly(cyclic)).out.error.message, 'MCP tool t result contains a cycle')
  assert.equal((await callOnly({ toolResult: new Date(0) })).out.error.message, 'MCP tool t result contains a non-plain object')
  assert.equal((await callOnly(undefined)).out.error.message, 'MCP tool t result contains a non-JSON value')
  assert.equal((await callOnly({ toolResult: [1, undefined] })).out.error.message, 'MCP tool t result contains a non-JSON value')
  assert.equal((await callOnly({ toolResult: { f() {} } })).out.error.message, 'MCP tool t result contains a non-JSON value')
  // a property set to undefined is an absent property, as on the wire
  assert.deepEqual((await callOnly({ toolResult: { a: 1, b: undefined } })).out.value, { a: 1 })
  const thrown = await callOnly(
    () => {
      throw new Error(`secret-${'y'.repeat(1000)}`)
    },
    { maxResultBytes: 128 },
  )
  assert.equal(thrown.out.error.message, `secret-${'y'.repeat(121)}`)
  assert.deepEqual(thrown.out.metadata, { mcp: { serverId: 'h', remoteName: 't' } })
})

// ---- lifecycle ------------------------------------------------------------------------------

test('a failed refresh keeps the previous tool array; list_changed makes the catalogue stale', async () => {
  const pages = [{ tools: [tool('safe')] }, { tools: [tool('hostile-name')] }, { tools: [tool('safe'), tool('more')] }]
  const { client, seen } = scripted({ pages })
  const bridge = await mcp.attachMcpToolBridge(client, undefined, { serverId: 'a', maxToolNameBytes: 8, listCacheTtlMs: 600_000 })
  const previous = bridge.tools
  await assert.rejects(bridge.refresh(), { message: 'MCP tool name exceeds 8 bytes' })
  assert.strictEqual(bridge.tools, previous)
  assert.equal(seen.lists.length, 2)
  // within the TTL nothing is re-listed; after list_changed the next read starts a refresh
  assert.strictEqual(bridge.tools, previous)
  assert.equal(seen.lists.length, 2)
  seen.listChanged({ method: 'notifications/tools/list_changed' })
  assert.strictEqual(bridge.tools, previous)
  assert.equal(seen.lists.length, 3)
  await bridge.refresh()
  assert.deepEqual(
    bridge.tools.map((t) => t.name),
    ['mcp:a:safe', 'mcp:a:more'],
  )
  await bridge.close()
})

test('close: idempotent, closes client and transport, later use throws McpBridgeClosedError', async () => {
  const { client, seen } = scripted({ onCall: () => ({ content: [] }) })
  let transportClosed = 0
  const bridge = await mcp.attachMcpToolBridge(client, { close: async () => void transportClosed++ }, { serverId: 'c' })
  const [t] = bridge.tools
  await Promise.all([bridge.close(), bridge.close()])
  assert.equal(seen.closed, 1)
  assert.equal(transportClosed, 1)
  assert.throws(() => bridge.tools, mcp.McpBridgeClosedError)
  assert.throws(() => t.execute({}, CTX), mcp.McpBridgeClosedError)
  await assert.rejects(bridge.refresh(), mcp.McpBridgeClosedError)
})

test('attach: options are checked before the first request', async () => {
  const { client, seen } = scripted()
  await assert.rejects(mcp.attachMcpToolBridge(client, undefined, { serverId: '-x' }), (err) => err.constructor === Error)
  await assert.rejects(mcp.attachMcpToolBridge(client, undefined, { serverId: 's', maxTools: 0 }), { code: 'ERR_PRISM_MCP_INVALID_LIMIT' })
  await assert.rejects(mcp.attachMcpToolBridge(client, undefined, { serverId: 's', effect: 'none' }), mcp.McpBridgeError)
  await assert.rejects(mcp.attachMcpToolBridge(client, undefined, { serverId: 's', mcpApps: true }), { message: 'MCP Apps extension was not negotiated' })
  assert.equal(seen.lists.length, 0)
  const bad = await mcp.attachMcpToolBridge(client, undefined, { serverId: 's', effect: () => ({ kind: 'sideways', idempotency: 'none' }) }).catch((e) => e)
  assert.equal(bad.message, 'MCP tool t has an invalid effect declaration')
  const reviewed = await mcp.attachMcpToolBridge(client, undefined, { serverId: 's', namePrefix: 'x_', effect: () => ({ kind: 'none', idempotency: 'none' }) })
  assert.deepEqual(
    reviewed.tools.map((d) => [d.name, d.effect]),
    [['x_t', { kind: 'none', idempotency: 'none' }]],
  )
  await reviewed.close()
})

test('mapMcpToolsToDefinitions: prefixed names, default effect, collisions, closed check', async () => {
  let closed = false
  const calls = []
  const context = {
    namePrefix: 'p:',
    serverId: 's',
    callTimeoutMs: 1000,
    maxResultBytes: 1000,
    isClosed: () => closed,
    callRemoteTool: async (remoteName, args) => {
      calls.push([remoteName, args])
      return { toolCallId: 'c', name: `p:${remoteName}` }
    },
  }
  const [def] = mcp.mapMcpToolsToDefinitions([tool('a', { description: 'd' })], context)
  assert.equal(def.name, 'p:a')
  assert.equal(def.description, 'd')
  assert.deepEqual(def.parameters, { type: 'object' })
  assert.deepEqual(def.effect, { kind: 'external_mutation', idempotency: 'unsupported' })
  await def.execute({ q: 1 }, CTX)
  assert.deepEqual(calls, [['a', { q: 1 }]])
  closed = true
  assert.throws(() => def.execute({}, CTX), mcp.McpBridgeClosedError)
  assert.throws(() => mcp.mapMcpToolsToDefinitions([tool('dup'), tool('dup')], context), {
    name: 'McpToolNameCollisionError',
    message: 'MCP tool name collision: p:dup (remote tool dup)',
  })
})

test('createMcpTransport: the engine checks, the SDK transport back', async () => {
  // The package is CommonJS: it builds the SDK's CommonJS classes (an ESM host's client takes
  // them alike, as a Transport is an interface).
  const require = createRequire(import.meta.url)
  const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js')
  const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js')
  const http = { type: 'streamable-http', url: 'https://mcp.example.com/mcp', allowedOrigins: ['https://mcp.example.com'] }
  assert.ok(mcp.createMcpTransport(http) instanceof StreamableHTTPClientTransport)
  assert.equal(mcp.createMcpTransport({ ...http, sessionId: 'resumed' }).sessionId, 'resumed')
  assert.throws(() => mcp.createMcpTransport({ ...http, url: 'not-a-url' }), { name: 'McpBridgeError', message: 'Invalid MCP HTTP URL' })
  assert.throws(() => mcp.createMcpTransport({ ...http, url: 'file:///etc/passwd' }), {
    code: 'ERR_PRISM_MCP_INVALID_TRANSPORT',
    message: 'MCP HTTP URL must use https: (got file:)',
  })
  assert.throws(() => mcp.createMcpTransport({ ...http, url: 'https://evil.example/mcp' }), /not in allowedOrigins/)
  assert.throws(() => mcp.createMcpTransport({ ...http, maxResponseBytes: mcp.HARD_MAX_HTTP_RESPONSE_BYTES + 1 }), { code: 'ERR_PRISM_MCP_INVALID_LIMIT' })
  assert.throws(() => mcp.createMcpTransport({ type: 'stdio' }), { code: 'ERR_PRISM_MCP_INVALID_TRANSPORT' })
  assert.ok(mcp.createMcpTransport({ type: 'stdio', command: 'node', args: ['s.js'] }) instanceof StdioClientTransport)
  assert.throws(() => mcp.createMcpOAuthTransport(http), { name: 'McpBridgeError', message: 'createMcpOAuthTransport requires an auth option' })
})
