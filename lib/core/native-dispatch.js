'use strict'
// createToolDispatcher: `dispatchToolCall` with its options bound once, whose calls to the
// engine's own tools (an MCP bridge's tools, a read tool made without host code: their
// `execute` is one this package made, `engine-owned.js`) run in the engine, the host's
// callbacks crossing at their own gates only. A read tool's batch is read off the JS thread in
// one crossing (`read-route.js`); what follows says "server" for an MCP bridge or a read tool.
//
// Two paths run such a call.
// - The planned path, when nothing of a dispatch needs host code: no middleware, redactor,
//   `beforeExecute`, `emit` or ledger, the trust and permission policies this package's static
//   ones (pure lookups, asked while planning) and the validator, if any, this package's JSON
//   Schema validator. A call is planned synchronously (`plan`), and the calls the scheduler
//   starts together start in one crossing per MCP server (`start`): the engine checks each
//   call's arguments, as JSON text, against its tool's prepared schema and sends the same bytes
//   to the server. Its result comes back through the bridge's one result callback.
// - The gated path, for every other dispatch whose hooks the engine orders as usual: the JS
//   driver's `runGates` (`dispatch.js`) performs every gate with host code at its place
//   (middleware, the lookup, trust, permission, `beforeExecute`, the events and rows, the
//   redactor), and two steps run in the engine (`engineSteps`): at the validator's gate the
//   engine checks the arguments (this package's validator; a validator of the host's is called
//   as written), at `execute`'s it starts the call. The checks and starts of one tick cross
//   together, one crossing per server and kind; with nothing between the check and the start,
//   one crossing does both. A call the engine does not take (its arguments fail the schema,
//   the schema was evicted, the session closed, the signal aborted) goes on through the
//   validator and `execute` as written, which word its ending: no gate is asked twice.
//
// A call of a tool that is not the engine's takes `dispatchToolCall`. Every path gives what
// `dispatchToolCall` gives.
const { dispatchWith, readOptions, hookMask, stepsFor, G, H, InvalidDispatchError } = require('./dispatch.js')
const { compiledFilter } = require('./registry.js')
const { isJsonObject } = require('./json.js')
const { engineTools, pureChecks, engineValidators } = require('./engine-owned.js')
const native = require('../native.js')
const { VOCABULARY: WORDS, say } = require('../engine-words.js')

const REQUEST_KIND = WORDS.requestKind
const REQUEST_ACTION = WORDS.requestAction
const STARTED = native.MCP_CALL_STARTED
// What the gated path asks of the engine for one call: check its arguments only, check and
// start it, or start it (checked before).
const CHECK = 0
const CHECK_START = 1
const START = 2

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

/** The engine's route for `tool` (its MCP bridge's calls, or a read tool's), or `undefined` when it is not the engine's or its session closed. */
function routeOf(tool) {
  const route = tool === undefined || tool === null ? undefined : engineTools.get(tool.execute)
  return route === undefined || route.calls.isClosed() ? undefined : route
}

/**
 * The native paths of a dispatcher (`options` read once; `js(call)`, its JS path), or
 * `undefined` when no call of it can run natively. `plan(call)` gives a planned call
 * (`{ call, route, remoteName, name, text, toolCallId, schemaId, settle, fail }`) or
 * `undefined`; `start(entries)` starts planned calls, each of which then calls its
 * `settle(result)` or `fail(error)`; `run(call)` is the promise of a call's result by the gated
 * path, or by the JS path for a call the engine cannot take.
 */
