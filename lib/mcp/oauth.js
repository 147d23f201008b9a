'use strict'
// createMcpClientAuth: the reference's OAuth seam (state callbacks, static or dynamic client,
// redirect and finishAuth) over the engine's OAuth client. The engine runs the whole flow
// (discovery, checks, PKCE, token requests, every limit) and returns what to persist; this file
// only loads the host's state, saves what the engine returned, and hands the authorization URL
// to the host.
const native = require('../native.js')
const { fromNative } = require('../native-errors.js')
const { say } = require('../engine-words.js')
const { McpUnsupportedCapabilityError } = require('./errors.js')

/** Where a fetch from `createMcpOAuthFetch` carries its transport's loopback opt-in. */
const OAUTH_POLICY = Symbol('prism-native OAuth policy')

/**
 * The reference's discovery fetch for `config`, as a stand-in: the engine makes every OAuth
 * request itself (pinned, redirect-free, bounded), so this function only carries the
 * transport's `allowLoopbackHttp` to `createMcpClientAuth`; called as a fetch, it rejects.
 */
function createMcpOAuthFetch(config) {
  const stand = () => Promise.reject(McpUnsupportedCapabilityError.fromMessage(say('mcpOAuthFetchNative')))
  Object.defineProperty(stand, OAUTH_POLICY, { value: Object.freeze({ allowLoopbackHttp: config?.allowLoopbackHttp === true }) })
  return stand
}

/** The names of `state`'s members that are functions (the engine says which it needs). */
function functionsOf(state) {
  if (state === null || typeof state !== 'object') return []
  const names = []
  for (let o = state; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) if (typeof state[name] === 'function') names.push(name)
  }
  return names
}

/** The native call's result, with a native error as the reference's class. */
async function call(fn) {
  try {
    return await fn()
  } catch (err) {
    throw fromNative(err)
  }
}

function strategyOf(strategy) {
  if (strategy === null || typeof strategy !== 'object') return strategy
  return {
    kind: strategy.kind,
    clientId: strategy.clientId,
    clientSecret: strategy.clientSecret,
    clientMetadata: strategy.clientMetadata,
    clientMetadataUrl: strategy.clientMetadataUrl === undefined ? undefined : String(strategy.clientMetadataUrl),
    privateKeyPem: strategy.privateKeyPem,
    signingAlgorithm: strategy.signingAlgorithm,
    idpTokenEndpoint: strategy.idpTokenEndpoint === undefined ? undefined : String(strategy.idpTokenEndpoint),
    idpClientId: strategy.idpClientId,
    idpClientSecret: strategy.idpClientSecret,
    // Only the ID token's type: the token itself goes to the engine with each flow.
    idTokenType: typeof strategy.idToken,
  }
}

/**
 * The host's ID token for one flow (a cross-app access strategy's `idToken`: a string, or a
 * function called per flow, since ID tokens are short-lived); the engine checks it.
 */
async function idTokenOf(strategy) {
  const idToken = strategy?.idToken
  return typeof idToken === 'function' ? await idToken() : idToken
}

/**
 * The OAuth client for `context.serverUrl` with the host's `options` (the reference's
 * `McpClientAuthOptions`). The transport's loopback opt-in comes from
 * `context.allowLoopbackHttp`, or from a `context.fetch` made by `createMcpOAuthFetch`; any other
 * fetch is not used: every request goes through the engine's pinned client.
 */
function createMcpClientAuth(options, context) {
  const state = options?.state
  const optionsJson = JSON.stringify({
    serverUrl: String(context?.serverUrl ?? ''),
    allowLoopbackHttp: context?.allowLoopbackHttp === true || context?.fetch?.[OAUTH_POLICY]?.allowLoopbackHttp === true,
    strategy: strategyOf(options?.strategy),
    scopes: Array.isArray(options?.scopes) ? options.scopes : undefined,
    redirectUri: options?.redirectUri === undefined ? undefined : String(options.redirectUri),
    limits: options?.limits,
  })
  let engine
  try {
    engine = new native.NativeMcpOAuth(optionsJson, functionsOf(state))
  } catch (err) {
    throw fromNative(err)
  }
  // Only a dynamic client keeps its registration in the host's state.
  const isStatic = options.strategy.kind !== 'dcr'

  async function stored(withVerifier) {
    const tokens = await state.loadTokens()
    const discovery = await state.loadDiscovery()
    const client = isStatic ? undefined : await state.loadClientInformation()
    const verifier = withVerifier ? await state.loadCodeVerifier() : undefined
    return JSON.stringify({ tokens, discovery, client, verifier })
  }

  /** Saves what the engine returned, in its order; the URL goes to the host last. */
  async function apply(fx) {
    if (fx.discovery) await state.saveDiscovery(fx.discovery)
    if (fx.client) await state.saveClientInformation(fx.client)
    if (fx.clearTokens) await state.clear('tokens')
    if (fx.verifier) await state.saveCodeVerifier(fx.verifier)
    if (fx.tokens) await state.saveTokens(fx.tokens)
    if (fx.redirect === undefined) return 'AUTHORIZED'
    await options.onRedirectRequired(new URL(fx.redirect))
    return 'REDIRECT'
  }

  let inflight
  function run(request) {
    if (inflight) return inflight
    inflight = (async () => {
      const storedJson = await stored(request.authorizationCode !== undefined)
      const requestJson = JSON.stringify({
        ...request,
        idToken: request.authorizationCode === undefined ? await idTokenOf(options.strategy) : undefined,
        canRedirect: typeof options.onRedirectRequired === 'function',
        nowMs: typeof options.now === 'function' ? options.now() : undefined,
      })
      const fx = JSON.parse(await call(() => engine.authorize(storedJson, requestJson)))
      return apply(fx)
    })().finally(() => {
      inflight = undefined
    })
    return inflight
  }

  const auth = {
    /** Discovery, then tokens (exchanged or refreshed), or the start of an authorization. */
    ensureAuthorized: (input) =>
      run({ scope: input?.scope, resourceMetadataUrl: input?.resourceMetadataUrl === undefined ? undefined : String(input.resourceMetadataUrl) }),
    /** Completes the authorization code round trip after `onRedirectRequired`. */
    async finishAuth(authorizationCode) {
      await run({ authorizationCode: String(authorizationCode) })
    },
    /** RFC 7009 revocation (when the server has a revocation endpoint), then local invalidation. */
    async revoke() {
      await call(async () => engine.revoke(await stored(false)))
      await state.clear('tokens')
    },
    getTokens: () => state.loadTokens(),
  }
  ENGINES.set(auth, engine)
  return auth
}

/** The engine of each auth client, for `ensureAuthorizedOrFail`. */
const ENGINES = new WeakMap()

/**
 * `auth.ensureAuthorized(input)` for a request that cannot wait for the user: when the flow
 * ends in a redirect (`onRedirectRequired` was called), fails with the engine's
 * `McpOAuthError` (`ERR_PRISM_MCP_OAUTH_STATE`) saying how to finish.
 */
async function ensureAuthorizedOrFail(auth, input) {
  if ((await auth.ensureAuthorized(input)) === 'AUTHORIZED') return
  await call(() => ENGINES.get(auth).failRedirected())
}

module.exports = { createMcpClientAuth, createMcpOAuthFetch, ensureAuthorizedOrFail }
