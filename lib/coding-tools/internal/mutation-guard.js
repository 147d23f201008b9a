'use strict'
// What write and edit share before they touch a file: the read-before-write refusal and the
// file_changed event.
const fsp = require('node:fs/promises')

async function fileExists(abs, operations) {
  try {
    if (operations?.access) await operations.access(abs)
    else await fsp.access(abs)
    return true
  } catch {
    return false
  }
}

/** The refusal message when `abs` exists, was not read in this session and `force` is unset. */
async function readBeforeWriteRefusal(options, abs, force) {
  if (!options.requireReadBeforeWrite || force === true) return undefined
  if (options.readPathSet?.has(abs)) return undefined
  if (!(await fileExists(abs, options.operations))) return undefined
  return `Refusing write to ${abs}: not read in this session. Read first or pass force=true.`
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
