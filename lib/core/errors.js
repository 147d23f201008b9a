'use strict'
// Error classes with the reference's `name`, `code` and messages, and ErrorInfo conversion.

class PermissionDeniedError extends Error {
  constructor(request, decision) {
    super(decision?.reason ?? `Permission denied for ${request.kind}:${request.target}:${request.action}`)
    this.name = 'PermissionDeniedError'
    this.code = 'ERR_PRISM_PERMISSION_DENIED'
    this.request = request
    this.decision = decision
  }
}

class TrustDeniedError extends Error {
  constructor(request, decision) {
    super(decision?.reason ?? `Untrusted ${request.kind}: ${request.target}`)
    this.name = 'TrustDeniedError'
    this.code = 'ERR_PRISM_UNTRUSTED'
    this.request = request
    this.decision = decision
  }
}

class ExecutionDeniedError extends Error {
  constructor(action, decision) {
    super(decision?.reason ?? `Execution denied for ${action.kind}:${action.operation}`)
    this.name = 'ExecutionDeniedError'
    this.code = 'ERR_PRISM_EXECUTION_DENIED'
    this.action = action
    this.decision = decision
  }
}

const REDACTED = '[REDACTED]'

/** `text` with every non-empty string of `secrets` replaced by `[REDACTED]`. */
function redactText(text, secrets) {
  if (!secrets || secrets.length === 0 || typeof text !== 'string') return text
  let out = text
  for (const s of secrets) {
    if (typeof s === 'string' && s.length > 0 && out.includes(s)) out = out.split(s).join(REDACTED)
  }
  return out
}

/** `value` with every string redacted, deeply (objects and arrays are copied, not mutated). */
function redactDeep(value, secrets, seen = new Set()) {
  if (typeof value === 'string') return redactText(value, secrets)
  if (value === null || typeof value !== 'object' || seen.has(value)) return value
  seen.add(value)
  let out
  if (Array.isArray(value)) out = value.map((v) => redactDeep(v, secrets, seen))
  else {
    out = {}
    for (const key of Object.keys(value)) out[key] = redactDeep(value[key], secrets, seen)
  }
  seen.delete(value)
  return out
}

// A thrown value is hostile input: a getter, a Proxy trap or a `toString` may throw. Every
// read below goes through these, so converting an error never throws in turn.
const UNREADABLE = 'thrown value could not be read'

function safeGet(object, key) {
  try {
    return object[key]
  } catch {
    return undefined
  }
}

function safeIsError(value) {
  try {
    return value instanceof Error
  } catch {
    return false
  }
}

function safeString(value) {
  try {
    return String(value)
  } catch {
    return UNREADABLE
  }
}

function stringifyCause(cause) {
  if (cause === undefined) return undefined
  if (typeof cause === 'string') return cause
  if (safeIsError(cause)) {
    const message = safeGet(cause, 'message')
    return typeof message === 'string' ? message : safeString(message)
  }
  try {
    return JSON.stringify(cause)
  } catch {
    return safeString(cause)
  }
}

/**
 * The ErrorInfo of a thrown value: `{name, message, code, cause}` (+ `retryAfterMs` when the
 * error carries a number), with `secrets` replaced in the name, message, string code and
 * cause. Never throws, whatever was thrown.
 */
function errorToErrorInfo(error, secrets) {
  const isObject = error !== null && typeof error === 'object'
  const message = isObject ? safeGet(error, 'message') : undefined
  if (isObject && (typeof message === 'string' || safeIsError(error))) {
    const name = safeGet(error, 'name')
    const code = safeGet(error, 'code')
    const info = {
      name: typeof name === 'string' ? redactText(name, secrets) : 'Error',
      message: redactText(message, secrets),
      code: typeof code === 'string' ? redactText(code, secrets) : typeof code === 'number' ? code : undefined,
      cause: redactText(stringifyCause(safeGet(error, 'cause')), secrets),
    }
    const retryAfterMs = safeGet(error, 'retryAfterMs')
    if (typeof retryAfterMs === 'number') info.retryAfterMs = retryAfterMs
    return info
  }
  return { name: 'Error', message: redactText(safeString(error), secrets), code: undefined, cause: undefined }
}

/** The ErrorInfo of a permission, trust or execution denial. */
function denialToErrorInfo(error) {
  return errorToErrorInfo(error)
}

module.exports = {
  PermissionDeniedError,
  TrustDeniedError,
  ExecutionDeniedError,
  REDACTED,
  redactText,
  redactDeep,
  errorToErrorInfo,
  denialToErrorInfo,
}
