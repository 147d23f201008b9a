'use strict'
// attachMcpToolBridge / listAllMcpTools over a client the host already holds (the JS SDK's
// `Client`, for example connected with the host's own OAuth). The client does the I/O through
// its raw `request()`; every page and every call result crosses to the engine once, as JSON
// text, where the same rules as connectMcpTools apply (limits, pagination guards, bounds,
// result mapping, error messages). JS keeps what must be JS: the client's promises, the
// AbortSignal and the call timer, and the conversion of the client's values to JSON text.
const native = require('../native.js')
const { say } = require('../engine-words.js')
const { McpBridgeError, McpBridgeClosedError } = require('./errors.js')
const { fromNative } = require('../native-errors.js')
const { assertValidServerId, defaultMcpNamePrefix, formatMcpToolName, boundedMcpErrorMessage } = require('./helpers.js')
const { bridgeLimitInput } = require('./limits.js')
const { effectFor, assertEffectPolicy, mapMcpToolsToDefinitions } = require('./definitions.js')
const { createCatalogue, autoRefreshDebounce } = require('./lifecycle.js')
const { toJsonText } = require('./json-text.js')
const { assertAppsNegotiated, createApps } = require('./apps.js')

// Stand-ins for the SDK's result and notification schemas (it reads `safeParse`, and a
// notification schema's `shape.method` literal): the raw result passes through unparsed, so
// nothing of it is interpreted before the engine has bounded it.
const passThrough = (data) => ({ success: true, data })
const RAW_RESULT = Object.freeze({ safeParse: passThrough })
const TOOL_LIST_CHANGED = Object.freeze({
  shape: Object.freeze({ method: Object.freeze({ _def: Object.freeze({ value: 'notifications/tools/list_changed' }) }) }),
  safeParse: passThrough,
})

function assertClient(client) {
  if (client === null || typeof client !== 'object' || typeof client.request !== 'function') {
    throw new McpBridgeError(say('mcpHostClient'))
  }
}

function engineFor(serverId, options) {
  try {
    return new native.NativeMcpHostClient(serverId, bridgeLimitInput(options))
  } catch (err) {
    throw fromNative(err)
  }
}

/** Settles with the signal's reason once it aborts (never, without a signal). */
function abortOf(signal) {
  if (!signal) return { promise: new Promise(() => {}), dispose() {} }
  let onAbort
  const promise = new Promise((_, reject) => {
    onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
  })
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) }
}

async function listThrough(client, engine, signal) {
  const listing = engine.beginListing()
  const timeout = engine.callTimeoutMs
  let cursor
  do {
    signal?.throwIfAborted()
    const aborted = abortOf(signal)
    let page
    try {
      const request = client.request({ method: 'tools/list', params: cursor === undefined ? undefined : { cursor } }, RAW_RESULT, {
        signal,
        timeout,
        maxTotalTimeout: timeout,
      })
      page = await Promise.race([request, aborted.promise])
    } finally {
      aborted.dispose()
    }
    const [text, fault] = toJsonText(page)
    try {
      cursor = listing.addPage(text, fault) ?? undefined
    } catch (err) {
      throw fromNative(err)
    }
  } while (cursor !== undefined)
  return JSON.parse(listing.finish())
}

/**
 * One raw request through the host's client (its result unparsed, for the engine to judge),
 * within the bridge's `callTimeoutMs`.
 */
function rawRequest(client, engine, method, params, signal) {
  const timeout = engine.callTimeoutMs
  return client.request({ method, params }, RAW_RESULT, { signal, timeout, maxTotalTimeout: timeout })
}

/**
 * Every tool of the server behind `client`, page by page through raw `tools/list` requests,
 * within the limits of `input` (the bridge's limit options). Rejects with `McpBridgeError`
 * for an invalid limit or a page that breaks a bound, or with `signal.reason`.
 */
async function listAllMcpTools(client, signal, input = {}) {
  const engine = engineFor('', input ?? {})
  assertClient(client)
  return listThrough(client, engine, signal)
}

/** How long after a call's own clock ran out the host client's timer may fire. */
const CLIENT_BACKSTOP_MS = 1000

