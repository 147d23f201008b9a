'use strict'
// prism-native/validation/json-schema: the JSON Schema ToolArgumentValidator (API.md section 7)
// over the engine's validator (the jsonschema crate with Ajv-compatible messages).
//
// Crossing into Rust costs more than a whole warm Ajv validation, so a seen schema object is
// never sent again: a WeakMap maps it to the id of its compiled form in the engine's
// content-keyed LRU, and a warm call crosses once with that id and the instance's JSON text.
// The ToolValidator crosses once too, failing or not: the engine words the refusal in the
// same call, and inside dispatchToolCall it also returns the blocked call the machine decides.
// The JS side only checks what JSON text cannot carry (cycles, non-finite numbers, functions,
// class instances); every bound is enforced in the engine.

const native = require('../native.js')
const { toolValidator, refusalOf, dispatchChecks } = require('../core/validator.js')
const { engineValidators } = require('../core/engine-owned.js')
const { isPlainObject, FORBIDDEN_KEYS } = require('../core/json.js')
const { fromNative } = require('../native-errors.js')
const { limitInput } = require('../limits.js')

const packageName = '@arnilo/prism-tool-validator-json-schema'

/** The options the engine reads: every bound of the validation set, by name, and the switches. */
function nativeOptions(options) {
  const out = { limits: limitInput('validation', options) }
  if (options.strict !== undefined) out.strict = options.strict !== false
  if (options.validateFormats !== undefined) out.validateFormats = options.validateFormats === true
  return out
}

function failure(message) {
  return { ok: false, errors: [{ message }] }
}

// The walks below report a problem as `[kind, path, key?]`; the engine words it
// (`engine.problem`), so each message exists once.

/** The schema checks JSON text cannot carry; `undefined` when the schema is plain JSON. */
function schemaProblem(value, path, depth, maxDepth, ancestors, size) {
  switch (typeof value) {
    case 'string':
      // A lower bound of the JSON text's bytes, so a huge schema stops before it is serialised.
      size.bytes += value.length + 2
      return size.bytes > size.max ? ['schemaTooLarge', path] : undefined
    case 'boolean':
      return undefined
    case 'number':
      return Number.isFinite(value) ? undefined : ['schemaNotFinite', path]
    case 'object':
      if (value === null) return undefined
      break
    default:
      return ['schemaNotSerializable', path]
  }
  if (depth > maxDepth) return ['schemaTooDeep', path]
  if (ancestors.includes(value)) return ['schemaCycle', path]
  ancestors.push(value)
  let problem
  if (Array.isArray(value)) {
    for (let i = 0; problem === undefined && i < value.length; i++) {
      problem = schemaProblem(value[i], `${path}[${i}]`, depth + 1, maxDepth, ancestors, size)
    }
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      size.bytes += key.length + 3
      if (FORBIDDEN_KEYS.has(key)) {
        problem = ['schemaForbiddenKey', path, key]
      } else if (size.bytes > size.max) {
        problem = ['schemaTooLarge', path]
      } else {
        problem = schemaProblem(value[key], `${path}.${key}`, depth + 1, maxDepth, ancestors, size)
      }
      if (problem !== undefined) break
    }
  } else {
    problem = ['schemaNotSerializable', path]
  }
  ancestors.pop()
  return problem
}

function childPath(path, key) {
  return path === '/' ? key : `${path}.${key}`
}

/** The instance checks JSON text cannot carry; `undefined` when the value is plain JSON. */
function instanceProblem(value, path, depth, maxDepth, ancestors) {
  if (depth > maxDepth) {
    return typeof value === 'object' && value !== null && ancestors.includes(value) ? ['notSerializable', path] : ['tooDeep', path]
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined
    case 'number':
      // JSON text cannot carry NaN or Infinity (JSON.stringify would turn them into null).
      return Number.isFinite(value) ? undefined : ['notSerializable', path]
    case 'object':
      if (value === null) return undefined
      break
    default:
      return ['notSerializable', path]
  }
  ancestors.push(value)
  let problem
  if (Array.isArray(value)) {
    for (let i = 0; problem === undefined && i < value.length; i++) {
      problem = instanceProblem(value[i], path === '/' ? `[${i}]` : `${path}[${i}]`, depth + 1, maxDepth, ancestors)
    }
  } else if (isPlainObject(value)) {
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue
      problem = instanceProblem(value[key], childPath(path, key), depth + 1, maxDepth, ancestors)
      if (problem !== undefined) break
    }
  } else {
    problem = ['notSerializable', path]
  }
  ancestors.pop()
  return problem
}

/**
 * One check of a call's JSON text in the engine: `true`, `false` (evicted) or the refusal;
 * inside a dispatch (`d`) the engine also decides the blocked call, and the refusal comes back
 * as the dispatch's ending (an array).
 */
function ask(engine, id, text, name, d) {
  return d === undefined ? engine.checkCall(id, text, name) : engine.checkDispatch(id, text, name, d)
}

/**
 * The engine validator and what both faces share: the schema ids (a seen schema object is never
 * sent again), the walks, and the two ways of asking about an instance.
 */
