import cjs from './security.js'
export const {
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
} = cjs
