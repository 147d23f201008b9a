// Extension: the cross-app access strategy (SEP-990) of createMcpClientAuth against a fake
// enterprise identity provider and a fake MCP authorization server on loopback: the ID token
// asked for per flow, exchanged for an ID-JAG, the ID-JAG presented as a JWT bearer grant;
// the ID token kept out of the host's state and of every error.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMcpClientAuth, McpOAuthError } from '../lib/mcp/index.mjs'
import { serveJson as serve } from './fixtures/oauth-loopback.mjs'
import { memoryState } from './fixtures/oauth-state.mjs'

const SECRET = 'as-s3cret'
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag'

/** The MCP server's metadata and its authorization server, taking only the JWT bearer grant. */
const mcpAndAs = () =>
  serve(({ path, form, origin }) => {
    if (path === '/.well-known/oauth-protected-resource/mcp') return [200, { resource: `${origin}/mcp`, authorization_servers: [origin] }]
    if (path === '/.well-known/oauth-authorization-server') {
      return [200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        response_types_supported: ['code'],
        grant_types_supported: ['urn:ietf:params:oauth:grant-type:jwt-bearer'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      }]
    }
    if (path === '/token' && form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      return [200, { access_token: `at-for-${form.get('assertion')}`, token_type: 'Bearer', expires_in: 300 }]
    }
    return [400, { error: 'unsupported_grant_type' }]
  })

/** The identity provider: an ID-JAG named after the ID token it was given (upper-cased). */
const idp = () =>
  serve(({ path, form }) => {
    if (path !== '/token') return [404, {}]
    if (form.get('subject_token') === 'expired-id-token') return [400, { error: 'invalid_grant', error_description: 'expired-id-token' }]
    return [200, { access_token: `jag-${form.get('subject_token').toUpperCase()}`, issued_token_type: ID_JAG, token_type: 'N_A' }]
  })

const strategy = (idpServer, idToken) => ({
  kind: 'cross_app_access',
  clientId: 'mcp-client',
  clientSecret: SECRET,
  idpTokenEndpoint: `${idpServer.origin}/token`,
  idToken,
})

test('extension: cross-app access asks for the ID token per flow and exchanges it, no user and no redirect', async () => {
  const [mcp, enterprise] = [await mcpAndAs(), await idp()]
  const state = memoryState()
  let calls = 0
  const auth = createMcpClientAuth(
    { state, strategy: strategy(enterprise, async () => `id-token-${++calls}`) },
    { serverUrl: `${mcp.origin}/mcp`, allowLoopbackHttp: true },
  )
  assert.equal(await auth.ensureAuthorized(), 'AUTHORIZED')
  assert.equal((await auth.getTokens()).access_token, 'at-for-jag-ID-TOKEN-1')
  const exchange = enterprise.seen.at(-1).form
  assert.equal(exchange.get('grant_type'), 'urn:ietf:params:oauth:grant-type:token-exchange')
  assert.equal(exchange.get('subject_token_type'), 'urn:ietf:params:oauth:token-type:id_token')
  assert.equal(exchange.get('requested_token_type'), ID_JAG)
  assert.equal(exchange.get('audience'), mcp.origin)
  assert.equal(exchange.get('resource'), `${mcp.origin}/mcp`)
  const grant = mcp.seen.at(-1)
  assert.equal(grant.form.get('assertion'), 'jag-ID-TOKEN-1')
  assert.equal(grant.authorization, `Basic ${Buffer.from(`mcp-client:${SECRET}`).toString('base64')}`)

  // A second flow asks the host again: a fresh ID token, a fresh ID-JAG.
  assert.equal(await auth.ensureAuthorized(), 'AUTHORIZED')
  assert.equal(calls, 2)
  assert.equal((await auth.getTokens()).access_token, 'at-for-jag-ID-TOKEN-2')
  // The host's state keeps the tokens and the discovery, never the ID token.
  assert.ok(![...state.data.values()].some((v) => JSON.stringify(v).includes('id-token-')))

  // A plain string works as well.
  const fixed = createMcpClientAuth({ state: memoryState(), strategy: strategy(enterprise, 'static-id') }, { serverUrl: `${mcp.origin}/mcp`, allowLoopbackHttp: true })
  assert.equal(await fixed.ensureAuthorized(), 'AUTHORIZED')
  assert.equal((await fixed.getTokens()).access_token, 'at-for-jag-STATIC-ID')
})

test('extension: cross-app access errors come from the engine with the reference codes, without the ID token', async () => {
  const [mcp, enterprise] = [await mcpAndAs(), await idp()]
  const context = { serverUrl: `${mcp.origin}/mcp`, allowLoopbackHttp: true }
  const isCoded = (code) => (e) => e instanceof McpOAuthError && e.code === code
  assert.throws(() => createMcpClientAuth({ state: memoryState(), strategy: strategy(enterprise, 42) }, context), isCoded('ERR_PRISM_MCP_OAUTH_STATE'))
  assert.throws(
    () => createMcpClientAuth({ state: memoryState(), strategy: { ...strategy(enterprise, 'x'), idpTokenEndpoint: 'http://idp.example/token' } }, context),
    isCoded('ERR_PRISM_MCP_OAUTH_SSRF'),
  )
  const empty = createMcpClientAuth({ state: memoryState(), strategy: strategy(enterprise, async () => '') }, context)
  await assert.rejects(empty.ensureAuthorized(), isCoded('ERR_PRISM_MCP_OAUTH_STATE'))

  const refused = createMcpClientAuth({ state: memoryState(), strategy: strategy(enterprise, async () => 'expired-id-token') }, context)
  await assert.rejects(refused.ensureAuthorized(), (e) => {
    assert.ok(isCoded('ERR_PRISM_MCP_OAUTH_DISCOVERY')(e))
    assert.equal(e.message, 'token exchange returned HTTP 400 (invalid_grant)')
    assert.ok(!e.stack.includes('expired-id-token') && !e.stack.includes(SECRET))
    return true
  })
  assert.ok(!mcp.seen.some((s) => s.path === '/token'), 'no grant without an ID-JAG')

  // The host's own failure to produce an ID token is its own error.
  const boom = new Error('the IdP session ended')
  const failing = createMcpClientAuth({ state: memoryState(), strategy: strategy(enterprise, async () => { throw boom }) }, context)
  await assert.rejects(failing.ensureAuthorized(), (e) => e === boom)
})
