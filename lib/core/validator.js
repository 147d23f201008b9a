'use strict'
// createToolParameterValidator: a ToolArgumentValidator adapter as a ToolValidator (the
// engine words its refusals: `tools::validator`).
const native = require('../native.js')
const { choice } = require('../engine-words.js')

function createToolParameterValidator(validator, options = {}) {
  const missingSchema = choice('missingSchema', options.missingSchema)
  return (tool, args) => {
    if (tool.parameters === undefined || tool.parameters === null) {
      return missingSchema === 'reject' ? native.missingSchemaMessage(String(tool.name)) : undefined
    }
    const result = validator.validate(tool.parameters, args)
    if (result.ok) return undefined
    const errors = result.errors ?? []
    // The engine words the refusal; each path and message crosses as a string (an absent
    // path as an empty one).
    const paths = errors.map((e) => (e.path ? String(e.path) : ''))
    const messages = errors.map((e) => String(e.message))
    return native.validationFailureMessage(String(tool.name), paths, messages)
  }
}

module.exports = { createToolParameterValidator }
