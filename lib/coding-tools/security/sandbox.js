'use strict'
// Sandboxed shell execution: the BashOperations adapter seam and the process runner that the
// bubblewrap and Landlock backends share. The engine spawns and kills (own process group,
// killed whole on abort, timeout and exit): no Node child process here.
const native = require('../../native.js')
const { CODES, say } = require('../../engine-words.js')
const { killGroupsOnExit } = require('../internal/process-groups.js')

class SandboxExecutionError extends Error {
  constructor(message, options) {
    super(message, options)
    this.name = 'SandboxExecutionError'
    this.code = CODES.sandboxExecution
  }
}

/**
 * The roots of a sandbox backend's options (a non-empty array of path strings) and its path
 * options `pathKeys` (each absent or a non-empty string), or a TypeError naming `factory`.
 */
function checkSandboxOptions(factory, options, pathKeys) {
  const roots = options?.roots
  if (!Array.isArray(roots) || roots.length === 0 || roots.some((r) => typeof r !== 'string')) {
    throw new TypeError(say('sandboxRoots', { factory }))
  }
  for (const key of pathKeys) {
    if (options[key] !== undefined && (typeof options[key] !== 'string' || options[key] === '')) throw new TypeError(say('sandboxPath', { factory, key }))
  }
  return roots
}

/** A SandboxExecutionError: `backend` cannot give the sandbox asked for, because of `detail`. */
function unavailable(backend, detail) {
  return new SandboxExecutionError(say('sandboxUnavailable', { backend, detail }))
}

/** A probe's output, or `exit code <n>` when it printed nothing. */
function probeDetail(check) {
  return check.output || say('sandboxExitCode', { code: check.exitCode })
}

/** BashOperations that run every command through `adapter.exec`; any throw becomes a SandboxExecutionError. */
function createSandboxBashOperations(adapter) {
  if (!adapter || typeof adapter.exec !== 'function') throw new TypeError(say('sandboxAdapter'))
  return {
    capabilities: adapter.capabilities,
    async exec(command, cwd, options = {}) {
      const { onData, signal, timeout, env } = options
      try {
        return await adapter.exec({ command, cwd, env, onData, signal, timeout })
      } catch (error) {
        if (error instanceof SandboxExecutionError) throw error
        throw new SandboxExecutionError(error instanceof Error ? error.message : String(error), { cause: error })
      }
    },
  }
}

/** `env` as the engine takes it: each name with a defined value, as a string (Node's spawn rule). */
function stringEnv(env) {
  const out = {}
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = String(value)
  return out
}

/**
 * Runs `file args` through the engine, in its own process group, streaming its output to
 * `onData`. Resolves `{exitCode}`; rejects `Error("aborted")` on abort and
 * `Error("timeout:<s>")` after `timeout` seconds, having killed the whole group (the local
 * shell's conventions; the words are the engine's), or with why the program could not start.
 */
function runProcessGroup(file, args, { cwd, env, onData, signal, timeout }) {
  killGroupsOnExit()
  return new Promise((resolve, reject) => {
    const id = native.codingShellJob()
    const onAbort = () => native.codingShellAbort(id)
    signal?.addEventListener('abort', onAbort, { once: true })
    if (signal?.aborted) onAbort()
    let failed = null
    const onEvent = ([chunk, end]) => {
      if (chunk) {
        if (failed || !onData) return
        try {
          onData(chunk)
        } catch (error) {
          // The host's onData threw: the run ends and rejects with what it threw.
          failed = { error }
          onAbort()
        }
        return
      }
      signal?.removeEventListener('abort', onAbort)
      if (failed) reject(failed.error)
      else if (end.rejection != null) reject(new Error(end.rejection))
      else resolve({ exitCode: end.exitCode ?? null })
    }
    try {
      // A timeout given as a numeric string still counts, as it did with a JS timer.
      const seconds = timeout === undefined || timeout === null ? undefined : Number(timeout)
      native.codingSandboxRun(id, { program: file, args, cwd, env: stringEnv(env ?? process.env), timeout: seconds }, onEvent)
    } catch (error) {
      signal?.removeEventListener('abort', onAbort)
      native.codingShellForget(id)
      reject(error)
    }
  })
}

/** Runs `file args` to completion and returns its exit code and output (for probes). */
async function probe(file, args) {
  let output = ''
  try {
    const { exitCode } = await runProcessGroup(file, args, { onData: (d) => (output += d) })
    return { exitCode, output: output.trim() }
  } catch (error) {
    return { exitCode: null, output: String(error?.message ?? error) }
  }
}

module.exports = { SandboxExecutionError, checkSandboxOptions, unavailable, probeDetail, createSandboxBashOperations, runProcessGroup, probe }
