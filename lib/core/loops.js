'use strict'
// Parallel in-order dispatch of one provider turn, and the single-shot loop.
//
// The concurrency rule of a turn comes from the engine (`parallel::turn_concurrency`, one
// crossing per turn); the worker pool itself awaits host callbacks, so it runs here.
const native = require('../native.js')

/** Throws the signal's reason (an Error) or `Error("Agent run aborted")` once aborted. */
function throwIfAborted(signal) {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('Agent run aborted')
}

function isStrategy(loop) {
  return loop !== null && typeof loop === 'object' && typeof loop.run === 'function'
}

/** The loop's `toolConcurrency` (RunOptions win over AgentConfig); 1 unless a single-shot value >= 1. */
function resolveToolConcurrency(options, config) {
  const loop = options?.loop ?? config?.loop
  if (!loop || typeof loop !== 'object' || isStrategy(loop) || loop.strategy !== 'single-shot') return 1
  const v = loop.toolConcurrency
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 1) return 1
  return Math.floor(v)
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

/**
 * Dispatches one turn's calls with at most `ctx.toolConcurrency` in flight (1 when any call is
 * exclusive) and appends their results to `ctx.history` in call order.
 */
async function dispatchToolCallsInOrder(calls, ctx) {
  if (!Array.isArray(calls)) throw new TypeError('dispatchToolCallsInOrder: calls must be an array of tool calls')
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
  const concurrency = native.turnConcurrency(Number(ctx.toolConcurrency), n, exclusive)
  if (concurrency === 1) {
    for (const call of calls) {
      const message = toolMessage(await ctx.dispatchToolCall(call))
      if (message === undefined) continue
      ctx.history.push(message)
      await ctx.appendMessage(message)
    }
    return
  }
  const results = new Array(n)
  let next = 0
  const signal = ctx.signal
  const worker = async () => {
    while (next < n) {
      throwIfAborted(signal)
      const i = next++
      results[i] = await ctx.dispatchToolCall(calls[i])
    }
  }
  const workers = new Array(concurrency)
  for (let w = 0; w < concurrency; w++) workers[w] = worker()
  await Promise.all(workers)
  for (let i = 0; i < n; i++) {
    throwIfAborted(signal)
    const message = toolMessage(results[i])
    if (message === undefined) continue
    ctx.history.push(message)
    await ctx.appendMessage(message)
  }
}

function toolCallsOf(turn) {
  if (Array.isArray(turn?.toolCalls)) return turn.toolCalls
  const content = turn?.message?.content
  return Array.isArray(content) ? content.filter((b) => b?.type === 'tool_call') : []
}

/**
 * The single-shot loop: generate, dispatch the turn's tool calls (in parallel up to
 * `toolConcurrency`), repeat until the model calls no tool or `maxToolRounds` is reached.
 */
const singleShotLoop = Object.freeze({
  name: 'single-shot',
  revision: '1',
  async run(ctx) {
    let toolRounds = 0
    for (let turn = 1; ; turn++) {
      throwIfAborted(ctx.signal)
      if (ctx.applyPendingSteers) await ctx.applyPendingSteers()
      ctx.emit({ type: 'turn_started', sessionId: ctx.sessionId, runId: ctx.runId, turn })
      const request = await ctx.assemble(ctx.input, undefined, turn)
      throwIfAborted(ctx.signal)
      const result = await ctx.generate(request)
      if (turn === 1) for (const m of ctx.inputMessages ?? []) ctx.history.push(m)
      if (result?.message) {
        ctx.history.push(result.message)
        await ctx.appendMessage(result.message)
        ctx.emit({ type: 'message_finished', sessionId: ctx.sessionId, runId: ctx.runId, message: result.message })
      }
      ctx.emit({ type: 'turn_finished', sessionId: ctx.sessionId, runId: ctx.runId, turn })
      const dispatchable = dispatchableToolCalls(toolCallsOf(result))
      if (dispatchable.length === 0 || toolRounds >= ctx.maxToolRounds) {
        if (ctx.hasPendingSteers?.()) continue
        if (dispatchable.length > 0) ctx.finishReason = 'turn_limit'
        return
      }
      toolRounds++
      await dispatchToolCallsInOrder(dispatchable, ctx)
    }
  },
})

module.exports = { throwIfAborted, resolveToolConcurrency, dispatchableToolCalls, dispatchToolCallsInOrder, singleShotLoop }
