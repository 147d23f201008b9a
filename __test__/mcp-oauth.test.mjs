// createMcpClientAuth over the engine's OAuth client, against a fake authorization server on
// loopback: the reference's seams (state callbacks, redirect, finishAuth, revoke) and errors.
import assert from 'node:assert/strict'
import { createHash, generateKeyPairSync, verify } from 'node:crypto'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import { createMcpClientAuth, McpOAuthError } from '../lib/mcp/index.mjs'
import { serveJson } from './fixtures/oauth-loopback.mjs'
import { memoryState } from './fixtures/oauth-state.mjs'

const require = createRequire(import.meta.url)
const SECRET = 's3cret-value'

/** A resource server and authorization server on one origin; `tweak` edits the AS metadata. */
function fakeServer(tweak = (m) => m) {
  return serveJson(({ path, form, origin, seen }) => {
    if (path === '/.well-known/oauth-protected-resource/mcp') {
      return [200, { resource: `${origin}/mcp`, authorization_servers: [origin], scopes_supported: ['mcp'] }]
    }
    if (path === '/.well-known/oauth-authorization-server') {
      return [200, tweak({
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        revocation_endpoint: `${origin}/revoke`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      })]
    }
    if (path === '/register') return [201, { client_id: `dyn-${seen.filter((s) => s.path === '/register').length}` }]
    if (path === '/token' && form.get('grant_type') === 'authorization_code') {
      return [200, { access_token: 'at-1', token_type: 'Bearer', refresh_token: 'rt-1', expires_in: 60 }]
    }
    if (path === '/token') return [200, { access_token: 'at-2', token_type: 'Bearer' }]
    if (path === '/revoke') return [200, {}]
    return [404, {}]
  })
}

const REDIRECT = 'http://localhost:33418/callback'

test('static client: redirect with PKCE, state and resource; finishAuth; refresh with Basic; revoke', async () => {
  const as = await fakeServer()
  const state = memoryState()
  let url
  const auth = createMcpClientAuth(
    { state, strategy: { kind: 'static', clientId: 'prism-test', clientSecret: SECRET }, redirectUri: REDIRECT, onRedirectRequired: (u) => { url = u } },
    { serverUrl: `${as.origin}/mcp`, allowLoopbackHttp: true },
  )
  assert.equal(await auth.ensureAuthorized(), 'REDIRECT')
  assert.ok(url instanceof URL)
  const q = url.searchParams
  assert.equal(q.get('client_id'), 'prism-test')
  assert.equal(q.get('code_challenge_method'), 'S256')
  assert.equal(q.get('code_challenge'), createHash('sha256').update(state.data.get('verifier')).digest('base64url'))
  assert.ok(q.get('state'))
  assert.equal(q.get('scope'), 'mcp')
  assert.equal(q.get('redirect_uri'), REDIRECT)
  assert.equal(q.get('resource'), `${as.origin}/mcp`)
  assert.equal(state.data.get('discovery').authorizationServerUrl, as.origin)

  await auth.finishAuth('the-code')
  assert.equal((await auth.getTokens()).access_token, 'at-1')
  const exchange = as.seen.at(-1)
  assert.equal(new URLSearchParams(exchange.body).get('code_verifier'), state.data.get('verifier'))
  assert.equal(Buffer.from(exchange.authorization.slice('Basic '.length), 'base64').toString(), `prism-test:${SECRET}`)

  assert.equal(await auth.ensureAuthorized(), 'AUTHORIZED')
  assert.deepEqual({ ...(await auth.getTokens()) }, { access_token: 'at-2', token_type: 'Bearer', refresh_token: 'rt-1' })
  assert.equal(new URLSearchParams(as.seen.at(-1).body).get('resource'), `${as.origin}/mcp`)

  await auth.revoke()
  assert.equal(as.seen.at(-1).path, '/revoke')
  assert.equal(await auth.getTokens(), undefined)
})

