'use strict'
// dispatchToolCall: the JS driver of the engine's dispatch machine
// (`prism_engine::tools::dispatch`). Every decision is the machine's; this file performs the
// host callbacks and reads facts.
//
// The plan: the engine names the steps of a dispatch for the hooks present (`dispatchPlan`,
// asked once per hook mask and cached here), in its frozen gate order; the driver performs
// each step's callback (middleware, trust, permission, the validator, `beforeExecute`,
// `execute`, the redactor, `emit`, the ledger).
//
// The facts read here, in JS, because they are JS values: the registry lookup, the filter's
// answer, whether the arguments are a plain JSON object (the walk over the engine's forbidden
// keys, `json.js`), whether the validator's verdict is truthy, whether `execute`'s value is an
// object, and which step's callback threw. When a fact fails, the driver reports it to the
// binding (`reportCallChecked`, `reportVerdict`, `reportResult`, `reportThrown`), which asks
// the machine's `decide` (the same decision a Rust host's driver applies) and returns what to
// do: go on, rethrow the thrown value, or `[event, result, status]` of a blocked or failed
// call (reason, ErrorInfo shape, redaction, the invalid-result TypeError, the event and the
// ledger status are all the engine's). The driver then emits, appends and returns them.
//
// A successful call crosses no boundary (each crossing that builds an object costs
// microseconds; bench/dispatch.mjs): its `tool_execution_started`/`finished` events, the
// middleware hooks and the trust/permission request are built here from the engine's words
// (`dispatchVocabulary`, read once at load). The one engine rule restated here is the finished
// event's `durationMs` clamp at zero (`duration_ms`, in `finishedEvent`), since asking would
// cost a crossing per call. The context `execute` sees is assembled here too (host values, not engine data).
const native = require('../native.js')
const { isThenable, permissionGate, trustGate } = require('./security.js')
const { compiledFilter } = require('./registry.js')
const { isJsonObject } = require('./json.js')
const { dispatchChecks } = require('./validator.js')

const { CODES, VOCABULARY: WORDS, say } = require('../engine-words.js')
const STARTED = WORDS.started
const FINISHED = WORDS.finished
const STATUS_FINISHED = WORDS.statusFinished
// The middleware hooks of the two middleware gates, and the words of the request the trust and
// permission gates put to the host's policies.
const TOOL_CALL_HOOK = WORDS.toolCallHook
const TOOL_RESULT_HOOK = WORDS.toolResultHook
const REQUEST_KIND = WORDS.requestKind
const REQUEST_ACTION = WORDS.requestAction

// Gate codes (`Gate as u8`) and HookSet bits, by name, from the engine; the driver performs
// whichever gates the engine lists.
const G = Object.freeze({ ...WORDS.gates })
const H = Object.freeze({ ...WORDS.hooks })
/** Ledger-row status codes by wire name (what `native.ledgerRow` takes). */
const ROW = Object.freeze({ ...WORDS.statuses })

// The engine's steps for each hook mask, asked once per mask.
const stepsByMask = new Array(Object.values(H).reduce((all, bit) => all | bit, 0) + 1).fill(undefined)
function stepsFor(mask) {
  let steps = stepsByMask[mask]
  if (steps === undefined) {
    steps = Uint8Array.from(native.dispatchPlan(mask))
    stepsByMask[mask] = steps
  }
  return steps
}

class InvalidDispatchError extends TypeError {
  constructor(message) {
    super(message)
    this.name = 'TypeError'
    this.code = CODES.invalidDispatch
  }
}

// The options, read once into a plain object of one fixed shape (a literal, so V8 keeps one
// hidden class), so a Proxy or getter that throws becomes a clean InvalidDispatchError with
// our message (never the trap's own, which may carry secrets).
function readOptions(o) {
  try {
    return {
      call: o.call,
      registry: o.registry,
      context: o.context,
      emit: o.emit,
      ledger: o.ledger,
      secrets: o.secrets,
      redactor: o.redactor,
      middleware: o.middleware,
      trust: o.trust,
      permission: o.permission,
      validate: o.validate,
      beforeExecute: o.beforeExecute,
      filter: o.filter,
      identity: o.identity,
      ownership: o.ownership,
    }
  } catch {
    throw new InvalidDispatchError(say('dispatchOptionsUnreadable'))
  }
}

