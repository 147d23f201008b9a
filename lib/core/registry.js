'use strict'
// The tool registry (insertion order, duplicate policy, identity kept) and filters.

function toolName(tool) {
  if (tool === null || typeof tool !== 'object' || typeof tool.name !== 'string') {
    throw new TypeError('A tool must be an object with a string name')
  }
  if (typeof tool.execute !== 'function') throw new TypeError(`Tool ${tool.name} must have an execute function`)
  return tool.name
}

/**
 * A registry of tools by name. `duplicate: "replace"` (the default) puts the new tool in the
 * old one's position; `"error"` throws `Duplicate tool: <name>`.
 */
function createToolRegistry(tools = [], options = {}) {
  const duplicate = options.duplicate ?? 'replace'
  if (duplicate !== 'replace' && duplicate !== 'error') throw new TypeError('duplicate must be "replace" or "error"')
  const byName = new Map()
  const registry = {
    register(tool) {
      const name = toolName(tool)
      if (duplicate === 'error' && byName.has(name)) throw new Error(`Duplicate tool: ${name}`)
      byName.set(name, tool)
    },
    get(name) {
      return byName.get(name)
    },
    resolve(name) {
      const tool = byName.get(name)
      if (tool === undefined) throw new Error(`Unknown tool: ${name}`)
      return tool
    },
    list() {
      return [...byName.values()]
    },
  }
  for (const tool of tools) registry.register(tool)
  return registry
}

const compiled = new WeakMap()

/** A filter input compiled to sets: the union of denies, and each non-empty allow. */
function compileFilter(filter) {
  let c = compiled.get(filter)
  if (c !== undefined) return c
  const filters = Array.isArray(filter) ? filter : [filter]
  const deny = new Set()
  const allows = []
  for (const f of filters) {
    if (!f) continue
    for (const n of f.deny ?? []) deny.add(n)
    if (f.allow && f.allow.length > 0) allows.push(new Set(f.allow))
  }
  c = { deny, allows }
  compiled.set(filter, c)
  return c
}

/** Whether the compiled filter lets `name` through: not denied, listed by every non-empty allow. */
function filterAllows(filter, name) {
  if (!filter) return true
  const c = compileFilter(filter)
  if (c.deny.has(name)) return false
  for (const a of c.allows) if (!a.has(name)) return false
  return true
}

/** The tools that pass `filter`, in input order. Names match exactly; deny wins. */
function filterTools(tools, filter) {
  if (!filter) return [...tools]
  return tools.filter((t) => filterAllows(filter, t.name))
}

module.exports = { createToolRegistry, filterTools, filterAllows }
