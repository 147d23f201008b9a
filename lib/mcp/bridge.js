'use strict'
// connectMcpTools: one native MCP session (rmcp) whose tools become ordinary ToolDefinitions.
// JS keeps what must be JS: the AbortSignal, the effect policy callback, the `tools` array
// identity (a failed refresh keeps the previous array object) and the debounce timer.
const native = require('../native.js')
const { McpBridgeError, McpUnsupportedCapabilityError } = require('./errors.js')
const { fromNative } = require('../native-errors.js')
const { assertValidServerId, defaultMcpNamePrefix, formatMcpToolName } = require('./helpers.js')
const { MCP_LIMITS, bridgeLimitInput } = require('./limits.js')
const { limitInput } = require('../limits.js')
const { effectFor, assertEffectPolicy, mapMcpToolsToDefinitions } = require('./definitions.js')
const { createCatalogue, autoRefreshDebounce } = require('./lifecycle.js')
const { createNativeApps } = require('./native-apps.js')

const { CONSTANTS, say } = require('../engine-words.js')
const { oauthBearer } = require('./oauth-bearer.js')
const { engineTools } = require('../core/engine-owned.js')
const { createNativeCalls } = require('./native-calls.js')
const { hostnameResolver, routeHostRequests } = require('./host-requests.js')
const { mcpErrorSummaryBytes: ERROR_SUMMARY_BYTES } = CONSTANTS

// The native side holds its two callbacks (through threadsafe functions) until the native
// bridge is dropped: they are built outside connectMcpTools and reach the bridge's state only
// weakly or while a call is pending (`native-calls.js`'s result router holds only the map of
// pending calls), or a bridge the host dropped without close() could never be collected (and
// its server would run until the host exits).

/** `notifications/tools/list_changed` to the bridge's catalogue, if it is still reachable. */
function listChangedRouter(catalogue) {
  const ref = new WeakRef(catalogue)
  return () => ref.deref()?.listChanged()
}

// Host exit: SIGKILL the process group of every stdio server still running.
let exitHookInstalled = false
function installExitHook() {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => native.mcpKillAllServers())
}

function headerPairs(requestInit) {
  if (!requestInit || requestInit.headers === undefined) return undefined
  return [...new Headers(requestInit.headers).entries()]
}

function nativeOptions(options) {
  const t = options.transport
  if (t === null || typeof t !== 'object') throw new McpBridgeError(say('mcpTransport'))
  const out = { serverId: options.serverId, transportType: String(t.type), limits: bridgeLimitInput(options) }
  if (options.protocolVersion !== undefined) out.protocolVersion = String(options.protocolVersion)
  if (options.mcpApps === true) out.mcpApps = true
  if (t.type === 'streamable-http') limitInput('mcpHttp', t, out.limits)
  if (t.type === 'stdio') {
    Object.assign(out, { command: t.command, args: t.args ? [...t.args] : undefined, env: t.env ? { ...t.env } : undefined, cwd: t.cwd, stderr: t.stderr })
  } else if (t.type === 'streamable-http') {
    if (t.sessionId !== undefined) throw McpUnsupportedCapabilityError.fromMessage(say('mcpResumeUnsupported'))
    Object.assign(out, {
      url: t.url,
      allowedOrigins: Array.isArray(t.allowedOrigins) ? [...t.allowedOrigins] : [],
      allowLoopbackHttp: t.allowLoopbackHttp === true,
      headers: headerPairs(t.requestInit),
    })
  }
  return out
}

/**
 * Connects an MCP server and returns its tools as ToolDefinitions:
 * `{ tools, refresh(), close() }`.
 */
async function connectMcpTools(options) {
  return (await connectNativeBridge(options)).bridge
}

/**
 * connectMcpTools with the client's side (`side`, from connectMcpCapabilities): the
 * `capabilities` the host answers through `onServerRequest`, `maxCapabilityBytes`,
 * `bind(nativeBridge)` called before the connect starts, and `listTools(nativeBridge)` saying
 * whether the connected server's tools are listed. Resolves to `{ bridge, nativeBridge }`.
 */