/** Checks that a call object can be read (a throwing Proxy or getter cannot). */
function checkCallReadable(call, message) {
  if (call === null || typeof call !== 'object') throw new InvalidDispatchError(message)
  try {
    // Reads only: each field the dispatch uses must be readable.
    void (call.id, call.name, call.arguments, call.argumentsError)
  } catch {
    throw new InvalidDispatchError(message)
  }
}

/** Whether `value` is a JSON object; a value whose traps or getters throw is not. */
function isJsonArguments(value) {
  try {
    return isJsonObject(value)
  } catch {
    return false
  }
}

// The refusals of a call that cannot be read, fetched once (checked on every dispatch).
const NOT_A_CALL = say('dispatchCall')
const NOT_A_MIDDLEWARE_CALL = say('middlewareCall')

/** The `tool_execution_started` event of dispatch `d` (its call as the gates now see it). */
function startedEvent(d) {
  return { type: STARTED, sessionId: d.sessionId, runId: d.runId, call: d.call }
}

/**
 * The `tool_execution_finished` event of dispatch `d` with its `result`; `durationMs` is the
 * engine's `duration_ms` rule (clamped at zero), restated here so a call costs no crossing.
 */
function finishedEvent(d, result) {
  return { type: FINISHED, sessionId: d.sessionId, runId: d.runId, result, metadata: { durationMs: Math.max(0, Date.now() - d.start), status: STATUS_FINISHED } }
}

function emitEvent(emit, event) {
  if (emit === undefined) return undefined
  const r = emit(event)
  return isThenable(r) ? r : undefined
}

/**
 * Runs one tool call through the frozen gate order and returns its ToolResult. Blocked and
 * failed calls are results, never throws; only contract violations (a non-object call, a
 * missing registry) and the reference's rethrown codes reject.
 */
function dispatchToolCall(input) {
  try {
    return prepared(input)
  } catch (err) {
    return Promise.reject(err)
  }
}

/** dispatchToolCall's checks of its options, then its gates (a promise); throws a contract violation. */
function prepared(input) {
  if (input === null || typeof input !== 'object') throw new InvalidDispatchError(say('dispatchNeedsOptions'))
  // The options, read once into a plain object (a hostile Proxy is read only here).
  const options = readOptions(input)
  // The secrets, copied once into a plain array: redaction runs on error paths, where a
  // hostile iterable must not throw in turn.
  if (options.secrets !== undefined && options.secrets !== null) {
    try {
      options.secrets = Array.from(options.secrets)
    } catch {
      throw new InvalidDispatchError(say('dispatchSecrets'))
    }
  }
  const d = startDispatch(options)
  return runGates(d)
}

/**
 * dispatchToolCall for options already read (readOptions, `secrets` copied) and bound once,
 * as `createToolDispatcher` holds them; `engine`, the engine's steps of its gated path, if
 * any (see runGates). Rejects with the InvalidDispatchError of a call that cannot be used.
 */
function dispatchWith(options, call, engine) {
  let d
  try {
    d = startDispatch({ ...options, call })
  } catch (err) {
    return Promise.reject(err)
  }
  d.engine = engine
  return runGates(d)
}

/** The HookSet bits of the hooks `options` has (what the engine plans a dispatch's steps for). */
function hookMask(options) {
  return (
    (options.middleware ? H.MIDDLEWARE : 0) |
    (options.trust ? H.TRUST : 0) |
    (options.permission ? H.PERMISSION : 0) |
    (options.validate ? H.VALIDATE : 0) |
    (options.beforeExecute ? H.BEFORE_EXECUTE : 0) |
    (options.redactor ? H.REDACTOR : 0)
  )
}

/**
 * The record of a dispatch of `options.call` (`options` as readOptions read them, `secrets`
 * copied), its steps planned for the hooks present; throws the InvalidDispatchError of a call,
 * registry or context that cannot be used.
 */
function startDispatch(options) {
  const { registry } = options
  checkCallReadable(options.call, NOT_A_CALL)
  let registryGet
  try {
    registryGet = registry === null || typeof registry !== 'object' ? undefined : registry.get
  } catch {
    registryGet = undefined
  }
  if (typeof registryGet !== 'function') throw new InvalidDispatchError(say('dispatchRegistry'))
  let base = options.context ?? {}
  if (typeof base !== 'object') throw new InvalidDispatchError(say('dispatchContext'))
  // The host's context, copied once (own enumerable fields, as the reference's spread).
  try {
    base = Object.assign({}, base)
  } catch {
    throw new InvalidDispatchError(say('dispatchContextUnreadable'))
  }
  // The dispatch's record (no closure per call; see dispatchRecord).
  const d = dispatchRecord(options, base, options.call, Date.now())
  d.lookup = registryGet
  d.steps = stepsFor(hookMask(options))
  return d
}

