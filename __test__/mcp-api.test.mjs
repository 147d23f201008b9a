// prism-native/mcp: exported shape, helpers, limit validation at every edge, transport checks.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as mcp from '../lib/mcp/index.mjs'
import { misbehaving } from './fixtures/mcp-helpers.mjs'

const require = createRequire(import.meta.url)

test('ESM and CommonJS export the same objects', () => {
  const cjs = require('../lib/mcp/index.js')
  for (const [name, value] of Object.entries(cjs)) assert.equal(mcp[name], value, name)
  assert.equal(typeof mcp.connectMcpTools, 'function')
})

test('constants and the limit table', () => {
  assert.equal(mcp.DEFAULT_CALL_TIMEOUT_MS, 60_000)
  assert.equal(mcp.DEFAULT_MAX_RESULT_BYTES, 10_000_000)
  assert.equal(mcp.DEFAULT_LIST_CACHE_TTL_MS, 30_000)
  assert.deepEqual(mcp.MCP_LIMITS.maxTools, { default: 500, hard: 5000 })
  assert.deepEqual(mcp.MCP_LIMITS.maxResponseBytes, { default: 16 * 1024 * 1024, hard: 64 * 1024 * 1024 })
  assert.equal(Object.keys(mcp.MCP_LIMITS).length, 14)
  assert.equal(mcp.DEFAULT_MAX_TOTAL_TIMEOUT_MS, 10 * 60_000)
  assert.equal(mcp.HARD_MAX_TOTAL_TIMEOUT_MS, 24 * 60 * 60_000)
  // the reference's HARD_*/DEFAULT_* constants, read from the same engine table
  assert.equal(mcp.HARD_MAX_TOOLS, 5000)
  assert.equal(mcp.HARD_MAX_RESULT_BYTES, 16 * 1024 * 1024)
  assert.equal(mcp.HARD_CALL_TIMEOUT_MS, 30 * 60_000)
  assert.equal(mcp.HARD_LIST_CACHE_TTL_MS, 24 * 60 * 60_000)
  // the reference's caps for capability listings and sessions: exported with its numbers, unchecked (tools only)
  assert.deepEqual(
    [mcp.DEFAULT_MAX_CAPABILITY_BYTES, mcp.DEFAULT_MAX_CAPABILITY_ITEMS, mcp.DEFAULT_MAX_CAPABILITY_PAGES, mcp.DEFAULT_MAX_SESSIONS],
    [1024 * 1024, 500, 20, 32],
  )
  assert.deepEqual(
    [mcp.HARD_MAX_CAPABILITY_BYTES, mcp.HARD_MAX_CAPABILITY_ITEMS, mcp.HARD_MAX_CAPABILITY_PAGES, mcp.HARD_MAX_SESSIONS],
    [8 * 1024 * 1024, 5_000, 100, 512],
  )
  assert.equal(mcp.HARD_MAX_JSON_DEPTH, mcp.MCP_LIMITS.maxJsonDepth.hard)
  assert.equal(mcp.DEFAULT_MAX_LIST_PAGES, 20)
  assert.equal(mcp.HARD_MAX_HTTP_RESPONSE_BYTES, mcp.MCP_LIMITS.maxResponseBytes.hard)
})

test('names and server ids', () => {
  assert.equal(mcp.defaultMcpNamePrefix('srv'), 'mcp:srv:')
  assert.equal(mcp.formatMcpToolName('x_', 'echo'), 'x_echo')
  for (const good of ['a', 'A.b_c-9']) assert.doesNotThrow(() => mcp.assertValidServerId(good))
  for (const bad of ['', '.a', '-a', 'a b', 'a:b', undefined]) {
    assert.throws(() => mcp.assertValidServerId(bad), (err) => {
      assert.equal(err.constructor, Error)
      assert.equal(err.message, 'serverId must be a non-empty identifier (letters, digits, ., _, -; must not start with . or -)')
      return true
    })
  }
})

