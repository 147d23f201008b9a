'use strict'
// The OAuth side of a JS SDK transport (`createMcpOAuthTransport`): the host's access token on
// every request, and on the server's refusal (401, 403 insufficient_scope) the flow run again
// and the request sent again, as the engine's step-up rules say (`NativeMcpChallengeMemory`,
// the same rules as the native bridge's). The requests themselves go through the engine's fetch.
const native = require('../native.js')
const { fromNative } = require('../native-errors.js')
const { ensureAuthorizedOrFail } = require('./oauth.js')

/** `base` (the engine's fetch) with `auth`'s bearer, authorized again when refused. */
function withOAuthBearer(base, auth) {
  return async function oauthFetch(input, init = {}) {
    const memory = new native.NativeMcpChallengeMemory()
    for (;;) {
      const headers = new Headers(init.headers)
      const token = (await auth.getTokens())?.access_token
      if (typeof token === 'string') headers.set('authorization', `Bearer ${token}`)
      const response = await base(input, { ...init, headers })
      if (response.status !== 401 && response.status !== 403) return response
      const step = JSON.parse(memory.step(response.status, response.headers.get('www-authenticate') ?? undefined))
      if (step.step === 'pass') return response
      await response.body?.cancel()
      if (step.step === 'refused') throw fromNative(Object.assign(new Error(step.message), { code: step.code }))
      // Another request of the transport (the SDK's GET stream, a concurrent POST) may have
      // authorized since this one was sent: its token is tried without a second flow.
      if ((await auth.getTokens())?.access_token !== token) continue
      await ensureAuthorizedOrFail(auth, { scope: step.scope ?? undefined, resourceMetadataUrl: step.resourceMetadataUrl ?? undefined })
    }
  }
}

module.exports = { withOAuthBearer }