function createEngineValidator(options) {
  let engine
  try {
    engine = new native.NativeJsonSchemaValidator(nativeOptions(options ?? {}))
  } catch (err) {
    const e = fromNative(err)
    throw e instanceof RangeError ? e : new RangeError(err.message)
  }
  const { maxDepth, maxSchemaDepth, maxSchemaBytes } = engine.bounds()
  // Schema object -> compiled id (number) or the failure result of a bad schema.
  const seen = new WeakMap()
  const ancestors = []

  function prepare(schema) {
    const problem = schemaProblem(schema, 'schema', 0, maxSchemaDepth, ancestors, { bytes: 0, max: maxSchemaBytes })
    ancestors.length = 0
    const outcome = problem === undefined ? engine.prepare(JSON.stringify(schema)) : engine.problem(...problem)
    const entry = typeof outcome === 'number' ? outcome : failure(outcome)
    if (typeof schema === 'object' && schema !== null) seen.set(schema, entry)
    return entry
  }

  function entryOf(schema) {
    const entry = seen.get(schema)
    return entry === undefined ? prepare(schema) : entry
  }

  /** The evicted schema compiled again (counted), for one retry. */
  function prepareAgain(schema) {
    seen.delete(schema)
    return prepare(schema)
  }

  function problemOf(value) {
    const problem = instanceProblem(value, '/', 0, maxDepth, ancestors)
    if (problem !== undefined) ancestors.length = 0
    return problem
  }

  /** `{ ok }` or `{ ok: false, errors }` (the ToolArgumentValidator's answer). */
  function run(schema, value) {
    let entry = entryOf(schema)
    if (typeof entry !== 'number') return entry
    const problem = problemOf(value)
    if (problem !== undefined) return failure(engine.problem(...problem))
    const text = JSON.stringify(value)
    let errors = engine.validate(entry, text)
    if (errors !== null && errors.length === 0) {
      // Evicted from the LRU: compile again and retry once.
      entry = prepareAgain(schema)
      if (typeof entry !== 'number') return entry
      errors = engine.validate(entry, text)
    }
    if (errors === null) return { ok: true }
    // Fresh plain objects from the binding; an absent path is left out, as Ajv's adapter does.
    return { ok: false, errors }
  }

  /**
   * The ToolValidator's question about tool `name`'s call: `undefined` when valid, the engine's
   * refusal when not (one crossing for a compiled schema: the engine validates and words; in a
   * dispatch `d`, the blocked call's ending), or a failure result for the caller to word (a bad
   * schema).
   */
  function check(schema, value, name, d) {
    let entry = entryOf(schema)
    if (typeof entry !== 'number') return entry
    const problem = problemOf(value)
    if (problem !== undefined) return engine.problem(problem[0], problem[1], problem[2], name)
    const text = JSON.stringify(value)
    let verdict = ask(engine, entry, text, name, d)
    if (verdict === false) {
      entry = prepareAgain(schema)
      if (typeof entry !== 'number') return entry
      verdict = ask(engine, entry, text, name, d)
      // Evicted again at once (cannot happen with a cache of one or more): no errors to name.
      if (verdict === false) return { ok: false, errors: [] }
    }
    return verdict === true ? undefined : verdict
  }

  function thrown(err) {
    ancestors.length = 0
    return failure(String(err && err.message !== undefined ? err.message : err))
  }

  /**
   * The prepared schema id of tool `tool`'s parameters, for a native dispatch to check in the
   * engine: 0 for no schema when `missingSchema` allows it, `undefined` when the call must take
   * the JS path (a schema the engine refused, or no schema under `reject`).
   */
  function schemaId(tool, missingSchema) {
    const schema = tool.parameters
    if (schema === undefined || schema === null) return missingSchema === 'reject' ? undefined : 0
    let entry
    try {
      entry = entryOf(schema)
    } catch {
      ancestors.length = 0
      return undefined
    }
    return typeof entry === 'number' ? entry : undefined
  }

  return {
    run,
    check,
    thrown,
    engine,
    schemaId,
    stats() {
      return { compiles: engine.compileCount, cached: engine.cachedCount }
    },
  }
}

/**
 * A ToolArgumentValidator: `validate(schema, value)` never throws; `stats()` reports how many
 * schemas were compiled and are cached.
 */
function createJsonSchemaArgumentValidator(options = {}) {
  return argumentValidatorOf(createEngineValidator(options))
}

function argumentValidatorOf(v) {
  return {
    validate(schema, value) {
      try {
        return v.run(schema, value)
      } catch (err) {
        return v.thrown(err)
      }
    },
    stats: v.stats,
  }
}

/**
 * A ToolValidator for `dispatchToolCall({ validate })`, in the core's message format (the
 * words of `createToolParameterValidator` over this package's ToolArgumentValidator). A call
 * to a tool with a string name is validated and, when it fails, worded by the engine in one
 * crossing; anything else takes the core's path.
 */
function createJsonSchemaToolArgumentValidator(options = {}) {
  const v = createEngineValidator(options)
  const argumentValidator = argumentValidatorOf(v)
  const { validate, run } = toolValidator(options?.missingSchema ?? 'allow', (tool, args, d) => {
    const name = tool.name
    if (typeof name !== 'string') {
      const result = argumentValidator.validate(tool.parameters, args)
      return result.ok ? undefined : refusalOf(tool, result)
    }
    let verdict
    try {
      verdict = v.check(tool.parameters, args, name, d)
    } catch (err) {
      verdict = v.thrown(err)
    }
    return typeof verdict === 'object' && verdict.ok === false ? refusalOf(tool, verdict) : verdict
  })
  validate.stats = v.stats
  dispatchChecks.set(validate, run)
  const missingSchema = options?.missingSchema ?? 'allow'
  engineValidators.set(validate, { engine: v.engine, schemaId: (tool) => (typeof tool.name === 'string' ? v.schemaId(tool, missingSchema) : undefined) })
  return validate
}

module.exports = { createJsonSchemaArgumentValidator, createJsonSchemaToolArgumentValidator, packageName }
