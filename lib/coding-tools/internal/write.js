'use strict'
// The write tool: bounded input, execution policy, read-before-write, per-path queue, then
// one native atomic write (mkdir -p, temp file in the same directory, rename).
const path = require('node:path')
const {
  native,
  PATH_REQUIRED,
  errorResult,
  limitOption,
  enforceExecutionPolicy,
  contextMetadata,
  snapshotContext,
  validPath,
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
        if (!validPath(a.path)) return fail(PATH_REQUIRED)
        if (typeof a.content !== 'string') return fail('content is required and must be a string.')
        const bytes = Buffer.byteLength(a.content, 'utf8')
        if (bytes > maxInputBytes) return fail(`Write input is ${bytes} bytes, exceeds ${maxInputBytes} byte limit.`)
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
          if (context?.signal?.aborted) return 'Operation aborted'
          if (options.operations) return writeWithOperations(options.operations, abs, a.content, context?.signal)
          return native.codingWrite(abs, a.content, decided.beneath)
        })
        if (error) return fail(typeof error === 'string' ? error : error.message)
        emitFileChanged(options, abs, 'write', toolCallId)
        const lines = a.content === '' ? 0 : a.content.split('\n').length
        return {
          toolCallId,
          name: 'write',
          content: [{ type: 'text', text: `Successfully wrote ${bytes} bytes (${lines} lines) to ${abs}` }],
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
  if (signal?.aborted) return 'Operation aborted'
  await ops.writeFile(abs, content)
  return null
}

module.exports = { createWriteTool }
