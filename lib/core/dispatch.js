'use strict'
// dispatchToolCall: the JS trampoline over the engine's dispatch plan.
//
// The gate order lives in the engine (`prism_engine::tools::gate::DISPATCH_ORDER`), which also
// decides which gates run for a set of hooks. This file performs the gates in that order, each
// a host callback on the JS thread, with no crossing into Rust per call; at load it checks that
// its sequence equals the engine's table.
const native = require('../native.js')
const { errorToErrorInfo, redactText, redactDeep } = require('./errors.js')
const { isJsonObject } = require('./json.js')
const { filterAllows } = require('./registry.js')
const { isThenable, assertPermission, assertTrusted } = require('./security.js')

// Gate codes: `Gate as u8` in the engine.
const G = {
  TOOL_CALL_MIDDLEWARE: 0,
  CHECK_CALL: 1,
  TRUST: 2,
  PERMISSION: 3,
  VALIDATE: 4,
  BEFORE_EXECUTE: 5,
  STARTED: 6,
  EXECUTE: 7,
  RESULT_MIDDLEWARE: 8,
  REDACT: 9,
  FINISHED: 10,
}
// HookSet bits.
const H = { MIDDLEWARE: 1, TRUST: 2, PERMISSION: 4, VALIDATE: 8, BEFORE_EXECUTE: 16, REDACTOR: 32 }

// The frozen order, as this file performs it below. At load it must equal the engine's
// DISPATCH_ORDER (the full plan), so the engine stays the one authority on the order: a
// reordered engine table fails loudly here instead of silently disagreeing.
const ORDER = [
  G.TOOL_CALL_MIDDLEWARE,
  G.CHECK_CALL,
  G.TRUST,
  G.PERMISSION,
  G.VALIDATE,
  G.BEFORE_EXECUTE,
  G.STARTED,
  G.EXECUTE,
  G.RESULT_MIDDLEWARE,
  G.REDACT,
  G.FINISHED,
]
const ALL_HOOKS = 63
if (native.dispatchPlan(ALL_HOOKS).join() !== ORDER.join()) {
  throw new Error('prism-native: the JS dispatch sequence does not match the engine gate order')
}

// Which gates run for each hook mask (6 bits), as a bit set of gate codes, asked of the
// engine once per mask. The steps are then written straight-line in ORDER: an interpreted
// loop of awaits cost ~0.3-0.5 us more per dispatch (bench/dispatch.mjs).
const plans = new Array(ALL_HOOKS + 1).fill(undefined)
function planFor(mask) {
  let bits = plans[mask]
  if (bits === undefined) {
    bits = 0
    for (const gate of native.dispatchPlan(mask)) bits |= 1 << gate
    plans[mask] = bits
  }
  return bits
}
const runs = (bits, gate) => (bits & (1 << gate)) !== 0

const RETHROWN_CODES = new Set(['ERR_PRISM_AGENT_RUN_SUSPENDED', 'ERR_PRISM_DELEGATION_SUSPENDED'])
function isRethrown(err) {
  const code = err?.code
  return typeof code === 'string' && (RETHROWN_CODES.has(code) || code.startsWith('ERR_PRISM_LOOP_'))
}

let ledgerSeq = 0
const ledgerPrefix = `toolcall_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}_`

class InvalidDispatchError extends TypeError {
  constructor(message) {
    super(message)
    this.name = 'TypeError'
    this.code = 'ERR_PRISM_INVALID_DISPATCH'
  }
}

function emitEvent(emit, event) {
  if (emit === undefined) return undefined
  const r = emit(event)
  return isThenable(r) ? r : undefined
}

/** A value for an error message; a name that cannot be turned into text is shown as such. */
function safeText(value) {
  try {
    return String(value)
  } catch {
    return '<unprintable>'
  }
}

function nonObjectResult(name, value) {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
  const err = new TypeError(`Tool ${name} returned ${kind} instead of a ToolResult object`)
  err.code = 'ERR_PRISM_INVALID_TOOL_RESULT'
  return err
}

// Reads a host object's fields once, so a Proxy or getter that throws becomes a clean
// InvalidDispatchError with our message (never the trap's own, which may carry secrets), and
// later reads cannot see different values.
function readFields(object, keys, message) {
  const out = {}
  try {
    for (const key of keys) out[key] = object[key]
  } catch {
    throw new InvalidDispatchError(message)
  }
  return out
}

const OPTION_KEYS = ['call', 'registry', 'context', 'emit', 'ledger', 'secrets', 'redactor', 'middleware', 'trust', 'permission', 'validate', 'beforeExecute', 'filter', 'identity', 'ownership']
const CALL_KEYS = ['id', 'name', 'arguments', 'argumentsError']

function readCall(call, message) {
  if (call === null || typeof call !== 'object') throw new InvalidDispatchError(message)
  return readFields(call, CALL_KEYS, message)
}

