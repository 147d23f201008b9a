'use strict'
// What every coding tool shares: error results, the execution-policy step, limit validation
// and the limit table (whose numbers live in the engine).
const native = require('../../native.js')
const { ExecutionDeniedError } = require('../../core/errors.js')

const { limitTable } = require('../../limits.js')

/** `{ <key>: { name, default, hard } }` for every coding limit (the engine's coding set). */
const LIMITS = Object.fromEntries(limitTable('coding').map((row) => [row.key, row]))

/**
 * `{ toolCallId, name, content:[{type:"text", text}], error:{message} }`: no `code`, as the
 * contract has it (the engine's `ERR_PRISM_CODING_*` code of a failure stays on the native
 * result).
 */
function errorResult(toolCallId, name, message, text = message) {
  return { toolCallId, name, content: [{ type: 'text', text }], error: { message } }
}

/**
 * Whether `v` is a positive safe integer at most `hard` (the engine's rule for every limit).
 * `hard` is read as JavaScript's `v > hard` reads it: `Number(hard)`, and a cap that is not a
 * number bounds nothing.
 */
function withinLimit(v, hard) {
  return native.withinLimit(typeof v === 'number' ? v : Number.NaN, Number(hard))
}

/** `v` when it is a positive safe integer at most `hard`; `fallback` when undefined; else throws. */
function validateCodingLimit(name, v, hard, fallback) {
  if (v === undefined) return fallback
  // The engine throws its coded error for a value out of range.
  native.checkLimit('coding', String(name), typeof v === 'number' ? v : Number.NaN, Number(hard), String(hard))
  return v
}

/** The option `key` of `options`, checked against the engine's limit `limitKey`. */
function limitOption(options, key, limitKey) {
  const l = LIMITS[limitKey]
  return validateCodingLimit(key, options?.[key], l.hard, l.default)
}

/**
 * Asks `policy` about `action`. Resolves to `{ action }` (with `modified.paths[0]` or
 * `modified.command` laid over it) or `{ denied: ToolResult }`. A throwing policy denies with
 * its message.
 */
async function enforceExecutionPolicy(policy, action, toolCallId, toolName) {
  if (!policy) return { action }
  return settleDecision(() => policy.check(action), action, toolCallId, toolName)
}

/**
 * The outcome of a policy's decision, which `decide()` resolves to: `{ action }` (with
 * `modified` laid over it) or `{ denied: ToolResult }`. A throwing policy denies with its
 * message.
 */
async function settleDecision(decide, action, toolCallId, toolName) {
  let decision
  try {
    decision = await decide()
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err)
    return { denied: errorResult(toolCallId, toolName, message) }
  }
  if (!decision || decision.allowed !== true) {
    const message = decision?.reason ?? new ExecutionDeniedError(action, decision).message
    return { denied: errorResult(toolCallId, toolName, message) }
  }
  const modified = decision.modified
  const beneath = approvedBeneath(decision)
  if (!modified) return { action, beneath }
  const out = { ...action }
  if (Array.isArray(modified.paths) && typeof modified.paths[0] === 'string' && action.paths) {
    out.paths = [modified.paths[0], ...action.paths.slice(1)]
  }
  if (typeof modified.command === 'string' && action.kind === 'shell') out.command = modified.command
  // A policy that moved the path vouches for the new path, not for the root it checked.
  return { action: out, beneath: out.paths === action.paths ? beneath : undefined }
}

/**
 * The root a policy approved a read, write or edit beneath (`decision.writeBeneath`, set by
 * `createCodingApprovalPolicy`): the tool then resolves the file from that root's directory
 * handle, so a symlink swapped in after the check cannot redirect it.
 */
function approvedBeneath(decision) {
  const b = decision.writeBeneath
  if (b === null || typeof b !== 'object' || typeof b.root !== 'string' || typeof b.path !== 'string') return undefined
  return { root: b.root, path: b.path }
}

/**
 * The execution context's fields, read once: `{ ctx: { toolCallId, sessionId, runId, signal } }`,
 * or `{ denied: ToolResult }` when a host getter throws (the tool then returns that error
 * result instead of rejecting). The tools use the snapshot only, so a getter runs once.
 */
function snapshotContext(context, toolName) {
  const ctx = { toolCallId: undefined, sessionId: undefined, runId: undefined, signal: undefined }
  if (context === null || context === undefined) return { ctx }
  try {
    for (const key of ['toolCallId', 'sessionId', 'runId', 'signal']) ctx[key] = context[key]
  } catch (err) {
    const message = say('invalidContext', { message: err instanceof Error ? err.message : String(err) })
    return { denied: errorResult(ctx.toolCallId, toolName, message) }
  }
  return { ctx }
}

/** The metadata every policy action carries from the execution context. */
function contextMetadata(context) {
  return { sessionId: context?.sessionId, runId: context?.runId, signal: context?.signal }
}

const { CONSTANTS, say } = require('../../engine-words.js')
/** The result message of a call whose signal was aborted (the engine's words). */
const ABORTED = CONSTANTS.codingAbortedMessage

module.exports = {
  native,
  LIMITS,
  ABORTED,
  errorResult,
  withinLimit,
  validateCodingLimit,
  limitOption,
  enforceExecutionPolicy,
  settleDecision,
  contextMetadata,
  snapshotContext,
}
