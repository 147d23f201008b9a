'use strict'
// prism-native/mcp: MCP servers' tools as ordinary tool definitions, on a native (rmcp) client.
const errors = require('./errors.js')
const helpers = require('./helpers.js')
const limits = require('./limits.js')
const bridge = require('./bridge.js')

module.exports = {
  connectMcpTools: bridge.connectMcpTools,
  attachMcpToolBridge: bridge.attachMcpToolBridge,
  listAllMcpTools: bridge.listAllMcpTools,
  defaultMcpNamePrefix: helpers.defaultMcpNamePrefix,
  formatMcpToolName: helpers.formatMcpToolName,
  assertValidServerId: helpers.assertValidServerId,
  mapMcpContentToBlocks: helpers.mapMcpContentToBlocks,
  summarizeMcpContent: helpers.summarizeMcpContent,
  boundedMcpErrorMessage: helpers.boundedMcpErrorMessage,
  mcpCallError: helpers.mcpCallError,
  estimateUtf8Bytes: helpers.estimateUtf8Bytes,
  McpBridgeError: errors.McpBridgeError,
  McpToolNameCollisionError: errors.McpToolNameCollisionError,
  McpBridgeClosedError: errors.McpBridgeClosedError,
  McpUnsupportedCapabilityError: errors.McpUnsupportedCapabilityError,
  MCP_LIMITS: limits.MCP_LIMITS,
  DEFAULT_CALL_TIMEOUT_MS: limits.DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_RESULT_BYTES: limits.DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_LIST_CACHE_TTL_MS: limits.DEFAULT_LIST_CACHE_TTL_MS,
}