test('dynamic registration happens once; the stored client is reused', async () => {
  const as = await fakeServer()
  const state = memoryState()
  const options = { state, strategy: { kind: 'dcr', clientMetadata: { client_name: 'x', redirect_uris: [REDIRECT] } }, redirectUri: REDIRECT, onRedirectRequired: () => {} }
  const auth = createMcpClientAuth(options, { serverUrl: `${as.origin}/mcp`, allowLoopbackHttp: true })
  await auth.ensureAuthorized()
  await auth.ensureAuthorized()
  assert.equal(as.seen.filter((s) => s.path === '/register').length, 1)
  assert.equal(state.data.get('client').client_id, 'dyn-1')
})

test('errors are McpOAuthError with the reference codes, from ESM and CommonJS alike', async () => {
  const cjs = require('../lib/mcp/index.js')
  assert.equal(cjs.McpOAuthError, McpOAuthError)
  const state = memoryState()
  assert.throws(
    () => createMcpClientAuth({ state, strategy: { kind: 'static', clientId: 'c' }, limits: { discoveryBytes: 0 } }, { serverUrl: 'https://example.com/mcp' }),
    (e) => e instanceof McpOAuthError && e.code === 'ERR_PRISM_MCP_OAUTH_STATE' && e.message === 'discoveryBytes must be a positive safe integer <= 262144',
  )
  const drift = await fakeServer((m) => ({ ...m, issuer: 'https://evil.example' }))
  const auth = createMcpClientAuth({ state, strategy: { kind: 'static', clientId: 'c' }, redirectUri: REDIRECT, onRedirectRequired: () => {} }, { serverUrl: `${drift.origin}/mcp`, allowLoopbackHttp: true })
  await assert.rejects(auth.ensureAuthorized(), (e) => e instanceof McpOAuthError && e.code === 'ERR_PRISM_MCP_OAUTH_ORIGIN')
  // Without the loopback opt-in, the loopback server is refused before any request.
  const strict = createMcpClientAuth({ state: memoryState(), strategy: { kind: 'static', clientId: 'c' } }, { serverUrl: `${drift.origin}/mcp` })
  await assert.rejects(strict.ensureAuthorized(), (e) => e instanceof McpOAuthError && e.code === 'ERR_PRISM_MCP_OAUTH_SSRF')
})

test('interaction without onRedirectRequired fails closed, and no secret is in any message', async () => {
  const as = await fakeServer()
  const state = memoryState()
  const auth = createMcpClientAuth({ state, strategy: { kind: 'static', clientId: 'c', clientSecret: SECRET }, redirectUri: REDIRECT }, { serverUrl: `${as.origin}/mcp`, allowLoopbackHttp: true })
  await assert.rejects(auth.ensureAuthorized(), (e) => {
    assert.equal(e.code, 'ERR_PRISM_MCP_OAUTH_STATE')
    assert.ok(!e.message.includes(SECRET) && !e.stack.includes(SECRET))
    return true
  })
  assert.equal(state.data.get('verifier'), undefined, 'no verifier saved for a flow that cannot redirect')
})

test('extension: a Client ID Metadata Document URL is the client id where the server advertises it', async () => {
  const CIMD = 'https://agent.example/client.json'
  const strategy = { kind: 'dcr', clientMetadata: { client_name: 'x', redirect_uris: [REDIRECT] }, clientMetadataUrl: CIMD }
  for (const supported of [true, false]) {
    const as = await fakeServer((m) => ({ ...m, client_id_metadata_document_supported: supported }))
    const state = memoryState()
    const urls = []
    const auth = createMcpClientAuth({ state, strategy, redirectUri: REDIRECT, onRedirectRequired: (u) => void urls.push(u) }, { serverUrl: `${as.origin}/mcp`, allowLoopbackHttp: true })
    assert.equal(await auth.ensureAuthorized(), 'REDIRECT')
    const id = supported ? CIMD : 'dyn-1'
    assert.equal(urls[0].searchParams.get('client_id'), id)
    assert.equal(state.data.get('client').client_id, id)
    assert.equal(as.seen.some((r) => r.path === '/register'), !supported)
  }
})

