'use strict'
// The reference's pure helpers: names, content mapping, error messages, byte counts.
const native = require('../native.js')
const { fromNative } = require('../native-errors.js')

const { CODES, CONSTANTS, argTypeError, typeWord } = require('../engine-words.js')
const { MCP_LIMITS } = require('./limits.js')

const { mcpErrorSummaryBytes: SUMMARY_BYTES } = CONSTANTS

/** Throws `Error` unless `serverId` matches /^[A-Za-z0-9][A-Za-z0-9._-]*$/. */
function assertValidServerId(serverId) {
  try {
    native.mcpAssertValidServerId(typeof serverId === 'string' ? serverId : '')
  } catch (err) {
    throw fromNative(err)
  }
}

/** `mcp:<serverId>:` */
function defaultMcpNamePrefix(serverId) {
  assertValidServerId(serverId)
  return `mcp:${serverId}:`
}

/** `prefix + remoteName` (no separator added). */
function formatMcpToolName(prefix, remoteName) {
  return `${prefix}${remoteName}`
}

/** UTF-8 bytes of `value`. */
function estimateUtf8Bytes(value) {
  return Buffer.byteLength(String(value), 'utf8')
}

/**
 * The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, cut on a character boundary
 * (the engine's `truncate_utf8`; `maxBytes` read as a number, as a comparison reads it).
 */
function truncateUtf8(text, maxBytes) {
  return native.mcpTruncateUtf8(text, Number(maxBytes)) ?? text
}

/**
 * MCP content blocks as prism blocks within `maxResultBytes` (mapped natively). Options that
 * are not an object, or no `maxResultBytes`, are a `TypeError`; a `maxResultBytes` out of
 * range is the reference's `McpBridgeError`.
 */
function mapMcpContentToBlocks(content, options) {
  if (options === null || typeof options !== 'object') throw argTypeError('mcpMapOptions', { type: typeWord(options) })
  const { maxResultBytes } = options
  if (maxResultBytes === undefined) throw argTypeError('mcpMapMaxResultBytes', { hard: MCP_LIMITS.maxResultBytes.hard })
  let text
  try {
    text = native.mcpMapContent(JSON.stringify(Array.isArray(content) ? content : []), maxResultBytes)
  } catch (err) {
    throw fromNative(err)
  }
  return JSON.parse(text)
}

/** A plain-text summary of `content`, at most `maxBytes` UTF-8 bytes. */
function summarizeMcpContent(content, maxBytes = SUMMARY_BYTES) {
  return native.mcpSummarizeContent(JSON.stringify(Array.isArray(content) ? content : []), maxBytes)
}

/** The message of `error` (any thrown value), at most `maxBytes` UTF-8 bytes. */
function boundedMcpErrorMessage(error, maxBytes) {
  let message
  if (error instanceof Error) message = error.message
  else if (typeof error === 'string') message = error
  else if (error !== null && typeof error === 'object' && typeof error.message === 'string') message = error.message
  else message = String(error)
  return truncateUtf8(message, maxBytes)
}

/** `{ name: "McpToolError", message, code }` */
function mcpCallError(message, code = CODES.mcpTool) {
  return { name: 'McpToolError', message, code }
}

module.exports = {
  assertValidServerId,
  defaultMcpNamePrefix,
  formatMcpToolName,
  estimateUtf8Bytes,
  mapMcpContentToBlocks,
  summarizeMcpContent,
  boundedMcpErrorMessage,
  mcpCallError,
}
