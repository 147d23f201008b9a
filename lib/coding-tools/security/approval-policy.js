'use strict'
// createCodingApprovalPolicy: a driver of the engine's approval machine
// (crates/engine/src/policy/approval.rs). The engine decides the order of the checks, which
// kinds need approval or are confined, when a command is analysed off this thread, the
// approval cache (its key material, SHA-256 keys and FIFO eviction) and every reason; this
// file performs the steps it names that only JavaScript can: resolving paths with Node's
// `path.resolve` and `os.homedir()`, matching the host's command rules (they may be RegExps),
// awaiting the engine's containment, and calling the host's `approve`.
const os = require('node:os')
const path = require('node:path')
const native = require('../../native.js')
const { say } = require('../../engine-words.js')
const { analyzeCommand, analyzeCommandAsync, judge, validateRules } = require('./command-rules.js')
const { assertPathInsideRoots, containingRoot } = require('./paths.js')

// The words of the machine's crossing, from the engine (read once).
const WORDS = native.approvalWords()
const STEP = WORDS.steps
const MASK = WORDS.stepMask
const SHIFT = WORDS.detailShift
const ALLOW = WORDS.allowFlags
const AT = WORDS.locations
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

/** Where a redirection target of a shell action points. */
function redirectPath(target, action) {
  const cwd = typeof action.metadata?.cwd === 'string' ? action.metadata.cwd : action.paths?.[0] ?? process.cwd()
  if (target === '~' || target.startsWith('~/')) return path.join(os.homedir(), target.slice(1))
  return path.resolve(cwd, target)
}

/** A field's JSON text as an array element reads it, or undefined when it is missing. */
const json = (v) => (v === undefined || v === null ? undefined : (JSON.stringify(v) ?? 'null'))

const NO_PATHS = Object.freeze([])

function createCodingApprovalPolicy(options) {
  const { approvalCacheScope, approvalTimeoutMs, rules } = validateOptions(options)
  const roots = [...options.roots]
  const { approve, readOnly, denyMetacharacters, allowRulesSkipApproval } = options
  const machine = new native.NativeApprovalPolicy(roots.length, Boolean(readOnly), approve !== undefined, allowRulesSkipApproval === true, approvalCacheScope)
  const idField = WORDS.cacheIds[approvalCacheScope]

  async function check(action) {
    const given = action.paths ?? NO_PATHS
    const paths = Array.isArray(given) ? given : [...given]
    const { command } = action
    let s = machine.begin(action.kind, paths.length, Boolean(command), typeof command === 'string' ? command.length : 0)
    let next = 0 // the next path, then the next redirection, the machine asks for
    let subject // the path or redirection target contained last
    let first // where the first path is, and the root that holds it
    let analysis
    let evaluation
    let material // [id, operation, paths, command] for the cache
    for (;;) {
      switch (s & MASK) {
        case STEP.containPath: {
          subject = paths[next++]
          const found = await containingRoot(roots, subject)
          if (next === 1) first = found
          s = machine.feed(s, found === undefined ? AT.outside : AT.inside)
          break
        }
        case STEP.analyze:
        case STEP.analyzeOffThread: {
          analysis = (s & MASK) === STEP.analyze ? analyzeCommand(command) : await analyzeCommandAsync(command)
          const judged = judge(analysis, rules, denyMetacharacters)
          evaluation = judged.evaluation
          s = machine.verdict(s, judged.verdict, evaluation.reason != null, analysis.redirects.length)
          next = 0
          break
        }
        case STEP.containRedirect: {
          subject = analysis.redirects[next++].target
          const at = subject == null ? AT.noTarget : (await assertPathInsideRoots(roots, redirectPath(subject, action))) ? AT.inside : AT.outside
          s = machine.feed(s, at)
          break
        }
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
          return allowed(s, first)
        default: // STEP.deny
          return denied(s, subject, evaluation)
      }
    }
  }

  return { check }
}

/** The allowed decision the machine's final state describes. */
function allowed(s, first) {
  const flags = (s >> SHIFT) & MASK
  const decision = { allowed: true, exclusive: (flags & ALLOW.exclusive) !== 0 }
  if ((flags & ALLOW.writeBeneath) !== 0) {
    // Not enumerable: the decision keeps the reference's shape; the coding read, write and
    // edit tools read it to open the file through the root's directory handle.
    Object.defineProperty(decision, 'writeBeneath', { value: Object.freeze({ root: first.root, path: first.target }) })
  }
  return decision
}

/** The denial the machine's final state describes, worded by the engine. */
function denied(s, subject, evaluation) {
  const code = (s >> SHIFT) & MASK
  switch (WORDS.denialTails[code]) {
    case 'subject':
      return { allowed: false, reason: `${WORDS.denialTexts[code]}${subject}` }
    case 'verdict':
      return { allowed: false, reason: evaluation.reason }
    default:
      return { allowed: false, reason: WORDS.denialTexts[code] }
  }
}

module.exports = { createCodingApprovalPolicy, DEFAULT_APPROVAL_TIMEOUT_MS, CACHE_ENTRIES }
