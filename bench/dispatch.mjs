// 100,000 dispatches of a trivial async tool through dispatchToolCall, without hooks and with
// permission + validator hooks, side by side with a plain-JS gate sequence that does the same
// work (lookup, filter, JSON-object argument check, context with progress, started/finished
// events, result). Prints ns per call, the ratio, and RSS growth after GC.
//
// With PRISM_REFERENCE_TOOLS set to the reference's built `dist/tools.js`, the same cases are
// also timed through the reference's own dispatchToolCall in the same run (target: ours
// <= 0.25x the reference's).
import { pathToFileURL } from 'node:url'
import { createStaticPermissionPolicy, createToolRegistry, dispatchToolCall } from 'prism-native'
import { median, printTable, rssAfterGc } from './_stats.mjs'

const referencePath = process.env.PRISM_REFERENCE_TOOLS
const reference = referencePath ? await import(pathToFileURL(referencePath).href) : undefined

const N = 100_000
const ROUNDS = 7

const tool = { name: 'noop', execute: async (args, context) => ({ toolCallId: context.toolCallId, name: 'noop', value: args.n }) }
const registry = createToolRegistry([tool])
const permission = createStaticPermissionPolicy({ allow: ['tool:noop:execute'] })
const validate = (t, args) => (typeof args.n === 'number' ? undefined : 'n must be a number')
const context = { sessionId: 's', runId: 'r', toolCallId: 'c' }
const call = { type: 'tool_call', id: 'c1', name: 'noop', arguments: { n: 1, text: 'hello', flags: [true, false] } }
let sink = 0
const emit = (e) => {
  sink += e.type.length
}

// ---- the plain-JS baseline: the same gates, events and shapes, written directly (context
// without idempotencyKey, identity, the non-object result check) ----
function plainIsJsonValue(v, depth) {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(v)
    case 'object': {
      if (v === null) return true
      if (depth > 64) return false
      if (Array.isArray(v)) return v.every((x) => plainIsJsonValue(x, depth + 1))
      const proto = Object.getPrototypeOf(v)
      if (proto !== Object.prototype && proto !== null) return false
      for (const k of Object.keys(v)) {
        if (k === '__proto__' || k === 'prototype' || k === 'constructor' || !plainIsJsonValue(v[k], depth + 1)) return false
      }
      return true
    }
    default:
      return false
  }
}
async function plainDispatch(o) {
  const start = Date.now()
  const c = o.call
  const t = o.registry.get(c.name)
  const blocked = (reason, error) => {
    o.emit?.({ type: 'tool_execution_blocked', sessionId: o.context.sessionId, runId: o.context.runId, toolCallId: c.id, name: c.name, reason, error, metadata: { durationMs: Date.now() - start, status: 'blocked' } })
    return { toolCallId: c.id, name: c.name, error }
  }
  if (!t) return blocked('unknown_tool', { message: `Unknown tool: ${c.name}` })
  if (c.arguments === null || typeof c.arguments !== 'object' || Array.isArray(c.arguments) || !plainIsJsonValue(c.arguments, 0)) {
    return blocked('invalid_arguments', { message: 'Tool arguments must be a JSON object' })
  }
  let ctx
  if ('idempotencyKey' in o.context) {
    const { idempotencyKey: _dropped, ...rest } = o.context
    ctx = Object.assign({}, rest)
  } else ctx = Object.assign({}, o.context)
  ctx.toolCallId = c.id
  if (o.identity !== undefined) ctx.identity = o.identity
  ctx.progress = async (p, m) => o.emit?.({ type: 'tool_execution_progress', sessionId: ctx.sessionId, runId: ctx.runId, toolCallId: c.id, name: c.name, progress: p, metadata: m })
  if (o.permission) {
    const d = await o.permission.check({ kind: 'tool', action: 'execute', target: c.name, metadata: ctx.metadata })
    if (!d.allowed) return blocked('permission_denied', { name: 'PermissionDeniedError', message: d.reason, code: 'ERR_PRISM_PERMISSION_DENIED' })
  }
  if (o.validate) {
    const v = await o.validate(t, c.arguments, ctx)
    if (v) return blocked('validation_failed', typeof v === 'string' ? { message: v, code: undefined } : v)
  }
  o.emit?.({ type: 'tool_execution_started', sessionId: ctx.sessionId, runId: ctx.runId, call: c })
  try {
    const result = await t.execute(c.arguments, ctx)
    if (result === null || typeof result !== 'object' || Array.isArray(result)) throw new TypeError(`Tool ${c.name} returned a non-object`)
    o.emit?.({ type: 'tool_execution_finished', sessionId: ctx.sessionId, runId: ctx.runId, result, metadata: { durationMs: Date.now() - start, status: 'finished' } })
    return result
  } catch (err) {
    const error = { name: err.name, message: err.message, code: err.code, cause: undefined }
    o.emit?.({ type: 'tool_execution_error', sessionId: ctx.sessionId, runId: ctx.runId, call: c, error, metadata: { durationMs: Date.now() - start, status: 'error' } })
    return { toolCallId: c.id, name: c.name, error }
  }
}

async function nsPerCall(dispatch, options) {
  globalThis.gc?.()
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < N; i++) {
    const r = await dispatch(options)
    if (r.error) throw new Error(r.error.message)
  }
  return Number(process.hrtime.bigint() - t0) / N
}

const bare = { call, registry, context, emit }
const hooked = { ...bare, permission, validate }
const refRegistry = reference?.createToolRegistry([tool])
const rows = []
const refRows = []
for (const [label, options, target] of [
  ['no hooks', bare, '<= 1.0'],
  ['permission + validator', hooked, '<= 1.2'],
]) {
  // Interleave the sides round by round so that machine noise hits all alike.
  const refOptions = reference ? { ...options, registry: refRegistry } : undefined
  const nat = []
  const peer = []
  const ref = []
  await nsPerCall(dispatchToolCall, options)
  await nsPerCall(plainDispatch, options)
  if (reference) await nsPerCall(reference.dispatchToolCall, refOptions)
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which side goes first so that warm-up and GC drift hit both alike.
    if (r % 2) {
      nat.push(await nsPerCall(dispatchToolCall, options))
      peer.push(await nsPerCall(plainDispatch, options))
      if (reference) ref.push(await nsPerCall(reference.dispatchToolCall, refOptions))
    } else {
      if (reference) ref.push(await nsPerCall(reference.dispatchToolCall, refOptions))
      peer.push(await nsPerCall(plainDispatch, options))
      nat.push(await nsPerCall(dispatchToolCall, options))
    }
  }
  const native = median(nat)
  const base = median(peer)
  rows.push({ case: `${label} (${N.toLocaleString('en')} calls)`, native, peer: base, unit: 'ns/call', ratio: native / base, target })
  if (reference) refRows.push({ case: `${label} (${N.toLocaleString('en')} calls)`, native, peer: median(ref), unit: 'ns/call', ratio: native / median(ref), target: '<= 0.25' })
}
printTable('dispatchToolCall vs a plain-JS gate sequence (median of 7 rounds)', rows)
if (reference) printTable("dispatchToolCall vs the reference's dispatchToolCall (same rounds)", refRows)

const before = rssAfterGc()
for (let r = 0; r < 3; r++) await nsPerCall(dispatchToolCall, hooked)
const after = rssAfterGc()
console.log(`\nRSS after GC: ${before.toFixed(1)} MiB before, ${after.toFixed(1)} MiB after 300,000 more dispatches (growth ${(after - before).toFixed(1)} MiB; target <= 20 MiB)`)
if (sink === 0) console.log('')
