'use strict'
// The structured pre-execution seam (path/command/risk), distinct from name-based permission.
const { ExecutionDeniedError } = require('./errors.js')

const ALLOW = Object.freeze({ allowed: true })

/** The policy's decision for `action`; no policy allows everything. */
async function checkExecution(policy, action) {
  if (!policy) return ALLOW
  return await policy.check(action)
}

/** `action` with the decision's `modified` fields laid over it (shallow). */
function applyExecutionDecision(action, decision) {
  return { ...action, ...decision?.modified }
}

/**
 * The action to perform: the same `action` when there is no policy, the modified action when
 * the policy allows it. Throws ExecutionDeniedError when it does not.
 */
async function assertExecutionAllowed(policy, action) {
  if (!policy) return action
  const decision = await policy.check(action)
  if (!decision || decision.allowed !== true) throw new ExecutionDeniedError(action, decision)
  return applyExecutionDecision(action, decision)
}

module.exports = { checkExecution, applyExecutionDecision, assertExecutionAllowed }
