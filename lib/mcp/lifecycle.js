'use strict'
// One bridge's catalogue over time: the current `tools` array (replaced only by a listing that
// succeeded, so a failed refresh keeps the previous array object), coalesced refreshes, reuse
// for at most listCacheTtlMs, list_changed invalidation with an optional debounced refresh,
// and an idempotent close.
const { McpBridgeError, McpBridgeClosedError } = require('./errors.js')
const { DEFAULT_AUTO_REFRESH_DEBOUNCE_MS } = require('./limits.js')
const { say } = require('../engine-words.js')

/** The debounce of the `autoRefresh` option in ms, or undefined when it is off. */
function autoRefreshDebounce(option) {
  if (option === undefined || option === false) return undefined
  if (option === true) return DEFAULT_AUTO_REFRESH_DEBOUNCE_MS
  const ms = option?.debounceMs ?? DEFAULT_AUTO_REFRESH_DEBOUNCE_MS
  if (!Number.isSafeInteger(ms) || ms < 0) throw new McpBridgeError(say('mcpDebounce'))
  return ms
}

/** A rejection handler that drops the reason (the caller of refresh() holds it). */
function ignore() {}

/**
 * `listDefinitions(signal)` lists and maps the tools (throwing leaves the catalogue as it
 * was); `shutdown()` is awaited once by `close()`, and its failure is ignored.
 */
function createCatalogue({ listDefinitions, ttlMs, debounceMs, shutdown }) {
  let closed = false
  let tools = Object.freeze([])
  let fetchedAt = 0
  // Bumped by every list_changed: a listing that overlapped one does not count as fresh.
  let generation = 0
  // The listing whose request is out; the same listing while the synchronous turn that started
  // it lasts (nothing a caller learnt after that turn can predate it); and the listing queued to
  // start when the running one ends. A refresh() never joins a listing from an earlier turn.
  let running = null
  let joinable = null
  let queued = null
  let debounceTimer
  let closing

  async function listOnce(signal) {
    const started = generation
    const defs = Object.freeze(await listDefinitions(signal))
    if (closed) throw new McpBridgeClosedError()
    tools = defs
    fetchedAt = started === generation ? Date.now() : 0
  }

  /**
   * Forced: resolves once a listing that started after this call (or in the same synchronous
   * turn) has replaced the tools. A listing from an earlier turn may have begun before the
   * change this call is for, so it is not joined: the next one starts when it ends, and every
   * call made meanwhile shares that one.
   */
  function refresh(signal) {
    if (closed) return Promise.reject(new McpBridgeClosedError())
    if (joinable !== null) return joinable
    if (queued !== null) return queued
    if (running === null) return start(signal)
    queued = running.then(ignore, ignore).then(() => {
      queued = null
      return start(signal)
    })
    return queued
  }

  function start(signal) {
    if (closed) return Promise.reject(new McpBridgeClosedError())
    const listing = listOnce(signal).finally(() => {
      if (running === listing) running = null
    })
    running = listing
    joinable = listing
    queueMicrotask(() => {
      if (joinable === listing) joinable = null
    })
    return listing
  }

  function listChanged() {
    fetchedAt = 0
    generation++
    if (closed || debounceMs === undefined) return
    clearTimeout(debounceTimer)
    debounceTimer = setTimeout(() => refresh().catch(ignore), debounceMs)
    debounceTimer.unref?.()
  }

  /** The current tools; past the TTL (or after list_changed) a background refresh starts. */
  function current() {
    if (closed) throw new McpBridgeClosedError()
    if (Date.now() - fetchedAt > ttlMs && running === null && queued === null) refresh().catch(ignore)
    return tools
  }

  function close() {
    if (closing === undefined) {
      closed = true
      clearTimeout(debounceTimer)
      tools = Object.freeze([])
      closing = Promise.resolve()
        .then(shutdown)
        .catch(() => {})
    }
    return closing
  }

  return { current, refresh, listChanged, close, isClosed: () => closed }
}

module.exports = { createCatalogue, autoRefreshDebounce }
