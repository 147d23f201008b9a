'use strict'
// A native bridge's tool calls from JS: each call's key, the calls waiting for their results,
// and the one crossing that starts a batch of calls (`callTools`). The first call of a tick
// goes out at once (a lone call waits for nothing); the ones after it in the same tick are
// queued and start together when the tick ends (a microtask), so a turn of concurrent calls
// crosses twice and, over stdio, is written in two writes. A native dispatch
// (`core/native-dispatch.js`) starts its own batches, checked against a schema first.
const native = require('../native.js')
const { McpBridgeClosedError } = require('./errors.js')
const { fromNative } = require('../native-errors.js')
const { boundedMcpErrorMessage, mcpCallError } = require('./helpers.js')
const { CONSTANTS } = require('../engine-words.js')

const { mcpAbortedMessage: ABORTED_MESSAGE } = CONSTANTS
const STARTED = native.MCP_CALL_STARTED

// A call's result arrives through the bridge's one threadsafe function, which does not keep
// the event loop alive: this timer does, referenced only while some call of any bridge is
// pending (as a promise per call used to).
let callsPending = 0
let keepAlive
function callStarted() {
  if (callsPending++ === 0) {
    keepAlive ??= setInterval(() => {}, 0x7fffffff)
    keepAlive.ref()
  }
}
function callEnded() {
  if (--callsPending === 0) keepAlive.unref()
}

/** The results that finished together (`[keys, jsons]`: `jsons[i]` for call `keys[i]`) from
 * the native side to the calls waiting for them (the map holds only pending calls, whose
 * promises keep their bridge alive anyway). */
function resultRouter(waiting) {
  return ([keys, jsons]) => {
    for (let i = 0; i < keys.length; i++) {
      const settle = waiting.get(keys[i])
      if (settle !== undefined) {
        waiting.delete(keys[i])
        settle(jsons[i])
      }
    }
  }
}

/**
 * The call path of one bridge: `waiting` (the map its result router settles),
 * `bind(nativeBridge)` once the native bridge exists, `call(remoteName, name, args, context)`
 * (a tool's execute: a promise of its ToolResult; rejects with McpBridgeClosedError once the
 * bridge is closed) and `start(batch, validator, signal, checkOnly)` for a native dispatch.
 * `serverId`, `isClosed()` and `errorCap` (the bytes of a failure's message) are the bridge's.
 */
