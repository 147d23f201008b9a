// The MCP capability client over a host's SDK client: server-everything's resources, prompts,
// roots, sampling and elicitation compared with the SDK client's own view, and every bound at
// its edge (bytes, depth, properties, pages, items, 500 roots, file: roots, the
// human-interaction mark that never reaches the wire, capabilities the server lacks).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import * as mcp from '../lib/mcp/index.mjs'
import { everythingStdio } from './fixtures/mcp-helpers.mjs'

const { attachMcpCapabilities, createMcpCapabilityClient, McpBridgeError, McpUnsupportedCapabilityError } = mcp

function stdioTransport() {
  const t = everythingStdio()
  return new StdioClientTransport({ command: t.command, args: t.args, stderr: 'ignore' })
}

test('server-everything over stdio: resources, prompts, roots, sampling and elicitation as the SDK client sees them', async (t) => {
  const events = []
  const client = createMcpCapabilityClient({
    serverId: 'everything',
    transport: { type: 'stdio', command: 'unused' },
    roots: () => [{ uri: 'file:///workspace', name: 'workspace' }],
    sampling: ({ params, signal }) => {
      events.push(['sampling', signal instanceof AbortSignal])
      return { model: 'host-model', role: 'assistant', content: { type: 'text', text: `echo ${params.messages.length}` } }
    },
    elicitation: ({ params }) => {
      events.push(['elicitation', params.mode ?? 'form'])
      return { action: 'accept', content: { name: 'Ada' }, humanInteraction: true }
    },
  })
  const transport = stdioTransport()
  await client.connect(transport)
  const bridge = await attachMcpCapabilities(client, transport, { serverId: 'everything' })
  const sdk = new Client({ name: 'sdk', version: '1' }, { capabilities: {} })
  const sdkTransport = stdioTransport()
  await sdk.connect(sdkTransport)
  t.after(async () => {
    await bridge.close()
    await sdk.close()
  })

  assert.ok(bridge.tools.length > 0)
  const resources = await bridge.listResources()
  let sdkResources = []
  let cursor
  do {
    const page = await sdk.listResources(cursor ? { cursor } : undefined)
    sdkResources.push(...page.resources)
    cursor = page.nextCursor
  } while (cursor)
  assert.deepEqual(resources.map((r) => r.uri), sdkResources.map((r) => r.uri))
  const uri = resources[0].uri
  assert.deepEqual(await bridge.readResource(uri), JSON.parse(JSON.stringify(await sdk.readResource({ uri }))))
  const templates = await bridge.listResourceTemplates()
  assert.deepEqual(templates.map((r) => r.uriTemplate), (await sdk.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate))
  const prompts = await bridge.listPrompts()
  assert.deepEqual(prompts.map((p) => p.name), (await sdk.listPrompts()).prompts.map((p) => p.name))
  assert.deepEqual(await bridge.getPrompt('simple-prompt'), JSON.parse(JSON.stringify(await sdk.getPrompt({ name: 'simple-prompt' }))))

  const roots = await client.callTool({ name: 'get-roots-list', arguments: {} })
  assert.match(JSON.stringify(roots), /file:\/\/\/workspace/)
  const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 10 } })
  assert.match(JSON.stringify(sampled), /echo 1/)
  const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} })
  assert.match(JSON.stringify(elicited), /Ada/)
  assert.doesNotMatch(JSON.stringify(elicited), /humanInteraction/)
  assert.deepEqual(events, [
    ['sampling', true],
    ['elicitation', 'form'],
  ])
})

/** A low-level SDK server linked to a capability client made with `options`. */
async function linked(options) {
  const server = new Server({ name: 's', version: '1' }, { capabilities: {} })
  const client = createMcpCapabilityClient({ serverId: 's', transport: { type: 'stdio', command: 'unused' }, ...options })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await server.connect(b)
  await client.connect(a)
  return { server, client, close: async () => (await client.close(), await server.close()) }
}

test('roots: at most 500, file: URIs only, within maxCapabilityBytes', async () => {
  let roots = Array.from({ length: 500 }, (_, i) => ({ uri: `file:///r${i}` }))
  const { server, close } = await linked({ roots: () => roots })
  try {
    assert.equal((await server.listRoots()).roots.length, 500)
    roots = Array.from({ length: 501 }, (_, i) => ({ uri: `file:///r${i}` }))
    await assert.rejects(server.listRoots(), /MCP roots exceed 500 items/)
    roots = [{ uri: 'https://example.test/' }]
    await assert.rejects(server.listRoots(), /MCP roots must use file: URIs approved by the host/)
    roots = [{ uri: 'not a uri' }]
    await assert.rejects(server.listRoots(), /Invalid MCP root URI: not a uri/)
  } finally {
    await close()
  }
  // [{"uri":"file:///a"}] is 21 bytes
  const edge = await linked({ roots: () => [{ uri: 'file:///a' }], maxCapabilityBytes: 21 })
  assert.equal((await edge.server.listRoots()).roots.length, 1)
  await edge.close()
  const over = await linked({ roots: () => [{ uri: 'file:///a' }], maxCapabilityBytes: 20 })
  await assert.rejects(over.server.listRoots(), /MCP roots exceeds 20 bytes/)
  await over.close()
})

