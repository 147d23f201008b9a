'use strict'
// The engine's option sets (crates/engine/src/option_sets.rs): every limit of each set with
// its key, option name, default, hard cap and doc, read once. The public constants, the
// option lists and the values handed to the engine are built from these tables, so each
// limit is declared once, in the engine; the engine checks every value.
const native = require('./native.js')

const tables = new Map()

/** The rows `{ key, name, default, hard, doc }` of option set `set`, frozen, in check order. */
function limitTable(set) {
  let rows = tables.get(set)
  if (rows === undefined) {
    rows = Object.freeze(native.limitTable(set).map((row) => Object.freeze(row)))
    tables.set(set, rows)
  }
  return rows
}

/** `{ <key>: { default, hard } }` for every limit of `set`. */
function limitBounds(set) {
  return Object.fromEntries(limitTable(set).map((row) => [row.key, Object.freeze({ default: row.default, hard: row.hard })]))
}

/** A limit value as the engine checks it: numbers as they are, anything else `NaN`. */
function limitValue(value) {
  if (value === undefined) return undefined
  return typeof value === 'number' ? value : Number.NaN
}

/**
 * The values `options` sets for the limits of `set`, by option name, ready for the engine to
 * resolve (unset ones left out, so the engine's default applies).
 */
function limitInput(set, options, into = {}) {
  for (const { name } of limitTable(set)) {
    const value = limitValue(options?.[name])
    if (value !== undefined) into[name] = value
  }
  return into
}

module.exports = { limitTable, limitBounds, limitInput, limitValue }