test('content helpers', () => {
  const mapped = mcp.mapMcpContentToBlocks(
    [
      { type: 'text', text: 'héllo' },
      { type: 'image', mimeType: 'image/png', data: 'AAAA' },
      { type: 'resource_link', name: 'n', uri: 'u' },
    ],
    { maxResultBytes: 4 },
  )
  assert.deepEqual(mapped, { content: [{ type: 'text', text: 'hél' }], truncated: true, bytesUsed: 4 })
  assert.equal(mcp.summarizeMcpContent([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]), 'a\nb')
  assert.equal(mcp.summarizeMcpContent([{ type: 'text', text: 'abcdef' }], 3), 'abc')
  assert.equal(mcp.boundedMcpErrorMessage(new Error('ééé'), 3), 'é')
  assert.equal(mcp.boundedMcpErrorMessage('plain', 100), 'plain')
  // The cap as a comparison reads it; a message that fits comes back as the same string.
  assert.equal(mcp.boundedMcpErrorMessage('a\ud800b', 5), 'a\ud800b')
  assert.equal(mcp.boundedMcpErrorMessage('a\ud800b', 2), 'a')
  assert.equal(mcp.boundedMcpErrorMessage('héllo', 2.9), 'h')
  assert.equal(mcp.boundedMcpErrorMessage('héllo', '3'), 'hé')
  for (const cap of [NaN, -1, undefined]) assert.equal(mcp.boundedMcpErrorMessage('héllo', cap), '')
  assert.equal(mcp.boundedMcpErrorMessage('héllo', Infinity), 'héllo')
  assert.deepEqual(mcp.mcpCallError('m'), { name: 'McpToolError', message: 'm', code: 'ERR_PRISM_MCP_TOOL' })
  assert.deepEqual(mcp.mcpCallError('m', 'X'), { name: 'McpToolError', message: 'm', code: 'X' })
  assert.equal(mcp.estimateUtf8Bytes('é☃'), 5)
})

test('error classes', () => {
  const c = new mcp.McpToolNameCollisionError('p:x', 'x')
  assert.ok(c instanceof mcp.McpBridgeError)
  assert.equal(c.message, 'MCP tool name collision: p:x (remote tool x)')
  assert.equal(c.name, 'McpToolNameCollisionError')
  assert.deepEqual([c.prefixedName, c.remoteName], ['p:x', 'x'])
  const closed = new mcp.McpBridgeClosedError()
  assert.ok(closed instanceof mcp.McpBridgeError)
  assert.equal(closed.message, 'MCP bridge is closed')
  const u = new mcp.McpUnsupportedCapabilityError('no')
  assert.equal(u.code, 'ERR_PRISM_MCP_UNSUPPORTED_CAPABILITY')
})

// A command that cannot start: options that pass validation fail later, with a connect error.
const MISSING = { type: 'stdio', command: '/nonexistent/prism-native-no-such-server' }

for (const [name, { hard }] of Object.entries(mcp.MCP_LIMITS)) {
  if (name === 'maxResponseBytes') continue
  test(`${name}: the hard cap passes, hard+1 and non-integers fail`, async () => {
    await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: MISSING, [name]: hard }), (err) => {
      assert.equal(err.code, 'ERR_PRISM_MCP_CONNECT')
      return true
    })
    await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: MISSING, [name]: 1 }), { code: 'ERR_PRISM_MCP_CONNECT' })
    for (const bad of [hard + 1, 0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '5', null]) {
      await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: MISSING, [name]: bad }), (err) => {
        assert.ok(err instanceof mcp.McpBridgeError, `${name}=${bad}`)
        assert.equal(err.message, `${name} must be a positive safe integer <= ${hard}`)
        return true
      })
    }
  })
}

function http(extra) {
  return { type: 'streamable-http', url: 'https://example.com/mcp', allowedOrigins: ['https://example.com'], ...extra }
}

test('Streamable HTTP: maxResponseBytes at its edge', async () => {
  const { hard } = mcp.MCP_LIMITS.maxResponseBytes
  await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: http({ maxResponseBytes: hard + 1 }) }), {
    message: `maxResponseBytes must be a positive safe integer <= ${hard}`,
  })
  await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: http({ maxResponseBytes: 0 }) }), mcp.McpBridgeError)
})

