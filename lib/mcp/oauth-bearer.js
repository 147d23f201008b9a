'use strict'
// `transport.auth` on the native connects: the host's OAuth client (`createMcpClientAuth`
// over its options) as the engine's bearer source. The engine asks (`authorize`) for the
// stored token, and again with the server's challenge when the server refuses it; it decides
// when to ask, sends the token only to the server and bounds the retries. This file only runs
// the flow and answers with the token.
const { createMcpClientAuth, ensureAuthorizedOrFail } = require('./oauth.js')

/** The engine's name for its token requests (and the capability that turns them on). */
const AUTHORIZE = 'authorize'

/**
 * The bearer source for `transport` (a Streamable HTTP transport with `auth`), or `undefined`
 * when it has none. `route(key, paramsJson, answer)` answers one request of the engine;
 * `failure()` is the last error the flow threw (the host's own OAuth error), which a failed
 * connect rethrows.
 */
function oauthBearer(transport) {
  if (transport?.type !== 'streamable-http' || transport.auth === undefined) return undefined
  const auth = createMcpClientAuth(transport.auth, {
    serverUrl: transport.url,
    allowLoopbackHttp: transport.allowLoopbackHttp === true,
  })
  let failure

  async function token(paramsJson) {
    const challenge = JSON.parse(paramsJson)
    if (challenge !== null) {
      await ensureAuthorizedOrFail(auth, {
        scope: challenge.scope ?? undefined,
        resourceMetadataUrl: challenge.resourceMetadataUrl ?? undefined,
      })
    }
    const tokens = await auth.getTokens()
    return typeof tokens?.access_token === 'string' ? tokens.access_token : null
  }

  return {
    route(key, paramsJson, answer) {
      Promise.resolve(paramsJson)
        .then(token)
        .then(
          (value) => answer(key, JSON.stringify({ token: value }), undefined, undefined),
          (err) => {
            failure = err
            answer(key, undefined, undefined, String(err?.message ?? err))
          },
        )
    },
    failure: () => failure,
  }
}

/**
 * The engine's requests to the host for a connect: token requests to `bearer`, the rest to
 * `onServerRequest` (the capability client's router, if any). `bind(nativeBridge)` gives the
 * bridge to answer through (held weakly, so that a bridge its host dropped can be collected).
 */
function routeHostRequests(bearer, onServerRequest) {
  if (bearer === undefined) return { route: onServerRequest, bind: () => {} }
  let ref
  const answer = (key, text, fault, error) => ref?.deref()?.answerServerRequest(key, text, fault, error)
  const route = (request) => {
    const [key, kind, paramsJson] = request
    if (kind === AUTHORIZE) bearer.route(key, paramsJson, answer)
    else onServerRequest?.(request)
  }
  return { route, bind: (nativeBridge) => (ref = new WeakRef(nativeBridge)) }
}

module.exports = { AUTHORIZE, oauthBearer, routeHostRequests }
