'use strict'
// Name-based permission and trust policies (`tool:<name>:execute` for dispatch).
const native = require('../native.js')
const { pureChecks } = require('./engine-owned.js')
const { PermissionDeniedError, TrustDeniedError, permissionKey } = require('./errors.js')

const ALLOW = Object.freeze({ allowed: true })

// The request the dispatch gate puts to a permission policy (`tool:<name>:execute`), in the
// engine's words.
const { VOCABULARY } = require('../engine-words.js')
const TOOL_KIND = VOCABULARY.requestKind
const EXECUTE = VOCABULARY.requestAction
const TOOL_KEY_HEAD = `${TOOL_KIND}:`
const TOOL_KEY_TAIL = `:${EXECUTE}`

function isThenable(v) {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof v.then === 'function'
}

/** The policy's decision for `request`; no policy allows everything. */
async function checkPermission(policy, request) {
  if (!policy) return ALLOW
  return await policy.check(request)
}

/** Throws PermissionDeniedError unless `decision` allows `request`. */
function requireAllowed(request, decision) {
  if (!decision || decision.allowed !== true) throw new PermissionDeniedError(request, decision)
}

/**
 * The permission gate without a needless microtask: a synchronous answer is decided at once
 * (a denial throws, an allow returns `undefined`); a promised one returns a promise of the
 * same. The dispatch driver awaits only when it gets a promise (bench/dispatch.mjs).
 */
function permissionGate(policy, request) {
  return settleGate(policy.check(request), request, requireAllowed)
}

/** Applies `settle(request, decision)` at once, or once a promised `decision` resolves. */
function settleGate(decision, request, settle) {
  if (isThenable(decision)) return Promise.resolve(decision).then((d) => settle(request, d))
  settle(request, decision)
  return undefined
}

/** Throws PermissionDeniedError unless `policy` allows `request`. */
async function assertPermission(policy, request) {
  if (!policy) return
  await permissionGate(policy, request)
}

/**
 * A policy over permission keys: a denied key is refused; with a non-empty allow list only
 * listed keys pass. `true`/`false` give a constant decision. The engine decides every listed
 * key once, here; a check is a lookup.
 */
function createStaticPermissionPolicy(options) {
  if (typeof options === 'boolean') {
    const decision = Object.freeze({ allowed: options })
    const check = () => decision
    pureChecks.add(check)
    return { check }
  }
  // Spread, as the reference's `new Set(...)`: a non-iterable list throws a TypeError. Keys
  // are strings, so an entry of another type never matches; it still makes the allow list
  // non-empty (unlisted keys refused), as it does in the reference's Set.
  const allowEntries = [...(options?.allow ?? [])]
  const allow = allowEntries.filter((k) => typeof k === 'string')
  const deny = [...(options?.deny ?? [])].filter((k) => typeof k === 'string')
  const table = native.staticPermissionTable(allow, deny, allow.length !== allowEntries.length)
  const reasons = new Map()
  // The dispatch gate's keys (`tool:<target>:execute`) again by target alone, so its check is a
  // lookup of the tool's name instead of building and hashing a new key string per call.
  const toolExecute = new Map()
  for (let i = 0; i < table.keys.length; i++) {
    const key = table.keys[i]
    reasons.set(key, table.reasons[i])
    if (key.startsWith(TOOL_KEY_HEAD) && key.endsWith(TOOL_KEY_TAIL) && key.length >= TOOL_KEY_HEAD.length + TOOL_KEY_TAIL.length) {
      toolExecute.set(key.slice(TOOL_KEY_HEAD.length, key.length - TOOL_KEY_TAIL.length), table.reasons[i])
    }
  }
  const allowsUnlisted = table.allowsUnlisted
  const policy = {
    check(request) {
      const toolGate = request.kind === TOOL_KIND && request.action === EXECUTE && typeof request.target === 'string'
      const reason = toolGate ? toolExecute.get(request.target) : reasons.get(permissionKey(request))
      if (reason === undefined) {
        return allowsUnlisted ? { allowed: true } : { allowed: false, reason: native.permissionNotAllowedReason(permissionKey(request)) }
      }
      return reason === null ? { allowed: true } : { allowed: false, reason }
    },
  }
  pureChecks.add(policy.check)
  return policy
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

/** Throws TrustDeniedError unless `decision` trusts `request`. */
function requireTrusted(request, decision) {
  const d = normalizeTrust(decision)
  if (d.trusted !== true) throw new TrustDeniedError(request, d)
}

/** The trust gate without a needless microtask (as `permissionGate`). */
function trustGate(policy, request) {
  return settleGate(policy.check(request), request, requireTrusted)
}

/** Throws TrustDeniedError unless `policy` trusts `request`. */
async function assertTrusted(policy, request) {
  if (!policy) return
  await trustGate(policy, request)
}

/** A trust policy that always answers `decision`. */
function createStaticTrustPolicy(decision) {
  const d = Object.freeze(normalizeTrust(decision))
  const check = () => d
  pureChecks.add(check)
  return { check }
}

module.exports = {
  isThenable,
  checkPermission,
  assertPermission,
  permissionGate,
  createStaticPermissionPolicy,
  isTrusted,
  assertTrusted,
  trustGate,
  createStaticTrustPolicy,
}
