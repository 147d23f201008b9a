'use strict'
// Parallel in-order dispatch of one provider turn, and the single-shot loop.
//
// Which calls of a turn start, when the abort signal is checked and which results append are
// the engine's turn scheduler's decisions (`parallel::turn`); this file runs the program of ops
// it writes for the turn over the host's callbacks (one crossing per buffer of ops) and holds no
// rule of its own.
const native = require('../native.js')
const { nativePlannerOf } = require('./native-dispatch.js')
const { CONSTANTS, say } = require('../engine-words.js')
const RUN_ABORTED = CONSTANTS.runAbortedMessage

/** Throws the signal's reason (an Error) or the engine's aborted-run Error once aborted. */
function throwIfAborted(signal) {
  if (signal?.aborted) throw abortError(signal)
}

function isStrategy(loop) {
  return loop !== null && typeof loop === 'object' && typeof loop.run === 'function'
}

/** The loop's `toolConcurrency` (RunOptions win over AgentConfig); 1 unless a single-shot value >= 1. */
function resolveToolConcurrency(options, config) {
  const loop = options?.loop ?? config?.loop
  if (!loop || typeof loop !== 'object' || isStrategy(loop) || loop.strategy !== 'single-shot') return 1
  const v = loop.toolConcurrency
  return native.resolveToolConcurrency(typeof v === 'number' ? v : Number.NaN)
}

/** The calls the host dispatches: all but provider-hosted ones. */
function dispatchableToolCalls(calls) {
  return calls.filter((c) => c.authority !== 'provider-hosted')
}

/** The transcript row of a result, or undefined for an `approvalPending` result (skipped). */
function toolMessage(r) {
  if (r?.metadata?.approvalPending === true) return undefined
  return {
    role: 'tool',
    content: [{ type: 'tool_result', toolCallId: r.toolCallId, name: r.name, result: r.value, error: r.error }, ...(r.content ?? [])],
    metadata: r.metadata,
  }
}

// The engine's turn scheduler, and the numbers of its program's ops (read once).
const { turnNew, turnAdvance } = native
const STEP = native.turnStepWords()
const { start: START, startOnFinish: START_ON_FINISH, wait: WAIT, append: APPEND, done: DONE, kindMask: KIND, checkAbort: CHECK_ABORT, indexShift: SHIFT } = STEP

/** The error an aborted signal ends a run with: its reason when an Error, else the engine's. */
function abortError(signal) {
  return signal.reason instanceof Error ? signal.reason : new Error(RUN_ABORTED)
}

// The programs of recent turn shapes: a program is a pure function of its turn's shape, so a
// turn of a shape seen before runs its kept program and starts without crossing to the engine.
// A shape is kept under one number (a whole `toolConcurrency` below 2^23, the calls, whether
// any is exclusive): building a string key cost more, cold, than the crossing it saves.
const programs = new Map()
const KEYED_CONCURRENCY = 2 ** 23
const SHAPES_PER_CONCURRENCY = 2 ** 29

/**
 * The program of a turn of this shape, whole (ending with done) when it fits in one buffer:
 * `{ ops, length, turn }`, where `turn` (the engine's scheduler) is there only when the
 * program goes on past `ops` (`turnAdvance` writes the rest into `ops`).
 */
function programOf(toolConcurrency, n, exclusive) {
  const keyed = Number.isInteger(toolConcurrency) && toolConcurrency >= 0 && toolConcurrency < KEYED_CONCURRENCY
  const key = keyed ? toolConcurrency * SHAPES_PER_CONCURRENCY + n * 2 + (exclusive ? 1 : 0) : -1
  const kept = keyed ? programs.get(key) : undefined
  if (kept !== undefined) return { ops: kept, length: kept.length, turn: undefined }
  const turn = turnNew(toolConcurrency, n, exclusive)
  const ops = new Uint32Array(Math.min(3 * n + 1, STEP.ioWords))
  const length = turnAdvance(turn, ops)
  if ((ops[length - 1] & KIND) !== DONE) return { ops, length, turn }
  const whole = ops.length === length ? ops : ops.slice(0, length)
  if (keyed) {
    if (programs.size >= STEP.programCacheEntries) programs.delete(programs.keys().next().value)
    programs.set(key, whole)
  }
  return { ops: whole, length, turn: undefined }
}

/**
 * One turn's run of its program: the results, the calls in flight, the queue of ops that start
 * a call when one finishes, and the first failure. Its methods are the driver's steps (a class,
 * not closures: a turn allocates one object, which matters when it starts cold after an idle).
 */
