'use strict'
// Error classes with the reference's `name`, `code` and messages, and ErrorInfo conversion.
const native = require('../native.js')
const { CODES } = require('../engine-words.js')

/** The permission key of a request: `<kind>:<target>:<action>`. */
function permissionKey(request) {
  return `${request.kind}:${request.target}:${request.action}`
}

class PermissionDeniedError extends Error {
  constructor(request, decision) {
    super(decision?.reason ?? native.permissionDeniedMessage(permissionKey(request)))
    this.name = 'PermissionDeniedError'
    this.code = CODES.permissionDenied
    this.request = request
    this.decision = decision
  }
}

class TrustDeniedError extends Error {
  constructor(request, decision) {
    super(decision?.reason ?? native.untrustedMessage(String(request.kind), String(request.target)))
    this.name = 'TrustDeniedError'
    this.code = CODES.untrusted
    this.request = request
    this.decision = decision
  }
}

class ExecutionDeniedError extends Error {
  constructor(action, decision) {
    super(decision?.reason ?? native.executionDeniedMessage(String(action.kind), String(action.operation)))
    this.name = 'ExecutionDeniedError'
    this.code = CODES.executionDenied
    this.action = action
    this.decision = decision
  }
}

/**
 * The ErrorInfo of a thrown value: `{name, message, code, cause}` (+ `retryAfterMs` when the
 * error carries a number), with `secrets` replaced (the engine's shape and redaction).
 */
function errorToErrorInfo(error, secrets) {
  return native.thrownErrorInfo(error, secrets)
}

/**
 * The ErrorInfo of a permission, trust or execution denial: an Error's own `{name, message,
 * code}`, or `{message: String(error)}` for anything else (the engine's shape).
 */
function denialToErrorInfo(error) {
  return native.denialErrorInfo(error)
}

module.exports = {
  PermissionDeniedError,
  TrustDeniedError,
  ExecutionDeniedError,
  errorToErrorInfo,
  denialToErrorInfo,
  permissionKey,
}
