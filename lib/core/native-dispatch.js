'use strict'
// createToolDispatcher: `dispatchToolCall` with its options bound once, whose calls to the
// engine's own tools run in the engine.
//
// A call runs natively when nothing of it needs host code but `emit` and the ledger: its
// tool's `execute` is one this package made (an MCP bridge's tool, `engine-owned.js`), the
// options have no middleware, redactor or `beforeExecute`, the trust and permission policies are this
// package's static ones (pure lookups, asked here) and the validator, if any, is this
// package's JSON Schema validator. Then the call's arguments cross once as JSON text, the
// engine checks them against the tool's prepared schema and sends the same bytes to the
// server, and its result comes back through the bridge's one result callback: no gate, no
// validator crossing and no `execute` of its own on the JS thread. With `emit` or a ledger,
// each event and row is delivered at its point in the gate order and awaited as
// dispatchToolCall awaits it: the calls are checked first, and each starts once its started
// event and row were delivered.
//
// Every other call, and a native one the engine did not start (its arguments fail the
// schema, the schema was evicted, the session closed), takes `dispatchToolCall`, which
// decides it as always: a native call is one whose every gate would have passed, so both
// paths give the same result.
const { dispatchToolCall, readOptions, dispatchRecord, executeThrew, appendRow, emitEvent, startedEvent, finishedEvent, stepsFor, G, H, ROW, InvalidDispatchError } = require('./dispatch.js')
const { isThenable } = require('./security.js')
const { compiledFilter } = require('./registry.js')
const { isJsonObject } = require('./json.js')
const { engineTools, pureChecks, engineValidators } = require('./engine-owned.js')
const native = require('../native.js')
const { VOCABULARY: WORDS, say } = require('../engine-words.js')

const REQUEST_KIND = WORDS.requestKind
const REQUEST_ACTION = WORDS.requestAction
const STARTED = native.MCP_CALL_STARTED

/** The native planners of the dispatchers made here, by dispatcher function. */
const planners = new WeakMap()

/**
 * Whether the engine's steps for these hooks are the ones a native call performs, in its
 * order: the call check, the trust, permission and validator gates (asked in planning and
 * in the engine's check), then the started event and row, `execute` and the finished event
 * and row. The gate order is the engine's: a plan with any other step keeps the JS path.
 */
function nativeOrder(mask) {
  const want = [G.CHECK_CALL]
  if (mask & H.TRUST) want.push(G.TRUST)
  if (mask & H.PERMISSION) want.push(G.PERMISSION)
  if (mask & H.VALIDATE) want.push(G.VALIDATE)
  want.push(G.STARTED, G.EXECUTE, G.FINISHED)
  const steps = stepsFor(mask)
  return steps.length === want.length && want.every((gate, i) => steps[i] === gate)
}

/** Whether a static policy's `check` (read now: a host may have replaced it) passes `request`. */
function purePasses(policy, request, field) {
  if (policy === undefined || policy === null) return true
  const check = policy.check
  if (!pureChecks.has(check)) return false
  const decision = check(request)
  return decision !== null && typeof decision === 'object' && decision[field] === true
}

/**
 * The planner of a dispatcher whose options let calls run natively, or `undefined`.
 * `plan(call)` gives a native call (`{ route, remoteName, name, text, toolCallId, schemaId }`)
 * or `undefined` for the JS path; `start(entries)` starts planned calls, each of which then
 * calls its `settle(result)` or `fail(error)`; `js(call)` is the JS path.
 */
