'use strict'
// prism-native: the core entry (tool harness, permission and trust, execution policy,
// middleware). The other entries are in lib/ (see package.json "exports").
const errors = require('./lib/core/errors.js')
const security = require('./lib/core/security.js')
const executionPolicy = require('./lib/core/execution-policy.js')
const { createMiddlewareRegistry } = require('./lib/core/middleware.js')
const { createToolRegistry, filterTools } = require('./lib/core/registry.js')
const { createToolParameterValidator } = require('./lib/core/validator.js')
const { dispatchToolCall } = require('./lib/core/dispatch.js')
const { createToolDispatcher } = require('./lib/core/native-dispatch.js')
const loops = require('./lib/core/loops.js')

module.exports = {
  createToolRegistry,
  filterTools,
  dispatchToolCall,
  createToolDispatcher,
  createToolParameterValidator,
  createMiddlewareRegistry,
  createStaticPermissionPolicy: security.createStaticPermissionPolicy,
  checkPermission: security.checkPermission,
  assertPermission: security.assertPermission,
  createStaticTrustPolicy: security.createStaticTrustPolicy,
  isTrusted: security.isTrusted,
  assertTrusted: security.assertTrusted,
  denialToErrorInfo: errors.denialToErrorInfo,
  PermissionDeniedError: errors.PermissionDeniedError,
  TrustDeniedError: errors.TrustDeniedError,
  ExecutionDeniedError: errors.ExecutionDeniedError,
  checkExecution: executionPolicy.checkExecution,
  applyExecutionDecision: executionPolicy.applyExecutionDecision,
  assertExecutionAllowed: executionPolicy.assertExecutionAllowed,
  resolveToolConcurrency: loops.resolveToolConcurrency,
  dispatchToolCallsInOrder: loops.dispatchToolCallsInOrder,
  singleShotLoop: loops.singleShotLoop,
}