/** Whether `value` is a JSON object; a value whose traps or getters throw is not. */
function isJsonArguments(value) {
  try {
    return isJsonObject(value)
  } catch {
    return false
  }
}

/**
 * Runs one tool call through the frozen gate order and returns its ToolResult. Blocked and
 * failed calls are results, never throws; only contract violations (a non-object call, a
 * missing registry, options, call or context that cannot be read) and the reference's
 * rethrown codes reject.
 */
async function dispatchToolCall(input) {
  if (input === null || typeof input !== 'object') throw new InvalidDispatchError('dispatchToolCall needs an options object')
  const options = readFields(input, OPTION_KEYS, 'dispatchToolCall: options could not be read')
  const { registry, emit, ledger, redactor, middleware } = options
  // The secrets, copied once into a plain array: redaction runs on error paths, where a
  // hostile iterable must not throw in turn.
  let secrets = options.secrets
  if (secrets !== undefined && secrets !== null) {
    try {
      secrets = Array.from(secrets)
    } catch {
      throw new InvalidDispatchError('dispatchToolCall: options.secrets must be an array of strings')
    }
    options.secrets = secrets
  }
  let fields = readCall(options.call, 'dispatchToolCall: options.call must be a tool call object')
  let registryGet
  try {
    registryGet = registry === null || typeof registry !== 'object' ? undefined : registry.get
  } catch {
    registryGet = undefined
  }
  if (typeof registryGet !== 'function') throw new InvalidDispatchError('dispatchToolCall: options.registry must be a ToolRegistry')
  const base = options.context ?? {}
  if (typeof base !== 'object') throw new InvalidDispatchError('dispatchToolCall: options.context must be an object')
  // The host's context, copied once (own enumerable fields, as the reference's spread).
  let copy
  try {
    copy = Object.assign({}, base)
  } catch {
    throw new InvalidDispatchError('dispatchToolCall: options.context could not be read')
  }
  const start = Date.now()
  const mask =
    (middleware ? H.MIDDLEWARE : 0) |
    (options.trust ? H.TRUST : 0) |
    (options.permission ? H.PERMISSION : 0) |
    (options.validate ? H.VALIDATE : 0) |
    (options.beforeExecute ? H.BEFORE_EXECUTE : 0) |
    (redactor ? H.REDACTOR : 0)
  const plan = planFor(mask)
  // The facts the blocked/error/ledger helpers need: module-level functions take this record,
  // so no closure is allocated per call.
  const d = {
    options,
    base,
    copy,
    call: options.call,
    id: fields.id,
    name: fields.name,
    args: fields.arguments,
    start,
    hostProgress: copy.progress,
    sessionId: copy.sessionId,
    runId: copy.runId,
    ledgerId: ledger ? ledgerPrefix + (++ledgerSeq).toString(36) : undefined,
    startedAt: ledger ? new Date(start).toISOString() : undefined,
  }

  let call = d.call
  if (runs(plan, G.TOOL_CALL_MIDDLEWARE)) {
    call = await middleware.run('tool_call', call)
    fields = readCall(call, 'tool_call middleware must return a tool call object')
    d.call = call
    d.id = fields.id
    d.name = fields.name
    d.args = fields.arguments
  }
  const name = d.name

  // G.CHECK_CALL
  const tool = registryGet.call(registry, name)
  if (tool === undefined) return blocked(d, 'unknown_tool', { message: `Unknown tool: ${safeText(name)}` })
  if (options.filter) {
    let allowed
    try {
      allowed = filterAllows(options.filter, tool.name)
    } catch {
      throw new InvalidDispatchError('dispatchToolCall: options.filter could not be read')
    }
    if (!allowed) return blocked(d, 'tool_denied', { message: `Tool denied: ${safeText(name)}` })
  }
  if (fields.argumentsError) return blocked(d, 'invalid_arguments', fields.argumentsError)
  if (!isJsonArguments(d.args)) return blocked(d, 'invalid_arguments', { message: 'Tool arguments must be a JSON object' })
  const context = buildContext(d)

  if (runs(plan, G.TRUST)) {
    try {
      await assertTrusted(options.trust, { kind: 'tool', target: name, capability: 'execute', metadata: context.metadata })
    } catch (err) {
      return blocked(d, 'permission_denied', errorToErrorInfo(err, secrets))
    }
  }
  if (runs(plan, G.PERMISSION)) {
    try {
      await assertPermission(options.permission, { kind: 'tool', action: 'execute', target: name, metadata: context.metadata })
    } catch (err) {
      return blocked(d, 'permission_denied', errorToErrorInfo(err, secrets))
    }
  }
  if (runs(plan, G.VALIDATE)) {
    let verdict = options.validate(tool, d.args, context)
    if (isThenable(verdict)) verdict = await verdict
    if (verdict) {
      const error = typeof verdict === 'string' ? { message: redactText(verdict, secrets), code: undefined } : redactDeep(verdict, secrets)
      return blocked(d, 'validation_failed', error)
    }
  }
  if (runs(plan, G.BEFORE_EXECUTE)) {
    try {
      const r = options.beforeExecute(call, tool, context)
      if (isThenable(r)) await r
    } catch (err) {
      if (isRethrown(err)) throw err
      return blocked(d, 'execution_denied', errorToErrorInfo(err, secrets))
    }
  }

  // G.STARTED
  const started = emitEvent(emit, { type: 'tool_execution_started', sessionId: d.sessionId, runId: d.runId, call })
  if (started) await started
  if (ledger) await ledgerRow(d, { status: 'started' })

  let result
  try {
    // G.EXECUTE
    result = tool.execute(d.args, context)
    if (isThenable(result)) result = await result
    if (result === null || typeof result !== 'object' || Array.isArray(result)) throw nonObjectResult(safeText(name), result)
    if (runs(plan, G.RESULT_MIDDLEWARE)) result = await middleware.run('tool_result', result)
  } catch (err) {
    return failed(d, err)
  }
  if (runs(plan, G.REDACT)) result = redactor.redact(result)

  // G.FINISHED
  const finished = emitEvent(emit, { type: 'tool_execution_finished', sessionId: d.sessionId, runId: d.runId, result, metadata: { durationMs: Date.now() - start, status: 'finished' } })
  if (finished) await finished
  if (ledger) await ledgerRow(d, { status: 'finished', finishedAt: new Date().toISOString(), result })
  return result
}

