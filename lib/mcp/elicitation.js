'use strict'
// mcpElicitationDecision / mcpElicitationResultFromDecision: an MCP elicitation as the host's
// pending decision and back. The engine checks and shapes both; JS converts the values.
const native = require('../native.js')
const { toJsonText } = require('./json-text.js')
const { engineCall } = require('./native-call.js')

const [MAX_MCP_ELICITATION_MESSAGE_BYTES, MAX_MCP_ELICITATION_SCHEMA_BYTES] = native.mcpElicitationCaps()

/**
 * The pending decision (kind `elicitation`) of an untrusted elicitation request's `params`;
 * throws `McpBridgeError` for malformed or oversized params.
 */
function mcpElicitationDecision(approvalId, params, options = {}) {
  const [text, fault] = toJsonText(params)
  const toolName = options?.toolName
  return JSON.parse(
    engineCall(() =>
      native.mcpElicitationDecision(String(approvalId), text ?? undefined, fault ?? undefined, toolName === undefined ? undefined : String(toolName)),
    ),
  )
}

/**
 * The elicitation result of the host's run decision: `reject_*` declines; an accepting
 * decision needs its `elicitation` payload and `options.humanInteraction === true`.
 */
function mcpElicitationResultFromDecision(decision, options = {}) {
  const [text] = toJsonText(decision)
  return JSON.parse(engineCall(() => native.mcpElicitationResultFromDecision(text ?? 'null', options?.humanInteraction === true)))
}

module.exports = {
  MAX_MCP_ELICITATION_MESSAGE_BYTES,
  MAX_MCP_ELICITATION_SCHEMA_BYTES,
  mcpElicitationDecision,
  mcpElicitationResultFromDecision,
}
