'use strict'
// createToolParameterValidator: a ToolArgumentValidator adapter as a ToolValidator.

function createToolParameterValidator(validator, options = {}) {
  const missingSchema = options.missingSchema ?? 'allow'
  if (missingSchema !== 'allow' && missingSchema !== 'reject') throw new TypeError('missingSchema must be "allow" or "reject"')
  return (tool, args) => {
    if (tool.parameters === undefined || tool.parameters === null) {
      return missingSchema === 'reject' ? `Tool ${tool.name} has no parameters schema` : undefined
    }
    const result = validator.validate(tool.parameters, args)
    if (result.ok) return undefined
    const errors = result.errors ?? []
    if (errors.length === 0) return `Tool arguments failed validation: ${tool.name}`
    return errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ')
  }
}

module.exports = { createToolParameterValidator }
