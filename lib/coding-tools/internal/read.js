'use strict'
// The read tool: a streamed text page or a bounded image, after the execution policy.
const {
  native,
  LIMITS,
  ABORTED,
  errorResult,
  withinLimit,
  limitOption,
  enforceExecutionPolicy,
  contextMetadata,
  snapshotContext,
} = require('./common.js')
const fs = require('node:fs')
const fsp = require('node:fs/promises')
const { resolveToCwd, findReadPathVariant } = require('./paths.js')
const { readRoute } = require('./read-route.js')
const { ENGINE_POLICY } = require('../security/approval-policy.js')
const { engineTools } = require('../../core/engine-owned.js')

// The `limit` argument's cap is the hard cap of `maxLines`.
const MAX_READ_LIMIT = LIMITS.maxLines.hard
const { CONSTANTS, say } = require('../../engine-words.js')
const IMAGE_SNIFF_BYTES = CONSTANTS.imageSniffBytes
const AUTO_RESIZE_REMOVED = say('autoResizeImagesRemoved')

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

/** The first argument error in the reference's order (the engine decides), or undefined. */
function readArgumentError(args) {
  return native.codingCheckRead(args.path, args.offset, args.limit, args.findText, args.findMode) ?? undefined
}

/** A document reader must be `{ maxInputBytes, maxTextBytes, extract() }` with positive byte caps. */
function checkDocumentReader(reader) {
  if (reader === null || typeof reader !== 'object' || typeof reader.extract !== 'function') {
    throw new TypeError(say('documentReaderShape'))
  }
  for (const key of ['maxInputBytes', 'maxTextBytes']) {
    if (!withinLimit(reader[key], Number.MAX_SAFE_INTEGER)) {
      throw new TypeError(native.positiveIntegerMessage(`documentReader.${key}`))
    }
  }
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
  if (documentReader !== undefined) checkDocumentReader(documentReader)
  const tool = {
    name: 'read',
    kind: 'read',
    description: `Read a file. Text comes back ${cfg.maxLines} lines or ${native.codingFormatSize(cfg.maxBytes)} at a time (use offset/limit to page); images (jpeg, png, gif, webp, bmp) come back as image content.`,
    parameters: READ_PARAMETERS,
    effect: Object.freeze({ kind: 'none', idempotency: 'none' }),
    async execute(args, context) {
      const snap = snapshotContext(context, 'read')
      if (snap.denied) return snap.denied
      const ctx = snap.ctx
      const toolCallId = ctx.toolCallId
      const fail = (message) => errorResult(toolCallId, 'read', message)
      try {
        if (ctx.signal?.aborted) return fail(ABORTED)
        const argError = readArgumentError(args ?? {})
        if (argError) return fail(argError)
        const abs = resolveToCwd(args.path, cwd)
        const request = { args, cfg, toolCallId, context: ctx, options: { executionPolicy, transformImage, operations, documentReader } }
        let result = await readOnce(request, abs)
        if (result.missing && !operations) {
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
  // With no host code in a read (no policy, or this package's approval policy, which the
  // engine decides), a native dispatch runs the tool's calls in the engine.
  const policy = executionPolicy || undefined
  if ((policy === undefined || isEnginePolicy(policy)) && !transformImage && !operations && documentReader === undefined) {
    const shape = (r, target, toolCallId) => (r.mimeType ? imageResult(r, cfg.maxImageBytes, undefined, toolCallId, target) : textResult(r, target, toolCallId))
    engineTools.set(tool.execute, readRoute({ cwd, cfg, readPathSet, policy, shape, execute: tool.execute }))
  }
  return tool
}

/** Whether `policy` is one of `createCodingApprovalPolicy` (its decisions are the engine's). */
function isEnginePolicy(policy) {
  try {
    return typeof policy === 'object' && policy[ENGINE_POLICY] !== undefined
  } catch {
    return false
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
  const reader = options.documentReader
  // With a document reader, the file (when it is not an image) comes back whole first, read
  // by the engine beneath the approved root like any read; the text page only when the
  // reader declines it, as the reference orders them.
  let r = options.operations
    ? await readWithOperations(options.operations, target, { ...nativeReq, documentMaxBytes: reader?.maxInputBytes }, context.signal)
    : await native.codingRead({ ...nativeReq, documentMaxBytes: reader?.maxInputBytes }, decided.beneath)
  if (r.document) {
    if (context?.signal?.aborted) return fail(ABORTED)
    const doc = await documentResult(reader, r.document, target, toolCallId, context?.signal)
    if (doc) return doc
    r = options.operations
      ? await textWithOperations(options.operations, target, nativeReq, context.signal)
      : await native.codingRead(nativeReq, decided.beneath)
  }
  if (context?.signal?.aborted) return fail(ABORTED)
  if (r.error) {
    return { ...fail(r.error), missing: r.missing === true }
  }
  if (r.mimeType) return imageResult(r, cfg.maxImageBytes, options.transformImage, toolCallId, target)
  return textResult(r, target, toolCallId)
}

/** The read result of text page `r` (the engine's) of `target`: `{ path, toolResult }`. */
function textResult(r, target, toolCallId) {
  const text = r.content + r.footer
  const truncation = { content: r.content, ...r.truncation, truncatedBy: r.truncation.truncatedBy ?? null }
  if (!r.truncation.totalBytesKnown) delete truncation.totalBytesKnown
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

/**
 * The host's document reader (`{ maxInputBytes, maxTextBytes, extract }`) on a file's bytes
 * (read within `maxInputBytes`); its extracted text must stay within `maxTextBytes`.
 * Resolves to a read result, or `undefined` when `extract` declines the file.
 */
async function documentResult(reader, buffer, target, toolCallId, signal) {
  const extracted = await reader.extract({ buffer, path: target, signal })
  if (!extracted) return undefined
  if (Buffer.byteLength(extracted.text, 'utf8') > reader.maxTextBytes) {
    throw new Error(say('documentReaderTooMuchText'))
  }
  return {
    path: target,
    toolResult: {
      toolCallId,
      name: 'read',
      content: [{ type: 'text', text: extracted.text }],
      metadata: { document: { format: extracted.format, pages: extracted.pages, truncatedBy: extracted.truncatedBy } },
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
      const message = native.codingOverSizeLimit('transformedImage', len, maxImageBytes)
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
        { type: 'text', text: say('readImageText', { mimeType }) },
        { type: 'image', data: data.toString('base64'), mimeType },
      ],
      metadata: { image: { mimeType, resized: Boolean(transformImage), bytes: data.length } },
    },
  }
}

const INVALID_PAGE = say('readPageInvalid')

/**
 * The read through a host `ReadOperations` backend of the reference's shape: `access`, then
 * `detectImageMimeType` (an image is `statFile`-checked, then read with `readFile` bounded
 * by `maxImageBytes`), else `readText` pages (through `findText` first, when given), each
 * checked against the bounds asked for. The same result shape as `codingRead`.
 */
async function readWithOperations(ops, abs, req, signal) {
  await ops.access(abs, { signal })
  const mimeType = typeof ops.detectImageMimeType === 'function' ? await ops.detectImageMimeType(abs) : undefined
  if (mimeType) return imageWithOperations(ops, abs, mimeType, req, signal)
  if (req.documentMaxBytes !== undefined) return documentWithOperations(ops, abs, req.documentMaxBytes, signal)
  return textWithOperations(ops, abs, req, signal)
}

/** A host backend's text page (after `findText`'s search, when there is one). */
async function textWithOperations(ops, abs, req, signal) {
  const pageOptions = { maxLines: req.maxLines, maxBytes: req.maxBytes, maxScanBytes: req.maxScanBytes, signal }
  let start = req.offset ?? 1
  if (req.findText !== undefined) {
    for (let pages = 1; ; pages++) {
      if (signal?.aborted) throw new Error(ABORTED)
      const page = backendPage(await ops.readText(abs, { offset: start, ...pageOptions }))
      const step = native.codingFindStep(page, req, start, pages)
      if (step.error) return { error: step.error, errorCode: step.errorCode }
      if (step.hit !== null && step.hit !== undefined) {
        start = step.hit
        break
      }
      start = step.next
    }
  }
  const page = backendPage(await ops.readText(abs, { offset: start, limit: req.limit, ...pageOptions }))
  return native.codingPageFromBackend(page, { ...req, offset: start })
}

/** A host backend's file for the document reader, sized by `statFile` before `readFile` (as the reference asks it). */
async function documentWithOperations(ops, abs, max, signal) {
  const tooLarge = (n) => {
    const { message, code } = native.codingDocumentTooLarge(n, max)
    return { error: message, errorCode: code }
  }
  const st = await ops.statFile(abs, { signal })
  if (st?.size > max) return tooLarge(st.size)
  const raw = await ops.readFile(abs, { maxBytes: max, signal })
  const document = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw ?? [])
  if (document.length > max) return tooLarge(document.length)
  return { document }
}

async function imageWithOperations(ops, abs, mimeType, req, signal) {
  if (signal?.aborted) throw new Error(ABORTED)
  const tooLarge = (n) => {
    const { message, code } = native.codingImageTooLarge(n, req.maxImageBytes)
    return { error: message, errorCode: code }
  }
  const st = await ops.statFile(abs, { signal })
  if (Number.isFinite(st?.size) && st.size > req.maxImageBytes) return tooLarge(st.size)
  const raw = await ops.readFile(abs, { maxBytes: req.maxImageBytes, signal })
  const data = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw ?? [])
  if (data.length > req.maxImageBytes) return tooLarge(data.length)
  return { mimeType: String(mimeType), data }
}

const count = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0
const optionalCount = (v) => v === undefined || v === null || count(v)

/** A host page (the reference's `ReadTextResult`), its field types checked. */
function backendPage(p) {
  if (p === null || typeof p !== 'object' || typeof p.content !== 'string') throw new Error(INVALID_PAGE)
  const { startLine, outputLines, scannedBytes, nextOffset, totalLines, totalBytes, truncatedBy } = p
  if (!count(startLine) || !count(outputLines) || !count(scannedBytes)) throw new Error(INVALID_PAGE)
  if (!optionalCount(nextOffset) || !optionalCount(totalLines) || !optionalCount(totalBytes)) throw new Error(INVALID_PAGE)
  if (truncatedBy !== null && truncatedBy !== undefined && truncatedBy !== 'lines' && truncatedBy !== 'bytes') throw new Error(INVALID_PAGE)
  return {
    content: p.content,
    startLine,
    outputLines,
    hasMore: p.hasMore === true,
    nextOffset: nextOffset ?? undefined,
    truncatedBy: truncatedBy ?? undefined,
    firstLineExceedsLimit: p.firstLineExceedsLimit === true,
    scannedBytes,
    totalLines: totalLines ?? undefined,
    totalBytes: totalBytes ?? undefined,
  }
}

/** The image MIME type of a file whose first bytes are `buffer`, or null (magic bytes only). */
function detectSupportedImageMimeType(buffer) {
  return native.codingSniffImage(Buffer.isBuffer(buffer) ? buffer : Buffer.from(buffer ?? []))
}

/**
 * The image MIME type of the file at `filePath` from its first bytes, or null. Opened
 * non-blocking, so a FIFO does not wait for a writer.
 */
async function detectSupportedImageMimeTypeFromFile(filePath) {
  const fh = await fsp.open(filePath, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
  try {
    const head = Buffer.alloc(IMAGE_SNIFF_BYTES)
    const { bytesRead } = await fh.read(head, 0, head.length, 0)
    return detectSupportedImageMimeType(head.subarray(0, bytesRead))
  } finally {
    await fh.close()
  }
}

module.exports = {
  createReadTool,
  resolveToCwd,
  detectSupportedImageMimeType,
  detectSupportedImageMimeTypeFromFile,
  AUTO_RESIZE_REMOVED,
  MAX_READ_LIMIT,
  LIMITS,
}
