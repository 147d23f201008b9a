'use strict'
// connectMcpTools: one native MCP session (rmcp) whose tools become ordinary ToolDefinitions.
// JS keeps what must be JS: the AbortSignal, the effect policy callback, the `tools` array
// identity (a failed refresh keeps the previous array object) and the debounce timer.
const native = require('../native.js')
const {
  McpBridgeError,
  McpToolNameCollisionError,
  McpBridgeClosedError,
  McpUnsupportedCapabilityError,
  fromNative,
} = require('./errors.js')
const { assertValidServerId, defaultMcpNamePrefix, formatMcpToolName, boundedMcpErrorMessage, mcpCallError } = require('./helpers.js')
const { MCP_LIMITS, DEFAULT_AUTO_REFRESH_DEBOUNCE_MS } = require('./limits.js')

const LIMIT_OPTIONS = Object.keys(MCP_LIMITS).filter((name) => name !== 'maxResponseBytes')
const EFFECT_KINDS = new Set(['none', 'local_mutation', 'external_mutation'])
const EFFECT_IDEMPOTENCY = new Set(['none', 'optional', 'required', 'tool_managed', 'unsupported'])
const DEFAULT_EFFECT = Object.freeze({ kind: 'external_mutation', idempotency: 'unsupported' })
const ERROR_SUMMARY_BYTES = 8192

// Host exit: SIGKILL the process group of every stdio server still running.
let exitHookInstalled = false
function installExitHook() {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => native.mcpKillAllServers())
}

/** A limit value as the engine checks it: numbers as they are, anything else invalid. */
function limitValue(value) {
  if (value === undefined) return undefined
  return typeof value === 'number' ? value : Number.NaN
}

function headerPairs(requestInit) {
  if (!requestInit || requestInit.headers === undefined) return undefined
  return [...new Headers(requestInit.headers).entries()]
}

function nativeOptions(options) {
  const t = options.transport
  if (t === null || typeof t !== 'object') throw new McpBridgeError('transport must be an object')
  const out = { serverId: options.serverId, transportType: String(t.type) }
  for (const name of LIMIT_OPTIONS) out[name] = limitValue(options[name])
  if (t.type === 'stdio') {
    Object.assign(out, { command: t.command, args: t.args ? [...t.args] : undefined, env: t.env ? { ...t.env } : undefined, cwd: t.cwd, stderr: t.stderr })
  } else if (t.type === 'streamable-http') {
    if (t.auth !== undefined) throw new McpUnsupportedCapabilityError('MCP OAuth (transport.auth) is not supported by prism-native')
    if (t.sessionId !== undefined) throw new McpUnsupportedCapabilityError('resuming an MCP session (transport.sessionId) is not supported by prism-native')
    if (t.resolveHostname !== undefined) {
      throw new McpUnsupportedCapabilityError('transport.resolveHostname is not supported by prism-native (it resolves and pins DNS itself)')
    }
    Object.assign(out, {
      url: t.url,
      allowedOrigins: Array.isArray(t.allowedOrigins) ? [...t.allowedOrigins] : [],
      allowLoopbackHttp: t.allowLoopbackHttp === true,
      maxResponseBytes: limitValue(t.maxResponseBytes),
      headers: headerPairs(t.requestInit),
    })
  }
  return out
}

function effectFor(policy, serverId, remoteName) {
  if (policy === undefined) return DEFAULT_EFFECT
  const declared = policy({ serverId, remoteName })
  if (declared === undefined) return DEFAULT_EFFECT
  if (declared === null || typeof declared !== 'object' || !EFFECT_KINDS.has(declared.kind) || !EFFECT_IDEMPOTENCY.has(declared.idempotency)) {
    throw new McpBridgeError(`MCP tool ${remoteName} has an invalid effect declaration`)
  }
  return declared
}

function autoRefreshDebounce(option) {
  if (option === undefined || option === false) return undefined
  if (option === true) return DEFAULT_AUTO_REFRESH_DEBOUNCE_MS
  const ms = option?.debounceMs ?? DEFAULT_AUTO_REFRESH_DEBOUNCE_MS
  if (!Number.isSafeInteger(ms) || ms < 0) throw new McpBridgeError('autoRefresh.debounceMs must be a non-negative safe integer')
  return ms
}

/**
 * Connects an MCP server and returns its tools as ToolDefinitions:
 * `{ tools, refresh(), close() }`.
 */
