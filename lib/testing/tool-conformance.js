'use strict'
// Conformance helpers: the blocked-reason matrix and the success path of a tool.
const { dispatchToolCall } = require('../core/dispatch.js')
const { createStaticPermissionPolicy } = require('../core/security.js')

// The engine's event names and blocked reasons (in gate order).
const { VOCABULARY: WORDS, say } = require('../engine-words.js')
const [UNKNOWN_TOOL, TOOL_DENIED, INVALID_ARGUMENTS, PERMISSION_DENIED, VALIDATION_FAILED] = WORDS.reasons

const BASE_CONTEXT = Object.freeze({ sessionId: 'conformance', runId: 'r', toolCallId: 'call' })

/** Dispatches `probe.call` and returns the result with every event emitted. */
async function dispatchAndCollect(probe) {
  const events = []
  const result = await dispatchToolCall({
    call: probe.call,
    registry: probe.registry,
    context: { ...BASE_CONTEXT, ...probe.context },
    filter: probe.filter,
    permission: probe.permission,
    validate: probe.validate,
    secrets: probe.secrets,
    emit: (event) => {
      events.push(event)
    },
  })
  return { result, events }
}

/** Asserts that `probe` is blocked with `expectedReason`, carries an error and never started. */
async function assertToolBlocked(probe, expectedReason) {
  const { result, events } = await dispatchAndCollect(probe)
  const blocked = events.find((e) => e.type === WORDS.blocked)
  if (!blocked) throw new Error(say('conformanceNoBlockedEvent', { reason: expectedReason }))
  if (blocked.reason !== expectedReason) throw new Error(say('conformanceReasonMismatch', { expected: expectedReason, actual: blocked.reason }))
  if (!result.error) throw new Error(say('conformanceBlockedWithoutError', { reason: expectedReason }))
  if (events.some((e) => e.type === WORDS.started)) {
    throw new Error(say('conformanceStartedWhileBlocked', { reason: expectedReason }))
  }
}

/** Registers `options.tool` and checks every blocked reason and the valid path. */
async function assertToolDispatchConforms(registry, options) {
  const { tool, validArgs } = options
  registry.register(tool)
  const call = (fields) => ({ type: 'tool_call', id: 'call', name: tool.name, arguments: validArgs, ...fields })
  const shared = { registry, secrets: options.secrets }
  await assertToolBlocked({ ...shared, call: call({ name: 'does-not-exist' }) }, UNKNOWN_TOOL)
  await assertToolBlocked({ ...shared, call: call(), filter: { deny: [tool.name] } }, TOOL_DENIED)
  await assertToolBlocked({ ...shared, call: call({ arguments: 'not-an-object' }) }, INVALID_ARGUMENTS)
  await assertToolBlocked({ ...shared, call: call(), permission: createStaticPermissionPolicy(false) }, PERMISSION_DENIED)
  await assertToolBlocked({ ...shared, call: call(), validate: () => 'invalid' }, VALIDATION_FAILED)
  const { result, events } = await dispatchAndCollect({
    ...shared,
    call: call(),
    filter: options.filter,
    permission: options.permission,
    validate: options.validate,
  })
  if (result.error) throw new Error(say('conformanceNotExecuted', { message: result.error.message }))
  if (!events.some((e) => e.type === WORDS.started)) throw new Error(say('conformanceNotStarted'))
  if (events.some((e) => e.type === WORDS.blocked)) throw new Error(say('conformanceBlocked'))
}

module.exports = { assertToolDispatchConforms, assertToolBlocked, dispatchAndCollect }
