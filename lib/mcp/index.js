'use strict'
// prism-native/mcp: MCP servers' tools as ordinary tool definitions, on a native (rmcp) client.
const errors = require('./errors.js')
const helpers = require('./helpers.js')
const limits = require('./limits.js')
const bridge = require('./bridge.js')
const hostClient = require('./host-client.js')
const transport = require('./transport.js')

module.exports = {
  connectMcpTools: bridge.connectMcpTools,
  attachMcpToolBridge: hostClient.attachMcpToolBridge,
  listAllMcpTools: hostClient.listAllMcpTools,
  mapMcpToolsToDefinitions: hostClient.mapMcpToolsToDefinitions,
  createMcpTransport: transport.createMcpTransport,
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
  DEFAULT_MAX_TOTAL_TIMEOUT_MS: limits.DEFAULT_MAX_TOTAL_TIMEOUT_MS,
  DEFAULT_MAX_RESULT_BYTES: limits.DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_LIST_CACHE_TTL_MS: limits.DEFAULT_LIST_CACHE_TTL_MS,
  DEFAULT_MAX_LIST_PAGES: limits.DEFAULT_MAX_LIST_PAGES,
  DEFAULT_MAX_TOOLS: limits.DEFAULT_MAX_TOOLS,
  DEFAULT_MAX_CURSOR_BYTES: limits.DEFAULT_MAX_CURSOR_BYTES,
  DEFAULT_MAX_TOOL_NAME_BYTES: limits.DEFAULT_MAX_TOOL_NAME_BYTES,
  DEFAULT_MAX_TOOL_DESCRIPTION_BYTES: limits.DEFAULT_MAX_TOOL_DESCRIPTION_BYTES,
  DEFAULT_MAX_TOOL_SCHEMA_BYTES: limits.DEFAULT_MAX_TOOL_SCHEMA_BYTES,
  DEFAULT_MAX_TOTAL_TOOL_SCHEMA_BYTES: limits.DEFAULT_MAX_TOTAL_TOOL_SCHEMA_BYTES,
  DEFAULT_MAX_JSON_DEPTH: limits.DEFAULT_MAX_JSON_DEPTH,
  DEFAULT_MAX_JSON_PROPERTIES: limits.DEFAULT_MAX_JSON_PROPERTIES,
  DEFAULT_MAX_HTTP_RESPONSE_BYTES: limits.DEFAULT_MAX_HTTP_RESPONSE_BYTES,
  HARD_MAX_LIST_PAGES: limits.HARD_MAX_LIST_PAGES,
  HARD_MAX_TOOLS: limits.HARD_MAX_TOOLS,
  HARD_MAX_CURSOR_BYTES: limits.HARD_MAX_CURSOR_BYTES,
  HARD_MAX_TOOL_NAME_BYTES: limits.HARD_MAX_TOOL_NAME_BYTES,
  HARD_MAX_TOOL_DESCRIPTION_BYTES: limits.HARD_MAX_TOOL_DESCRIPTION_BYTES,
  HARD_MAX_TOOL_SCHEMA_BYTES: limits.HARD_MAX_TOOL_SCHEMA_BYTES,
  HARD_MAX_TOTAL_TOOL_SCHEMA_BYTES: limits.HARD_MAX_TOTAL_TOOL_SCHEMA_BYTES,
  HARD_MAX_JSON_DEPTH: limits.HARD_MAX_JSON_DEPTH,
  HARD_MAX_JSON_PROPERTIES: limits.HARD_MAX_JSON_PROPERTIES,
  HARD_MAX_RESULT_BYTES: limits.HARD_MAX_RESULT_BYTES,
  HARD_CALL_TIMEOUT_MS: limits.HARD_CALL_TIMEOUT_MS,
  HARD_MAX_TOTAL_TIMEOUT_MS: limits.HARD_MAX_TOTAL_TIMEOUT_MS,
  HARD_LIST_CACHE_TTL_MS: limits.HARD_LIST_CACHE_TTL_MS,
  HARD_MAX_HTTP_RESPONSE_BYTES: limits.HARD_MAX_HTTP_RESPONSE_BYTES,
}
