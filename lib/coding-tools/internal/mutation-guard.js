'use strict'
// What write and edit share before they touch a file: the read-before-write refusal and the
// file_changed event.
const { say } = require('../../engine-words.js')

/**
 * The refusal message for a write or edit (`tool`) to `abs` when the host asked for
 * read-before-write, `force` is not `true`, and the session's read-path set does not hold
 * `abs`: a path that does not exist yet has not been read either. `displayPath` is the path
 * as the model gave it.
 */
function readBeforeWriteRefusal(tool, options, displayPath, abs, force) {
  if (!options.requireReadBeforeWrite || force === true) return undefined
  if (options.readPathSet?.has(abs)) return undefined
  return say('readBeforeWrite', { tool, path: displayPath })
}

/** Emits `file_changed` to the host (a throwing listener is ignored: the change is done). */
function emitFileChanged(options, abs, op, toolCallId) {
  if (typeof options.onEvent !== 'function') return
  try {
    options.onEvent({ type: 'file_changed', path: abs, op, toolCallId })
  } catch {
    // the host's listener failed; the file change stands
  }
}

module.exports = { readBeforeWriteRefusal, emitFileChanged }