function createNativeCalls({ serverId, isClosed, errorCap }) {
  const waiting = new Map()
  let nativeBridge
  let nextCallKey = 1
  let queued = []
  // Whether a call started this tick: the first goes out at once (a lone call waits for
  // nothing), the ones after it are queued until the tick ends.
  let tickOpen = false

  function takeCallKey() {
    const key = nextCallKey
    nextCallKey = nextCallKey >= 0xffffffff ? 1 : nextCallKey + 1
    return key
  }

  function failedResult(toolCallId, name, remoteName, message) {
    return { toolCallId, name, error: mcpCallError(message), metadata: { mcp: { serverId, remoteName } } }
  }

  /**
   * Starts `batch` in one crossing; each is `{ remoteName, name, text, toolCallId, schemaId,
   * signal?, settle(result) }`, `text` its arguments as JSON text, checked in the engine
   * against `validator`'s prepared schema `schemaId` first (0: none). Returns each call's
   * verdict (`MCP_CALL_STARTED` or why not); throws what `callTools` throws (no call started).
   * A started call settles through `waiting`; its own `signal`, or the batch's, aborts it.
   * With `checkOnly` nothing starts: the verdicts say which calls pass their check.
   */
  function startBatch(batch, validator, signal, checkOnly) {
    const n = batch.length
    const keys = new Uint32Array(n)
    const texts = new Array(n * 4)
    const schemaIds = new Uint32Array(n)
    for (let i = 0; i < n; i++) {
      const c = batch[i]
      keys[i] = takeCallKey()
      texts[4 * i] = c.remoteName
      texts[4 * i + 1] = c.text
      texts[4 * i + 2] = c.toolCallId
      texts[4 * i + 3] = c.name
      schemaIds[i] = c.schemaId
    }
    const verdicts = nativeBridge.callTools(keys, texts, validator ?? null, schemaIds, checkOnly)
    if (checkOnly) return verdicts
    let pending = 0
    const onAbort = () => {
      for (let i = 0; i < n; i++) if (waiting.has(keys[i])) nativeBridge.cancelCall(keys[i])
    }
    for (let i = 0; i < n; i++) {
      if (verdicts[i] !== STARTED) continue
      const { settle, signal: own } = batch[i]
      const key = keys[i]
      const onOwnAbort = own === undefined ? undefined : () => nativeBridge.cancelCall(key)
      pending++
      callStarted()
      waiting.set(key, (json) => {
        callEnded()
        if (--pending === 0) signal?.removeEventListener('abort', onAbort)
        own?.removeEventListener('abort', onOwnAbort)
        settle(JSON.parse(json))
      })
      own?.addEventListener('abort', onOwnAbort, { once: true })
    }
    if (pending > 0) signal?.addEventListener('abort', onAbort, { once: true })
    return verdicts
  }

  /** A native dispatch's batch: `startBatch`, or `undefined` when the session refused it. */
  function start(batch, validator, signal, checkOnly = false) {
    try {
      return startBatch(batch, validator, signal, checkOnly)
    } catch {
      return undefined
    }
  }

  /** The calls queued this tick, started together. */
  function flush() {
    tickOpen = false
    const batch = []
    for (const c of queued) {
      if (c.signal?.aborted) c.settle(failedResult(c.toolCallId, c.name, c.remoteName, ABORTED_MESSAGE))
      else if (isClosed()) c.fail(new McpBridgeClosedError())
      else batch.push(c)
    }
    queued = []
    if (batch.length === 0) return
    // One call alone crosses as itself: no batch buffers to make.
    if (batch.length === 1) {
      const c = batch[0]
      callAlone(c.remoteName, c.name, c.text, c.toolCallId, c.signal).then(c.settle, c.fail)
      return
    }
    try {
      startBatch(batch, undefined, undefined, false)
    } catch (err) {
      const e = fromNative(err)
      for (const c of batch) {
        if (e instanceof McpBridgeClosedError) c.fail(e)
        else c.settle(failedResult(c.toolCallId, c.name, c.remoteName, boundedMcpErrorMessage(e, errorCap)))
      }
    }
  }

  /** One call through `callTool` alone: the only call of its tick, or one whose tool call id
   * or arguments text is not a string (the conversion's error is then its own, as a failed
   * result). */
  async function callAlone(remoteName, name, text, toolCallId, signal) {
    const key = takeCallKey()
    const onAbort = () => nativeBridge.cancelCall(key)
    try {
      nativeBridge.callTool(key, remoteName, text, toolCallId, name)
      const pending = new Promise((resolve) => waiting.set(key, resolve))
      callStarted()
      signal?.addEventListener('abort', onAbort, { once: true })
      let json
      try {
        json = await pending
      } finally {
        callEnded()
      }
      return JSON.parse(json)
    } catch (err) {
      const e = fromNative(err)
      if (e instanceof McpBridgeClosedError) throw e
      return failedResult(toolCallId, name, remoteName, boundedMcpErrorMessage(e, errorCap))
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
  }

  /** A tool's execute: its call, queued to start with the others of this tick. */
  async function call(remoteName, name, args, context) {
    if (isClosed()) throw new McpBridgeClosedError()
    const toolCallId = context?.toolCallId ?? ''
    const signal = context?.signal
    if (signal?.aborted) return failedResult(toolCallId, name, remoteName, ABORTED_MESSAGE)
    let text
    try {
      text = JSON.stringify(args ?? {})
    } catch (err) {
      return failedResult(toolCallId, name, remoteName, boundedMcpErrorMessage(fromNative(err), errorCap))
    }
    if (typeof toolCallId !== 'string' || typeof text !== 'string') return callAlone(remoteName, name, text, toolCallId, signal)
    if (!tickOpen) {
      tickOpen = true
      queueMicrotask(flush)
      return callAlone(remoteName, name, text, toolCallId, signal)
    }
    return new Promise((settle, fail) => {
      queued.push({ remoteName, name, text, toolCallId, schemaId: 0, signal, settle, fail })
    })
  }

  return {
    waiting,
    router: resultRouter(waiting),
    bind(bridge) {
      nativeBridge = bridge
    },
    call,
    start,
  }
}

module.exports = { createNativeCalls }