/**
 * Performs dispatch `d`'s steps (`d.steps`; its call, tool, context and result live on the
 * record) and resolves to its result: the tool's, or the machine's ending of a blocked or
 * failed call (emitted and appended); rejects when the machine says a thrown value propagates.
 *
 * `d.engine`, when set (a dispatcher of `native-dispatch.js`), runs two steps in the engine
 * for the engine's own tools: at the validator's gate `check(d)` gives `false` (not taken: the
 * validator runs) or a promise of whether the engine passed the arguments (when not, the
 * validator runs and words the refusal); at `execute`'s, `start(d)` gives `undefined` (not
 * taken: `execute` runs) or the promise of the call's result.
 */
async function runGates(d) {
  const { options, steps } = d
  const { emit, ledger, redactor, middleware } = options
  // The machine's ending of a blocked or failed call (`[event, result, status]`), when a fact
  // failed; `gate` is the step being performed, which a throw is reported against.
  let ending
  let gate
  try {
    for (let i = 0; i < steps.length && ending === undefined; i++) {
      gate = steps[i]
      switch (gate) {
        case G.TOOL_CALL_MIDDLEWARE: {
          const call = await middleware.run(TOOL_CALL_HOOK, d.call)
          checkCallReadable(call, NOT_A_MIDDLEWARE_CALL)
          d.call = call
          break
        }
        case G.CHECK_CALL: {
          const call = d.call
          const tool = d.lookup.call(options.registry, call.name)
          d.tool = tool
          const found = tool !== undefined
          let allowed = true
          if (found && options.filter) {
            try {
              allowed = compiledFilter(options.filter).allows(tool.name)
            } catch {
              throw new InvalidDispatchError(say('dispatchFilterUnreadable'))
            }
          }
          // Each fact is read only while the earlier ones hold (the walk is the costly one);
          // the machine decides on them in the same order.
          const jsonObject = found && allowed && !call.argumentsError ? isJsonArguments(call.arguments) : true
          if (!found || !allowed || call.argumentsError || !jsonObject) {
            ending = native.reportCallChecked(d, found, allowed, jsonObject)
          }
          if (ending === undefined) d.context = buildContext(d)
          break
        }
        case G.TRUST: {
          const p = trustGate(options.trust, { kind: REQUEST_KIND, target: d.call.name, capability: REQUEST_ACTION, metadata: d.context.metadata })
          if (p) await p
          break
        }
        case G.PERMISSION: {
          const p = permissionGate(options.permission, { kind: REQUEST_KIND, action: REQUEST_ACTION, target: d.call.name, metadata: d.context.metadata })
          if (p) await p
          break
        }
        case G.VALIDATE: {
          const taken = d.engine === undefined ? false : d.engine.check(d)
          if (taken !== false && (await taken)) break
          // This package's JSON Schema validator checks, words and has the machine decide in one
          // crossing (`validator.js`); any other validator is called as the host wrote it.
          const inEngine = dispatchChecks.get(options.validate)
          if (inEngine !== undefined) {
            const r = inEngine(d.tool, d.call.arguments, d)
            if (Array.isArray(r)) ending = r
            else if (r) ending = native.reportVerdict(d, r)
            break
          }
          let verdict = options.validate(d.tool, d.call.arguments, d.context)
          if (isThenable(verdict)) verdict = await verdict
          if (verdict) ending = native.reportVerdict(d, verdict)
          break
        }
        case G.BEFORE_EXECUTE: {
          const r = options.beforeExecute(d.call, d.tool, d.context)
          if (isThenable(r)) await r
          break
        }
        case G.STARTED: {
          const p = emitEvent(emit, startedEvent(d))
          if (p) await p
          if (ledger) await appendRow(d, ROW.started)
          break
        }
        case G.EXECUTE: {
          let result = d.engine === undefined ? undefined : d.engine.start(d)
          if (result === undefined) result = d.tool.execute(d.call.arguments, d.context)
          if (isThenable(result)) result = await result
          d.result = result
          if (result === null || typeof result !== 'object' || Array.isArray(result)) ending = native.reportResult(d, result)
          break
        }
        case G.RESULT_MIDDLEWARE:
          d.result = await middleware.run(TOOL_RESULT_HOOK, d.result)
          break
        case G.REDACT:
          d.result = redactor.redact(d.result)
          break
        case G.FINISHED: {
          const p = emitEvent(emit, finishedEvent(d, d.result))
          if (p) await p
          if (ledger) await appendRow(d, ROW.finished, undefined, d.result)
          break
        }
      }
    }
  } catch (err) {
    // The machine decides what a throw at this step is: a denial, a failure, or a value that
    // propagates (`null`).
    ending = native.reportThrown(d, gate, err)
    if (ending === null) throw err
  }
  if (ending !== undefined) return end(d, ending)
  return d.result
}

