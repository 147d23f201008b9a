'use strict'
// Name-based permission and trust policies (`tool:<name>:execute` for dispatch).
const { PermissionDeniedError, TrustDeniedError } = require('./errors.js')

const ALLOW = Object.freeze({ allowed: true })

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function'
}

/** The policy's decision for `request`; no policy allows everything. */
async function checkPermission(policy, request) {
  if (!policy) return ALLOW
  return await policy.check(request)
}

/** Throws PermissionDeniedError unless `policy` allows `request`. */
async function assertPermission(policy, request) {
  if (!policy) return
  let decision = policy.check(request)
  if (isThenable(decision)) decision = await decision
  if (!decision || decision.allowed !== true) throw new PermissionDeniedError(request, decision)
}

/**
 * A policy over the keys `${kind}:${target}:${action}`: a denied key is refused; with a
 * non-empty allow list only listed keys pass. `true`/`false` give a constant decision.
 */
function createStaticPermissionPolicy(options) {
  if (typeof options === 'boolean') {
    const decision = Object.freeze({ allowed: options })
    return { check: () => decision }
  }
  const allow = new Set(options?.allow ?? [])
  const deny = new Set(options?.deny ?? [])
  return {
    check(request) {
      const key = `${request.kind}:${request.target}:${request.action}`
      if (deny.has(key)) return { allowed: false, reason: `Permission denied: ${key}` }
      if (allow.size === 0 || allow.has(key)) return { allowed: true }
      return { allowed: false, reason: `Permission not allowed: ${key}` }
    },
  }
}

function normalizeTrust(decision) {
  if (typeof decision === 'boolean') return { trusted: decision }
  return decision ?? { trusted: false }
}

/** Whether `policy` trusts `request`; no policy trusts everything. */
async function isTrusted(policy, request) {
  if (!policy) return true
  return normalizeTrust(await policy.check(request)).trusted === true
}

/** Throws TrustDeniedError unless `policy` trusts `request`. */
async function assertTrusted(policy, request) {
  if (!policy) return
  let decision = policy.check(request)
  if (isThenable(decision)) decision = await decision
  const d = normalizeTrust(decision)
  if (d.trusted !== true) throw new TrustDeniedError(request, d)
}

/** A trust policy that always answers `decision`. */
function createStaticTrustPolicy(decision) {
  const d = Object.freeze(normalizeTrust(decision))
  return { check: () => d }
}

module.exports = {
  isThenable,
  checkPermission,
  assertPermission,
  createStaticPermissionPolicy,
  isTrusted,
  assertTrusted,
  createStaticTrustPolicy,
}
