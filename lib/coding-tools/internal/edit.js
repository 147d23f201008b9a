'use strict'
// The edit tool: bounded replacements, execution policy, read-before-write, per-path queue,
// then one native call that reads, matches (exact, then fuzzy), diffs and writes atomically.
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

/** The first argument error, or the checked replacements. */
function checkEdits(edits, maxEdits, maxInputBytes) {
  if (!Array.isArray(edits) || edits.length === 0) return { error: 'edits must contain at least one replacement.' }
  if (edits.length > maxEdits) return { error: `edits contains ${edits.length} replacements, exceeds ${maxEdits} limit.` }
  let bytes = 0
  const out = []
  for (let i = 0; i < edits.length; i++) {
    const e = edits[i]
    if (!e || typeof e.oldText !== 'string' || typeof e.newText !== 'string') {
      return { error: `edits[${i}] must have string oldText and newText.` }
    }
    bytes += Buffer.byteLength(e.oldText, 'utf8') + Buffer.byteLength(e.newText, 'utf8')
    out.push({ oldText: e.oldText, newText: e.newText })
  }
  if (bytes > maxInputBytes) return { error: `edit input is ${bytes} bytes, exceeds ${maxInputBytes} byte limit.` }
  return { edits: out }
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
        if (!validPath(a.path)) return fail(PATH_REQUIRED)
        const checked = checkEdits(collectEdits(a), maxEdits, maxInputBytes)
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
          if (context?.signal?.aborted) return { error: 'Operation aborted' }
          if (options.operations) return editWithOperations(options.operations, abs, a.path, checked.edits, maxFileBytes, context?.signal)
          return native.codingEdit(abs, a.path, checked.edits, maxFileBytes, decided.beneath)
        })
        if (r.error) return fail(r.error)
        emitFileChanged(options, abs, 'edit', toolCallId)
        const metadata = { path: abs, diff: r.diff, patch: r.patch, firstChangedLine: r.firstChangedLine }
        if (r.fuzzy) metadata.fuzzy = true
        const text = `Successfully replaced ${r.replaced} block(s) in ${a.path}${r.fuzzy ? ' (fuzzy match)' : ''}.`
        return { toolCallId, name: 'edit', content: [{ type: 'text', text }], metadata }
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
  const aborted = { error: 'Operation aborted' }
  const tooLarge = (n) => ({ error: `Edit target is ${n} bytes, exceeds ${maxFileBytes} byte limit.` })
  try {
    if (ops.access) await ops.access(abs, { signal })
  } catch (err) {
    if (signal?.aborted) return aborted
    const detail = err instanceof Error && 'code' in err ? `Error code: ${err.code}` : String(err)
    return { error: `Could not edit file: ${displayPath}. ${detail}.` }
  }
  if (signal?.aborted) return aborted
  if (typeof ops.statFile === 'function') {
    const st = await ops.statFile(abs, { signal })
    // A size that is not a number leaves the bound to the check after the read.
    if (Number.isFinite(st?.size) && st.size > maxFileBytes) return tooLarge(st.size)
  }
  if (signal?.aborted) return aborted
  const raw = await ops.readFile(abs, { maxBytes: maxFileBytes, signal })
  const buf = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw ?? [])
  if (buf.length > maxFileBytes) return tooLarge(buf.length)
  if (signal?.aborted) return aborted
  const r = native.codingEditText(buf.toString('utf8'), displayPath, edits)
  if (r.error) return r
  if (signal?.aborted) return aborted
  await ops.writeFile(abs, r.text, { signal })
  return r
}

module.exports = { createEditTool }