/**
 * The record of one dispatch of `call` (`options` as readOptions read them, with `secrets`
 * copied; `base`, the host's context; `start`, its start time), read by the helpers here and
 * by the binding when it shapes an ending: its id/sessionId/runId/call/startedAt/redacted/
 * ownership fields are what a ledger row needs (the id and start are the engine's when there
 * is a ledger), `start` and `secrets` what an event and an ErrorInfo need.
 */
function dispatchRecord(options, base, call, start) {
  const d = {
    options,
    base,
    call,
    start,
    secrets: options.secrets,
    sessionId: base.sessionId,
    runId: base.runId,
    id: undefined,
    startedAt: undefined,
    redacted: Boolean(options.redactor),
    ownership: options.ownership,
    // The dispatch's state as its gates go: its steps, the registry's `get`, the call's tool,
    // the context `execute` sees, and its result; `engine` and `native`, the engine's steps
    // and their call (see runGates).
    steps: undefined,
    engine: undefined,
    native: undefined,
    lookup: undefined,
    tool: undefined,
    context: undefined,
    result: undefined,
  }
  if (options.ledger) [d.id, d.startedAt] = native.ledgerStart(start)
  return d
}

/**
 * Applies the machine's ending of a blocked or failed call: emits its event, appends its
 * ledger row and returns its result.
 */
async function end(d, [event, result, status]) {
  const p = emitEvent(d.options.emit, event)
  if (p) await p
  if (d.options.ledger) await appendRow(d, status, event.reason, result)
  return result
}

/** Appends the engine's ledger row of this dispatch, passed through the host's redactor. */
function appendRow(d, status, reason, result, progress, progressMetadata, withProgress = false) {
  const { redactor, ledger } = d.options
  const row = native.ledgerRow(d, status, reason, result, progress, progressMetadata, withProgress)
  if (redactor) {
    row.arguments = redactor.redact(row.arguments)
    if (row.result !== undefined) row.result = redactor.redact(row.result)
  }
  return ledger.appendToolCall(row)
}

/**
 * The context `execute` sees: the host's, with `toolCallId` from the call, without
 * `idempotencyKey`, `identity` from the options when set, and a `progress` that calls the
 * host's, then emits `tool_execution_progress`, then writes a `started` ledger row.
 */
function buildContext(d) {
  const { options, base, call } = d
  // Object.assign, not object spread: on Node 20 spreading the host's context costs ~1.5 µs
  // per call, Object.assign ~0.1 µs (bench/dispatch.mjs).
  let context
  if ('idempotencyKey' in base) {
    // Rest destructuring, not `delete`: a deleted key turns the object into a slow dictionary.
    const { idempotencyKey: _dropped, ...rest } = base
    context = Object.assign({}, rest)
  } else {
    context = Object.assign({}, base)
  }
  context.toolCallId = call.id
  if (options.identity !== undefined) context.identity = options.identity
  context.progress = (progress, metadata) => reportProgress(d, progress, metadata)
  return context
}

async function reportProgress(d, progress, metadata) {
  const { options, base } = d
  if (base.progress) await base.progress.call(base, progress, metadata)
  const p = emitEvent(options.emit, native.progressEvent(d.call, d.sessionId, d.runId, progress, metadata))
  if (p) await p
  if (options.ledger) await appendRow(d, ROW.started, undefined, undefined, progress, metadata, true)
}

module.exports = { dispatchToolCall, dispatchWith, readOptions, hookMask, stepsFor, G, H, InvalidDispatchError }