class TurnRun {
  constructor(calls, ctx, planner) {
    this.calls = calls
    this.ctx = ctx
    this.signal = ctx.signal
    // A dispatcher of createToolDispatcher runs the engine's own tools natively: the calls that
    // start together are planned and started at once (`pending`), one crossing per MCP
    // server; every other call runs in a `lane` (by the planner's gated path or the JS path).
    this.planner = planner
    this.results = new Array(calls.length)
    this.inFlight = 0
    this.queued = []
    this.queueHead = 0
    // The first dispatch that failed (a throw or a rejection), or the abort a queued start
    // met, ends the turn with its error.
    this.failed = false
    this.failure = undefined
    this.wake = null
    this.pending = []
    this.flushQueued = false
  }

  wakeDriver() {
    const w = this.wake
    if (w !== null) {
      this.wake = null
      w()
    }
  }

  fail(e) {
    if (!this.failed) {
      this.failed = true
      this.failure = e
    }
    this.wakeDriver()
  }

  /** Starts the planned calls waiting to go out together. */
  startPending() {
    this.flushQueued = false
    if (this.pending.length === 0) return
    this.planner.start(this.pending.splice(0))
  }

  /**
   * The call a finish starts next (counted in flight), or -1: none is queued (the driver wakes
   * once nothing is in flight), the turn failed, the abort signal stopped it, or the planner
   * took it. Runs in a lane or a native call's settle, so nothing it meets may throw there: a
   * host's signal whose `aborted` throws fails the turn with that error.
   */
  nextQueued() {
    try {
      if (this.failed) return -1
      if (this.queueHead === this.queued.length) {
        if (this.inFlight === 0) this.wakeDriver()
        return -1
      }
      const op = this.queued[this.queueHead++]
      if (op & CHECK_ABORT && this.signal?.aborted) {
        this.fail(abortError(this.signal))
        return -1
      }
      this.inFlight++
      const i = op >>> SHIFT
      if (this.planner !== undefined && this.planEntry(i)) {
        if (!this.flushQueued) {
          this.flushQueued = true
          queueMicrotask(() => {
            try {
              this.startPending()
            } catch (e) {
              this.fail(e)
            }
          })
        }
        return -1
      }
      return i
    } catch (e) {
      this.fail(e)
      return -1
    }
  }

  /**
   * Dispatches call `i` and, as each call finishes, the next queued one: as a worker of a plain
   * pool does, one await per call (a `then` per call measured slower: a promise and a closure
   * each).
   */
  async lane(i) {
    const { calls, ctx, planner } = this
    for (;;) {
      let result
      try {
        result = await (planner === undefined ? ctx.dispatchToolCall(calls[i]) : planner.run(calls[i]))
      } catch (e) {
        this.fail(e)
        return
      }
      this.results[i] = result
      this.inFlight--
      i = this.nextQueued()
      if (i < 0) return
    }
  }

  /** Plans call `i` natively when its tool is the engine's: true when it is pending. */
  planEntry(i) {
    const entry = this.planner.plan(this.calls[i])
    if (entry === undefined) return false
    entry.settle = (result) => {
      this.results[i] = result
      this.inFlight--
      const next = this.nextQueued()
      if (next >= 0) this.lane(next)
    }
    entry.fail = (e) => this.fail(e)
    this.pending.push(entry)
    return true
  }

  /** Runs the program (`ops[0..length]`, continued by `turn` when it is longer). */
  async run(ops, length, turn) {
    const { ctx, signal, results, queued } = this
    try {
      for (;;) {
        for (let j = 0; j < length; j++) {
          const op = ops[j]
          const kind = op & KIND
          if (kind === APPEND) {
            if (op & CHECK_ABORT) throwIfAborted(signal)
            const i = op >>> SHIFT
            const message = toolMessage(results[i])
            results[i] = undefined
            if (message === undefined) continue
            ctx.history.push(message)
            await ctx.appendMessage(message)
          } else if (kind === START_ON_FINISH) {
            queued.push(op)
          } else if (kind === START) {
            if (op & CHECK_ABORT) throwIfAborted(signal)
            this.inFlight++
            const i = op >>> SHIFT
            if (this.planner === undefined || !this.planEntry(i)) this.lane(i)
          } else if (kind === WAIT) {
            this.startPending()
            if (!this.failed && (this.inFlight > 0 || this.queueHead < queued.length)) {
              await new Promise((resolve) => {
                this.wake = resolve
              })
            }
            if (this.failed) throw this.failure
            queued.length = 0
            this.queueHead = 0
          } else {
            return
          }
        }
        // A long turn's program goes on in the next buffer.
        length = turnAdvance(turn, ops)
      }
    } finally {
      // Calls the scheduler started before a throw (an abort) are started, as the reference's
      // workers had started theirs.
      this.startPending()
    }
  }
}

