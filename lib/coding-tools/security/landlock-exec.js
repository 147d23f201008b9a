'use strict'
// The Landlock sandbox helper process. With `probe`, it restricts itself and prints the
// guarantees; otherwise it sets itself to die with its parent, restricts itself with Landlock
// and replaces itself (execve) with `shell -c command`, so nothing but the shell is left.
// argv[2]: JSON {writable, network, shell, command, probe}.
const { landlockRestrictSelf, landlockExec } = require('../../native.js')
const { say } = require('../../engine-words.js')

const config = JSON.parse(process.argv[2] ?? '{}')
try {
  if (config.probe) {
    process.stdout.write(landlockRestrictSelf(config.writable, config.network === true))
    process.exit(0)
  }
  landlockExec(config.writable, config.network === true, config.shell, config.command)
} catch (error) {
  process.stderr.write(`${say('sandboxUnavailable', { backend: 'landlock', detail: `${error.code}: ${error.message}` })}\n`)
  process.exit(125)
}
