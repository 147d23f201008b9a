'use strict'
// Remote tools as ToolDefinitions: the prefixed names (a duplicate is a collision), the effect
// the host's policy declares (never what the server claims), and `execute` through the
// bridge's own call path. Both bridges (native session and host client) build them here.
const { McpBridgeError, McpToolNameCollisionError, McpBridgeClosedError } = require('./errors.js')
const { formatMcpToolName } = require('./helpers.js')

const { say, vocabulary } = require('../engine-words.js')

const EFFECT_KINDS = new Set(vocabulary('effectKinds'))
const EFFECT_IDEMPOTENCY = new Set(vocabulary('effectIdempotency'))
const DEFAULT_EFFECT = Object.freeze({ kind: 'external_mutation', idempotency: 'unsupported' })

/** The host's effect policy, checked; the default for a remote tool the policy leaves out. */
function effectFor(policy, serverId, remoteName) {
  if (policy === undefined) return DEFAULT_EFFECT
  const declared = policy({ serverId, remoteName })
  if (declared === undefined) return DEFAULT_EFFECT
  if (declared === null || typeof declared !== 'object' || !EFFECT_KINDS.has(declared.kind) || !EFFECT_IDEMPOTENCY.has(declared.idempotency)) {
    throw new McpBridgeError(say('mcpEffectDeclaration', { name: remoteName }))
  }
  return declared
}

/** Throws `McpBridgeError` unless `policy` is a function or undefined. */
function assertEffectPolicy(policy) {
  if (policy !== undefined && typeof policy !== 'function') throw new McpBridgeError(say('mcpEffectFunction'))
}

/**
 * `remoteTools` (as listed) as ToolDefinitions named `context.namePrefix + remote.name`.
 * Throws `McpToolNameCollisionError` for a duplicate name; `execute` throws
 * `McpBridgeClosedError` once `context.isClosed()`, else calls `context.callRemoteTool`.
 */
function mapMcpToolsToDefinitions(remoteTools, context) {
  const seen = new Set()
  const defs = []
  for (const remote of remoteTools) {
    const name = formatMcpToolName(context.namePrefix, remote.name)
    if (seen.has(name)) throw new McpToolNameCollisionError(name, remote.name)
    seen.add(name)
    const remoteName = remote.name
    defs.push({
      name,
      description: remote.description,
      parameters: remote.inputSchema,
      effect: context.effectForRemoteTool?.(remote) ?? DEFAULT_EFFECT,
      execute: (args, executionContext) => {
        if (context.isClosed()) throw new McpBridgeClosedError()
        return context.callRemoteTool(remoteName, args, executionContext)
      },
    })
  }
  return defs
}

module.exports = { DEFAULT_EFFECT, effectFor, assertEffectPolicy, mapMcpToolsToDefinitions }
