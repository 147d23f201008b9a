'use strict'
// The `fetch` handed to a JS SDK Streamable HTTP transport (`createMcpTransport`): every
// request goes to the engine (`NativeMcpFetch`), which checks its URL and headers, sends it over
// a client pinned to checked addresses, follows no redirect and bounds the body. This file only
// turns WHATWG fetch arguments into the engine's and its answer into a `Response`.
const native = require('../native.js')
const { fromNative } = require('../native-errors.js')
const { hostnameResolver, routeHostRequests } = require('./host-requests.js')

/** Statuses whose `Response` must have no body. */
const NULL_BODY = new Set([204, 205, 304])

async function bodyBytes(body) {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string') return Buffer.from(body)
  return Buffer.from(await new Response(body).arrayBuffer())
}

/**
 * A fetch over the engine for `flat` (the transport flattened as `connectMcpTools` reads it);
 * `transport.resolveHostname`, if the host gave one, resolves the endpoint's host name.
 * Throws the coded error for a transport the engine refuses.
 */
function createNativeMcpFetch(flat, transport) {
  const resolver = hostnameResolver(transport)
  const hostRequests = routeHostRequests(resolver ? { resolveHostname: resolver } : {})
  let engine
  try {
    engine = new native.NativeMcpFetch(flat, resolver ? hostRequests.route : undefined)
  } catch (err) {
    throw fromNative(err)
  }
  hostRequests.bind(engine, 'answerHostRequest')
  let nextKey = 1
  return async function nativeMcpFetch(input, init = {}) {
    const url = input instanceof URL ? input.href : typeof input === 'string' ? input : input.url
    const signal = init.signal
    signal?.throwIfAborted()
    const key = nextKey
    nextKey = nextKey >= 0xffffffff ? 1 : nextKey + 1
    const onAbort = () => engine.cancel(key)
    signal?.addEventListener('abort', onAbort, { once: true })
    let head
    try {
      const headers = [...new Headers(init.headers).entries()]
      head = JSON.parse(await engine.send(key, init.method ?? 'GET', url, headers, await bodyBytes(init.body)))
    } catch (err) {
      signal?.removeEventListener('abort', onAbort)
      if (signal?.aborted) throw signal.reason
      throw fromNative(err)
    }
    const end = () => {
      signal?.removeEventListener('abort', onAbort)
      engine.cancel(key)
    }
    if (NULL_BODY.has(head.status)) {
      end()
      return new Response(null, { status: head.status, headers: head.headers })
    }
    const body = new ReadableStream({
      async pull(controller) {
        let chunk
        try {
          chunk = await engine.read(key)
        } catch (err) {
          end()
          controller.error(signal?.aborted ? signal.reason : fromNative(err))
          return
        }
        if (chunk === null) {
          end()
          controller.close()
        } else {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength))
        }
      },
      cancel: end,
    })
    return new Response(body, { status: head.status, headers: head.headers })
  }
}

module.exports = { createNativeMcpFetch }
