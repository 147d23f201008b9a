'use strict'
// The OAuth side of a JS SDK transport (`createMcpOAuthTransport`): the host's access token on
// every request, and on the server's refusal (401, 403 insufficient_scope) the flow run again
// and the request sent again, as the engine's step-up rules say (`NativeMcpChallengeMemory`,
// the same rules as the native bridge's). The requests themselves go through the engine's fetch.
const native = require('../native.js')
const { fromNative } = require('../native-errors.js')
const { ensureAuthorizedOrFail } = require('./oauth.js')

/** A token as the engine's step reads it (`null`: none). */
const tokenOrNull = (token) => (typeof token === 'string' ? token : null)

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
      // Another request of the transport (the SDK's GET stream, a concurrent POST) may have
      // authorized since this one was sent: the engine then says to resend with its token.
      const current = (await auth.getTokens())?.access_token
      const step = JSON.parse(memory.step(response.status, response.headers.get('www-authenticate') ?? undefined, tokenOrNull(token), tokenOrNull(current)))
      if (step.step === 'pass') return response
      await response.body?.cancel()
      if (step.step === 'refused') throw fromNative(Object.assign(new Error(step.message), { code: step.code }))
      if (step.step === 'resend') continue
      await ensureAuthorizedOrFail(auth, { scope: step.scope ?? undefined, resourceMetadataUrl: step.resourceMetadataUrl ?? undefined })
    }
  }
}

module.exports = { withOAuthBearer }
