'use strict'
// Plain-JSON checks shared by dispatch (`isJsonObject`) and the adapters.
//
// The walk runs here because it reads JS values: done through Node-API it costs ~25 calls for a
// small argument object (measured 8 µs against ~0.1 µs here). The forbidden keys are the
// engine's list (`tools::args::FORBIDDEN_KEYS`), and the decision on a failed check (reason
// and message) is the engine's too.

const FORBIDDEN_KEYS = new Set(require('../engine-words.js').VOCABULARY.forbiddenKeys)

/** Whether `value` is an object literal: its prototype is Object.prototype or null. */
function isPlainObject(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

// Recursion is fastest for the shallow arguments models send, and it tracks no ancestors: a
// cycle (or hostile nesting) recurses until this depth, and the walk then restarts
// iteratively with exact cycle detection, so the stack cannot overflow.
const RECURSION_DEPTH = 64
const TOO_DEEP = Symbol('too deep')

function walk(value, depth) {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value)
    case 'object':
      break
    default:
      return false
  }
  if (value === null) return true
  if (depth >= RECURSION_DEPTH) throw TOO_DEEP
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!walk(value[i], depth + 1)) return false
    return true
  }
  const proto = Object.getPrototypeOf(value)
  return (proto === Object.prototype || proto === null) && walkEntries(value, depth)
}

/** The keys and values of a plain object (its own prototype already checked). */
function walkEntries(object, depth) {
  for (const key of Object.keys(object)) {
    if (FORBIDDEN_KEYS.has(key) || !walk(object[key], depth + 1)) return false
  }
  return true
}

function walkIteratively(root) {
  const onPath = new Set()
  // Frames: [value, childIterator]; an iterator of child values, or null for a leaf.
  const stack = [[root, null]]
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]
    const value = frame[0]
    if (frame[1] === null) {
      if (typeof value !== 'object' || value === null) {
        if (!walk(value, 0)) return false
        stack.pop()
        continue
      }
      if (onPath.has(value)) return false
      let children
      if (Array.isArray(value)) children = value
      else if (isPlainObject(value)) {
        const keys = Object.keys(value)
        if (keys.some((k) => FORBIDDEN_KEYS.has(k))) return false
        children = keys.map((k) => value[k])
      } else return false
      onPath.add(value)
      frame[1] = children[Symbol.iterator]()
    }
    const next = frame[1].next()
    if (next.done) {
      onPath.delete(value)
      stack.pop()
    } else {
      stack.push([next.value, null])
    }
  }
  return true
}

/**
 * Whether `value` is a plain JSON object: an object literal whose nested values are only
 * strings, finite numbers, booleans, null, arrays and object literals, without cycles and
 * without `__proto__`/`prototype`/`constructor` keys at any depth.
 */
function isJsonObject(value) {
  if (!isPlainObject(value)) return false
  try {
    return walkEntries(value, 0)
  } catch (err) {
    if (err !== TOO_DEEP) throw err
    return walkIteratively(value)
  }
}

module.exports = { FORBIDDEN_KEYS, isPlainObject, isJsonObject }
