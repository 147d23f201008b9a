'use strict'
// Parallel in-order dispatch of one provider turn, and the single-shot loop.
//
// Which calls of a turn start, when the abort signal is checked and which results append are
// the engine's turn scheduler's decisions (`parallel::turn`); this file drives it over the
// host's callbacks (one crossing per wake-up carries the calls that finished and brings back
// the next steps) and holds no rule of its own.
const native = require('../native.js')
const { nativePlannerOf } = require('./native-dispatch.js')
const { CONSTANTS, say } = require('../engine-words.js')
const RUN_ABORTED = CONSTANTS.runAbortedMessage

/** Throws the signal's reason (an Error) or the engine's aborted-run Error once aborted. */
function throwIfAborted(signal) {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error(RUN_ABORTED)
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

// The engine's turn scheduler, and the numbers of its steps (read once).
const { turnNew, turnAdvance } = native
const STEP = native.turnStepWords()

/**
 * Dispatches one turn's calls and appends their results to `ctx.history` in call order, as the
 * engine's turn scheduler (`native.turnNew`) directs: which calls start (at most
 * `ctx.toolConcurrency` in flight, 1 when any call is exclusive), when the abort signal is
 * checked, and which result appends next. This driver only calls the host's callbacks.
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
  const turn = turnNew(Number(ctx.toolConcurrency), n, exclusive)
  const signal = ctx.signal
  const results = new Array(n)
  // Steps come back in `io`; finished calls go to the engine through it too.
  const io = new Uint32Array(Math.min(n, STEP.ioWords) + 1)
  const finished = []
  // The first dispatch that failed ends the turn with its error.
  let failed = false
  let failure
  let wake = null
  const settled = () => {
    if (wake !== null) {
      const w = wake
      wake = null
      w()
    }
  }
  // A dispatcher of createToolDispatcher runs the engine's own tools natively: the calls the
  // scheduler starts together are planned here and started at once before the driver waits
  // (`pending`), one crossing per MCP server; every other call is `run` (by the planner's gated
  // path or the JS path).
  const planner = nativePlannerOf(ctx.dispatchToolCall)
  // The first dispatch that failed (a throw or a rejection) fails the turn.
  const onFail = (e) => {
    if (!failed) {
      failed = true
      failure = e
    }
    settled()
  }
  // A call's dispatch, its result taken by a `then` (an async wrapper per call measured 12%
  // slower over 10,000 trivial calls: one more promise and suspended frame each).
  const run = (i) => {
    let p
    try {
      p = planner === undefined ? ctx.dispatchToolCall(calls[i]) : planner.run(calls[i])
    } catch (e) {
      onFail(e)
      return
    }
    Promise.resolve(p).then((result) => {
      results[i] = result
      finished.push(i)
      settled()
    }, onFail)
  }
  const pending = []
  const startPending = () => {
    if (pending.length === 0) return
    const entries = pending.splice(0)
    planner.start(entries)
  }
  const begin = (i) => {
    const entry = planner === undefined ? undefined : planner.plan(calls[i])
    if (entry === undefined) return run(i)
    entry.settle = (result) => {
      results[i] = result
      finished.push(i)
      settled()
    }
    entry.fail = onFail
    pending.push(entry)
  }
  let head = 0
  try {
    for (;;) {
      let k = 0
      while (head < finished.length && k < io.length) io[k++] = finished[head++]
      if (head === finished.length) {
        finished.length = 0
        head = 0
      }
      const m = turnAdvance(turn, io, k)
      for (let j = 0; j < m; j++) {
        const step = io[j]
        const kind = step & STEP.kindMask
        const i = step >>> STEP.indexShift
        if (kind === STEP.start) {
          if (step & STEP.checkAbort) throwIfAborted(signal)
          begin(i)
        } else if (kind === STEP.wait) {
          startPending()
          if (failed) throw failure
          if (finished.length === head) {
            await new Promise((resolve) => {
              wake = resolve
            })
            if (failed) throw failure
          }
        } else if (kind === STEP.append) {
          if (step & STEP.checkAbort) throwIfAborted(signal)
          const message = toolMessage(results[i])
          results[i] = undefined
          if (message === undefined) continue
          ctx.history.push(message)
          await ctx.appendMessage(message)
        } else {
          return
        }
      }
    }
  } finally {
    // Calls the scheduler started before a throw (an abort) are started, as the reference's
    // workers had started theirs.
    startPending()
  }
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
