// The bridge against a real server no one here wrote: @modelcontextprotocol/server-everything,
// over stdio and over Streamable HTTP on 127.0.0.1, started and stopped by these tests.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { connectMcpTools, McpBridgeClosedError } from '../lib/mcp/index.mjs'
import { createToolRegistry, dispatchToolCall } from '../index.js'
import { everythingStdio, startEverythingHttp, waitGone } from './fixtures/mcp-helpers.mjs'

const EXPECTED_TOOLS = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-long-running-operation',
  'simulate-research-query',
]

async function exercise(bridge, serverId) {
  const names = bridge.tools.map((t) => t.name)
  for (const n of EXPECTED_TOOLS) assert.ok(names.includes(`mcp:${serverId}:${n}`), n)
  const registry = createToolRegistry()
  for (const t of bridge.tools) registry.register(t)
  const call = async (name, args, id = 'c') =>
    dispatchToolCall({
      call: { type: 'tool_call', id, name: `mcp:${serverId}:${name}`, arguments: args },
      registry,
      context: { sessionId: 's', runId: 'r', toolCallId: id },
    })
  const echo = await call('echo', { message: 'hello' }, 'e1')
  assert.deepEqual(echo, {
    toolCallId: 'e1',
    name: `mcp:${serverId}:echo`,
    content: [{ type: 'text', text: 'Echo: hello' }],
    metadata: { mcp: { serverId, remoteName: 'echo', truncated: false, bytesUsed: 11 } },
  })
  const sum = await call('get-sum', { a: 2, b: 3 })
  assert.match(sum.content[0].text, /5/)
  const image = await call('get-tiny-image', {})
  const img = image.content.find((b) => b.type === 'image')
  assert.equal(img.mimeType, 'image/png')
  assert.ok(img.data.length > 0)
  const structured = await call('get-structured-content', { location: 'New York' })
  assert.equal(typeof structured.value, 'object')
  assert.ok('temperature' in structured.value)
  const links = await call('get-resource-links', { count: 2 })
  assert.ok(links.content.some((b) => b.type === 'text' && b.text.startsWith('Resource link ')))
}

test('stdio: lists, calls and closes server-everything; no process survives', async () => {
  const bridge = await connectMcpTools({ serverId: 'everything', transport: everythingStdio() })
  const pid = bridge.serverPid
  assert.ok(pid > 0)
  await exercise(bridge, 'everything')
  await bridge.refresh()
  assert.equal(bridge.tools.length, EXPECTED_TOOLS.length)
  await bridge.close()
  assert.deepEqual(await waitGone([pid]), [])
  assert.throws(() => bridge.tools, McpBridgeClosedError)
})

test('stdio: the server sees only the default inherited variables plus transport.env', async () => {
  process.env.PRISM_MCP_HOST_SECRET = 'do-not-leak'
  try {
    const bridge = await connectMcpTools({ serverId: 'everything', transport: { ...everythingStdio(), env: { PRISM_MCP_GIVEN: 'given' } } })
    try {
      const r = await bridge.tools.find((t) => t.name === 'mcp:everything:get-env').execute({}, { toolCallId: 'env' })
      const text = r.content.map((b) => b.text).join('')
      assert.match(text, /PRISM_MCP_GIVEN/)
      assert.match(text, /"PATH"/)
      assert.doesNotMatch(text, /PRISM_MCP_HOST_SECRET|do-not-leak/)
    } finally {
      await bridge.close()
    }
  } finally {
    delete process.env.PRISM_MCP_HOST_SECRET
  }
})

test('stdio: maxResultBytes cuts content and marks it truncated', async () => {
  const bridge = await connectMcpTools({ serverId: 'everything', transport: everythingStdio(), maxResultBytes: 100 })
  try {
    const echo = bridge.tools.find((t) => t.name === 'mcp:everything:echo')
    const r = await echo.execute({ message: 'x'.repeat(40) }, { toolCallId: 't' })
    assert.equal(r.error, undefined)
    const over = await echo.execute({ message: 'x'.repeat(200) }, { toolCallId: 't' })
    assert.equal(over.error.message, 'MCP tool echo result exceeds 100 bytes')
  } finally {
    await bridge.close()
  }
})

test('Streamable HTTP on 127.0.0.1: lists, calls, closes', async () => {
  const server = await startEverythingHttp()
  try {
    const bridge = await connectMcpTools({
      serverId: 'everything-http',
      transport: {
        type: 'streamable-http',
        url: server.url,
        allowedOrigins: [server.origin],
        allowLoopbackHttp: true,
        requestInit: { headers: { 'x-prism-test': '1' } },
      },
    })
    assert.equal(bridge.serverPid, 0)
    await exercise(bridge, 'everything-http')
    await bridge.close()
    await bridge.close()
    assert.throws(() => bridge.tools, McpBridgeClosedError)
  } finally {
    await server.stop()
  }
  assert.deepEqual(await waitGone([server.pid]), [])
})

test('Streamable HTTP: a host name resolving to loopback works with allowLoopbackHttp (DNS pinned)', async () => {
  const server = await startEverythingHttp()
  try {
    const origin = `http://localhost:${server.port}`
    const bridge = await connectMcpTools({
      serverId: 'lh',
      transport: { type: 'streamable-http', url: `${origin}/mcp`, allowedOrigins: [origin], allowLoopbackHttp: true },
    })
    assert.equal(bridge.tools.length, EXPECTED_TOOLS.length)
    await bridge.close()
  } finally {
    await server.stop()
  }
})

test('Streamable HTTP: maxResponseBytes bounds each response', async () => {
  const server = await startEverythingHttp()
  try {
    const transport = { type: 'streamable-http', url: server.url, allowedOrigins: [server.origin], allowLoopbackHttp: true }
    await assert.rejects(connectMcpTools({ serverId: 'tiny', transport: { ...transport, maxResponseBytes: 64 } }), {
      code: 'ERR_PRISM_MCP_CONNECT',
    })
    const ok = await connectMcpTools({ serverId: 'roomy', transport: { ...transport, maxResponseBytes: 1024 * 1024 } })
    assert.equal(ok.tools.length, EXPECTED_TOOLS.length)
    await ok.close()
  } finally {
    await server.stop()
  }
})

test('Streamable HTTP: requestInit headers are sent and redirects are not followed', async () => {
  const seen = []
  const server = createServer((req, res) => {
    seen.push({ url: req.url, header: req.headers['x-prism-test'] })
    res.writeHead(302, { location: `http://127.0.0.1:${server.address().port}/elsewhere` })
    res.end()
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  const origin = `http://127.0.0.1:${server.address().port}`
  try {
    await assert.rejects(
      connectMcpTools({
        serverId: 'h',
        callTimeoutMs: 5000,
        transport: { type: 'streamable-http', url: `${origin}/mcp`, allowedOrigins: [origin], allowLoopbackHttp: true, requestInit: { headers: { 'X-Prism-Test': 'yes' } } },
      }),
      { name: 'McpBridgeError' },
    )
    assert.ok(seen.length >= 1)
    assert.ok(seen.every((s) => s.url === '/mcp' && s.header === 'yes'), JSON.stringify(seen))
  } finally {
    await new Promise((r) => server.close(r))
  }
})
