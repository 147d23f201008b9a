'use strict'
// createToolParameterValidator: a ToolArgumentValidator adapter as a ToolValidator (the
// engine words its refusals: `tools::validator`).
const native = require('../native.js')
const { choice } = require('../engine-words.js')

/** The engine's refusal of tool `tool`'s call that failed with `{ ok: false, errors }`. */
function refusalOf(tool, result) {
  const errors = result.errors ?? []
  // The engine words the refusal; each path and message crosses as a string (an absent
  // path as an empty one).
  const paths = errors.map((e) => (e.path ? String(e.path) : ''))
  const messages = errors.map((e) => String(e.message))
  return native.validationFailureMessage(String(tool.name), paths, messages)
}

/**
 * ToolValidators whose check runs in the engine together with the dispatch machine's decision,
 * so a failing call crosses once: the validator function -> `run(tool, args, d)` (`d`, the
 * driver's record), which gives `undefined` to go on, the blocked call's ending (an array), or
 * a verdict for the driver to report. Only this package's JSON Schema validator is here.
 */
const dispatchChecks = new WeakMap()

/**
 * A ToolValidator that honours `missingSchema` and asks `check(tool, args, d)` (a refusal, or
 * `undefined` to go on) about a tool that has a schema; `run` is the same with the dispatch
 * record `d` (`undefined` from `validate`).
 */
function toolValidator(missingSchemaOption, check) {
  const missingSchema = choice('missingSchema', missingSchemaOption)
  const run = (tool, args, d) => {
    if (tool.parameters === undefined || tool.parameters === null) {
      return missingSchema === 'reject' ? native.missingSchemaMessage(String(tool.name)) : undefined
    }
    return check(tool, args, d)
  }
  return { run, validate: (tool, args) => run(tool, args, undefined) }
}

function createToolParameterValidator(validator, options = {}) {
  return toolValidator(options.missingSchema, (tool, args) => {
    const result = validator.validate(tool.parameters, args)
    return result.ok ? undefined : refusalOf(tool, result)
  }).validate
}

module.exports = { createToolParameterValidator, toolValidator, refusalOf, dispatchChecks }
