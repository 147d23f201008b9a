'use strict'
// The one place where a native error becomes the reference's class. The binding (src/errors.rs)
// throws, and rejects with, a plain `Error` whose `code` is the engine's `ERR_PRISM_*` code and whose
// message is the engine's; `fromNative` picks the class for that code and keeps both. Any
// other value (an argument TypeError, a host's error) comes back unchanged.
const { CODES } = require('./engine-words.js')
const { McpBridgeError, McpBridgeClosedError, McpOAuthError, McpUnsupportedCapabilityError } = require('./mcp/errors.js')

/** The reference's error for `code`, or null when the native error stays as it is. */
function classFor(code, message) {
  if (code === CODES.mcpClosed) return new McpBridgeClosedError(message)
  if (code === CODES.mcpInvalidServerId) return new Error(message)
  if (code === CODES.mcpUnsupportedCapability) return McpUnsupportedCapabilityError.fromMessage(message)
  if (code.startsWith(CODES.mcpOAuthPrefix)) return new McpOAuthError(code, message)
  if (code.startsWith(CODES.mcpPrefix)) return new McpBridgeError(message)
  if (code === CODES.validationInvalidLimit) return new RangeError(message)
  return null
}

/**
 * `err` as the reference's class for its engine code, with `code` set; else `err` itself.
 * Only a plain `Error` (what the binding creates) is converted: an instance of a subclass is
 * already the facade's own error.
 */
function fromNative(err) {
  if (!(err instanceof Error) || Object.getPrototypeOf(err) !== Error.prototype || typeof err.code !== 'string') return err
  const out = classFor(err.code, err.message)
  if (out === null) return err
  out.code = err.code
  return out
}

module.exports = { fromNative }