test('elicitation: an accept needs the host mark, which is not sent; sampling is bounded both ways', async () => {
  let answer = { action: 'accept', content: { a: 1 } }
  const seen = []
  const { server, close } = await linked({
    elicitation: ({ signal }) => (seen.push(signal instanceof AbortSignal), answer),
    sampling: () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'x'.repeat(300) } }),
    maxCapabilityBytes: 256,
  })
  try {
    const ask = { mode: 'form', message: 'ok?', requestedSchema: { type: 'object', properties: { a: { type: 'number' } } } }
    await assert.rejects(server.elicitInput(ask), /Accepted MCP elicitation requires explicit human interaction/)
    answer = { action: 'accept', content: { a: 1 }, humanInteraction: true }
    assert.deepEqual(await server.elicitInput(ask), { action: 'accept', content: { a: 1 } })
    answer = { action: 'decline' }
    assert.deepEqual(await server.elicitInput(ask), { action: 'decline' })
    answer = { nothing: true }
    await assert.rejects(server.elicitInput(ask), /Invalid MCP elicitation result/)
    assert.deepEqual(seen, [true, true, true, true])
    await assert.rejects(
      server.createMessage({ maxTokens: 1, messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }),
      /MCP sampling result exceeds 256 bytes/,
    )
    await assert.rejects(
      server.createMessage({ maxTokens: 1, messages: [{ role: 'user', content: { type: 'text', text: 'y'.repeat(300) } }] }),
      /MCP sampling request exceeds 256 bytes/,
    )
  } finally {
    await close()
  }
})

/** A fake host client answering `pages` for listings and `read` for reads. */
function fakeClient(capabilities, pages, read) {
  let n = 0
  return {
    getServerCapabilities: () => capabilities,
    getServerVersion: () => ({ name: 'fake', version: '1' }),
    close: async () => {},
    request: async ({ method }) => (method.endsWith('/list') ? pages[n++] : read),
  }
}

test('listings: 20 pages, 500 items, no repeated cursor; reads within bytes, depth and properties', async () => {
  const pages = (count, last) => Array.from({ length: count }, (_, i) => ({ resources: [{ uri: `file:///${i}`, name: `${i}` }], nextCursor: i + 1 < count ? `c${i}` : last }))
  const attach = (p, read, opts = {}) => attachMcpCapabilities(fakeClient({ resources: {}, prompts: {} }, p, read), undefined, { serverId: 'f', ...opts })
  assert.equal((await (await attach(pages(20))).listResources()).length, 20)
  await assert.rejects((await attach(pages(21))).listResources(), /MCP resources\/list exceeds 20 pages/)
  await assert.rejects((await attach([{ resources: [], nextCursor: 'a' }, { resources: [], nextCursor: 'a' }])).listResources(), /repeated a pagination cursor/)
  const many = (n) => [{ prompts: Array.from({ length: n }, (_, i) => ({ name: `p${i}` })) }]
  assert.equal((await (await attach(many(500))).listPrompts()).length, 500)
  await assert.rejects((await attach(many(501))).listPrompts(), /MCP prompts\/list exceeds 500 items/)
  // {"contents":[]} is 15 bytes
  assert.deepEqual(await (await attach([], { contents: [] }, { maxCapabilityBytes: 15 })).readResource('file:///x'), { contents: [] })
  await assert.rejects((await attach([], { contents: [] }, { maxCapabilityBytes: 14 })).readResource('file:///x'), /MCP resource result exceeds 14 bytes/)
  let deep = 1
  for (let i = 0; i < 62; i++) deep = [deep]
  // { d: deep } nests 64 levels (the object, 62 arrays, the number)
  assert.ok(await (await attach([], { d: deep })).getPrompt('p'))
  await assert.rejects((await attach([], { d: [deep] })).getPrompt('p'), /MCP prompt result exceeds depth 64/)
  const wide = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`k${i}`, 0]))
  await assert.rejects((await attach([], wide, { maxCapabilityBytes: 8 * 1024 * 1024 })).getPrompt('p'), /exceeds 10000 properties/)
  await assert.rejects(attach([], {}, { maxCapabilityBytes: 8 * 1024 * 1024 + 1 }), (e) => e instanceof McpBridgeError && /maxCapabilityBytes must be a positive safe integer <= 8388608/.test(e.message))
})

test('a capability the server lacks is McpUnsupportedCapabilityError', async () => {
  const bridge = await attachMcpCapabilities(fakeClient({}, [], {}), undefined, { serverId: 'f' })
  for (const call of [() => bridge.listResources(), () => bridge.readResource('file:///x'), () => bridge.listPrompts(), () => bridge.getPrompt('p')]) {
    await assert.rejects(call(), (e) => e instanceof McpUnsupportedCapabilityError && e.code === 'ERR_PRISM_MCP_UNSUPPORTED_CAPABILITY' && /^Unsupported MCP capability: (resources|prompts)$/.test(e.message))
  }
})

