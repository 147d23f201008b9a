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
 * A ToolValidator that honours `missingSchema` and asks `check(tool, args)` (a refusal, or
 * `undefined` to go on) about a tool that has a schema.
 */
function toolValidator(missingSchemaOption, check) {
  const missingSchema = choice('missingSchema', missingSchemaOption)
  return (tool, args) => {
    if (tool.parameters === undefined || tool.parameters === null) {
      return missingSchema === 'reject' ? native.missingSchemaMessage(String(tool.name)) : undefined
    }
    return check(tool, args)
  }
}

function createToolParameterValidator(validator, options = {}) {
  return toolValidator(options.missingSchema, (tool, args) => {
    const result = validator.validate(tool.parameters, args)
    return result.ok ? undefined : refusalOf(tool, result)
  })
}

module.exports = { createToolParameterValidator, toolValidator, refusalOf }
