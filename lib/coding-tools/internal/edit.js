'use strict'
// The edit tool: bounded replacements, execution policy, read-before-write, per-path queue,
// then one native call that reads, matches (exact, then fuzzy), diffs and writes atomically.
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

const EDIT_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Path of the file to edit (relative to the working directory, or absolute).' },
    edits: {
      type: 'array',
      description: 'Replacements, each matched against the original file; they must not overlap.',
      items: {
        type: 'object',
        properties: {
          oldText: { type: 'string', description: 'Exact text to replace; unique in the file.' },
          newText: { type: 'string', description: 'The replacement.' },
        },
        required: ['oldText', 'newText'],
        additionalProperties: false,
      },
    },
    force: { type: 'boolean', description: 'Edit even if the file was not read in this session.' },
  },
  required: ['path', 'edits'],
  additionalProperties: false,
})

/** The replacements of `args` (JSON-string `edits` and legacy `oldText`/`newText` accepted). */
function collectEdits(args) {
  let edits = args.edits
  if (typeof edits === 'string') {
    try {
      edits = JSON.parse(edits)
    } catch {
      edits = undefined
    }
  }
  if (edits === undefined && (args.oldText !== undefined || args.newText !== undefined)) {
    edits = [{ oldText: args.oldText, newText: args.newText }]
  }
  return edits
}

function createEditTool(cwd, options = {}) {
  const maxFileBytes = limitOption(options, 'maxFileBytes', 'editMaxFileBytes')
  const maxInputBytes = limitOption(options, 'maxInputBytes', 'editMaxInputBytes')
  const maxEdits = limitOption(options, 'maxEdits', 'maxEdits')
  return {
    name: 'edit',
    kind: 'edit',
    description: 'Edit a file with one or more exact text replacements (each oldText unique in the file, none overlapping).',
    parameters: EDIT_PARAMETERS,
    effect: Object.freeze({ kind: 'local_mutation', idempotency: 'optional' }),
    async execute(args, hostContext) {
      const snap = snapshotContext(hostContext, 'edit')
      if (snap.denied) return snap.denied
      const context = snap.ctx
      const toolCallId = context.toolCallId
      const fail = (message) => errorResult(toolCallId, 'edit', message)
      try {
        const a = args ?? {}
        // The engine checks path, then the replacements' number, shapes and size.
        const edits = collectEdits(a)
        const checked = native.codingCheckEdits(a.path, Array.isArray(edits) ? edits : undefined, maxEdits, maxInputBytes)
        if (checked.error) return fail(checked.error)
        const action = {
          kind: 'edit',
          operation: 'edit',
          paths: [resolveToCwd(a.path, cwd)],
          risk: 'medium',
          metadata: { editCount: checked.edits.length, ...contextMetadata(context) },
        }
        const decided = await enforceExecutionPolicy(options.executionPolicy, action, toolCallId, 'edit')
        if (decided.denied) return decided.denied
        const abs = decided.action.paths[0]
        const refusal = readBeforeWriteRefusal('edit', options, a.path, abs, a.force)
        if (refusal) return fail(refusal)
        const r = await withFileMutationQueue(abs, async () => {
          if (context?.signal?.aborted) return { error: ABORTED }
          if (options.operations) return editWithOperations(options.operations, abs, a.path, checked.edits, maxFileBytes, context?.signal)
          return native.codingEdit(abs, a.path, checked.edits, maxFileBytes, decided.beneath)
        })
        if (r.error) return fail(r.error)
        emitFileChanged(options, abs, 'edit', toolCallId)
        const metadata = { path: abs, diff: r.diff, patch: r.patch, firstChangedLine: r.firstChangedLine }
        if (r.fuzzy) metadata.fuzzy = true
        return { toolCallId, name: 'edit', content: [{ type: 'text', text: r.summary }], metadata }
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err))
      }
    },
  }
}

/**
 * An edit through a host `EditOperations` backend (`access`, `statFile`, `readFile`,
 * `writeFile`, as the reference's): the size is checked with `statFile` before anything is
 * read, and the bytes `readFile` returns are checked again.
 */
async function editWithOperations(ops, abs, displayPath, edits, maxFileBytes, signal) {
  const aborted = { error: ABORTED }
  // The engine's refusal of a size over maxFileBytes (none for a size that is not a number).
  const tooLarge = (n) => {
    const error = native.codingEditTooLarge(typeof n === 'number' ? n : Number.NaN, maxFileBytes)
    return error ? { error } : undefined
  }
  try {
    if (ops.access) await ops.access(abs, { signal })
  } catch (err) {
    if (signal?.aborted) return aborted
    const code = err instanceof Error && 'code' in err ? String(err.code) : undefined
    return { error: native.codingEditAccessFailure(displayPath, code, code === undefined ? String(err) : '') }
  }
  if (signal?.aborted) return aborted
  if (typeof ops.statFile === 'function') {
    const st = await ops.statFile(abs, { signal })
    // A size that is not a number leaves the bound to the check after the read.
    const refused = tooLarge(st?.size)
    if (refused) return refused
  }
  if (signal?.aborted) return aborted
  const raw = await ops.readFile(abs, { maxBytes: maxFileBytes, signal })
  const buf = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw ?? [])
  const refused = tooLarge(buf.length)
  if (refused) return refused
  if (signal?.aborted) return aborted
  const r = native.codingEditText(buf.toString('utf8'), displayPath, edits)
  if (r.error) return r
  if (signal?.aborted) return aborted
  await ops.writeFile(abs, r.text, { signal })
  return r
}

module.exports = { createEditTool }
