'use strict'
// The MCP limits, read from the engine (crates/engine/src/limits.rs) so they exist once.
const native = require('../native.js')

/** `{ <optionName>: { default, hard } }` for every MCP limit. */
const MCP_LIMITS = Object.freeze(
  Object.fromEntries(native.mcpLimitTable().map((row) => [row.name, Object.freeze({ default: row.default, hard: row.hard })])),
)

/** Debounce of `autoRefresh: true` after a `list_changed` notification. */
const DEFAULT_AUTO_REFRESH_DEBOUNCE_MS = 100

module.exports = {
  MCP_LIMITS,
  DEFAULT_AUTO_REFRESH_DEBOUNCE_MS,
  DEFAULT_CALL_TIMEOUT_MS: MCP_LIMITS.callTimeoutMs.default,
  DEFAULT_MAX_RESULT_BYTES: MCP_LIMITS.maxResultBytes.default,
  DEFAULT_LIST_CACHE_TTL_MS: MCP_LIMITS.listCacheTtlMs.default,
}
