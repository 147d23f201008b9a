'use strict'
// The read tool: a streamed text page or a bounded image, after the execution policy.
const {
  native,
  LIMITS,
  PATH_REQUIRED,
  errorResult,
  limitOption,
  enforceExecutionPolicy,
  contextMetadata,
  validPath,
} = require('./common.js')
const { resolveToCwd, findReadPathVariant } = require('./paths.js')

const MAX_READ_LIMIT = 100000
const AUTO_RESIZE_REMOVED = 'Read tool: "autoResizeImages" was removed in 0.1.5; use "transformImage" instead.'

const READ_PARAMETERS = Object.freeze({
  type: 'object',
  properties: {
    path: { type: 'string', description: 'Path of the file to read (relative to the working directory, or absolute).' },
    offset: { type: 'integer', minimum: 1, description: 'Line number to start from (1-based).' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_READ_LIMIT, description: 'Maximum number of lines to read.' },
    findText: { type: 'string', description: 'Start the page at the first line containing this text.' },
    findMode: { type: 'string', enum: ['exact', 'case-insensitive'] },
  },
  required: ['path'],
  additionalProperties: false,
})

function positiveInt(name, v, max) {
  if (v === undefined) return undefined
  if (!Number.isSafeInteger(v) || v < 1 || v > max) return `${name} must be a positive safe integer at most ${max}`
  return undefined
}

/** Checks the arguments in the reference's order; the first message, or undefined. */
function readArgumentError(args) {
  if (!validPath(args.path)) return PATH_REQUIRED
  if (args.findText !== undefined) {
    if (typeof args.findText !== 'string' || args.findText === '') return 'findText must be a non-empty string.'
    if (args.findMode !== undefined && args.findMode !== 'exact' && args.findMode !== 'case-insensitive') {
      return "findMode must be 'exact' or 'case-insensitive'."
    }
  }
  return positiveInt('offset', args.offset, Number.MAX_SAFE_INTEGER) ?? positiveInt('limit', args.limit, MAX_READ_LIMIT)
}

function createReadTool(cwd, options = {}) {
  if (options && Object.prototype.hasOwnProperty.call(options, 'autoResizeImages')) {
    throw new TypeError(AUTO_RESIZE_REMOVED)
  }
  const cfg = {
    maxLines: limitOption(options, 'maxLines', 'maxLines'),
    maxBytes: limitOption(options, 'maxBytes', 'maxBytes'),
    maxScanBytes: limitOption(options, 'maxScanBytes', 'readMaxScanBytes'),
    maxImageBytes: limitOption(options, 'maxImageBytes', 'maxImageBytes'),
  }
  const { executionPolicy, transformImage, operations, readPathSet, documentReader } = options
  return {
    name: 'read',
    kind: 'read',
    description: `Read a file. Text comes back ${cfg.maxLines} lines or ${native.codingFormatSize(cfg.maxBytes)} at a time (use offset/limit to page); images (jpeg, png, gif, webp, bmp) come back as image content.`,
    parameters: READ_PARAMETERS,
    effect: Object.freeze({ kind: 'none', idempotency: 'none' }),
    async execute(args, context) {
      const toolCallId = context?.toolCallId
      const fail = (message) => errorResult(toolCallId, 'read', message)
      try {
        if (context?.signal?.aborted) return fail('Operation aborted')
        const argError = readArgumentError(args ?? {})
        if (argError) return fail(argError)
        const abs = resolveToCwd(args.path, cwd)
        const request = { args, cfg, toolCallId, context, options: { executionPolicy, transformImage, operations, documentReader } }
        let result = await readOnce(request, abs)
        if (result.missing) {
          const variant = await findReadPathVariant(abs)
          result = variant ? await readOnce(request, variant) : result
        }
        if (result.path && readPathSet) readPathSet.add(result.path)
        return result.toolResult
      } catch (err) {
        return fail(err instanceof Error ? err.message : String(err))
      }
    },
  }
}

function policyAction(abs, args, context) {
  return {
    kind: 'read',
    operation: 'read',
    paths: [abs],
    risk: 'low',
    metadata: { offset: args.offset, limit: args.limit, ...contextMetadata(context) },
  }
}

