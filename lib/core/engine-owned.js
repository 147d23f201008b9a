'use strict'
// What a native dispatch (`native-dispatch.js`) may run without calling host code: the
// functions this package made, each recorded by identity when it is made. A host that wraps
// or replaces one (a new function) is not found here, and its calls take the JS path.

/**
 * A tool's `execute` → how the engine runs that tool's calls itself (`{ name, remoteName, calls }`:
 * an MCP bridge's tools, `mcp/native-calls.js`; a read tool without host code,
 * `coding-tools/internal/read-route.js`).
 */
const engineTools = new WeakMap()

/** The `check` functions of this package's static permission and trust policies: pure, sync. */
const pureChecks = new WeakSet()

/** A ToolValidator → the engine validator that checks it (this package's JSON Schema validator). */
const engineValidators = new WeakMap()

module.exports = { engineTools, pureChecks, engineValidators }