/** The error path of a started call: one error event, an error row, `{toolCallId, name, error}`. */
async function failed(d, err) {
  const { options, call } = d
  const error = errorToErrorInfo(err, options.secrets)
  const metadata = { durationMs: Date.now() - d.start, status: 'error' }
  const p = emitEvent(options.emit, { type: 'tool_execution_error', sessionId: d.sessionId, runId: d.runId, call, error, metadata })
  if (p) await p
  const result = { toolCallId: d.id, name: d.name, error }
  if (options.ledger) await ledgerRow(d, { status: 'error', finishedAt: new Date().toISOString(), result })
  return result
}

/** Appends one ledger row of this dispatch (redacted when a redactor is set). */
function ledgerRow(d, fields) {
  const { options } = d
  const row = {
    id: d.ledgerId,
    sessionId: d.sessionId,
    runId: d.runId,
    toolCallId: d.id,
    name: d.name,
    arguments: d.args,
    startedAt: d.startedAt,
    redacted: Boolean(options.redactor),
  }
  if (options.ownership) Object.assign(row, options.ownership)
  Object.assign(row, fields)
  if (options.redactor) {
    row.arguments = options.redactor.redact(row.arguments)
    if (row.result !== undefined) row.result = options.redactor.redact(row.result)
  }
  return options.ledger.appendToolCall(row)
}

/** Emits the one blocked event, writes the blocked row and returns the blocked result. */
async function blocked(d, reason, error) {
  const { options } = d
  const metadata = { durationMs: Date.now() - d.start, status: 'blocked' }
  const event = { type: 'tool_execution_blocked', sessionId: d.sessionId, runId: d.runId, toolCallId: d.id, name: d.name, reason, error, metadata }
  const p = emitEvent(options.emit, event)
  if (p) await p
  const result = { toolCallId: d.id, name: d.name, error }
  if (options.ledger) await ledgerRow(d, { status: 'blocked', reason, finishedAt: new Date().toISOString(), result })
  return result
}

/**
 * The context `execute` sees: the host's, with `toolCallId` from the call, without
 * `idempotencyKey`, `identity` from the options when set, and a `progress` that calls the
 * host's, then emits `tool_execution_progress`, then writes a `started` ledger row.
 */
function buildContext(d) {
  const { options, copy } = d
  // `copy` is the host's context taken with Object.assign, not object spread: on Node 20
  // spreading costs ~1.5 µs per call, Object.assign ~0.1 µs (bench/dispatch.mjs).
  let context = copy
  if ('idempotencyKey' in copy) {
    // Rest destructuring, not `delete`: a deleted key turns the object into a slow dictionary.
    const { idempotencyKey: _dropped, ...rest } = copy
    context = rest
  }
  context.toolCallId = d.id
  if (options.identity !== undefined) context.identity = options.identity
  context.progress = (progress, metadata) => reportProgress(d, progress, metadata)
  return context
}

async function reportProgress(d, progress, metadata) {
  const { options, base, hostProgress } = d
  if (hostProgress) await hostProgress.call(base, progress, metadata)
  const event = { type: 'tool_execution_progress', sessionId: d.sessionId, runId: d.runId, toolCallId: d.id, name: d.name, progress, metadata }
  const p = emitEvent(options.emit, event)
  if (p) await p
  if (options.ledger) await ledgerRow(d, { status: 'started', progress, progressMetadata: metadata, progressAt: new Date().toISOString() })
}

module.exports = { dispatchToolCall, InvalidDispatchError }
