'use strict'
// The Landlock sandbox helper process: restricts its own main thread with Landlock, then runs
// the command under it (children inherit the restriction) and exits with its status.
// argv[2]: JSON {writable, network, shell, command, probe}.
const { spawn } = require('node:child_process')
const os = require('node:os')
const { landlockRestrictSelf } = require('../../native.js')

const config = JSON.parse(process.argv[2] ?? '{}')
let guarantees
try {
  guarantees = landlockRestrictSelf(config.writable, config.network === true)
} catch (error) {
  process.stderr.write(`landlock sandbox unavailable: ${error.message}\n`)
  process.exit(125)
}
if (config.probe) {
  process.stdout.write(guarantees)
  process.exit(0)
}
const child = spawn(config.shell, ['-c', config.command], { stdio: 'inherit' })
child.once('error', (error) => {
  process.stderr.write(`${error.message}\n`)
  process.exit(127)
})
child.once('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)))