async function connectNativeBridge(options, side = {}) {
  if (options === null || typeof options !== 'object') throw new McpBridgeError(say('mcpOptions'))
  assertValidServerId(options.serverId)
  options.signal?.throwIfAborted()
  const serverId = options.serverId
  const prefix = options.namePrefix ?? defaultMcpNamePrefix(serverId)
  const debounceMs = autoRefreshDebounce(options.autoRefresh)
  const effectPolicy = options.effect
  assertEffectPolicy(effectPolicy)

  const maxResultBytes = options.maxResultBytes ?? MCP_LIMITS.maxResultBytes.default
  const errorCap = Math.min(ERROR_SUMMARY_BYTES, maxResultBytes)

  const catalogue = createCatalogue({
    listDefinitions: listOnce,
    ttlMs: options.listCacheTtlMs ?? MCP_LIMITS.listCacheTtlMs.default,
    debounceMs,
    shutdown: () => nativeBridge.close(),
  })

  let nativeBridge
  const calls = createNativeCalls({ serverId, isClosed: () => catalogue.isClosed(), errorCap })
  let bearer
  let hostRequests
  try {
    const opts = nativeOptions(options)
    bearer = oauthBearer(options.transport)
    const resolver = hostnameResolver(options.transport)
    const handlers = {}
    if (bearer) handlers.authorize = bearer.authorize
    if (resolver) handlers.resolveHostname = resolver
    hostRequests = routeHostRequests(handlers, side.onServerRequest)
    if (side.capabilities) opts.capabilities = side.capabilities
    opts.capabilities = [...(opts.capabilities ?? []), ...Object.keys(handlers)]
    if (side.maxCapabilityBytes !== undefined) opts.limits.maxCapabilityBytes = side.maxCapabilityBytes
    const asksHost = side.onServerRequest !== undefined || Object.keys(handlers).length > 0
    nativeBridge = new native.NativeMcpBridge(opts, listChangedRouter(catalogue), calls.router, asksHost ? hostRequests.route : undefined)
  } catch (err) {
    throw fromNative(err)
  }
  calls.bind(nativeBridge)
  side.bind?.(nativeBridge)
  hostRequests.bind(nativeBridge, 'answerServerRequest')
  installExitHook()
  // A tool's call (queued to start with the others of its tick), and the calls of a native
  // dispatch.
  const callRemoteTool = calls.call
  const nativeCalls = { start: calls.start, isClosed: catalogue.isClosed }

  // MCP Apps: the engine judges the negotiation, the app tools and their resources.
  const apps =
    options.mcpApps === true
      ? createNativeApps({ options, serverId, prefix, isClosed: catalogue.isClosed, nativeBridge, callTool: callRemoteTool })
      : undefined

  async function listOnce() {
    let listed
    try {
      listed = JSON.parse(await nativeBridge.listTools())
    } catch (err) {
      throw fromNative(err)
    }
    const remote = apps ? apps.accept(listed) : listed
    const defs = mapMcpToolsToDefinitions(remote, {
      namePrefix: prefix,
      serverId,
      isClosed: catalogue.isClosed,
      callRemoteTool: (remoteName, args, context) => callRemoteTool(remoteName, formatMcpToolName(prefix, remoteName), args, context),
      effectForRemoteTool: (remote) => effectFor(effectPolicy, serverId, remote.name),
    })
    // Each tool's calls may run in the engine when a native dispatch finds its `execute`.
    for (let i = 0; i < defs.length; i++) engineTools.set(defs[i].execute, { calls: nativeCalls, remoteName: remote[i].name, name: defs[i].name })
    return defs
  }

  const signal = options.signal
  const onConnectAbort = () => {
    catalogue.close()
  }
  signal?.addEventListener('abort', onConnectAbort, { once: true })
  try {
    await nativeBridge.connect()
    if (side.listTools?.(nativeBridge) ?? true) {
      // With MCP Apps the server must have acknowledged the extension, before any listing.
      apps?.assertNegotiated()
      await catalogue.refresh()
    }
  } catch (err) {
    await catalogue.close()
    if (signal?.aborted) throw signal.reason
    // The host's own OAuth error (a user to send to the authorization server, a refused
    // token request) is why the connect failed.
    throw bearer?.failure() ?? fromNative(err)
  } finally {
    signal?.removeEventListener('abort', onConnectAbort)
  }

  const bridge = {
    get tools() {
      return catalogue.current()
    },
    refresh: () => catalogue.refresh(),
    close: catalogue.close,
    /** The stdio server's process id (its process group id); 0 for HTTP. */
    get serverPid() {
      return nativeBridge.serverPid
    },
    /** The MCP protocol revision negotiated with the server. */
    get protocolVersion() {
      return nativeBridge.protocolVersion
    },
    ...(apps ? { apps: apps.facade } : {}),
  }
  return { bridge, nativeBridge }
}

module.exports = { connectMcpTools, connectNativeBridge, nativeOptions }