function plannerOf(options, js) {
  const { registry, trust, permission, validate, filter, emit, ledger, middleware, redactor, beforeExecute } = options
  // Hooks the JS driver would refuse keep the JS path, which words the refusal.
  if (emit !== undefined && typeof emit !== 'function') return undefined
  if (ledger && typeof ledger.appendToolCall !== 'function') return undefined
  const base = options.context ?? {}
  if (typeof base !== 'object' || typeof registry?.get !== 'function') return undefined
  const validator = validate === undefined || validate === null ? undefined : engineValidators.get(validate)
  const signal = base.signal
  const metadata = base.metadata

  // The gated path's engine steps: the arguments are checked at the validator's gate (this
  // package's validator), the call starts at `execute`'s; the gates before them find the tool.
  const steps = stepsFor(hookMask(options))
  const atExecute = steps.indexOf(G.EXECUTE)
  const atCheck = validator === undefined ? atExecute : steps.indexOf(G.VALIDATE)
  const gated = atExecute > 0 && atCheck > steps.indexOf(G.CHECK_CALL) && atCheck <= atExecute
  // One crossing checks and starts a call when the only step between is a silent started event.
  const checkStarts = emit === undefined && !ledger && steps.subarray(atCheck + 1, atExecute).every((gate) => gate === G.STARTED)

  // The planned path: no host code at any gate.
  const planned =
    !middleware &&
    !redactor &&
    !beforeExecute &&
    emit === undefined &&
    !ledger &&
    !(validate && validator === undefined) &&
    nativeOrder((trust ? H.TRUST : 0) | (permission ? H.PERMISSION : 0) | (validate ? H.VALIDATE : 0))
  if (!planned && !gated) return undefined

  function plan(call) {
    if (!planned) return undefined
    try {
      if (call === null || typeof call !== 'object' || call.argumentsError) return undefined
      const { name, id } = call
      if (typeof name !== 'string' || typeof id !== 'string') return undefined
      // The host's context, copied per call as dispatchToolCall copies it: a getter that
      // throws sends the call to the JS path, which refuses it in its own words.
      const context = Object.assign({}, base)
      const tool = registry.get(name)
      const route = routeOf(tool)
      if (route === undefined || signal?.aborted) return undefined
      if (filter && !compiledFilter(filter).allows(tool.name)) return undefined
      if (!purePasses(trust, { kind: REQUEST_KIND, target: name, capability: REQUEST_ACTION, metadata }, 'trusted')) return undefined
      if (!purePasses(permission, { kind: REQUEST_KIND, action: REQUEST_ACTION, target: name, metadata }, 'allowed')) return undefined
      const args = call.arguments
      if (!isJsonObject(args)) return undefined
      const schemaId = validator === undefined ? 0 : validator.schemaId(tool)
      if (schemaId === undefined) return undefined
      return { call, route, remoteName: route.remoteName, name: route.name, text: JSON.stringify(args), args, base: context, toolCallId: id, schemaId, settle: undefined, fail: undefined }
    } catch {
      // A hostile value (a throwing getter or Proxy): the JS path refuses it in its own words.
      return undefined
    }
  }

  /** Starts planned calls (`settle` and `fail` set): one crossing per bridge. */
  function start(entries) {
    const groups = new Map()
    for (const e of entries) {
      const group = groups.get(e.route.calls)
      if (group === undefined) groups.set(e.route.calls, [e])
      else group.push(e)
    }
    for (const [calls, group] of groups) {
      const verdicts = calls.start(group, validator?.engine, signal)
      // A call the engine did not take: the JS path decides it (its events included).
      for (let i = 0; i < group.length; i++) {
        if (verdicts === undefined || verdicts[i] !== STARTED) js(group[i].call).then(group[i].settle, group[i].fail)
      }
    }
  }

  // The gated path's requests to the engine this tick (`{ calls, kind, entry, answer }`),
  // crossing together when the tick ends.
  let asked = []
  function ask(calls, kind, entry) {
    if (asked.length === 0) queueMicrotask(flush)
    return new Promise((answer) => asked.push({ calls, kind, entry, answer }))
  }
  function flush() {
    const requests = asked
    asked = []
    const groups = new Map()
    for (const r of requests) {
      let byKind = groups.get(r.calls)
      if (byKind === undefined) groups.set(r.calls, (byKind = [[], [], []]))
      byKind[r.kind].push(r)
    }
    for (const [calls, byKind] of groups) {
      for (let kind = CHECK; kind <= START; kind++) {
        const group = byKind[kind]
        if (group.length === 0) continue
        // Nothing is sent to a closed session, nor a start after the signal aborted: the JS
        // driver's `execute` says so, as it would have.
        const verdicts =
          calls.isClosed() || (kind !== CHECK && signal?.aborted)
            ? undefined
            : calls.start(
                group.map((r) => r.entry),
                kind === START ? undefined : validator.engine,
                signal,
                kind === CHECK,
              )
        for (let i = 0; i < group.length; i++) group[i].answer(verdicts !== undefined && verdicts[i] === STARTED)
      }
    }
  }

  /**
   * The engine's steps of a gated dispatch (`d.engine`, performed by runGates): at the
   * validator's gate, the arguments checked in the engine (and the call started, with nothing
   * between); at `execute`'s, the call started. `d.native` is the call the engine took, or
   * `null` once it declined it (the validator and `execute` then run as written).
   */
  const engineSteps = {
    check(d) {
      // A validator of the host's is called as written; the engine still starts the call.
      if (validator === undefined) return false
      const route = routeOf(d.tool)
      const schemaId = route === undefined ? undefined : validator.schemaId(d.tool)
      if (schemaId === undefined) {
        d.native = null
        return false
      }
      const entry = nativeEntry(d, route, schemaId)
      d.native = entry
      return ask(route.calls, checkStarts ? CHECK_START : CHECK, entry).then((passed) => {
        // Refused (the arguments fail the schema, the schema was evicted, the session closed):
        // the validator words it, or prepares the schema again and passes, and `execute` runs.
        if (!passed) d.native = null
        else if (checkStarts) entry.started = true
        return passed
      })
    },
    start(d) {
      let entry = d.native
      if (entry === null) return undefined
      if (entry !== undefined && entry.started) return entry.result
      if (entry === undefined) {
        const route = routeOf(d.tool)
        if (route === undefined) return undefined
        entry = nativeEntry(d, route, 0)
      }
      entry.schemaId = 0
      // Not started (the session closed meanwhile, the signal aborted): `execute` says so.
      return ask(entry.route.calls, START, entry).then((started) => (started ? entry.result : d.tool.execute(d.call.arguments, d.context)))
    },
  }

  /** The engine's call of dispatch `d`, its result a promise (settled by the bridge's result callback). */
  function nativeEntry(d, route, schemaId) {
    const entry = { route, remoteName: route.remoteName, name: route.name, text: JSON.stringify(d.call.arguments), args: d.call.arguments, context: d.context, toolCallId: d.call.id, schemaId, started: false, settle: undefined, result: undefined }
    entry.result = new Promise((settle) => {
      entry.settle = settle
    })
    return entry
  }

  /** Whether `call` (before middleware, which may rename it) names one of the engine's tools. */
  function namesEngineTool(call) {
    try {
      return routeOf(registry.get(call.name)) !== undefined
    } catch {
      return false
    }
  }

  /** A call not planned: the gated path when its tool may be the engine's, else the JS path. */
  function run(call) {
    if (!gated || (!middleware && !namesEngineTool(call))) return js(call)
    // The gated path: the JS driver's gates, with the check and the start in the engine.
    return dispatchWith(options, call, engineSteps)
  }

  return { plan, start, run }
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
  const js = (call) => dispatchWith(read, call)
  const planner = plannerOf(read, js)
  if (planner === undefined) return js
  const dispatch = (call) => {
    const entry = planner.plan(call)
    if (entry === undefined) return planner.run(call)
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
