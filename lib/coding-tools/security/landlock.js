'use strict'
// The Landlock sandbox backend: each command starts a helper process that restricts itself
// with Landlock (writes only beneath the roots, no TCP unless asked, signals and abstract
// sockets scoped on ABI 6+) and then becomes the shell (execve), set to be killed when the
// host dies; own process group, killed whole on abort or timeout. Where the kernel cannot
// enforce this, creation fails: there is no fallback. Landlock cannot deny metadata changes
// (chmod, chown, utimes, xattrs) outside the roots; capabilities.filesystem says so.
const path = require('node:path')
const { landlockAbiVersion } = require('../../native.js')
const { SandboxExecutionError, runProcessGroup, probe } = require('./sandbox.js')

const HELPER = path.join(__dirname, 'landlock-exec.js')

function helperArgs(config, extra) {
  return [HELPER, JSON.stringify({ ...config, ...extra })]
}

/** A SandboxAdapter running each command under Landlock; throws SandboxExecutionError when the kernel cannot. */
async function createLandlockSandbox(options) {
  const roots = options?.roots
  if (!Array.isArray(roots) || roots.length === 0 || roots.some((r) => typeof r !== 'string')) {
    throw new TypeError('createLandlockSandbox needs roots: a non-empty array of path strings')
  }
  for (const key of ['shellPath']) {
    if (options[key] !== undefined && (typeof options[key] !== 'string' || options[key] === '')) throw new TypeError(`createLandlockSandbox: ${key} must be a non-empty path string`)
  }
  const network = options.network === true
  const abi = landlockAbiVersion()
  if (abi < 1) throw new SandboxExecutionError('landlock sandbox unavailable: the kernel has no Landlock')
  if (!network && abi < 4) throw new SandboxExecutionError(`landlock sandbox unavailable: ABI ${abi} cannot deny network access (ABI 4 or later is needed)`)
  const config = { writable: roots.map((r) => path.resolve(r)), network, shell: options.shellPath ?? '/bin/sh' }
  const check = await probe(process.execPath, helperArgs(config, { probe: true }))
  if (check.exitCode !== 0) throw new SandboxExecutionError(check.output || `landlock sandbox unavailable: exit code ${check.exitCode}`)
  const g = JSON.parse(check.output)
  const capabilities = Object.freeze({
    backend: 'landlock',
    abi: g.abi,
    filesystem: Object.freeze({
      readOnlyRoot: g.filesystemWritesConfined,
      writablePaths: Object.freeze([...config.writable, '/dev/null', '/dev/zero', '/dev/tty']),
      privateTmp: false,
      metadataChangesConfined: g.metadataChangesConfined,
      unconfinedOutsideRoots: Object.freeze([...g.unconfinedOutsideRoots]),
    }),
    network: !g.tcpDenied,
    networkScope: g.tcpDenied ? `tcp bind and connect denied; UDP ${g.unconfinedOutsideRoots.includes('connect to pathname UNIX sockets') ? 'and UNIX sockets are' : 'is'} not restricted` : 'host network',
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
