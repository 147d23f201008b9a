'use strict'
// How the engine runs a read tool's calls for a native dispatch (`core/native-dispatch.js`),
// recorded for the `execute` of a read tool made without host code: no `operations`,
// `documentReader` or `transformImage`, and no execution policy or one made by
// `createCodingApprovalPolicy`. A turn's reads of one tool cross together: their arguments
// (the JSON text the dispatch holds) checked against the tool's prepared schema in one
// crossing, then parsed, checked, decided by the policy and read off the JS thread in one
// more, their results coming back together. Each result is what the tool's `execute` gives
// for the call: the same shaping, the same aborted and missing-file handling. A read the
// policy does not allow outright (denied, or a step that needs JS: its approval cache, the
// host's `approve`) goes to the tool's own `execute`, which asks the policy.
const native = require('../../native.js')
const { errorResult, ABORTED } = require('./common.js')
const { resolveToCwd, macOsVariants } = require('./paths.js')
const { ENGINE_POLICY } = require('../security/approval-policy.js')

const STARTED = native.MCP_CALL_STARTED
// A call the route does not take (its policy's `check` was replaced): the dispatch's own path runs it.
const NOT_TAKEN = native.MCP_CALL_INVALID
// Reads per task on libuv's thread pool (its four threads share a turn of 64).
const CALLS_PER_TASK = 16

/**
 * The route of a read tool's calls (`{ name, calls }`, the shape `native-dispatch.js` reads):
 * `calls.start(batch, validator, signal, checkOnly)` takes a batch of the dispatch's entries
 * (`{ text, args, toolCallId, schemaId, settle }`, with the dispatch's `context`, or the
 * host's `base` context it is built from) and gives each one's verdict (`MCP_CALL_STARTED`:
 * taken; any other: the dispatch's own path runs it); a taken call's result comes through its
 * `settle`, never a rejection. `tool` is what the read tool was made with: its working
 * directory, its bounds, its read-path set, its execution policy (`undefined`, or one of
 * `createCodingApprovalPolicy`), `shape(r, target, toolCallId)` (its results: a promise of
 * `{ path?, toolResult }`) and `execute` (the tool's own, for a read the policy did not
 * allow outright and a missing path that may exist under another spelling).
 */
function readRoute({ cwd, cfg, readPathSet, policy, shape, execute }) {
  const limits = { maxLines: cfg.maxLines, maxBytes: cfg.maxBytes, maxScanBytes: cfg.maxScanBytes, maxImageBytes: cfg.maxImageBytes }

  /** The engine's side of the tool's policy: `undefined` (none), its machine, or `null` when a host replaced its `check`. */
  function machineOf() {
    if (policy === undefined) return undefined
    const engine = policy[ENGINE_POLICY]
    return policy.check === engine.check ? engine.machine : null
  }

  /** The verdicts of `batch`'s schema checks (one crossing), or all taken with no validator. */
  function verdictsOf(batch, validator) {
    const n = batch.length
    if (validator === undefined || validator === null) return new Uint8Array(n).fill(STARTED)
    const ids = new Uint32Array(n)
    const texts = new Array(n)
    for (let i = 0; i < n; i++) {
      ids[i] = batch[i].schemaId
      texts[i] = batch[i].text
    }
    return validator.checkTexts(ids, texts)
  }

  /** Settles `entry` with the result `r` of reading `target`, as `execute` would have. */
  function finish(entry, r, target, signal) {
    try {
      settleRead(entry, r, target, signal)
    } catch (err) {
      // A host context that cannot be copied for `execute`: the call's error result, as
      // `execute` words what it cannot do, and the turn's other calls still settle.
      entry.settle(errorResult(entry.toolCallId, 'read', messageOf(err)))
    }
  }

  function settleRead(entry, r, target, signal) {
    const { toolCallId } = entry
    if (signal?.aborted) return entry.settle(errorResult(toolCallId, 'read', ABORTED))
    // Not allowed outright by the policy, or missing where a macOS spelling may exist: the
    // tool's own execute asks the policy, or looks for the spelling.
    if (r.declined || (r.missing && macOsVariants(target).length > 0)) return execute(entry.args, contextOf(entry)).then(entry.settle)
    if (r.error !== undefined && r.error !== null) return entry.settle(errorResult(toolCallId, 'read', r.error))
    return Promise.resolve(shape(r, target, toolCallId)).then(
      (outcome) => {
        if (outcome.path && readPathSet) readPathSet.add(outcome.path)
        entry.settle(outcome.toolResult)
      },
      (err) => entry.settle(errorResult(toolCallId, 'read', messageOf(err))),
    )
  }

  const calls = {
    /** A read tool has no session to close. */
    isClosed: () => false,
    start(batch, validator, signal, checkOnly = false) {
      try {
        return startBatch(batch, validator, signal, checkOnly)
      } catch {
        // Nothing started (a path that cannot be resolved here: no home directory, say): the
        // dispatch's own path runs every call, and `execute` words what fails.
        return undefined
      }
    },
  }

  /** `calls.start`: the verdicts, the taken calls' reads started in one crossing. */
  function startBatch(batch, validator, signal, checkOnly) {
    const machine = machineOf()
    if (machine === null) return new Uint8Array(batch.length).fill(NOT_TAKEN)
    const verdicts = verdictsOf(batch, validator)
    if (checkOnly) return verdicts
    const taken = []
    const targets = []
    const strings = []
    for (let i = 0; i < batch.length; i++) {
      if (verdicts[i] !== STARTED) continue
      const entry = batch[i]
      const path = entry.args?.path
      // A path that is not a string is refused by the engine's check before any read.
      const target = typeof path === 'string' ? resolveToCwd(path, cwd) : ''
      taken.push(entry)
      targets.push(target)
      strings.push(entry.text, target)
    }
    // At most CALLS_PER_TASK reads per task on the thread pool: a turn's reads spread over
    // its threads, each task one crossing back.
    for (let from = 0; from < taken.length; from += CALLS_PER_TASK) {
      const to = Math.min(taken.length, from + CALLS_PER_TASK)
      native.codingReadBatch(strings.slice(2 * from, 2 * to), limits, machine).then(
        (results) => {
          for (let k = from; k < to; k++) finish(taken[k], results[k - from], targets[k], signal)
        },
        (err) => {
          for (let k = from; k < to; k++) taken[k].settle(errorResult(taken[k].toolCallId, 'read', messageOf(err)))
        },
      )
    }
    return verdicts
  }
  return { name: 'read', remoteName: undefined, calls }
}

const messageOf = (err) => (err instanceof Error ? err.message : String(err))

/** The context the tool's `execute` gets for `entry`: the dispatch's, or one built as dispatchToolCall builds it. */
const contextOf = (entry) => entry.context ?? Object.assign({}, entry.base, { toolCallId: entry.toolCallId })

module.exports = { readRoute }
