'use strict'
// The engine's constants and dispatch vocabulary, read from the binding once per process:
// every module that needs them shares these objects (each read builds its object across
// Node-API).
const native = require('./native.js')

/** `engineConstants()`: numbers and messages the facade uses as the engine defines them. */
const CONSTANTS = Object.freeze(native.engineConstants())
/** `dispatchVocabulary()`: event, reason, gate and hook names, forbidden keys, messages. */
const VOCABULARY = Object.freeze(native.dispatchVocabulary())

/** `errorCodes()`: the codes of the facade's own error classes and the engine's code families. */
const CODES = Object.freeze(native.errorCodes())

/** `facadeWords()`: the templates of the facade's own refusals and its choice options. */
const FACADE = native.facadeWords()

/**
 * The facade message `key` with each `{name}` of `values` put in (the engine's template;
 * an unknown key is a bug here, so it throws).
 */
function say(key, values) {
  const template = FACADE.templates[key]
  if (template === undefined) throw new Error(`no facade word ${key}`)
  if (values === undefined) return template
  return template.replace(/\{([A-Za-z]+)\}/g, (m, name) => (Object.hasOwn(values, name) ? String(values[name]) : m))
}

/** The type a refusal names: `null`, `array`, or `typeof v`. */
function typeWord(v) {
  if (v === null) return 'null'
  return Array.isArray(v) ? 'array' : typeof v
}

/** A `TypeError` with Node's `ERR_INVALID_ARG_TYPE` code and the facade message `key`. */
function argTypeError(key, values) {
  const error = new TypeError(say(key, values))
  error.code = CODES.invalidArgType
  return error
}

/** The value of choice option `option` (`value ?? default`), or a TypeError in the engine's words. */
function choice(option, value) {
  const values = FACADE.choices[option]
  const v = value ?? values[0]
  if (!values.includes(v)) throw new TypeError(FACADE.choiceMessages[option])
  return v
}

/** `name`'s closed list of values (`effectKinds`, `effectIdempotency`), from the engine. */
function vocabulary(name) {
  return FACADE.vocabularies[name]
}

module.exports = { CONSTANTS, CODES, VOCABULARY, say, choice, vocabulary, typeWord, argTypeError }
