'use strict'
// The write tool: bounded input, execution policy, read-before-write, per-path queue, then
// one native atomic write (mkdir -p, temp file in the same directory, rename).
const path = require('node:path')
const {
  native,
  ABORTED,
  errorResult,
  limitOption,
  enforceExecutionPolicy,
  contextMetadata,
  snapshotContext,
} = require('./common.js')
const { resolveToCwd } = require('./paths.js')
const { withFileMutationQueue } = require('./mutation-queue.js')
const { readBeforeWriteRefusal, emitFileChanged } = require('./mutation-guard.js')

const WRITE_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Path of the file to write (relative to the working directory, or absolute).' },
    content: { type: 'string', description: 'The whole new content of the file.' },
    force: { type: 'boolean', description: 'Write even if the file was not read in this session.' },
  },
  required: ['path', 'content'],
  additionalProperties: false,
})

function createWriteTool(cwd, options = {}) {
  const maxInputBytes = limitOption(options, 'maxInputBytes', 'writeMaxInputBytes')
  return {
    name: 'write',
    kind: 'edit',
    description: 'Write a whole file (created with its directories if missing, replaced atomically if present).',
    parameters: WRITE_PARAMETERS,
    effect: Object.freeze({ kind: 'local_mutation', idempotency: 'optional' }),
    async execute(args, hostContext) {
      const snap = snapshotContext(hostContext, 'write')
      if (snap.denied) return snap.denied
      const context = snap.ctx
      const toolCallId = context.toolCallId
      const fail = (message) => errorResult(toolCallId, 'write', message)
      try {
        const a = args ?? {}
        // The engine checks path, then the content's type and size.
        const checked = native.codingCheckWrite(a.path, a.content, maxInputBytes)
        if (checked.error) return fail(checked.error)
        const { bytes, lines } = checked
        const action = {
          kind: 'write',
          operation: 'write',
          paths: [resolveToCwd(a.path, cwd)],
          risk: 'medium',
          metadata: { bytes, ...contextMetadata(context) },
        }
        const decided = await enforceExecutionPolicy(options.executionPolicy, action, toolCallId, 'write')
        if (decided.denied) return decided.denied
        const abs = decided.action.paths[0]
        const refusal = readBeforeWriteRefusal('write', options, a.path, abs, a.force)
        if (refusal) return fail(refusal)
        const error = await withFileMutationQueue(abs, async () => {
          if (context?.signal?.aborted) return ABORTED
          if (options.operations) return writeWithOperations(options.operations, abs, a.content, context?.signal)
          return native.codingWrite(abs, a.content, decided.beneath)
        })
        if (error) return fail(typeof error === 'string' ? error : error.message)
        emitFileChanged(options, abs, 'write', toolCallId)
        return {
          toolCallId,
          name: 'write',
          content: [{ type: 'text', text: native.codingWriteSummary(bytes, lines, abs) }],
          metadata: { bytes, lines, path: abs },
        }
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err))
      }
    },
  }
}

/** A write through a host `WriteOperations` backend (`mkdir`, `writeFile`). */
async function writeWithOperations(ops, abs, content, signal) {
  if (ops.mkdir) await ops.mkdir(path.dirname(abs))
  if (signal?.aborted) return ABORTED
  await ops.writeFile(abs, content)
  return null
}

module.exports = { createWriteTool }
