'use strict'
// Path containment (API.md section 9 step 3, Decision 8): the engine decides
// (crates/engine/src/policy/containment.rs); paths are resolved here with Node's own
// `path.resolve` first, so relative paths and `..` read as they do for every Node API.
const path = require('node:path')
const native = require('../../native.js')

/** Whether `target` is `root` or beneath it, lexically (no filesystem access). */
function isPathInside(root, target) {
  return native.isPathInside(path.resolve(root), path.resolve(target))
}

/**
 * The real root among `roots` that contains the real location of `target`, with that
 * location: `{ root, target }`, or undefined (fail closed on any error). The real location is
 * `realpath` when the path exists; for a missing final component, `realpath(dirname)/basename`
 * (a missing parent resolves to nothing); for a dangling symlink, the real location of its
 * target, followed up to 40 links. A root that is not a string, or does not resolve, contains
 * nothing.
 */
async function containingRoot(roots, target) {
  if (typeof target !== 'string' || !Array.isArray(roots)) return undefined
  const found = await native.containingRoot(roots.filter((r) => typeof r === 'string'), path.resolve(target))
  return found ?? undefined
}

/** Whether the real location of `target` is inside the real `root`; any error gives false. */
async function isPathInsideReal(root, target) {
  return typeof root === 'string' && (await containingRoot([root], target)) !== undefined
}

/** Whether `target` is inside one of `roots` (realpath containment, fail closed). */
async function assertPathInsideRoots(roots, target) {
  return (await containingRoot(roots, target)) !== undefined
}

module.exports = { isPathInside, isPathInsideReal, assertPathInsideRoots, containingRoot }
