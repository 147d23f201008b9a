'use strict'
// MCP Apps on the engine's own session (`mcpApps: true` on connectMcpTools and
// connectMcpCapabilities): the negotiation, the listing's app tools and the `ui://` resources
// are judged by the same engine rules as over a host's client (`./apps.js`); the native bridge
// sends the resource requests and hands their results over as JSON text.
const native = require('../native.js')
const { fromNative } = require('../native-errors.js')
const { bridgeLimitInput } = require('./limits.js')
const { engineCall } = require('./native-call.js')
const { createApps, JsonText } = require('./apps.js')

/**
 * The app side of a native bridge: `assertNegotiated()` after the handshake (throws the
 * engine's "not negotiated" error), `accept(listed)` and `facade` as `createApps`'s.
 * `nativeBridge` is the connected `NativeMcpBridge`; `callTool(remoteName, name, args,
 * context)` the bridge's call.
 */
function createNativeApps({ options, serverId, prefix, isClosed, nativeBridge, callTool }) {
  const engine = engineCall(() => new native.NativeMcpHostClient(serverId, bridgeLimitInput(options)))
  const request = async (method, params) => {
    try {
      return new JsonText(await nativeBridge.appRequest(method, params === undefined ? undefined : JSON.stringify(params)))
    } catch (err) {
      throw fromNative(err)
    }
  }
  const apps = createApps({ serverId, engine, prefix, isClosed, request, callTool })
  return {
    assertNegotiated: () => engineCall(() => engine.appsNegotiated(nativeBridge.serverCapabilities)),
    accept: apps.accept,
    facade: apps.facade,
  }
}

module.exports = { createNativeApps }
