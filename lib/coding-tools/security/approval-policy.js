'use strict'
// createCodingApprovalPolicy: a driver of the engine's approval policy
// (crates/engine/src/policy/decide.rs over approval.rs). One `decide` crossing contains every
// path, analyses the command, matches the command rules, contains every redirection target and
// returns the decision or the first step only JavaScript can perform: answering the RegExp
// rules (then `decide` again with the answers), the approval cache's key material (the JSON
// texts of the action's fields, read as JavaScript reads them) and the host's `approve`. The
// engine owns the order of the checks, the cache and every reason; paths are resolved here
// with Node's `path.resolve` and `os.homedir()` first.
const os = require('node:os')
const path = require('node:path')
const native = require('../../native.js')
const { say } = require('../../engine-words.js')
const { validateRules, hostMatches, reasonOf } = require('./command-rules.js')

// The words of the machine's crossing, from the engine (read once).
const WORDS = native.approvalWords()
const STEP = WORDS.steps
const MASK = WORDS.stepMask
const SHIFT = WORDS.detailShift
const ALLOW = WORDS.allowFlags
// 30,000 ms and 1,000 entries, from the engine's limits (crates/engine/src/limits.rs).
const [DEFAULT_APPROVAL_TIMEOUT_MS, CACHE_ENTRIES] = native.policyApprovalLimits()

function validateOptions(options) {
  if (!options || typeof options !== 'object') throw new TypeError(say('approvalOptions'))
  const { roots, approve, approvalCacheScope = 'none', approvalTimeoutMs = DEFAULT_APPROVAL_TIMEOUT_MS } = options
  if (!Array.isArray(roots) || roots.some((r) => typeof r !== 'string')) throw new TypeError(say('approvalRoots'))
  if (approve !== undefined && typeof approve !== 'function') throw new TypeError(say('approvalApprove'))
  if (!WORDS.cacheScopes.includes(approvalCacheScope)) throw new TypeError(WORDS.cacheScopeMessage)
  if (typeof approvalTimeoutMs !== 'number' || Number.isNaN(approvalTimeoutMs)) throw new TypeError(say('approvalTimeoutMs'))
  return { approvalCacheScope, approvalTimeoutMs, rules: validateRules(options.commandRules) }
}

/** `approve`'s answer as a boolean: a timeout, an abort or a rejection count as false. */
function waitForApproval(approve, request, timeoutMs) {
  const { signal } = request
  if (signal?.aborted) return Promise.resolve(false)
  const answer = approve(request) // a synchronous throw rejects check()
  return new Promise((resolve) => {
    let timer
    const finish = (value) => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      resolve(value)
    }
    const onAbort = () => finish(false)
    if (timeoutMs > 0 && Number.isFinite(timeoutMs)) timer = setTimeout(onAbort, timeoutMs)
    signal?.addEventListener('abort', onAbort, { once: true })
    Promise.resolve(answer).then((v) => finish(v === true), () => finish(false))
  })
}

/** The directory a relative redirection target of a shell action starts from. */
function redirectBase(action) {
  const cwd = action.metadata?.cwd
  if (typeof cwd === 'string') return path.resolve(cwd)
  const first = action.paths?.[0]
  return typeof first === 'string' ? path.resolve(first) : process.cwd()
}

/** A field's JSON text as an array element reads it, or undefined when it is missing. */
const json = (v) => (v === undefined || v === null ? undefined : (JSON.stringify(v) ?? 'null'))

const NO_PATHS = Object.freeze([])

/** Where a policy of this file keeps its engine handle (not enumerable: the shape stays `{ check }`). */
const ENGINE_POLICY = Symbol('prism-native approval policy')

function createCodingApprovalPolicy(options) {
  const { approvalCacheScope, approvalTimeoutMs, rules } = validateOptions(options)
  const { approve, readOnly, denyMetacharacters, allowRulesSkipApproval } = options
  const machine = new native.NativeApprovalPolicy([...options.roots], Boolean(readOnly), approve !== undefined, allowRulesSkipApproval === true, approvalCacheScope, rules.engine, denyMetacharacters !== false)
  const idField = WORDS.cacheIds[approvalCacheScope]

  /** What the engine checks of `action`: `{ paths, check }` (`paths`: as the action gave them). */
  function facts(action) {
    const given = action.paths ?? NO_PATHS
    const paths = Array.isArray(given) ? given : [...given]
    const { command } = action
    const check = {
      kind: typeof action.kind === 'string' ? action.kind : undefined,
      paths: paths.map((p) => (typeof p === 'string' ? path.resolve(p) : null)),
      commandPresent: Boolean(command),
      command: typeof command === 'string' ? command : undefined,
      // Where a redirection target of the command starts from (only a command has one).
      base: command ? redirectBase(action) : '',
      home: command ? os.homedir() : '',
    }
    return { paths, check }
  }

  /** The decision on `action`, from where the engine's check `d` of its `facts` stopped. */
  async function finish(action, { paths, check }, d) {
    if (d.subjects) d = await machine.decide(check, hostMatches(rules.regexps, d.subjects))
    let s = d.state
    let material // [id, operation, paths, command] for the cache
    for (;;) {
      switch (s & MASK) {
        case STEP.lookUpCache:
          material = [action.metadata?.[idField], json(action.operation), json(action.paths), json(action.command)]
          s = machine.lookUp(s, ...material)
          break
        case STEP.ask: {
          const signal = action.metadata?.signal instanceof AbortSignal ? action.metadata.signal : undefined
          const approved = await waitForApproval(approve, { action, signal }, approvalTimeoutMs)
          s = material === undefined ? machine.answer(s, approved) : machine.answer(s, approved, ...material)
          break
        }
        case STEP.allow:
          return allowed(s, d)
        default: // STEP.deny
          return denied(s, d, paths, rules)
      }
    }
  }

  async function check(action) {
    const f = facts(action)
    return finish(action, f, await machine.decide(f.check, null))
  }

  const policy = { check }
  // For this package's shell tool, which checks and runs a command in one engine call.
  Object.defineProperty(policy, ENGINE_POLICY, { value: Object.freeze({ machine, facts, finish, check }) })
  return policy
}

/** The allowed decision the machine's final state describes. */
function allowed(s, d) {
  const flags = (s >> SHIFT) & MASK
  const decision = { allowed: true, exclusive: (flags & ALLOW.exclusive) !== 0 }
  if ((flags & ALLOW.writeBeneath) !== 0) {
    // Not enumerable: the decision keeps the reference's shape; the coding read, write and
    // edit tools read it to open the file through the root's directory handle.
    Object.defineProperty(decision, 'writeBeneath', { value: Object.freeze({ root: d.root, path: d.target }) })
  }
  return decision
}

/** The denial the machine's final state describes, worded by the engine. */
function denied(s, d, paths, rules) {
  const code = (s >> SHIFT) & MASK
  switch (WORDS.denialTails[code]) {
    case 'subject': {
      // The path as the action gave it, or the redirection target as the command wrote it.
      const subject = d.redirect ?? paths[d.path]
      return { allowed: false, reason: `${WORDS.denialTexts[code]}${subject}` }
    }
    case 'verdict':
      return { allowed: false, reason: reasonOf(rules, d) }
    default:
      return { allowed: false, reason: WORDS.denialTexts[code] }
  }
}

module.exports = { createCodingApprovalPolicy, ENGINE_POLICY, DEFAULT_APPROVAL_TIMEOUT_MS, CACHE_ENTRIES }
