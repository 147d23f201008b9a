'use strict'
// The Landlock sandbox backend: each command starts a helper process that restricts itself
// with Landlock (writes only beneath the roots, no TCP unless asked, signals and abstract
// sockets scoped on ABI 6+) and then becomes the shell (execve), set to be killed when the
// host dies; own process group, killed whole on abort or timeout. Where the kernel cannot
// enforce this, creation fails: there is no fallback. Landlock cannot deny metadata changes
// (chmod, chown, utimes, xattrs) outside the roots; capabilities.filesystem says so.
const path = require('node:path')
const { landlockAbiVersion, landlockUnsupported } = require('../../native.js')
const { SandboxExecutionError, checkSandboxOptions, unavailable, probeDetail, runProcessGroup, probe } = require('./sandbox.js')
const { CONSTANTS } = require('../../engine-words.js')

const HELPER = path.join(__dirname, 'landlock-exec.js')
// How this runtime's executable runs a script: Deno needs `run` and its permissions (Deno
// translates node's arguments only for node:child_process, which the engine does not go
// through); Node and Bun take the script itself.
const RUN_SCRIPT = typeof globalThis.Deno !== 'undefined' ? ['run', '-A'] : []

function helperArgs(config, extra) {
  return [...RUN_SCRIPT, HELPER, JSON.stringify({ ...config, ...extra })]
}

/** A SandboxAdapter running each command under Landlock; throws SandboxExecutionError when the kernel cannot. */
async function createLandlockSandbox(options) {
  const roots = checkSandboxOptions('createLandlockSandbox', options, ['shellPath'])
  const network = options.network === true
  // The engine's rule: ABI 1 for any sandbox, ABI 4 to deny the network.
  const unsupported = landlockUnsupported(network)
  if (unsupported) throw unavailable('landlock', unsupported)
  const config = { writable: roots.map((r) => path.resolve(r)), network, shell: options.shellPath ?? CONSTANTS.sandboxDefaultShell }
  const check = await probe(process.execPath, helperArgs(config, { probe: true }))
  if (check.exitCode !== 0) throw check.output ? new SandboxExecutionError(check.output) : unavailable('landlock', probeDetail(check))
  const g = JSON.parse(check.output)
  const capabilities = Object.freeze({
    backend: 'landlock',
    abi: g.abi,
    filesystem: Object.freeze({
      readOnlyRoot: g.readOnlyRoot,
      writablePaths: Object.freeze([...config.writable, '/dev/null', '/dev/zero', '/dev/tty']),
      privateTmp: false,
      metadataChangesConfined: g.metadataChangesConfined,
      unconfinedOutsideRoots: Object.freeze([...g.unconfinedOutsideRoots]),
    }),
    network: !g.tcpDenied,
    networkScope: g.networkScope,
    processes: Object.freeze({ ownProcessGroup: true, dieWithParent: false, shellDiesWithParent: true, pidNamespace: false, signalsScoped: g.ipcScoped }),
  })
  return {
    capabilities,
    exec(request) {
      return runProcessGroup(process.execPath, helperArgs(config, { command: request.command }), request)
    },
  }
}

module.exports = { createLandlockSandbox, landlockAbiVersion }
