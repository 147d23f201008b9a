'use strict'
// Path containment (API.md section 9 step 3, Decision 8): lexical and realpath checks.
const path = require('node:path')
const fs = require('node:fs/promises')

const MAX_LINKS = 40

/** Whether `target` is `root` or beneath it, lexically (no filesystem access). */
function isPathInside(root, target) {
  const rel = path.relative(path.resolve(root), path.resolve(target))
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

/**
 * The real location `target` names: `realpath` when it exists; for a missing final component,
 * `realpath(dirname)/basename` (a missing parent throws); for a dangling symlink, the real
 * location of its target, followed up to 40 links. Relative paths resolve against the
 * process's working directory.
 */
async function realLocation(target, links = 0) {
  const abs = path.resolve(target)
  try {
    return await fs.realpath(abs)
  } catch (error) {
    if (error?.code !== 'ENOENT') throw error
  }
  const parent = await fs.realpath(path.dirname(abs))
  let stat
  try {
    stat = await fs.lstat(abs)
  } catch (error) {
    if (error?.code === 'ENOENT') return path.join(parent, path.basename(abs))
    throw error
  }
  if (!stat.isSymbolicLink() || links >= MAX_LINKS) throw new Error(`cannot resolve ${abs}`)
  return realLocation(path.resolve(parent, await fs.readlink(abs)), links + 1)
}

/** Whether the real location of `target` is inside the real `root`; any error gives false. */
async function isPathInsideReal(root, target) {
  try {
    const [realRoot, realTarget] = await Promise.all([fs.realpath(root), realLocation(target)])
    return isPathInside(realRoot, realTarget)
  } catch {
    return false
  }
}

/**
 * The real root among `roots` that contains the real location of `target`, with that
 * location: `{ root, target }`, or undefined (fail closed on any error).
 */
async function containingRoot(roots, target) {
  if (typeof target !== 'string' || !Array.isArray(roots)) return undefined
  let realTarget
  try {
    realTarget = await realLocation(target)
  } catch {
    return undefined
  }
  for (const root of roots) {
    try {
      const realRoot = await fs.realpath(root)
      if (isPathInside(realRoot, realTarget)) return { root: realRoot, target: realTarget }
    } catch {
      // a root that does not resolve contains nothing
    }
  }
  return undefined
}

/** Whether `target` is inside one of `roots` (realpath containment, fail closed). */
async function assertPathInsideRoots(roots, target) {
  return (await containingRoot(roots, target)) !== undefined
}

module.exports = { isPathInside, isPathInsideReal, assertPathInsideRoots, containingRoot, realLocation }
