// `transport.auth` on connectMcpTools: the engine sends the host's access token, and on the
// server's refusal asks the host's OAuth client (createMcpClientAuth over the same options)
// to authorize again, within the step-up rules; no token or secret reaches any event, error,
// result or ledger row.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { dispatchToolCall, createToolRegistry } from '../index.mjs'
import { connectMcpTools, createMcpClientAuth, McpOAuthError } from '../lib/mcp/index.mjs'
import { startOAuthMcpServer } from './fixtures/mcp-oauth-server.mjs'
import { memoryState } from './fixtures/oauth-state.mjs'

const SECRET = 'cl1ent-s3cret'
const REDIRECT = 'http://localhost:33418/callback'
let fixture
before(async () => {
  fixture = await startOAuthMcpServer()
})
after(() => fixture.close())

function authOptions(state, redirects = []) {
  return {
    state,
    strategy: { kind: 'static', clientId: 'prism-test', clientSecret: SECRET },
    redirectUri: REDIRECT,
    onRedirectRequired: (url) => void redirects.push(url),
    scopes: ['mcp'],
  }
}

function connect(auth, extra = {}) {
  return connectMcpTools({
    serverId: 'secured',
    transport: { type: 'streamable-http', url: fixture.url, allowedOrigins: [fixture.origin], allowLoopbackHttp: true, auth },
    callTimeoutMs: 15_000,
    ...extra,
  })
}

const ctx = (id) => ({ sessionId: 's', runId: 'r', toolCallId: id })
const tool = (bridge, name) => bridge.tools.find((t) => t.name === `mcp:secured:${name}`)

/** Authorizes `state` through the interactive flow (connect, redirect, finishAuth). */
async function authorized(state) {
  const redirects = []
  await assert.rejects(connect(authOptions(state, redirects)), (e) => e instanceof McpOAuthError && e.code === 'ERR_PRISM_MCP_OAUTH_STATE')
  assert.equal(redirects.length, 1)
  const auth = createMcpClientAuth(authOptions(state), { serverUrl: fixture.url, allowLoopbackHttp: true })
  await auth.finishAuth('the-code')
  return redirects[0]
}

test('a server that needs authorization: connect sends the user, finishAuth, connect again with the bearer', async () => {
  const state = memoryState()
  const url = await authorized(state)
  assert.equal(url.origin, fixture.origin)
  assert.equal(url.searchParams.get('resource'), fixture.url)
  // No challenge scope yet: the protected resource's scopes_supported, as the MCP SDK picks.
  assert.equal(url.searchParams.get('scope'), 'mcp admin')
  const token = state.data.get('tokens').access_token
  const bridge = await connect(authOptions(state, [() => assert.fail('no second redirect')]))
  try {
    assert.deepEqual(bridge.tools.map((t) => t.name).sort(), ['mcp:secured:admin', 'mcp:secured:echo'])
    const result = await tool(bridge, 'echo').execute({}, ctx('c1'))
    assert.equal(result.error, undefined)
    assert.deepEqual(result.content, [{ type: 'text', text: 'echoed' }])
    assert.equal(fixture.seen.bearers.at(-1), token)
  } finally {
    await bridge.close()
  }
})

test('a token the server stopped taking is refreshed once, mid-session, and the call goes through', async () => {
  const state = memoryState()
  await authorized(state)
  const bridge = await connect(authOptions(state))
  try {
    fixture.expireTokens()
    const before = fixture.seen.tokenRequests.length
    const [a, b] = await Promise.all([tool(bridge, 'echo').execute({}, ctx('c1')), tool(bridge, 'echo').execute({}, ctx('c2'))])
    assert.equal(a.error, undefined)
    assert.equal(b.error, undefined)
    const grants = fixture.seen.tokenRequests.slice(before).map((r) => r.grant)
    assert.deepEqual(grants, ['refresh_token'], 'two refused calls share one refresh')
    assert.equal(fixture.seen.tokenRequests.at(-1).resource, fixture.url)
  } finally {
    await bridge.close()
  }
})

test('a scope challenge steps up once, then the call fails with the 403 and nothing loops', async () => {
  const state = memoryState()
  await authorized(state)
  const bridge = await connect(authOptions(state))
  try {
    const before = fixture.seen.tokenRequests.length
    const result = await tool(bridge, 'admin').execute({}, ctx('c1'))
    assert.match(result.error.message, /403 insufficient_scope again/)
    assert.deepEqual(fixture.seen.tokenRequests.slice(before).map((r) => r.grant), ['refresh_token'])
    // The session is still usable.
    assert.equal((await tool(bridge, 'echo').execute({}, ctx('c2'))).error, undefined)
  } finally {
    await bridge.close()
  }
})

test('a refused refresh during step-up sends the user with the challenged scope', async () => {
  const state = memoryState()
  await authorized(state)
  const redirects = []
  const bridge = await connect(authOptions(state, redirects))
  fixture.switches.refuseRefresh = true
  try {
    const result = await tool(bridge, 'admin').execute({}, ctx('c1'))
    assert.match(result.error.message, /authorization failed: MCP server requires authorization/)
    assert.equal(redirects.length, 1)
    assert.equal(redirects[0].searchParams.get('scope'), 'mcp admin')
    assert.equal(state.data.get('tokens'), undefined, 'the refused refresh token is dropped')
  } finally {
    fixture.switches.refuseRefresh = false
    await bridge.close()
  }
})

test('a server that refuses every token: one authorization, then connect fails naming the 401', async () => {
  const state = memoryState()
  await authorized(state)
  fixture.switches.alwaysRefuse = true
  const before = fixture.seen.tokenRequests.length
  try {
    await assert.rejects(connect(authOptions(state)), /HTTP 401 again after the client authorized/)
    assert.deepEqual(fixture.seen.tokenRequests.slice(before).map((r) => r.grant), ['refresh_token'])
  } finally {
    fixture.switches.alwaysRefuse = false
  }
})

test('no token, refresh token or client secret in any event, result, error or ledger row', async () => {
  const state = memoryState()
  await authorized(state)
  const bridge = await connect(authOptions(state))
  const events = []
  const ledger = []
  const outcomes = []
  try {
    const registry = createToolRegistry(bridge.tools)
    fixture.expireTokens()
    for (const [i, name] of ['echo', 'admin', 'echo'].entries()) {
      if (i === 2) fixture.switches.alwaysRefuse = true
      const call = { id: `c${i}`, name: `mcp:secured:${name}`, arguments: {} }
      outcomes.push(await dispatchToolCall({
        call,
        registry,
        context: { sessionId: 's', runId: 'r', toolCallId: call.id },
        emit: (e) => void events.push(e),
        ledger: { appendToolCall: (row) => void ledger.push(row) },
      }))
    }
  } finally {
    fixture.switches.alwaysRefuse = false
    await bridge.close()
  }
  let failed
  try {
    fixture.switches.alwaysRefuse = true
    await connect(authOptions(state))
  } catch (e) {
    failed = e
  } finally {
    fixture.switches.alwaysRefuse = false
  }
  assert.ok(failed)
  assert.ok(outcomes.some((o) => o.error), 'the run has failures to show')
  assert.ok(events.length >= 6 && ledger.length >= 3, `events and ledger rows were written: ${events.length} ${ledger.length}`)
  const text = JSON.stringify({ events, ledger, outcomes, failed: { message: failed.message, stack: failed.stack } })
  for (const secret of [SECRET, /at-\d+/, /rt-\d+/]) {
    assert.doesNotMatch(text, secret instanceof RegExp ? secret : new RegExp(secret))
  }
})
