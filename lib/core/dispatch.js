'use strict'
// dispatchToolCall: the JS trampoline over the engine's dispatch plan.
//
// The gate order lives in the engine (`prism_engine::tools::gate::DISPATCH_ORDER`); this file
// asks it once per combination of hooks for the ordered steps and performs them. Each step is
// a host callback, so it runs here on the JS thread, with no crossing per call.
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

const plans = new Map()
function planFor(mask) {
  let plan = plans.get(mask)
  if (plan === undefined) {
    plan = Uint8Array.from(native.dispatchPlan(mask))
    plans.set(mask, plan)
  }
  return plan
}

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

function nonObjectResult(name, value) {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
  const err = new TypeError(`Tool ${name} returned ${kind} instead of a ToolResult object`)
  err.code = 'ERR_PRISM_INVALID_TOOL_RESULT'
  return err
}

/**
 * Runs one tool call through the frozen gate order and returns its ToolResult. Blocked and
 * failed calls are results, never throws; only contract violations (a non-object call, a
 * missing registry) and the reference's rethrown codes reject.
 */
async function dispatchToolCall(options) {
  if (options === null || typeof options !== 'object') throw new InvalidDispatchError('dispatchToolCall needs an options object')
  const { registry, emit, ledger, secrets, redactor, middleware } = options
  let call = options.call
  if (call === null || typeof call !== 'object') throw new InvalidDispatchError('dispatchToolCall: options.call must be a tool call object')
  if (registry === null || typeof registry !== 'object' || typeof registry.get !== 'function') {
    throw new InvalidDispatchError('dispatchToolCall: options.registry must be a ToolRegistry')
  }
  const baseContext = options.context ?? {}
  const start = Date.now()
  const mask =
    (middleware ? H.MIDDLEWARE : 0) |
    (options.trust ? H.TRUST : 0) |
    (options.permission ? H.PERMISSION : 0) |
    (options.validate ? H.VALIDATE : 0) |
    (options.beforeExecute ? H.BEFORE_EXECUTE : 0) |
    (redactor ? H.REDACTOR : 0)
  const plan = planFor(mask)

  const sessionId = baseContext.sessionId
  const runId = baseContext.runId
  const ledgerId = ledger ? ledgerPrefix + (++ledgerSeq).toString(36) : undefined
  const startedAt = ledger ? new Date(start).toISOString() : undefined

  function ledgerRow(fields) {
    const row = {
      id: ledgerId,
      sessionId,
      runId,
      toolCallId: call.id,
      name: call.name,
      arguments: call.arguments,
      startedAt,
      redacted: Boolean(redactor),
      ...options.ownership,
      ...fields,
    }
    if (redactor) {
      row.arguments = redactor.redact(row.arguments)
      if (row.result !== undefined) row.result = redactor.redact(row.result)
    }
    return ledger.appendToolCall(row)
  }

  async function blocked(reason, error) {
    const metadata = { durationMs: Date.now() - start, status: 'blocked' }
    const p = emitEvent(emit, { type: 'tool_execution_blocked', sessionId, runId, toolCallId: call.id, name: call.name, reason, error, metadata })
    if (p) await p
    const result = { toolCallId: call.id, name: call.name, error }
    if (ledger) await ledgerRow({ status: 'blocked', reason, finishedAt: new Date().toISOString(), result })
    return result
  }

  let tool
  let context
  let result
  let executing = false
  try {
    for (let step = 0; step < plan.length; step++) {
      switch (plan[step]) {
        case G.TOOL_CALL_MIDDLEWARE:
          call = await middleware.run('tool_call', call)
          if (call === null || typeof call !== 'object') throw new InvalidDispatchError('tool_call middleware must return a tool call object')
          break
        case G.CHECK_CALL:
          tool = registry.get(call.name)
          if (tool === undefined) return await blocked('unknown_tool', { message: `Unknown tool: ${call.name}` })
          if (options.filter && !filterAllows(options.filter, tool.name)) {
            return await blocked('tool_denied', { message: `Tool denied: ${call.name}` })
          }
          if (call.argumentsError) return await blocked('invalid_arguments', call.argumentsError)
          if (!isJsonObject(call.arguments)) return await blocked('invalid_arguments', { message: 'Tool arguments must be a JSON object' })
          context = buildContext(options, baseContext, call, ledger ? ledgerRow : undefined)
          break
        case G.TRUST:
          try {
            await assertTrusted(options.trust, { kind: 'tool', target: call.name, capability: 'execute', metadata: context.metadata })
          } catch (err) {
            return await blocked('permission_denied', errorToErrorInfo(err, secrets))
          }
          break
        case G.PERMISSION:
          try {
            await assertPermission(options.permission, { kind: 'tool', action: 'execute', target: call.name, metadata: context.metadata })
          } catch (err) {
            return await blocked('permission_denied', errorToErrorInfo(err, secrets))
          }
          break
        case G.VALIDATE: {
          let verdict = options.validate(tool, call.arguments, context)
          if (isThenable(verdict)) verdict = await verdict
          if (verdict) {
            const error = typeof verdict === 'string' ? { message: redactText(verdict, secrets), code: undefined } : redactDeep(verdict, secrets)
            return await blocked('validation_failed', error)
          }
          break
        }
        case G.BEFORE_EXECUTE:
          try {
            const r = options.beforeExecute(call, tool, context)
            if (isThenable(r)) await r
          } catch (err) {
            if (isRethrown(err)) throw err
            return await blocked('execution_denied', errorToErrorInfo(err, secrets))
          }
          break
        case G.STARTED: {
          const p = emitEvent(emit, { type: 'tool_execution_started', sessionId, runId, call })
          if (p) await p
          if (ledger) await ledgerRow({ status: 'started' })
          executing = true
          break
        }
        case G.EXECUTE: {
          let raw = tool.execute(call.arguments, context)
          if (isThenable(raw)) raw = await raw
          if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw nonObjectResult(call.name, raw)
          result = raw
          break
        }
        case G.RESULT_MIDDLEWARE:
          result = await middleware.run('tool_result', result)
          break
        case G.REDACT:
          executing = false
          result = redactor.redact(result)
          break
        case G.FINISHED: {
          executing = false
          const metadata = { durationMs: Date.now() - start, status: 'finished' }
          const p = emitEvent(emit, { type: 'tool_execution_finished', sessionId, runId, result, metadata })
          if (p) await p
          if (ledger) await ledgerRow({ status: 'finished', finishedAt: new Date().toISOString(), result })
          break
        }
      }
    }
    return result
  } catch (err) {
    if (!executing) throw err
    const error = errorToErrorInfo(err, secrets)
    const metadata = { durationMs: Date.now() - start, status: 'error' }
    const p = emitEvent(emit, { type: 'tool_execution_error', sessionId, runId, call, error, metadata })
    if (p) await p
    const failed = { toolCallId: call.id, name: call.name, error }
    if (ledger) await ledgerRow({ status: 'error', finishedAt: new Date().toISOString(), result: failed })
    return failed
  }
}

function buildContext(options, base, call, writeRow) {
  const context = { ...base, toolCallId: call.id }
  delete context.idempotencyKey
  const identity = options.identity ?? base.identity
  if (identity !== undefined) context.identity = identity
  const hostProgress = base.progress
  const emit = options.emit
  context.progress = async (progress, metadata) => {
    if (hostProgress) await hostProgress.call(base, progress, metadata)
    const p = emitEvent(emit, {
      type: 'tool_execution_progress',
      sessionId: base.sessionId,
      runId: base.runId,
      toolCallId: call.id,
      name: call.name,
      progress,
      metadata,
    })
    if (p) await p
    if (writeRow) await writeRow({ status: 'started', progress, progressMetadata: metadata, progressAt: new Date().toISOString() })
  }
  return context
}

module.exports = { dispatchToolCall, InvalidDispatchError }
