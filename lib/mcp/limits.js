'use strict'
// The MCP limits, read from the engine's option sets (crates/engine/src/option_sets.rs) so
// they exist once.
const { CONSTANTS } = require('../engine-words.js')
const { limitBounds, limitInput } = require('../limits.js')

/** `{ <optionName>: { default, hard } }` for every MCP limit (the bridge's, then HTTP's). */
const MCP_LIMITS = Object.freeze({ ...limitBounds('mcp'), ...limitBounds('mcpHttp') })

/** Debounce of `autoRefresh: true` after a `list_changed` notification. */
const DEFAULT_AUTO_REFRESH_DEBOUNCE_MS = CONSTANTS.mcpAutoRefreshDebounceMs

/** The bridge-level limits `options` sets, by option name, ready for the engine to resolve. */
function bridgeLimitInput(options) {
  return limitInput('mcp', options)
}

/** The reference's caps for capability listings and sessions: exported, unchecked (tools only). */
const REFERENCE_CAPS = Object.fromEntries(CONSTANTS.mcpReferenceCaps.map((c) => [c.name, c]))

const hard = (name) => MCP_LIMITS[name].hard
const dflt = (name) => MCP_LIMITS[name].default

module.exports = {
  MCP_LIMITS,
  DEFAULT_AUTO_REFRESH_DEBOUNCE_MS,
  bridgeLimitInput,
  DEFAULT_CALL_TIMEOUT_MS: dflt('callTimeoutMs'),
  DEFAULT_MAX_TOTAL_TIMEOUT_MS: dflt('maxTotalTimeoutMs'),
  DEFAULT_MAX_RESULT_BYTES: dflt('maxResultBytes'),
  DEFAULT_LIST_CACHE_TTL_MS: dflt('listCacheTtlMs'),
  DEFAULT_MAX_LIST_PAGES: dflt('maxListPages'),
  DEFAULT_MAX_TOOLS: dflt('maxTools'),
  DEFAULT_MAX_CURSOR_BYTES: dflt('maxCursorBytes'),
  DEFAULT_MAX_TOOL_NAME_BYTES: dflt('maxToolNameBytes'),
  DEFAULT_MAX_TOOL_DESCRIPTION_BYTES: dflt('maxToolDescriptionBytes'),
  DEFAULT_MAX_TOOL_SCHEMA_BYTES: dflt('maxToolSchemaBytes'),
  DEFAULT_MAX_TOTAL_TOOL_SCHEMA_BYTES: dflt('maxTotalToolSchemaBytes'),
  DEFAULT_MAX_JSON_DEPTH: dflt('maxJsonDepth'),
  DEFAULT_MAX_JSON_PROPERTIES: dflt('maxJsonProperties'),
  DEFAULT_MAX_HTTP_RESPONSE_BYTES: dflt('maxResponseBytes'),
  DEFAULT_MAX_CAPABILITY_BYTES: REFERENCE_CAPS.capabilityBytes.default,
  DEFAULT_MAX_CAPABILITY_ITEMS: REFERENCE_CAPS.capabilityItems.default,
  DEFAULT_MAX_CAPABILITY_PAGES: REFERENCE_CAPS.capabilityPages.default,
  DEFAULT_MAX_SESSIONS: REFERENCE_CAPS.sessions.default,
  HARD_MAX_CAPABILITY_BYTES: REFERENCE_CAPS.capabilityBytes.hard,
  HARD_MAX_CAPABILITY_ITEMS: REFERENCE_CAPS.capabilityItems.hard,
  HARD_MAX_CAPABILITY_PAGES: REFERENCE_CAPS.capabilityPages.hard,
  HARD_MAX_SESSIONS: REFERENCE_CAPS.sessions.hard,
  HARD_MAX_LIST_PAGES: hard('maxListPages'),
  HARD_MAX_TOOLS: hard('maxTools'),
  HARD_MAX_CURSOR_BYTES: hard('maxCursorBytes'),
  HARD_MAX_TOOL_NAME_BYTES: hard('maxToolNameBytes'),
  HARD_MAX_TOOL_DESCRIPTION_BYTES: hard('maxToolDescriptionBytes'),
  HARD_MAX_TOOL_SCHEMA_BYTES: hard('maxToolSchemaBytes'),
  HARD_MAX_TOTAL_TOOL_SCHEMA_BYTES: hard('maxTotalToolSchemaBytes'),
  HARD_MAX_JSON_DEPTH: hard('maxJsonDepth'),
  HARD_MAX_JSON_PROPERTIES: hard('maxJsonProperties'),
  HARD_MAX_RESULT_BYTES: hard('maxResultBytes'),
  HARD_CALL_TIMEOUT_MS: hard('callTimeoutMs'),
  HARD_MAX_TOTAL_TIMEOUT_MS: hard('maxTotalTimeoutMs'),
  HARD_LIST_CACHE_TTL_MS: hard('listCacheTtlMs'),
  HARD_MAX_HTTP_RESPONSE_BYTES: hard('maxResponseBytes'),
}
