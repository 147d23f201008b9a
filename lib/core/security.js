'use strict'
// Name-based permission and trust policies (`tool:<name>:execute` for dispatch).
const native = require('../native.js')
const { PermissionDeniedError, TrustDeniedError, permissionKey } = require('./errors.js')

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
 * A policy over permission keys: a denied key is refused; with a non-empty allow list only
 * listed keys pass. `true`/`false` give a constant decision. The engine decides every listed
 * key once, here; a check is a lookup.
 */
function createStaticPermissionPolicy(options) {
  if (typeof options === 'boolean') {
    const decision = Object.freeze({ allowed: options })
    return { check: () => decision }
  }
  // Spread, as the reference's `new Set(...)`: a non-iterable list throws a TypeError. Keys
  // are strings, so an entry of another type never matches; it still makes the allow list
  // non-empty (unlisted keys refused), as it does in the reference's Set.
  const allowEntries = [...(options?.allow ?? [])]
  const allow = allowEntries.filter((k) => typeof k === 'string')
  const deny = [...(options?.deny ?? [])].filter((k) => typeof k === 'string')
  const table = native.staticPermissionTable(allow, deny, allow.length !== allowEntries.length)
  const reasons = new Map()
  for (let i = 0; i < table.keys.length; i++) reasons.set(table.keys[i], table.reasons[i])
  const allowsUnlisted = table.allowsUnlisted
  return {
    check(request) {
      const key = permissionKey(request)
      const reason = reasons.get(key)
      if (reason === undefined) {
        return allowsUnlisted ? { allowed: true } : { allowed: false, reason: native.permissionNotAllowedReason(key) }
      }
      return reason === null ? { allowed: true } : { allowed: false, reason }
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
