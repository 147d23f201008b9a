'use strict'
// createCodingApprovalPolicy: the reference's check order (API.md section 9), with command
// rules over parsed commands (Decision 7) and redirection targets held to the roots.
const os = require('node:os')
const path = require('node:path')
const { createHash } = require('node:crypto')
const { analyzeCommand, analyzeCommandAsync, judge, validateRules } = require('./command-rules.js')
const { assertPathInsideRoots, containingRoot } = require('./paths.js')

const APPROVAL_KINDS = new Set(['shell', 'write', 'edit', 'delete', 'move'])
// Kinds whose allowed decisions carry `writeBeneath` (the root the path was found inside):
// the read, write and edit tools then open the file beneath that root's directory handle.
const CONFINED_KINDS = new Set(['read', 'write', 'edit'])
const SCOPES = new Set(['session', 'run', 'none'])
// 30,000 ms, 1,000 entries and 16 KiB, from the engine's limits (crates/engine/src/limits.rs).
const [DEFAULT_APPROVAL_TIMEOUT_MS, CACHE_ENTRIES, ASYNC_ANALYSIS_BYTES] = require('../../native.js').policyApprovalLimits()

const deny = (reason) => ({ allowed: false, reason })

function validateOptions(options) {
  if (!options || typeof options !== 'object') throw new TypeError('createCodingApprovalPolicy options must be an object')
  const { roots, approve, approvalCacheScope = 'none', approvalTimeoutMs = DEFAULT_APPROVAL_TIMEOUT_MS } = options
  if (!Array.isArray(roots) || roots.some((r) => typeof r !== 'string')) throw new TypeError('roots must be an array of path strings')
  if (approve !== undefined && typeof approve !== 'function') throw new TypeError('approve must be a function')
  if (!SCOPES.has(approvalCacheScope)) throw new TypeError('approvalCacheScope must be "session", "run" or "none"')
  if (typeof approvalTimeoutMs !== 'number' || Number.isNaN(approvalTimeoutMs)) throw new TypeError('approvalTimeoutMs must be a number')
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

function createCodingApprovalPolicy(options) {
  const { approvalCacheScope, approvalTimeoutMs, rules } = validateOptions(options)
  const roots = [...options.roots]
  const { approve, readOnly, denyMetacharacters, allowRulesSkipApproval } = options
  const cache = new Map()

  const cacheKey = (action) => {
    if (approvalCacheScope === 'none') return undefined
    const id = approvalCacheScope === 'run' ? action.metadata?.runId : action.metadata?.sessionId
    if (typeof id !== 'string' || id.length === 0) return undefined
    const material = JSON.stringify([approvalCacheScope, id, action.kind, action.operation, action.paths ?? [], action.command ?? ''])
    return createHash('sha256').update(material).digest('hex')
  }
  const remember = (key, allowed) => {
    if (key === undefined) return
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value)
    cache.set(key, allowed)
  }

  async function check(action) {
    if (roots.length === 0) return deny('no trusted roots configured')
    if (readOnly && action.kind !== 'read') return deny('read-only mode')
    const contained = []
    for (const p of action.paths ?? []) {
      const c = await containingRoot(roots, p)
      if (c === undefined) return deny(`path outside trusted roots: ${p}`)
      contained.push(c)
    }
    let needsApproval = APPROVAL_KINDS.has(action.kind)
    if (action.kind === 'shell' && action.command) {
      // A long command is analysed off the JS thread. Its UTF-8 length is at most three
      // times its UTF-16 length, so every command over the byte threshold goes there.
      const long = typeof action.command === 'string' && action.command.length * 3 > ASYNC_ANALYSIS_BYTES
      const analysis = long ? await analyzeCommandAsync(action.command) : analyzeCommand(action.command)
      const { evaluation, coveredByAllowRules } = judge(analysis, rules, denyMetacharacters)
      if (evaluation.action === 'deny') return deny(evaluation.reason ?? 'command denied by policy')
      for (const r of analysis.redirects) {
        if (r.target === null || r.target === undefined) continue
        if (!(await assertPathInsideRoots(roots, redirectPath(r.target, action)))) return deny(`path outside trusted roots: ${r.target}`)
      }
      if (evaluation.action === 'requireApproval') needsApproval = true
      else if (allowRulesSkipApproval === true && coveredByAllowRules) needsApproval = false
    }
    if (needsApproval) {
      if (!approve) return deny('approval required')
      const key = cacheKey(action)
      const cached = key === undefined ? undefined : cache.get(key)
      if (cached === false) return deny('approval denied (cached)')
      if (cached !== true) {
        const signal = action.metadata?.signal instanceof AbortSignal ? action.metadata.signal : undefined
        const approved = await waitForApproval(approve, { action, signal }, approvalTimeoutMs)
        remember(key, approved)
        if (!approved) return deny('approval denied')
      }
    }
    const decision = { allowed: true, exclusive: action.kind === 'shell' }
    if (CONFINED_KINDS.has(action.kind) && contained.length === 1) {
      // Not enumerable: the decision keeps the reference's shape; the coding read, write and
      // edit tools read it to open the file through the root's directory handle.
      Object.defineProperty(decision, 'writeBeneath', { value: Object.freeze({ root: contained[0].root, path: contained[0].target }) })
    }
    return decision
  }

  return { check }
}

module.exports = { createCodingApprovalPolicy, DEFAULT_APPROVAL_TIMEOUT_MS, CACHE_ENTRIES }
