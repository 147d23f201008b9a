'use strict'
// A host's value as JSON text for the engine, or the fault that keeps it from having one
// (the engine words the error). Used wherever a value from a host's client or callback
// crosses to the engine.

class NotJson {
  constructor(fault) {
    this.fault = fault
  }
}

// JSON.stringify replacer: refuses what JSON cannot hold instead of silently dropping or
// nulling it. `this[key]` is the value before any toJSON(). A property set to `undefined` is
// an absent property (SDK objects that never crossed a wire carry such keys).
function refuseNonJson(key, value) {
  const raw = this[key]
  switch (typeof raw) {
    case 'undefined':
      if (Array.isArray(this)) throw new NotJson('not_json')
      return undefined
    case 'string':
    case 'boolean':
      return value
    case 'number':
      if (Number.isFinite(raw)) return value
      throw new NotJson('non_finite')
    case 'object': {
      if (raw === null || Array.isArray(raw)) return value
      const proto = Object.getPrototypeOf(raw)
      if (proto === Object.prototype || proto === null) return value
      throw new NotJson('non_plain')
    }
    default:
      throw new NotJson('not_json')
  }
}

/** `[jsonText, null]`, or `[null, fault]` naming why the value has no JSON text. */
function toJsonText(value) {
  try {
    const text = JSON.stringify(value, refuseNonJson)
    return text === undefined ? [null, 'not_json'] : [text, null]
  } catch (err) {
    if (err instanceof NotJson) return [null, err.fault]
    if (err instanceof RangeError) return [null, 'too_deep']
    if (err instanceof TypeError && reachesItself(value)) return [null, 'cycle']
    return [null, 'not_json']
  }
}

/**
 * Whether `value` contains itself: what `JSON.stringify` refuses with a TypeError worded by
 * each engine its own way (V8 "circular structure", JavaScriptCore "cyclic structures"), so
 * the structure is looked at, not the message. Every object is explored once.
 */
function reachesItself(value) {
  const open = new Set()
  const done = new Set()
  const visit = (v) => {
    if (v === null || typeof v !== 'object' || done.has(v)) return false
    if (open.has(v)) return true
    open.add(v)
    for (const child of Object.values(v)) if (visit(child)) return true
    open.delete(v)
    done.add(v)
    return false
  }
  try {
    return visit(value)
  } catch {
    return false
  }
}

module.exports = { toJsonText }
