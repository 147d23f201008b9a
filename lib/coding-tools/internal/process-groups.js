'use strict'
// The engine's process groups (shell commands, sandboxed commands) end with the host.
const native = require('../../native.js')

let exitHookInstalled = false
/** On host exit, no command's process group outlives it. */
function killGroupsOnExit() {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => native.codingShellKillAll())
}

module.exports = { killGroupsOnExit }
