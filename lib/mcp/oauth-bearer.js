'use strict'
// `transport.auth` on the native connects: the host's OAuth client (`createMcpClientAuth`
// over its options) as the engine's bearer source. The engine asks (`authorize`) for the
// stored token, and again with the server's challenge when the server refuses it; it decides
// when to ask, sends the token only to the server and bounds the retries. This file only runs
// the flow and answers with the token.
const { createMcpClientAuth, ensureAuthorizedOrFail } = require('./oauth.js')

/**
 * The bearer source for `transport` (a Streamable HTTP transport with `auth`), or `undefined`
 * when it has none. `authorize(paramsJson)` answers one request of the engine with
 * `{ token }`; `failure()` is the last error the flow threw (the host's own OAuth error), which a
 * failed connect rethrows.
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
    return { token: typeof tokens?.access_token === 'string' ? tokens.access_token : null }
  }

  return {
    async authorize(paramsJson) {
      try {
        return await token(paramsJson)
      } catch (err) {
        failure = err
        throw err
      }
    },
    failure: () => failure,
  }
}

module.exports = { oauthBearer }