/** Calls `remoteName` through the host's client; always resolves with a ToolResult. */
async function callThrough(client, engine, remoteName, name, args, context) {
  const toolCallId = context?.toolCallId ?? ''
  const failure = (kind, message) => JSON.parse(engine.callFailure(toolCallId, name, remoteName, kind, message))
  const signal = context?.signal
  if (signal?.aborted) return failure('aborted')
  const timeout = engine.callTimeoutMs
  const total = engine.maxTotalTimeoutMs
  const controller = new AbortController()
  let stopped
  let stop
  const stopping = new Promise((resolve) => {
    stop = (kind, reason) => {
      if (stopped !== undefined) return
      stopped = kind
      controller.abort(reason)
      resolve()
    }
  })
  // The call's clock: `timeout` from its start or its last progress, `total` from its start
  // at the latest (the engine's rule for native sessions, kept here for the host's client).
  const started = Date.now()
  let timer
  const arm = () => {
    clearTimeout(timer)
    const left = total - (Date.now() - started)
    timer = left <= timeout ? setTimeout(() => stop('totalTimeout'), Math.max(left, 0)) : setTimeout(() => stop('timeout'), timeout)
  }
  arm()
  const onAbort = () => stop('aborted', signal.reason)
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    const request = Promise.resolve().then(() =>
      client.request({ method: 'tools/call', params: { name: remoteName, arguments: args ?? {} } }, RAW_RESULT, {
        signal: controller.signal,
        // This function's own clock decides; the client's timer is only a backstop, a second
        // after the longest time the call may take (so it never fires first).
        timeout: total + CLIENT_BACKSTOP_MS,
        maxTotalTimeout: total + CLIENT_BACKSTOP_MS,
        // A handler makes the client send a progress token; progress restarts the clock.
        onprogress: () => {
          if (stopped === undefined) arm()
        },
      }),
    )
    // race() also handles a rejection of the request that arrives after the timer or abort won
    const raw = await Promise.race([request, stopping])
    if (stopped !== undefined) return failure(stopped)
    const [text, fault] = toJsonText(raw)
    return JSON.parse(engine.callResult(toolCallId, name, remoteName, text, fault))
  } catch (err) {
    if (stopped !== undefined) return failure(stopped)
    return failure('thrown', boundedMcpErrorMessage(err, engine.errorMessageCap))
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

/**
 * The tools of the server behind the host's connected `client` as ToolDefinitions:
 * `{ tools, refresh(), close(), serverPid }`, with the options of connectMcpTools (but no
 * transport). `close()` also closes `client` and `transport` (best effort).
 */
async function attachMcpToolBridge(client, transport, options) {
  if (options === null || typeof options !== 'object') throw new McpBridgeError(say('mcpOptions'))
  assertValidServerId(options.serverId)
  const serverId = options.serverId
  const engine = engineFor(serverId, options)
  // With MCP Apps (only `mcpApps: true`, as the reference reads it) the server must have
  // acknowledged the extension, before anything else.
  const withApps = options.mcpApps === true
  if (withApps) assertAppsNegotiated(engine, client)
  assertClient(client)
  const prefix = options.namePrefix ?? defaultMcpNamePrefix(serverId)
  const effectPolicy = options.effect
  assertEffectPolicy(effectPolicy)

  const apps = withApps
    ? createApps({
        serverId,
        engine,
        prefix,
        isClosed: () => catalogue.isClosed(),
        request: (method, params) => rawRequest(client, engine, method, params),
        callTool: (remoteName, name, args, context) => callThrough(client, engine, remoteName, name, args, context),
      })
    : undefined

  const catalogue = createCatalogue({
    listDefinitions: async (signal) => {
      const listed = await listThrough(client, engine, signal)
      return mapMcpToolsToDefinitions(apps ? apps.accept(listed) : listed, {
        namePrefix: prefix,
        serverId,
        isClosed: () => catalogue.isClosed(),
        callRemoteTool: (remoteName, args, context) => {
          if (catalogue.isClosed()) throw new McpBridgeClosedError()
          return callThrough(client, engine, remoteName, formatMcpToolName(prefix, remoteName), args, context)
        },
        effectForRemoteTool: (remote) => effectFor(effectPolicy, serverId, remote.name),
      })
    },
    ttlMs: engine.listCacheTtlMs,
    debounceMs: autoRefreshDebounce(options.autoRefresh),
    shutdown: async () => {
      try {
        await client.close?.()
      } catch {
        // best effort, as the reference
      }
      await transport?.close?.()
    },
  })
  if (typeof client.setNotificationHandler === 'function') {
    client.setNotificationHandler(TOOL_LIST_CHANGED, () => catalogue.listChanged())
  }
  await catalogue.refresh(options.signal)

  return {
    get tools() {
      return catalogue.current()
    },
    refresh: () => catalogue.refresh(),
    close: catalogue.close,
    /** Always 0: the host's client owns any server process. */
    serverPid: 0,
    ...(apps ? { apps: apps.facade } : {}),
  }
}

module.exports = { attachMcpToolBridge, listAllMcpTools, mapMcpToolsToDefinitions, rawRequest, RAW_RESULT }