test('elicitation decisions: message and schema at their edges', () => {
  const { mcpElicitationDecision, mcpElicitationResultFromDecision, MAX_MCP_ELICITATION_MESSAGE_BYTES, MAX_MCP_ELICITATION_SCHEMA_BYTES } = mcp
  assert.equal(MAX_MCP_ELICITATION_MESSAGE_BYTES, 2048)
  assert.equal(MAX_MCP_ELICITATION_SCHEMA_BYTES, 16384)
  assert.equal(mcpElicitationDecision('a', { message: 'é'.repeat(1024) }).reason.length, 1024)
  assert.throws(() => mcpElicitationDecision('a', { message: 'é'.repeat(1024) + 'x' }), /MCP elicitation message exceeds 2048 bytes/)
  assert.deepEqual(mcpElicitationDecision('a', { message: 'm', requestedSchema: { p: 'x'.repeat(16384 - 8) } }).elicitationSchema.p.length, 16376)
  assert.throws(() => mcpElicitationDecision('a', { message: 'm', requestedSchema: { p: 'x'.repeat(16384 - 7) } }), /schema exceeds 16384 bytes/)
  assert.deepEqual(mcpElicitationDecision('a', { message: 'm', requestedSchema: [] }).elicitationSchema, { type: 'object' })
  assert.deepEqual(mcpElicitationResultFromDecision({ approvalId: 'a', outcome: 'allow_for_run', elicitation: { x: 1 } }, { humanInteraction: true }), {
    action: 'accept',
    content: { x: 1 },
    humanInteraction: true,
  })
})

test('MCP Apps over a host client: app-only tools hidden from the model, declared ui:// HTML only', async () => {
  const html = '<!doctype html><html><body>app</body></html>'
  let body = { text: html }
  let csp = ['https://ok.example']
  const client = {
    getServerCapabilities: () => ({ tools: {}, resources: {}, extensions: { 'io.modelcontextprotocol/ui': {} } }),
    setNotificationHandler: () => {},
    close: async () => {},
    request: async ({ method, params }) => {
      if (method === 'tools/list')
        return {
          tools: [
            { name: 'show', inputSchema: { type: 'object' }, _meta: { ui: { resourceUri: 'ui://a/view' } } },
            { name: 'poke', inputSchema: { type: 'object' }, _meta: { ui: { resourceUri: 'ui://a/view', visibility: ['app'] } } },
          ],
        }
      if (method === 'resources/list') return { resources: [{ uri: 'ui://a/view', name: 'view', mimeType: 'text/html;profile=mcp-app' }] }
      if (method === 'resources/read')
        return { contents: [{ uri: params.uri, mimeType: 'text/html;profile=mcp-app', ...body, _meta: { ui: { csp: { resourceDomains: csp }, permissions: { camera: {} } } } }] }
      return { content: [{ type: 'text', text: 'done' }] }
    },
  }
  const bridge = await attachMcpCapabilities(client, undefined, { serverId: 'a', mcpApps: true })
  assert.deepEqual(bridge.tools.map((t) => t.name), ['mcp:a:show'])
  assert.deepEqual(bridge.apps.tools.map((t) => [t.prismName, t.visibility]), [
    ['mcp:a:show', ['model', 'app']],
    ['mcp:a:poke', ['app']],
  ])
  const read = await bridge.apps.readResource('ui://a/view')
  assert.equal(read.html, html)
  assert.deepEqual(read.ui, { csp: { resourceDomains: ['https://ok.example'] }, permissions: { camera: true } })
  body = { blob: Buffer.from(html).toString('base64') }
  assert.equal((await bridge.apps.readResource('ui://a/view')).html, html)
  body = { text: '<html>no doctype</html>' }
  await assert.rejects(bridge.apps.readResource('ui://a/view'), /MCP App resource is not bounded HTML5/)
  body = { text: html }
  csp = ['https://ok.example/path']
  await assert.rejects(bridge.apps.readResource('ui://a/view'), /MCP Apps CSP origin is invalid/)
  await assert.rejects(bridge.apps.readResource('ui://b/other'), /MCP App resource is unavailable/)
  assert.throws(() => bridge.apps.callTool('nope', {}, { toolCallId: 'c' }), /MCP App tool is unavailable/)
  assert.equal((await bridge.apps.callTool('poke', {}, { toolCallId: 'c' })).name, 'mcp:a:poke')
  await bridge.close()
  const plain = { ...client, getServerCapabilities: () => ({ tools: {} }) }
  await assert.rejects(attachMcpCapabilities(plain, undefined, { serverId: 'a', mcpApps: true }), /MCP Apps extension was not negotiated/)
})
