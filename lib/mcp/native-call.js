'use strict'
// One engine call from the MCP facade: its native error becomes the reference's class.
const { fromNative } = require('../native-errors.js')

/** `fn()`, with a thrown native error converted by `fromNative`. */
function engineCall(fn) {
  try {
    return fn()
  } catch (err) {
    throw fromNative(err)
  }
}

module.exports = { engineCall }