test('extension: client credentials with a secret or an ES256 key, no user and no redirect', async () => {
  const as = await fakeServer()
  const state = memoryState()
  const withSecret = createMcpClientAuth({ state, strategy: { kind: 'client_credentials', clientId: 'svc', clientSecret: SECRET } }, { serverUrl: `${as.origin}/mcp`, allowLoopbackHttp: true })
  assert.equal(await withSecret.ensureAuthorized(), 'AUTHORIZED')
  assert.equal(state.data.get('tokens').access_token, 'at-2')
  let token = as.seen.at(-1)
  let form = new URLSearchParams(token.body)
  assert.equal(form.get('grant_type'), 'client_credentials')
  assert.equal(form.get('resource'), `${as.origin}/mcp`)
  assert.equal(form.get('scope'), 'mcp')
  assert.equal(token.authorization, `Basic ${Buffer.from(`svc:${SECRET}`).toString('base64')}`)

  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' })
  const withKey = createMcpClientAuth({ state: memoryState(), strategy: { kind: 'client_credentials', clientId: 'svc', privateKeyPem: pem, signingAlgorithm: 'ES256' } }, { serverUrl: `${as.origin}/mcp`, allowLoopbackHttp: true })
  assert.equal(await withKey.ensureAuthorized(), 'AUTHORIZED')
  token = as.seen.at(-1)
  form = new URLSearchParams(token.body)
  assert.equal(token.authorization, undefined)
  assert.equal(form.get('client_assertion_type'), 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
  const [header, claims, signature] = form.get('client_assertion').split('.')
  const decoded = (part) => JSON.parse(Buffer.from(part, 'base64url').toString())
  assert.equal(decoded(header).alg, 'ES256')
  const c = decoded(claims)
  assert.deepEqual([c.iss, c.sub, c.aud, c.exp - c.iat], ['svc', 'svc', as.origin, 300])
  assert.ok(verify('sha256', Buffer.from(`${header}.${claims}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url')))

  // Exactly one of a secret and a key; only ES256; no key text in the message.
  for (const strategy of [
    { kind: 'client_credentials', clientId: 'svc' },
    { kind: 'client_credentials', clientId: 'svc', clientSecret: SECRET, privateKeyPem: pem },
    { kind: 'client_credentials', clientId: 'svc', privateKeyPem: pem, signingAlgorithm: 'RS256' },
    { kind: 'client_credentials', clientId: 'svc', privateKeyPem: `${pem.slice(0, 80)}` },
    { kind: 'dcr', clientMetadata: {}, clientMetadataUrl: 'http://agent.example/client.json' },
  ]) {
    assert.throws(
      () => createMcpClientAuth({ state: memoryState(), strategy }, { serverUrl: `${as.origin}/mcp`, allowLoopbackHttp: true }),
      (e) => e instanceof McpOAuthError && e.code === 'ERR_PRISM_MCP_OAUTH_STATE' && !e.message.includes(SECRET) && !e.message.includes(pem.split('\n')[1]),
    )
  }
})

test('createMcpOAuthFetch carries the loopback opt-in and refuses to fetch', async () => {
  const { createMcpOAuthFetch, McpUnsupportedCapabilityError } = await import('../lib/mcp/index.mjs')
  const as = await fakeServer()
  const config = { type: 'streamable-http', url: `${as.origin}/mcp`, allowedOrigins: [as.origin], allowLoopbackHttp: true }
  const fetchStandIn = createMcpOAuthFetch(config)
  const auth = createMcpClientAuth({ state: memoryState(), strategy: { kind: 'static', clientId: 'c' }, redirectUri: REDIRECT, onRedirectRequired: () => {} }, { serverUrl: config.url, fetch: fetchStandIn })
  assert.equal(await auth.ensureAuthorized(), 'REDIRECT')
  await assert.rejects(fetchStandIn('https://example.com'), (e) => e instanceof McpUnsupportedCapabilityError)
})
