'use strict'
// The shell tool: argument checks, command prefix, environment, spawnHook, execution policy,
// then one native call that runs the command in its own process group with bounded output.
const os = require('node:os')
const { native, LIMITS, errorResult, limitOption, enforceExecutionPolicy, settleDecision, contextMetadata, snapshotContext } = require('./common.js')
const { ENGINE_POLICY } = require('../security/approval-policy.js')
const { argTypeError, say, typeWord } = require('../../engine-words.js')
const { killGroupsOnExit } = require('./process-groups.js')

const SHELL_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {
    command: { type: 'string', description: 'The shell command to run.' },
    timeout: { type: 'integer', minimum: 1, maximum: LIMITS.shellTimeout.hard, description: 'Timeout in seconds.' },
  },
  required: ['command'],
  additionalProperties: false,
})

function shellConfig(options) {
  const cfg = {
    maxLines: limitOption(options, 'maxLines', 'maxLines'),
    maxBytes: limitOption(options, 'maxBytes', 'maxBytes'),
    timeout: limitOption(options, 'timeout', 'shellTimeout'),
    maxTotalOutputBytes: limitOption(options, 'maxTotalOutputBytes', 'shellMaxTotalOutputBytes'),
    tempFilePrefix: options.tempFilePrefix ?? 'prism-shell',
  }
  // The engine's checks (the output bound, and a prefix that keeps the spill file in the
  // temp directory); an error carries its ERR_PRISM_CODING_INVALID_OPTION code.
  const prefix = typeof cfg.tempFilePrefix === 'string' ? cfg.tempFilePrefix : ''
  native.codingCheckShellOutput(cfg.maxBytes, cfg.maxTotalOutputBytes, prefix)
  return cfg
}

/** The child's environment: a clone of `process.env`, or only the allowlisted names. */
function childEnv(envAllowlist) {
  if (!envAllowlist) return { ...process.env }
  const env = {}
  for (const name of envAllowlist) if (process.env[name] !== undefined) env[name] = process.env[name]
  return env
}

function createShellTool(cwd, options = {}) {
  // Every command runs in `cwd`: a value that is not a path is refused here, not on each call.
  if (typeof cwd !== 'string') throw argTypeError('toolCwd', { factory: 'createShellTool', type: typeWord(cwd) })
  const cfg = shellConfig(options)
  return {
    name: 'shell',
    kind: 'execute',
    description: `Run a shell command in the working directory. Output (stdout and stderr merged) is cut to the last ${cfg.maxLines} lines or ${native.codingFormatSize(cfg.maxBytes)}; the full output is saved to a file when cut. Timeout in seconds (default ${cfg.timeout}).`,
    parameters: SHELL_PARAMETERS,
    exclusive: true,
    effect: Object.freeze({ kind: 'external_mutation', idempotency: 'unsupported' }),
    async execute(args, hostContext) {
      const snap = snapshotContext(hostContext, 'shell')
      if (snap.denied) return snap.denied
      const context = snap.ctx
      const toolCallId = context.toolCallId
      let job
      try {
        const a = args ?? {}
        // The engine checks the command, then the timeout, and opens the call's job.
        const started = native.codingShellStart(a.command, a.timeout)
        if (typeof started !== 'number') return errorResult(toolCallId, 'shell', started.message, started.text)
        job = { id: started, ran: false }
        if (context?.signal?.aborted) {
          const aborted = native.codingShellAborted()
          return errorResult(toolCallId, 'shell', aborted.message, aborted.text)
        }
        const timeout = a.timeout ?? cfg.timeout
        let spawn = {
          command: options.commandPrefix ? `${options.commandPrefix}\n${a.command}` : a.command,
          cwd,
          env: childEnv(options.envAllowlist),
        }
        if (typeof options.spawnHook === 'function') spawn = { ...spawn, ...(await options.spawnHook(spawn)) }
        if (typeof spawn.cwd !== 'string') {
          return errorResult(toolCallId, 'shell', say('toolCwd', { factory: 'spawnHook', type: typeWord(spawn.cwd) }))
        }
        const action = {
          kind: 'shell',
          operation: 'execute',
          command: spawn.command,
          paths: [spawn.cwd],
          risk: 'high',
          metadata: { timeout, ...contextMetadata(context) },
        }
        const policy = options.executionPolicy
        // Only while the policy's `check` is its own (a host may have wrapped it).
        const own = options.operations ? undefined : policy?.[ENGINE_POLICY]
        const engine = own !== undefined && policy.check === own.check ? own : undefined
        let decided
        if (engine) {
          // The engine's own policy: one call checks the command and, when the check allows it
          // outright, runs it; otherwise the check is finished here (approve, RegExp rules).
          const facts = engine.facts(action)
          const r = await runNative(job, { ...spawn, timeout }, cfg, options.shellPath, context?.signal, engine.machine, facts.check)
          if (!r.decision) return shellToolResult(r, toolCallId)
          decided = await settleDecision(() => engine.finish(action, facts, r.decision), action, toolCallId, 'shell')
          // The engine closed the call's job: an allowed run takes a new one.
          if (!decided.denied) job = { id: native.codingShellJob(), ran: false }
        } else {
          decided = await enforceExecutionPolicy(policy, action, toolCallId, 'shell')
        }
        if (decided.denied) return decided.denied
        const run = { ...spawn, command: decided.action.command, timeout }
        const r = options.operations
          ? await runWithOperations(options.operations, run, cfg, context?.signal)
          : await runNative(job, run, cfg, options.shellPath, context?.signal)
        return shellToolResult(r, toolCallId)
      } catch (err) {
        return errorResult(toolCallId, 'shell', err instanceof Error ? err.message : String(err))
      } finally {
        if (job !== undefined && !job.ran) native.codingShellForget(job.id)
      }
    },
  }
}