async function connectMcpTools(options) {
  if (options === null || typeof options !== 'object') throw new McpBridgeError('options must be an object')
  assertValidServerId(options.serverId)
  options.signal?.throwIfAborted()
  if (options.mcpApps) throw new McpUnsupportedCapabilityError('MCP Apps extension was not negotiated')
  const serverId = options.serverId
  const prefix = options.namePrefix ?? defaultMcpNamePrefix(serverId)
  const debounceMs = autoRefreshDebounce(options.autoRefresh)
  const effectPolicy = options.effect
  if (effectPolicy !== undefined && typeof effectPolicy !== 'function') throw new McpBridgeError('effect must be a function')

  let closed = false
  let tools = Object.freeze([])
  let listFetchedAt = 0
  // Bumped by every list_changed: a listing that overlapped one does not count as fresh.
  let listGeneration = 0
  let refreshing = null
  let debounceTimer
  let closing
  let nextCallKey = 1
  const ttlMs = options.listCacheTtlMs ?? MCP_LIMITS.listCacheTtlMs.default
  const maxResultBytes = options.maxResultBytes ?? MCP_LIMITS.maxResultBytes.default
  const errorCap = Math.min(ERROR_SUMMARY_BYTES, maxResultBytes)

  const onListChanged = () => {
    listFetchedAt = 0
    listGeneration++
    if (closed || debounceMs === undefined) return
    clearTimeout(debounceTimer)
    debounceTimer = setTimeout(() => refresh().catch(() => {}), debounceMs)
    debounceTimer.unref?.()
  }

  let nativeBridge
  try {
    nativeBridge = new native.NativeMcpBridge(nativeOptions(options), onListChanged)
  } catch (err) {
    throw fromNative(err)
  }
  installExitHook()

  function failedResult(toolCallId, name, remoteName, message) {
    return { toolCallId, name, error: mcpCallError(message), metadata: { mcp: { serverId, remoteName } } }
  }

  async function callRemoteTool(remoteName, name, args, context) {
    if (closed) throw new McpBridgeClosedError()
    const toolCallId = context?.toolCallId ?? ''
    const signal = context?.signal
    if (signal?.aborted) return failedResult(toolCallId, name, remoteName, 'MCP tool call was aborted')
    const key = nextCallKey
    nextCallKey = nextCallKey >= 0xffffffff ? 1 : nextCallKey + 1
    const onAbort = () => nativeBridge.cancelCall(key)
    try {
      const pending = nativeBridge.callTool(key, remoteName, JSON.stringify(args ?? {}), toolCallId, name)
      signal?.addEventListener('abort', onAbort, { once: true })
      return JSON.parse(await pending)
    } catch (err) {
      const e = fromNative(err)
      if (e instanceof McpBridgeClosedError) throw e
      return failedResult(toolCallId, name, remoteName, boundedMcpErrorMessage(e, errorCap))
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
  }

  function buildDefinitions(listed) {
    const seen = new Set()
    const defs = []
    for (const remote of listed) {
      const name = formatMcpToolName(prefix, remote.name)
      if (seen.has(name)) throw new McpToolNameCollisionError(name, remote.name)
      seen.add(name)
      const remoteName = remote.name
      const def = {
        name,
        description: remote.description,
        parameters: remote.inputSchema,
        effect: effectFor(effectPolicy, serverId, remoteName),
        execute: (args, context) => callRemoteTool(remoteName, name, args, context),
      }
      defs.push(def)
    }
    return Object.freeze(defs)
  }

  async function listOnce() {
    const generation = listGeneration
    let listed
    try {
      listed = JSON.parse(await nativeBridge.listTools())
    } catch (err) {
      throw fromNative(err)
    }
    const defs = buildDefinitions(listed)
    if (closed) throw new McpBridgeClosedError()
    tools = defs
    listFetchedAt = generation === listGeneration ? Date.now() : 0
  }

  function refresh() {
    if (closed) return Promise.reject(new McpBridgeClosedError())
    if (refreshing === null) {
      refreshing = listOnce().finally(() => {
        refreshing = null
      })
    }
    return refreshing
  }

  function close() {
    if (closing === undefined) {
      closed = true
      clearTimeout(debounceTimer)
      tools = Object.freeze([])
      closing = nativeBridge.close().catch(() => {})
    }
    return closing
  }

  const signal = options.signal
  const onConnectAbort = () => {
    close()
  }
  signal?.addEventListener('abort', onConnectAbort, { once: true })
  try {
    await nativeBridge.connect()
    await refresh()
  } catch (err) {
    await close()
    if (signal?.aborted) throw signal.reason
    throw fromNative(err)
  } finally {
    signal?.removeEventListener('abort', onConnectAbort)
  }

  return {
    get tools() {
      if (closed) throw new McpBridgeClosedError()
      // The catalogue is reused for at most listCacheTtlMs (list_changed ends it at once);
      // past that, a background refresh replaces it (a failure keeps the current one).
      if (Date.now() - listFetchedAt > ttlMs && refreshing === null) refresh().catch(() => {})
      return tools
    },
    refresh,
    close,
    /** The stdio server's process id (its process group id); 0 for HTTP. */
    get serverPid() {
      return nativeBridge.serverPid
    },
  }
}

function outOfScope(name) {
  return () => {
    throw new McpUnsupportedCapabilityError(
      `${name} takes a JS SDK client; prism-native speaks MCP natively (use connectMcpTools)`,
    )
  }
}

module.exports = {
  connectMcpTools,
  attachMcpToolBridge: outOfScope('attachMcpToolBridge'),
  listAllMcpTools: outOfScope('listAllMcpTools'),
}
