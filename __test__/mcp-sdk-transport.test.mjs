// createMcpTransport and createMcpOAuthTransport: the JS SDK's transports (as the reference
// returns them) whose every HTTP request goes through the engine's fetch, and whose OAuth is
// the engine's client under the same step-up rules as the native bridge.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { after, before, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { createMcpClientAuth, createMcpOAuthTransport, createMcpTransport, McpBridgeError, McpOAuthError } from '../lib/mcp/index.mjs'
import { createNativeMcpFetch } from '../lib/mcp/sdk-fetch.js'
import { nativeOptions } from '../lib/mcp/bridge.js'
import { withOAuthBearer } from '../lib/mcp/oauth-fetch.js'
import { startEverythingHttp } from './fixtures/mcp-helpers.mjs'
import { startOAuthMcpServer } from './fixtures/mcp-oauth-server.mjs'
import { memoryState } from './fixtures/oauth-state.mjs'

let everything
let oauth
let plain
before(async () => {
  everything = await startEverythingHttp()
  oauth = await startOAuthMcpServer()
  // A server that redirects, answers too much, or streams for the byte bound.
  plain = createServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(307, { location: 'https://evil.example/mcp' })
      return res.end()
    }
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ pad: 'x'.repeat(4096) }))
    }
    res.writeHead(204)
    res.end()
  })
  await new Promise((resolve) => plain.listen(0, '127.0.0.1', resolve))
})
after(async () => {
  await everything.stop()
  await oauth.close()
  plain.closeAllConnections()
  await new Promise((resolve) => plain.close(resolve))
})

const httpConfig = (url, extra = {}) => ({ type: 'streamable-http', url, allowedOrigins: [new URL(url).origin], allowLoopbackHttp: true, ...extra })

test('an SDK client over createMcpTransport: lists, calls and gets the server stream through the engine', async () => {
  const client = new Client({ name: 'host', version: '1.0.0' })
  await client.connect(createMcpTransport(httpConfig(everything.url)))
  try {
    const { tools } = await client.listTools()
    assert.ok(tools.some((t) => t.name === 'echo'))
    const result = await client.callTool({ name: 'echo', arguments: { message: 'through the engine' } })
    assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: through the engine' }])
  } finally {
    await client.close()
  }
})

test('the engine fetch: same origin only, no redirect followed, the byte bound, no Host override', async () => {
  const origin = `http://127.0.0.1:${plain.address().port}`
  const fetch = createNativeMcpFetch({ ...nativeOptions({ serverId: '', transport: httpConfig(`${origin}/mcp`, { maxResponseBytes: 1024 }) }), headers: undefined })
  assert.equal((await fetch(`${origin}/mcp`, { method: 'POST', body: '{}' })).status, 204)
  await assert.rejects(fetch('http://localhost:1/mcp', { method: 'POST' }), (e) => e instanceof McpBridgeError && /does not match the configured endpoint/.test(e.message))
  await assert.rejects(fetch(`${origin}/redirect`), /HTTP 307 \(a redirect, which is not followed\)/)
  await assert.rejects(fetch(`${origin}/mcp`, { headers: { host: 'evil.example' } }), /must not override Host/)
  const big = await fetch(`${origin}/big`)
  await assert.rejects(big.text(), { code: 'ERR_PRISM_MCP_TOO_LARGE', message: 'MCP message exceeds 1024 bytes' })
  const aborted = new AbortController()
  aborted.abort(new Error('stop'))
  await assert.rejects(fetch(`${origin}/mcp`, { signal: aborted.signal }), /stop/)
})

test('createMcpOAuthTransport: redirect, finishAuth on its auth, then an SDK client connects with the bearer', async () => {
  const state = memoryState()
  const redirects = []
  const config = httpConfig(oauth.url, {
    auth: { state, strategy: { kind: 'static', clientId: 'c', clientSecret: 's3cret' }, redirectUri: 'http://localhost:1/cb', onRedirectRequired: (u) => void redirects.push(u) },
  })
  const first = createMcpOAuthTransport(config)
  await assert.rejects(new Client({ name: 'h', version: '1' }).connect(first.transport), (e) => e instanceof McpOAuthError && e.code === 'ERR_PRISM_MCP_OAUTH_STATE')
  assert.equal(redirects.length, 1)
  await first.auth.finishAuth('code')
  const client = new Client({ name: 'h', version: '1' })
  await client.connect(createMcpTransport(config))
  try {
    oauth.expireTokens()
    const before = oauth.seen.tokenRequests.length
    assert.equal((await client.callTool({ name: 'echo', arguments: {} })).content[0].text, 'echoed')
    assert.deepEqual(oauth.seen.tokenRequests.slice(before).map((r) => r.grant), ['refresh_token'])
    // A scope challenge: one step-up (a refresh that does not widen the scope), then the 403 stands.
    await assert.rejects(client.callTool({ name: 'admin', arguments: {} }), /403 insufficient_scope again/)
  } finally {
    await client.close()
  }
  assert.ok(!JSON.stringify(redirects).includes('s3cret'))
  // createMcpClientAuth over the same state sees the refreshed token.
  const auth = createMcpClientAuth(config.auth, { serverUrl: oauth.url, allowLoopbackHttp: true })
  assert.match((await auth.getTokens()).access_token, /^at-/)
})

test('the OAuth fetch resends with a token another request put in place, without a second flow, as the engine says', async () => {
  let tokens = { access_token: 'at-1' }
  let flows = 0
  const auth = { getTokens: async () => tokens, ensureAuthorized: async () => { flows++; return 'AUTHORIZED' } }
  const sent = []
  const base = async (_input, init) => {
    const bearer = new Headers(init.headers).get('authorization')
    sent.push(bearer)
    // The GET stream authorized meanwhile: the refused request finds `at-2` in place.
    if (bearer === 'Bearer at-1') {
      tokens = { access_token: 'at-2' }
      return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer' } })
    }
    return new Response('{}', { status: 200 })
  }
  const response = await withOAuthBearer(base, auth)('http://127.0.0.1/mcp', { method: 'POST' })
  assert.equal(response.status, 200)
  assert.deepEqual(sent, ['Bearer at-1', 'Bearer at-2'])
  assert.equal(flows, 0)
})
