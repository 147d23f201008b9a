'use strict'
// The engine's own requests to the host during a connect or a transport's life, beside the
// server's requests: the access token (`authorize`, transport.auth) and the server's addresses
// (`resolveHostname`, transport.resolveHostname). The engine decides when to ask and checks
// every answer; this file calls the host's function with an AbortSignal (aborted when the engine
// stops waiting) and hands its answer back as JSON text.
const { toJsonText } = require('./json-text.js')

/**
 * Routes `[key, kind, paramsJson]` requests: a kind in `handlers` is answered by
 * `handlers[kind](paramsJson, signal)`, any other goes to `onServerRequest` (the capability
 * client's router, if any). `bind(target, method)` gives what to answer through
 * (`target[method](key, json, fault, error)`, held weakly so that a bridge its host dropped can be
 * collected).
 */
function routeHostRequests(handlers, onServerRequest) {
  let answerVia
  const answer = (key, text, fault, error) => answerVia?.(key, text, fault, error)
  const aborts = new Map()
  const route = (request) => {
    const [key, kind, paramsJson] = request
    if (kind === 'abort' && aborts.has(key)) {
      aborts.get(key).abort()
      aborts.delete(key)
      return
    }
    const handler = handlers[kind]
    if (handler === undefined) {
      onServerRequest?.(request)
      return
    }
    const controller = new AbortController()
    aborts.set(key, controller)
    Promise.resolve()
      .then(() => handler(paramsJson, controller.signal))
      .then(
        (value) => {
          const [text, fault] = toJsonText(value)
          answer(key, text ?? undefined, fault ?? undefined, undefined)
        },
        (err) => answer(key, undefined, undefined, String(err?.message ?? err)),
      )
      .finally(() => aborts.delete(key))
  }
  const bind = (target, method) => {
    const ref = new WeakRef(target)
    answerVia = (...args) => ref.deref()?.[method](...args)
  }
  return { route, bind }
}

/** The handler of `resolveHostname` requests: the host's resolver, its answer as it gave it. */
function hostnameResolver(transport) {
  if (transport?.type !== 'streamable-http' || typeof transport.resolveHostname !== 'function') return undefined
  return (paramsJson, signal) => transport.resolveHostname(JSON.parse(paramsJson), signal)
}

module.exports = { routeHostRequests, hostnameResolver }
