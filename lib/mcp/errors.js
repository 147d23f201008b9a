'use strict'
// The MCP bridge's error classes (the reference's names and messages) and the one place where
// native errors ("<CODE>|<message>") become them.

class McpBridgeError extends Error {
  constructor(message, options) {
    super(message, options)
    this.name = 'McpBridgeError'
  }
}

class McpToolNameCollisionError extends McpBridgeError {
  constructor(prefixedName, remoteName) {
    super(`MCP tool name collision: ${prefixedName} (remote tool ${remoteName})`)
    this.name = 'McpToolNameCollisionError'
    this.prefixedName = prefixedName
    this.remoteName = remoteName
  }
}

class McpBridgeClosedError extends McpBridgeError {
  constructor(message = 'MCP bridge is closed') {
    super(message)
    this.name = 'McpBridgeClosedError'
    this.code = 'ERR_PRISM_MCP_CLOSED'
  }
}

class McpUnsupportedCapabilityError extends Error {
  constructor(message) {
    super(message)
    this.name = 'McpUnsupportedCapabilityError'
    this.code = 'ERR_PRISM_MCP_UNSUPPORTED_CAPABILITY'
  }
}

const NATIVE_ERROR = /^(ERR_PRISM_MCP_[A-Z_]+)\|([\s\S]*)$/

/** The JS error for a native rejection: the reference's class, with `code` set. */
function fromNative(err) {
  const match = err instanceof Error ? NATIVE_ERROR.exec(err.message) : null
  if (!match) return err
  const [, code, message] = match
  let out
  if (code === 'ERR_PRISM_MCP_CLOSED') out = new McpBridgeClosedError(message)
  else if (code === 'ERR_PRISM_MCP_INVALID_SERVER_ID') out = new Error(message)
  else out = new McpBridgeError(message)
  out.code = code
  return out
}

module.exports = {
  McpBridgeError,
  McpToolNameCollisionError,
  McpBridgeClosedError,
  McpUnsupportedCapabilityError,
  fromNative,
}