/**
 * Dispatches one turn's calls and appends their results to `ctx.history` in call order, as the
 * engine's turn scheduler (`native.turnNew`) directs: which calls start (at most
 * `ctx.toolConcurrency` in flight, 1 when any call is exclusive), when the abort signal is
 * checked, and which result appends next. The engine writes the turn as a program of ops
 * (`turnAdvance`); a `TurnRun` runs them over the host's callbacks.
 */
async function dispatchToolCallsInOrder(calls, ctx) {
  if (!Array.isArray(calls)) throw new TypeError(say('inOrderCalls'))
  const n = calls.length
  if (n === 0) return
  if (ctx.chargeToolRound) await ctx.chargeToolRound(calls)
  let exclusive = false
  if (typeof ctx.isToolCallExclusive === 'function') {
    for (const c of calls) {
      if (ctx.isToolCallExclusive(c) === true) {
        exclusive = true
        break
      }
    }
  }
  const { ops, length, turn } = programOf(Number(ctx.toolConcurrency), n, exclusive)
  return new TurnRun(calls, ctx, nativePlannerOf(ctx.dispatchToolCall)).run(ops, length, turn)
}

/**
 * Reads one provider turn (`{ content, calls, messageId?, started, usage? }`, the shape the
 * host runtime's `generate` resolves to). A result that is not that shape is a host bug: fail
 * the run with a TypeError instead of silently ending it with no tool run.
 */
function readProviderTurn(result) {
  if (result === null || typeof result !== 'object') {
    throw new TypeError(say('providerTurn'))
  }
  const { content, calls, messageId, started, usage } = result
  if (!Array.isArray(calls)) throw new TypeError(say('providerTurnCalls'))
  if (started && !Array.isArray(content)) throw new TypeError(say('providerTurnContent'))
  return { content, calls, messageId, started: Boolean(started), usage }
}

/**
 * The single-shot loop: assemble (the user's input on turn 1, nothing new after), generate,
 * record the assistant message, dispatch the turn's host calls through
 * `dispatchToolCallsInOrder`, and repeat until the model calls no host tool or
 * `maxToolRounds` rounds have run (then `ctx.finishReason = "turn_limit"`). Resolves to the
 * last usage a turn reported.
 */
const singleShotLoop = Object.freeze({
  name: 'single-shot',
  revision: '1',
  async run(ctx) {
    let usage
    let toolRounds = 0
    let nextInput = ctx.input
    for (let turn = 1; ; turn++) {
      throwIfAborted(ctx.signal)
      if (ctx.applyPendingSteers) await ctx.applyPendingSteers()
      ctx.emit({ type: 'turn_started', sessionId: ctx.sessionId, runId: ctx.runId, turn })
      const request = await ctx.assemble(nextInput, undefined, turn)
      throwIfAborted(ctx.signal)
      const providerTurn = readProviderTurn(await ctx.generate(request))
      if (providerTurn.usage !== undefined) usage = providerTurn.usage
      if (turn === 1) for (const m of ctx.inputMessages ?? []) ctx.history.push(m)
      if (providerTurn.started) {
        const message = { id: providerTurn.messageId, role: 'assistant', content: providerTurn.content }
        ctx.history.push(message)
        await ctx.appendMessage(message)
        ctx.emit({ type: 'message_finished', sessionId: ctx.sessionId, runId: ctx.runId, message })
      }
      ctx.emit({ type: 'turn_finished', sessionId: ctx.sessionId, runId: ctx.runId, turn })
      const dispatchable = dispatchableToolCalls(providerTurn.calls)
      const ceiling = toolRounds >= ctx.maxToolRounds
      if (dispatchable.length === 0 || ceiling) {
        // Calls left over at the ceiling: the run ends cleanly, but not naturally.
        if (dispatchable.length > 0) ctx.finishReason = 'turn_limit'
        // Steers that arrived during the last turn keep the same run going.
        if (ctx.applyPendingSteers && (await ctx.applyPendingSteers())) {
          nextInput = []
          continue
        }
        return usage
      }
      toolRounds++
      await dispatchToolCallsInOrder(dispatchable, ctx)
      nextInput = []
    }
  },
})

module.exports = { throwIfAborted, resolveToolConcurrency, dispatchableToolCalls, dispatchToolCallsInOrder, singleShotLoop }
