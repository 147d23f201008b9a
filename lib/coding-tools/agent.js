'use strict'
// prism-native/coding-tools/agent: read, write, edit and shell tools with hard bounds, the
// limit constants, formatSize and withFileMutationQueue.
const { native, LIMITS, validateCodingLimit } = require('./internal/common.js')
const { createReadTool, detectSupportedImageMimeType, detectSupportedImageMimeTypeFromFile } = require('./internal/read.js')
const { createWriteTool } = require('./internal/write.js')
const { createEditTool } = require('./internal/edit.js')
const { createShellTool } = require('./internal/shell.js')
const { withFileMutationQueue } = require('./internal/mutation-queue.js')
const { resolveToCwd } = require('./internal/paths.js')
const { createReadPathSet } = require('./internal/read-path-set.js')

/** `<1024` → `"<b>B"`, below 1 MiB → `"<x.x>KB"`, otherwise `"<x.x>MB"`. */
function formatSize(bytes) {
  return native.codingFormatSize(bytes)
}

module.exports = {
  createReadTool,
  detectSupportedImageMimeType,
  detectSupportedImageMimeTypeFromFile,
  createReadPathSet,
  createWriteTool,
  createEditTool,
  createShellTool,
  withFileMutationQueue,
  formatSize,
  resolveToCwd,
  validateCodingLimit,
  DEFAULT_MAX_LINES: LIMITS.maxLines.default,
  HARD_MAX_LINES: LIMITS.maxLines.hard,
  DEFAULT_MAX_BYTES: LIMITS.maxBytes.default,
  HARD_MAX_BYTES: LIMITS.maxBytes.hard,
  DEFAULT_MAX_IMAGE_BYTES: LIMITS.maxImageBytes.default,
  HARD_MAX_IMAGE_BYTES: LIMITS.maxImageBytes.hard,
  DEFAULT_MAX_SCAN_BYTES: LIMITS.readMaxScanBytes.default,
  HARD_MAX_SCAN_BYTES: LIMITS.readMaxScanBytes.hard,
  DEFAULT_WRITE_MAX_INPUT_BYTES: LIMITS.writeMaxInputBytes.default,
  HARD_WRITE_MAX_INPUT_BYTES: LIMITS.writeMaxInputBytes.hard,
  DEFAULT_EDIT_MAX_FILE_BYTES: LIMITS.editMaxFileBytes.default,
  HARD_EDIT_MAX_FILE_BYTES: LIMITS.editMaxFileBytes.hard,
  DEFAULT_EDIT_MAX_INPUT_BYTES: LIMITS.editMaxInputBytes.default,
  HARD_EDIT_MAX_INPUT_BYTES: LIMITS.editMaxInputBytes.hard,
  DEFAULT_MAX_EDITS: LIMITS.maxEdits.default,
  HARD_MAX_EDITS: LIMITS.maxEdits.hard,
  DEFAULT_SHELL_TIMEOUT_SECONDS: LIMITS.shellTimeout.default,
  HARD_SHELL_TIMEOUT_SECONDS: LIMITS.shellTimeout.hard,
  DEFAULT_MAX_TOTAL_OUTPUT_BYTES: LIMITS.shellMaxTotalOutputBytes.default,
  HARD_MAX_TOTAL_OUTPUT_BYTES: LIMITS.shellMaxTotalOutputBytes.hard,
}
