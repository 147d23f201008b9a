'use strict'
// The MCP bridge's error classes (the reference's names and messages). Native errors become
// them in one place: `fromNative` in ../native-errors.js.
const { CODES, CONSTANTS, say } = require('../engine-words.js')

class McpBridgeError extends Error {
  constructor(message, options) {
    super(message, options)
    this.name = 'McpBridgeError'
  }
}

class McpToolNameCollisionError extends McpBridgeError {
  constructor(prefixedName, remoteName) {
    super(say('mcpNameCollision', { prefixedName, remoteName }))
    this.name = 'McpToolNameCollisionError'
    this.prefixedName = prefixedName
    this.remoteName = remoteName
  }
}

class McpBridgeClosedError extends McpBridgeError {
  constructor(message = CONSTANTS.mcpClosedMessage) {
    super(message)
    this.name = 'McpBridgeClosedError'
    this.code = CODES.mcpClosed
  }
}

class McpUnsupportedCapabilityError extends Error {
  /**
   * `capability`: the capability's name, as the reference (`Unsupported MCP capability: <name>`);
   * `message`: the engine's refusal worded in full, when it is not that.
   */
  constructor(capability, message) {
    super(message ?? say('mcpUnsupportedCapability', { capability }))
    this.name = 'McpUnsupportedCapabilityError'
    this.code = CODES.mcpUnsupportedCapability
    this.capability = capability
  }

  /** The error with the engine's `message` as it is. */
  static fromMessage(message) {
    const prefix = say('mcpUnsupportedCapability', { capability: '' })
    return new McpUnsupportedCapabilityError(message.startsWith(prefix) ? message.slice(prefix.length) : message, message)
  }
}

/** An MCP OAuth failure, with the reference's `ERR_PRISM_MCP_OAUTH_*` code. */
class McpOAuthError extends Error {
  constructor(code, message, options) {
    super(message, options)
    this.name = 'McpOAuthError'
    this.code = code
  }
}

module.exports = {
  McpOAuthError,
  McpBridgeError,
  McpToolNameCollisionError,
  McpBridgeClosedError,
  McpUnsupportedCapabilityError,
}