/**
 * One native run of `job`; the signal's abort kills the command's process group. With the
 * engine's approval `machine` and the action's `check`, the engine checks the command first
 * and runs it only when the check allows it outright (else the result's `decision` says where
 * the check stopped, and nothing ran).
 */
async function runNative(job, run, cfg, shellPath, signal, machine, check) {
  killGroupsOnExit()
  const id = job.id
  const onAbort = () => native.codingShellAbort(id)
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    if (signal?.aborted) onAbort()
    // From here the engine closes the job, whether the command runs or not.
    job.ran = true
    return await native.codingShell(
      id,
      {
        command: run.command,
        cwd: run.cwd,
        env: run.env,
        shellPath,
        envShell: process.env.SHELL,
        timeout: run.timeout,
        maxLines: cfg.maxLines,
        maxBytes: cfg.maxBytes,
        maxTotalOutputBytes: cfg.maxTotalOutputBytes,
        tempFilePrefix: cfg.tempFilePrefix,
        tempDir: os.tmpdir(),
      },
      machine,
      check,
    )
  } finally {
    signal?.removeEventListener('abort', onAbort)
  }
}

/** A run through a host `BashOperations` backend (`exec(command, cwd, {onData, signal, timeout, env})`). */
async function runWithOperations(ops, run, cfg, signal) {
  const sink = new native.CodingOutputSink(cfg.maxLines, cfg.maxBytes, cfg.maxTotalOutputBytes, cfg.tempFilePrefix, os.tmpdir())
  const controller = new AbortController()
  let ending = null
  const stop = (why) => {
    if (!ending) ending = why
    controller.abort()
  }
  const onAbort = () => stop('aborted')
  signal?.addEventListener('abort', onAbort, { once: true })
  const timer = setTimeout(() => stop('timeout'), run.timeout * 1000)
  const onData = (chunk) => {
    if (ending) return
    const pushed = sink.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    if (pushed !== 'stored') stop(pushed)
  }
  try {
    const out = await ops.exec(run.command, run.cwd, { onData, signal: controller.signal, timeout: run.timeout, env: run.env })
    if (ending) return sink.finish(ending, null, run.timeout, null)
    // A failure without a message is worded by the engine (`Command failed`).
    if (typeof out?.exitCode !== 'number') return sink.finish('failed', null, run.timeout, null)
    return sink.finish('exit', out.exitCode, run.timeout, null)
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err ?? '')
    return sink.finish(ending ?? 'failed', null, run.timeout, message || null)
  } finally {
    clearTimeout(timer)
    signal?.removeEventListener('abort', onAbort)
  }
}

/** The ToolResult of a native or backend run. */
function shellToolResult(r, toolCallId) {
  if (r.error) return errorResult(toolCallId, 'shell', r.error)
  const content = [{ type: 'text', text: r.text }]
  const truncation = { ...r.truncation, truncatedBy: r.truncation?.truncatedBy ?? null }
  if (r.failure) {
    return {
      toolCallId,
      name: 'shell',
      content,
      error: { message: r.failure },
      metadata: {
        exitCode: null,
        truncation,
        totalOutputBytes: r.totalOutputBytes,
        outputLimitExceeded: r.outputLimitExceeded,
        outputStorageFailed: r.outputStorageFailed,
      },
    }
  }
  const metadata = { exitCode: r.exitCode, truncation, totalOutputBytes: r.totalOutputBytes, outputLimitExceeded: false }
  if (r.fullOutputPath) metadata.fullOutputPath = r.fullOutputPath
  return { toolCallId, name: 'shell', content, metadata }
}

module.exports = { createShellTool }