function plannerOf(options, js) {
  const { registry, trust, permission, validate, filter, emit, ledger } = options
  if (options.middleware || options.redactor || options.beforeExecute) return undefined
  if (emit !== undefined && typeof emit !== 'function') return undefined
  if (ledger && typeof ledger.appendToolCall !== 'function') return undefined
  // With `emit` or a ledger, the calls are checked, announced, then started (checkThenStart).
  const announces = emit !== undefined || Boolean(ledger)
  if (!nativeOrder((trust ? H.TRUST : 0) | (permission ? H.PERMISSION : 0) | (validate ? H.VALIDATE : 0))) return undefined
  const validator = validate === undefined || validate === null ? undefined : engineValidators.get(validate)
  if (validate && validator === undefined) return undefined
  const base = options.context ?? {}
  if (typeof base !== 'object' || typeof registry?.get !== 'function') return undefined
  const signal = base.signal
  const metadata = base.metadata

  function plan(call) {
    try {
      if (call === null || typeof call !== 'object' || call.argumentsError) return undefined
      const { name, id } = call
      if (typeof name !== 'string' || typeof id !== 'string') return undefined
      const tool = registry.get(name)
      const route = tool === undefined ? undefined : engineTools.get(tool.execute)
      if (route === undefined || route.calls.isClosed() || signal?.aborted) return undefined
      if (filter && !compiledFilter(filter).allows(tool.name)) return undefined
      if (!purePasses(trust, { kind: REQUEST_KIND, target: name, capability: REQUEST_ACTION, metadata }, 'trusted')) return undefined
      if (!purePasses(permission, { kind: REQUEST_KIND, action: REQUEST_ACTION, target: name, metadata }, 'allowed')) return undefined
      const args = call.arguments
      if (!isJsonObject(args)) return undefined
      const schemaId = validator === undefined ? 0 : validator.schemaId(tool)
      if (schemaId === undefined) return undefined
      return { call, start: Date.now(), route, remoteName: route.remoteName, name: route.name, text: JSON.stringify(args), toolCallId: id, schemaId, settle: undefined, fail: undefined, done: undefined, d: undefined }
    } catch {
      // A hostile value (a throwing getter or Proxy): the JS path refuses it in its own words.
      return undefined
    }
  }

  /**
   * Starts `entries` (planned calls with `settle` and `fail` set): one crossing per bridge, or
   * with `emit` two (the check, then the start of the calls whose started event was emitted).
   */
  function start(entries) {
    const groups = new Map()
    for (const e of entries) {
      const group = groups.get(e.route.calls)
      if (group === undefined) groups.set(e.route.calls, [e])
      else group.push(e)
    }
    for (const [calls, group] of groups) {
      if (!announces) {
        const verdicts = calls.start(group, validator?.engine, signal)
        for (let i = 0; i < group.length; i++) if (verdicts === undefined || verdicts[i] !== STARTED) fallBack(group[i])
        continue
      }
      checkThenStart(calls, group)
    }
  }

  /** A planned call the engine did not take: the JS path decides it (its events included). */
  function fallBack(e) {
    js(e.call).then(e.settle, e.fail)
  }

  /**
   * With `emit` or a ledger: the calls are checked first; each that passes gets its started
   * event and ledger row (each awaited when it is a promise) before it starts, and its
   * finished event and row before it settles, as dispatchToolCall's gates do.
   */
  function checkThenStart(calls, group) {
    const verdicts = calls.start(group, validator?.engine, signal, true)
    const now = []
    for (let i = 0; i < group.length; i++) {
      const e = group[i]
      if (verdicts === undefined || verdicts[i] !== STARTED) {
        fallBack(e)
        continue
      }
      // `settle` after the finished event; `done`, the call's own (for a failure's result).
      const done = e.settle
      e.done = done
      e.settle = (result) => finished(e, result, done)
      let p
      try {
        e.d = dispatchRecord(options, base, e.call, e.start)
        p = afterEvent(emitEvent(emit, startedEvent(e.d)), () => ledger && appendRow(e.d, ROW.started))
      } catch (err) {
        e.fail(err)
        continue
      }
      if (p === undefined) now.push(e)
      else p.then(() => launch(calls, [e]), e.fail)
    }
    if (now.length > 0) launch(calls, now)
  }

  /**
   * `next()` after `event` (an emit's promise, or `undefined` when it was synchronous): a
   * promise when either is one, else `undefined` (a synchronous throw propagates).
   */
  function afterEvent(event, next) {
    if (event !== undefined) return event.then(next)
    const r = next()
    return isThenable(r) ? r : undefined
  }

  /** Starts calls already checked (and announced); a session closed meanwhile fails them as execute would. */
  function launch(calls, group) {
    const verdicts = calls.isClosed() ? undefined : calls.start(group, undefined, signal)
    for (let i = 0; i < group.length; i++) {
      if (verdicts !== undefined && verdicts[i] === STARTED) continue
      const e = group[i]
      executeThrew(e.d, calls.closedError()).then(e.done, e.fail)
    }
  }

  /** The finished event and ledger row of a native call (awaited as dispatchToolCall awaits them), then its result. */
  function finished(e, result, settle) {
    let p
    try {
      const event = emitEvent(emit, finishedEvent(e.d, result))
      p = afterEvent(event, () => ledger && appendRow(e.d, ROW.finished, undefined, result))
    } catch (err) {
      e.fail(err)
      return
    }
    if (p === undefined) settle(result)
    else p.then(() => settle(result), e.fail)
  }

  return { plan, start, js }
}

/**
 * `(call) => Promise<ToolResult>`: `dispatchToolCall({ ...options, call })` with `options`
 * read once, now (a host that changes them afterwards makes a new dispatcher). Calls to the
 * engine's own tools whose gates need no host code run in the engine (see the top of this
 * file); `dispatchToolCallsInOrder` given this as `ctx.dispatchToolCall` starts such calls of a
 * turn together, one crossing per MCP server.
 */
function createToolDispatcher(options) {
  if (options === null || typeof options !== 'object') throw new InvalidDispatchError(say('dispatchNeedsOptions'))
  const read = readOptions(options)
  if (read.secrets !== undefined && read.secrets !== null) {
    try {
      read.secrets = Array.from(read.secrets)
    } catch {
      throw new InvalidDispatchError(say('dispatchSecrets'))
    }
  }
  const js = (call) => dispatchToolCall({ ...read, call })
  const planner = plannerOf(read, js)
  if (planner === undefined) return js
  const dispatch = (call) => {
    const entry = planner.plan(call)
    if (entry === undefined) return js(call)
    return new Promise((resolve, reject) => {
      entry.settle = resolve
      entry.fail = reject
      planner.start([entry])
    })
  }
  planners.set(dispatch, planner)
  return dispatch
}

/** The native planner of a dispatcher made by createToolDispatcher, or `undefined`. */
function nativePlannerOf(dispatch) {
  return typeof dispatch === 'function' ? planners.get(dispatch) : undefined
}

module.exports = { createToolDispatcher, nativePlannerOf }