/** One attempt at `abs`: `{ toolResult, path?, missing? }`. */
async function readOnce(req, abs) {
  const { args, cfg, toolCallId, context, options } = req
  const fail = (message) => ({ toolResult: errorResult(toolCallId, 'read', message) })
  const decided = await enforceExecutionPolicy(options.executionPolicy, policyAction(abs, args, context), toolCallId, 'read')
  if (decided.denied) return { toolResult: decided.denied }
  const target = decided.action.paths[0]
  const nativeReq = {
    path: target,
    displayPath: args.path,
    offset: args.offset,
    limit: args.limit,
    maxLines: cfg.maxLines,
    maxBytes: cfg.maxBytes,
    maxScanBytes: cfg.maxScanBytes,
    maxImageBytes: cfg.maxImageBytes,
    findText: args.findText,
    caseInsensitive: args.findMode === 'case-insensitive',
  }
  const r = options.operations
    ? await readWithOperations(options.operations, target, nativeReq, context?.signal)
    : await native.codingRead(nativeReq)
  if (context?.signal?.aborted) return fail('Operation aborted')
  if (r.error) {
    const missing = r.errorCode === 'io' && r.error.startsWith('ENOENT')
    return { ...fail(r.error), missing }
  }
  if (r.mimeType) return imageResult(r, cfg.maxImageBytes, options.transformImage, toolCallId, target)
  if (options.documentReader) {
    const doc = await options.documentReader({ path: args.path, absolutePath: target, signal: context?.signal })
    if (typeof doc === 'string') {
      return { path: target, toolResult: { toolCallId, name: 'read', content: [{ type: 'text', text: doc }] } }
    }
  }
  const text = r.content + r.footer
  const truncation = { content: r.content, ...r.truncation, truncatedBy: r.truncation.truncatedBy ?? null }
  return {
    path: target,
    toolResult: {
      toolCallId,
      name: 'read',
      content: [{ type: 'text', text }],
      metadata: { truncation, scannedBytes: r.scannedBytes },
    },
  }
}

async function imageResult(r, maxImageBytes, transformImage, toolCallId, target) {
  let buffer = r.data
  const mimeType = r.mimeType
  if (transformImage) {
    buffer = await transformImage({ buffer, mimeType })
    const len = buffer?.length ?? 0
    if (!buffer || len > maxImageBytes) {
      const message = `Transformed image is ${native.codingFormatSize(len)}, exceeds ${native.codingFormatSize(maxImageBytes)} limit.`
      return { toolResult: errorResult(toolCallId, 'read', message) }
    }
  }
  const data = Buffer.isBuffer(buffer) ? buffer : Buffer.from(buffer)
  return {
    path: target,
    toolResult: {
      toolCallId,
      name: 'read',
      content: [
        { type: 'text', text: `Read image file [${mimeType}]` },
        { type: 'image', data: data.toString('base64'), mimeType },
      ],
      metadata: { image: { mimeType, resized: Boolean(transformImage), bytes: data.length } },
    },
  }
}

const CHUNK = 64 * 1024
const OVER_RETURNED = 'ReadOperations.readText returned data beyond the requested bounds'

/** The read through a host `ReadOperations` backend; the same result shape as `codingRead`. */
async function readWithOperations(ops, abs, req, signal) {
  await ops.access(abs)
  const head = ops.readText
    ? await readTextRange(ops, abs, 0, 4100, signal)
    : Buffer.from(await ops.readFile(abs, { maxBytes: req.maxScanBytes + 1, signal }))
  const mimeType = native.codingSniffImage(head.subarray(0, 4100))
  if (mimeType) {
    const formatSize = native.codingFormatSize
    const tooLarge = (n) => ({ error: `Image file is ${formatSize(n)}, exceeds ${formatSize(req.maxImageBytes)} limit.`, errorCode: 'image_too_large' })
    const st = ops.stat ? await ops.stat(abs) : undefined
    if (st && st.size > req.maxImageBytes) return tooLarge(st.size)
    const data = Buffer.from(await ops.readFile(abs, { maxBytes: req.maxImageBytes + 1, signal }))
    if (data.length > req.maxImageBytes) return tooLarge(data.length)
    return { mimeType, data }
  }
  let bytes = head
  if (ops.readText) {
    const parts = [head]
    let total = head.length
    let lastLength = head.length
    while (lastLength > 0 && total <= req.maxScanBytes) {
      const chunk = await readTextRange(ops, abs, total, CHUNK, signal)
      lastLength = chunk.length
      total += chunk.length
      parts.push(chunk)
    }
    bytes = Buffer.concat(parts)
  }
  const fileBytes = ops.stat ? (await ops.stat(abs)).size : bytes.length
  return native.codingPageFromBytes(bytes, fileBytes, req)
}

async function readTextRange(ops, abs, position, length, signal) {
  const got = await ops.readText(abs, { position, length, signal })
  const buf = typeof got === 'string' ? Buffer.from(got) : Buffer.from(got ?? [])
  if (buf.length > length) throw new Error(OVER_RETURNED)
  return buf
}

module.exports = { createReadTool, resolveToCwd, AUTO_RESIZE_REMOVED, MAX_READ_LIMIT, LIMITS }
