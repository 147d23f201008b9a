'use strict'
// The engine's constants and dispatch vocabulary, read from the binding once per process:
// every module that needs them shares these objects (each read builds its object across
// Node-API).
const native = require('./native.js')

/** `engineConstants()`: numbers and messages the facade uses as the engine defines them. */
const CONSTANTS = Object.freeze(native.engineConstants())
/** `dispatchVocabulary()`: event, reason, gate and hook names, forbidden keys, messages. */
const VOCABULARY = Object.freeze(native.dispatchVocabulary())

module.exports = { CONSTANTS, VOCABULARY }
