'use strict'
// createMcpTransport: a transport configuration checked exactly as connectMcpTools checks it
// (by the engine), returned as a frozen copy. prism-native's client speaks MCP natively, so the
// result describes the transport for connectMcpTools; it is not a JS SDK Transport object.
const native = require('../native.js')
const { fromNative } = require('../native-errors.js')
const { nativeOptions } = require('./bridge.js')

function frozenCopy(value) {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy))
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.freeze(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, frozenCopy(v)])))
  }
  return value
}

/**
 * Validates `config` (`stdio`: a command; `streamable-http`: URL, scheme, allowed origins,
 * addresses, `maxResponseBytes`) and returns a frozen copy of it. Throws `McpBridgeError`
 * with the engine's message (e.g. "Invalid MCP HTTP URL", "MCP HTTP URL must use https: ...").
 */
function createMcpTransport(config) {
  const flat = nativeOptions({ serverId: '', transport: config })
  try {
    native.mcpValidateTransport(flat)
  } catch (err) {
    throw fromNative(err)
  }
  return frozenCopy(config)
}

module.exports = { createMcpTransport }
