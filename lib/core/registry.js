'use strict'
// The tool registry (insertion order, duplicate policy, identity kept) and filters.

function toolName(tool) {
  if (tool === null || typeof tool !== 'object' || typeof tool.name !== 'string') {
    throw new TypeError(native.notAToolMessage())
  }
  if (typeof tool.execute !== 'function') throw new TypeError(native.noExecuteMessage(tool.name))
  return tool.name
}

/**
 * A registry of tools by name. `duplicate: "replace"` (the default) puts the new tool in the
 * old one's position; `"error"` throws `Duplicate tool: <name>`.
 */
function createToolRegistry(tools = [], options = {}) {
  const duplicate = choice('duplicate', options.duplicate)
  const byName = new Map()
  const registry = {
    register(tool) {
      const name = toolName(tool)
      // The engine's error: `code` ERR_PRISM_DUPLICATE_TOOL, the reference's message.
      if (duplicate === 'error' && byName.has(name)) native.throwDuplicateTool(name)
      byName.set(name, tool)
    },
    get(name) {
      return byName.get(name)
    },
    resolve(name) {
      const tool = byName.get(name)
      // The engine's error: `code` ERR_PRISM_UNKNOWN_TOOL, the reference's message.
      if (tool === undefined) native.throwUnknownTool(String(name))
      return tool
    },
    list() {
      return [...byName.values()]
    },
  }
  for (const tool of tools) registry.register(tool)
  return registry
}

const native = require('../native.js')
const { choice } = require('../engine-words.js')

// Filters compiled by the engine (`tools::filter`), once per filter object.
const compiled = new WeakMap()

/** The engine's compiled form of a filter input (one filter or a list; empty entries skipped). */
function compiledFilter(filter) {
  let c = compiled.get(filter)
  if (c === undefined) {
    const list = Array.isArray(filter) ? filter : [filter]
    c = new native.NativeToolFilter(list.map((f) => f || undefined))
    compiled.set(filter, c)
  }
  return c
}

/** The tools that pass `filter`, in input order. Names match exactly; deny wins. */
function filterTools(tools, filter) {
  if (!filter) return [...tools]
  const c = compiledFilter(filter)
  return tools.filter((t) => c.allows(t.name))
}

module.exports = { createToolRegistry, filterTools, compiledFilter }