test('Streamable HTTP: URL, origin and address checks', async () => {
  const cases = [
    [{ url: 'https://u:p@example.com/mcp' }, 'MCP server URL must not contain credentials'],
    [{ url: 'https://example.com/mcp#frag' }, 'MCP server URL must not contain a fragment'],
    [{ url: 'https://evil.example/mcp' }, 'MCP server origin https://evil.example is not in allowedOrigins'],
    [{ allowedOrigins: [] }, 'allowedOrigins must list 1 to 64 origins'],
    [{ allowedOrigins: Array.from({ length: 65 }, (_, i) => `https://h${i}.example`) }, 'allowedOrigins must list 1 to 64 origins'],
    [{ url: 'http://example.com/mcp', allowedOrigins: ['http://example.com'] }, /must use https/],
    [{ url: 'http://127.0.0.1:9/mcp', allowedOrigins: ['http://127.0.0.1:9'] }, /must use https/],
    // An entry is exactly an origin (the reference's rule: no trailing slash, path or port 443
    // spelled out), and plaintext http is for a loopback host by name or address only.
    [{ allowedOrigins: ['https://example.com/'] }, /not an exact origin/],
    [{ allowedOrigins: ['https://example.com', 'https://example.com:443'] }, /not an exact origin/],
    [{ url: 'http://mcp.example.test/mcp', allowedOrigins: ['http://mcp.example.test'], allowLoopbackHttp: true }, /loopback/],
    [{ url: 'https://10.0.0.1/mcp', allowedOrigins: ['https://10.0.0.1'] }, 'MCP server address 10.0.0.1 is not public'],
    [{ url: 'https://[fd00::1]/mcp', allowedOrigins: ['https://[fd00::1]'] }, 'MCP server address fd00::1 is not public'],
    [{ url: 'https://192.168.1.1/mcp', allowedOrigins: ['https://192.168.1.1'], allowLoopbackHttp: true }, 'MCP server address 192.168.1.1 is not public'],
    [{ url: 'not a url' }, 'Invalid MCP HTTP URL'],
    [{ url: 'file:///etc/passwd' }, 'MCP HTTP URL must use https: (got file:)'],
  ]
  for (const [extra, message] of cases) {
    await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: http(extra) }), (err) => {
      assert.ok(err instanceof mcp.McpBridgeError, JSON.stringify(extra))
      if (message instanceof RegExp) assert.match(err.message, message)
      else assert.equal(err.message, message)
      return true
    })
  }
  // a host name that resolves to loopback is private without allowLoopbackHttp
  await assert.rejects(
    mcp.connectMcpTools({ serverId: 's', transport: http({ url: 'https://localhost:9/mcp', allowedOrigins: ['https://localhost:9'] }) }),
    { code: 'ERR_PRISM_MCP_NOT_PUBLIC' },
  )
})

test('unsupported capabilities are refused up front', async () => {
  // OAuth options are checked before anything connects.
  await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: http({ auth: {} }) }), {
    name: 'McpOAuthError',
    code: 'ERR_PRISM_MCP_OAUTH_STATE',
  })
  await assert.rejects(
    mcp.connectMcpTools({ serverId: 's', transport: http({ auth: { strategy: { kind: 'static', clientId: 'c' } } }) }),
    { name: 'McpOAuthError', code: 'ERR_PRISM_MCP_OAUTH_STATE', message: /^auth\.state must be an object/ },
  )
  await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: http({ sessionId: 'x' }) }), mcp.McpUnsupportedCapabilityError)
  // mcpApps is native now (mcp-apps-native.test.mjs): it is not refused before the connect.
  await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: MISSING, mcpApps: true }), { code: 'ERR_PRISM_MCP_CONNECT' })
  await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: { type: 'websocket' } }), {
    name: 'McpBridgeError',
    code: 'ERR_PRISM_MCP_INVALID_TRANSPORT',
    message: 'unsupported MCP transport type websocket',
  })
  for (const [transport, message] of [
    [{ type: 'stdio', command: '' }, 'stdio transport needs a command'],
    [{ type: 'stdio', command: 'srv', stderr: 'loud' }, 'stderr must be inherit, pipe, overlapped or ignore'],
  ]) {
    await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport }), { code: 'ERR_PRISM_MCP_INVALID_TRANSPORT', message })
  }
})

test('serverId and an aborted signal are checked before anything starts', async () => {
  await assert.rejects(mcp.connectMcpTools({ serverId: '-bad', transport: misbehaving() }), (err) => err.constructor === Error)
  const reason = new Error('stop')
  await assert.rejects(mcp.connectMcpTools({ serverId: 's', transport: misbehaving(), signal: AbortSignal.abort(reason) }), (err) => err === reason)
})
