'use strict'
// attachMcpToolBridge / listAllMcpTools over a client the host already holds (the JS SDK's
// `Client`, for example connected with the host's own OAuth). The client does the I/O through
// its raw `request()`; every page and every call result crosses to the engine once, as JSON
// text, where the same rules as connectMcpTools apply (limits, pagination guards, bounds,
// result mapping, error messages). JS keeps what must be JS: the client's promises, the
// AbortSignal and the call timer, and the conversion of the client's values to JSON text.
const native = require('../native.js')
const { say } = require('../engine-words.js')
const { McpBridgeError, McpBridgeClosedError, McpUnsupportedCapabilityError } = require('./errors.js')
const { fromNative } = require('../native-errors.js')
const { assertValidServerId, defaultMcpNamePrefix, formatMcpToolName, boundedMcpErrorMessage } = require('./helpers.js')
const { bridgeLimitInput } = require('./limits.js')
const { effectFor, assertEffectPolicy, mapMcpToolsToDefinitions } = require('./definitions.js')
const { createCatalogue, autoRefreshDebounce } = require('./lifecycle.js')

// Stand-ins for the SDK's result and notification schemas (it reads `safeParse`, and a
// notification schema's `shape.method` literal): the raw result passes through unparsed, so
// nothing of it is interpreted before the engine has bounded it.
const passThrough = (data) => ({ success: true, data })
const RAW_RESULT = Object.freeze({ safeParse: passThrough })
const TOOL_LIST_CHANGED = Object.freeze({
  shape: Object.freeze({ method: Object.freeze({ _def: Object.freeze({ value: 'notifications/tools/list_changed' }) }) }),
  safeParse: passThrough,
})

class NotJson {
  constructor(fault) {
    this.fault = fault
  }
}

// JSON.stringify replacer: refuses what JSON cannot hold instead of silently dropping or
// nulling it. `this[key]` is the value before any toJSON(). A property set to `undefined` is
// an absent property (SDK objects that never crossed a wire carry such keys).
function refuseNonJson(key, value) {
  const raw = this[key]
  switch (typeof raw) {
    case 'undefined':
      if (Array.isArray(this)) throw new NotJson('not_json')
      return undefined
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (Number.isFinite(raw)) return value
      throw new NotJson('non_finite')
    case 'object': {
      if (raw === null || Array.isArray(raw)) return value
      const proto = Object.getPrototypeOf(raw)
      if (proto === Object.prototype || proto === null) return value
      throw new NotJson('non_plain')
    }
    default:
      throw new NotJson('not_json')
  }
}

/** `[jsonText, null]`, or `[null, fault]` naming why the value has no JSON text. */
function toJsonText(value) {
  try {
    const text = JSON.stringify(value, refuseNonJson)
    return text === undefined ? [null, 'not_json'] : [text, null]
  } catch (err) {
    if (err instanceof NotJson) return [null, err.fault]
    if (err instanceof RangeError) return [null, 'too_deep']
    if (err instanceof TypeError && reachesItself(value)) return [null, 'cycle']
    return [null, 'not_json']
  }
}

/**
 * Whether `value` contains itself: what `JSON.stringify` refuses with a TypeError worded by
 * each engine its own way (V8 "circular structure", JavaScriptCore "cyclic structures"), so
 * the structure is looked at, not the message. Every object is explored once.
 */
function reachesItself(value) {
  const open = new Set()
  const done = new Set()
  const visit = (v) => {
    if (v === null || typeof v !== 'object' || done.has(v)) return false
    if (open.has(v)) return true
    open.add(v)
    for (const child of Object.values(v)) if (visit(child)) return true
    open.delete(v)
    done.add(v)
    return false
  }
  try {
    return visit(value)
  } catch {
    return false
  }
}

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
  // MCP Apps are out of scope: refused as connectMcpTools refuses them, before anything else.
  if (options.mcpApps) throw new McpUnsupportedCapabilityError(say('mcpAppsNotNegotiated'))
  assertClient(client)
  const prefix = options.namePrefix ?? defaultMcpNamePrefix(serverId)
  const effectPolicy = options.effect
  assertEffectPolicy(effectPolicy)

  const catalogue = createCatalogue({
    listDefinitions: async (signal) =>
      mapMcpToolsToDefinitions(await listThrough(client, engine, signal), {
        namePrefix: prefix,
        serverId,
        isClosed: () => catalogue.isClosed(),
        callRemoteTool: (remoteName, args, context) => {
          if (catalogue.isClosed()) throw new McpBridgeClosedError()
          return callThrough(client, engine, remoteName, formatMcpToolName(prefix, remoteName), args, context)
        },
        effectForRemoteTool: (remote) => effectFor(effectPolicy, serverId, remote.name),
      }),
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
  }
}

module.exports = { attachMcpToolBridge, listAllMcpTools, mapMcpToolsToDefinitions }
