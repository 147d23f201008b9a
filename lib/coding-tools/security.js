'use strict'
// prism-native/coding-tools/security: the coding execution policy (API.md section 9).
const { createCodingApprovalPolicy } = require('./security/approval-policy.js')
const { evaluateCommandRules, explainCommand, hasShellMetacharacters } = require('./security/command-rules.js')
const { isPathInside, isPathInsideReal, assertPathInsideRoots } = require('./security/paths.js')
const { SandboxExecutionError, createSandboxBashOperations } = require('./security/sandbox.js')
const { createBubblewrapSandbox } = require('./security/bubblewrap.js')
const { createLandlockSandbox, landlockAbiVersion } = require('./security/landlock.js')

module.exports = {
  createCodingApprovalPolicy,
  evaluateCommandRules,
  explainCommand,
  hasShellMetacharacters,
  isPathInside,
  isPathInsideReal,
  assertPathInsideRoots,
  createSandboxBashOperations,
  SandboxExecutionError,
  createBubblewrapSandbox,
  createLandlockSandbox,
  landlockAbiVersion,
}
