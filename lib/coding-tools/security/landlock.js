'use strict'
// The Landlock sandbox backend (placeholder until the native part lands).
const { SandboxExecutionError } = require('./sandbox.js')
function landlockAbiVersion() {
  return 0
}
async function createLandlockSandbox() {
  throw new SandboxExecutionError('landlock sandbox unavailable: not built')
}
module.exports = { createLandlockSandbox, landlockAbiVersion }
