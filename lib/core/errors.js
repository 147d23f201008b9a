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

function stringifyCause(cause) {
  if (cause === undefined) return undefined
  if (cause instanceof Error) return cause.message
  if (typeof cause === 'string') return cause
  try {
    return JSON.stringify(cause)
  } catch {
    return String(cause)
  }
}

/**
 * The ErrorInfo of a thrown value: `{name, message, code, cause}` (+ `retryAfterMs` when the
 * error carries a number), with `secrets` replaced in the message and cause.
 */
function errorToErrorInfo(error, secrets) {
  if (error instanceof Error || (error !== null && typeof error === 'object' && typeof error.message === 'string')) {
    const code = typeof error.code === 'string' || typeof error.code === 'number' ? error.code : undefined
    const info = {
      name: typeof error.name === 'string' ? error.name : 'Error',
      message: redactText(error.message, secrets),
      code,
      cause: redactText(stringifyCause(error.cause), secrets),
    }
    if (typeof error.retryAfterMs === 'number') info.retryAfterMs = error.retryAfterMs
    return info
  }
  return { name: 'Error', message: redactText(String(error), secrets), code: undefined, cause: undefined }
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
