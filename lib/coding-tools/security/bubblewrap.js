'use strict'
// The bubblewrap sandbox backend: read-only root, writable project roots, private /tmp,
// no network unless asked, dies with its parent, runs in its own process group.
const path = require('node:path')
const { checkSandboxOptions, unavailable, probeDetail, runProcessGroup, probe } = require('./sandbox.js')
const { CONSTANTS } = require('../../engine-words.js')

function bwrapArgs({ roots, network }, cwd, shellPath, command) {
  const args = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts']
  if (!network) args.push('--unshare-net')
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp')
  for (const root of roots) args.push('--bind', root, root)
  args.push('--chdir', cwd, '--', shellPath, '-c', command)
  return args
}

/**
 * A SandboxAdapter running each command under bubblewrap. Probes bubblewrap once with the
 * exact isolation requested and throws a SandboxExecutionError when the host cannot provide
 * it: there is no fallback to running unsandboxed.
 */
async function createBubblewrapSandbox(options) {
  const roots = checkSandboxOptions('createBubblewrapSandbox', options, ['shellPath', 'bwrapPath'])
  const config = { roots: roots.map((r) => path.resolve(r)), network: options.network === true }
  const bwrapPath = options.bwrapPath ?? 'bwrap'
  const shellPath = options.shellPath ?? CONSTANTS.sandboxDefaultShell
  const check = await probe(bwrapPath, bwrapArgs(config, '/', shellPath, 'exit 0'))
  if (check.exitCode !== 0) {
    throw unavailable('bubblewrap', probeDetail(check))
  }
  const capabilities = Object.freeze({
    backend: 'bubblewrap',
    filesystem: Object.freeze({ readOnlyRoot: true, writablePaths: Object.freeze([...config.roots]), privateTmp: true, metadataChangesConfined: true, unconfinedOutsideRoots: Object.freeze([]) }),
    network: config.network,
    processes: Object.freeze({ ownProcessGroup: true, dieWithParent: true, pidNamespace: true }),
  })
  return {
    capabilities,
    exec(request) {
      return runProcessGroup(bwrapPath, bwrapArgs(config, request.cwd, shellPath, request.command), request)
    },
  }
}

module.exports = { createBubblewrapSandbox }
