'use strict'
// Sandboxed shell execution: the BashOperations adapter seam and the process runner that the
// bubblewrap and Landlock backends share (own process group, killed whole on abort/timeout).
const { spawn } = require('node:child_process')
const { say } = require('../../engine-words.js')

class SandboxExecutionError extends Error {
  constructor(message, options) {
    super(message, options)
    this.name = 'SandboxExecutionError'
    this.code = 'ERR_PRISM_SANDBOX_EXECUTION'
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

function killGroup(child) {
  try {
    process.kill(-child.pid, 'SIGKILL')
  } catch {
    // already gone
  }
}

/**
 * Runs `file args` in its own process group, streaming stdout and stderr to `onData`.
 * Resolves `{exitCode}`; rejects `Error("aborted")` on abort and `Error("timeout:<s>")` after
 * `timeout` seconds, having killed the whole group (the local shell's conventions).
 */
function runProcessGroup(file, args, { cwd, env, onData, signal, timeout }) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'))
    const child = spawn(file, args, { cwd, env: env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    let timer
    let why
    const stop = (reason) => {
      why ??= reason
      killGroup(child)
    }
    const onAbort = () => stop('aborted')
    if (timeout !== undefined && timeout > 0) timer = setTimeout(() => stop(`timeout:${timeout}`), timeout * 1000)
    signal?.addEventListener('abort', onAbort, { once: true })
    if (onData) {
      child.stdout.on('data', onData)
      child.stderr.on('data', onData)
    } else {
      child.stdout.resume()
      child.stderr.resume()
    }
    const done = () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
    child.once('error', (error) => {
      done()
      reject(error)
    })
    child.once('close', (code) => {
      done()
      killGroup(child) // leftovers of the group
      if (why) reject(new Error(why))
      else resolve({ exitCode: code })
    })
  })
}

/** Runs `file args` to completion and returns its exit code and output (for probes). */
function probe(file, args) {
  return new Promise((resolve) => {
    let output = ''
    let child
    try {
      child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    } catch (error) {
      resolve({ exitCode: null, output: String(error?.message ?? error) })
      return
    }
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.once('error', (error) => resolve({ exitCode: null, output: error.message }))
    child.once('close', (exitCode) => resolve({ exitCode, output: output.trim() }))
  })
}

module.exports = { SandboxExecutionError, checkSandboxOptions, unavailable, probeDetail, createSandboxBashOperations, runProcessGroup, probe }
