'use strict'
// Path resolution as the reference's path-utils: Unicode spaces, a leading "@", "~",
// file:// URLs, then absolute as is or relative to cwd. No containment here: that is the
// execution policy's job.
const os = require('node:os')
const path = require('node:path')
const { fileURLToPath } = require('node:url')
const fsp = require('node:fs/promises')

const UNICODE_SPACES = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g

/** `p` as an absolute path, resolved against `cwd`. */
function resolveToCwd(p, cwd) {
  let s = p.replace(UNICODE_SPACES, ' ')
  if (s.startsWith('@')) s = s.slice(1)
  if (s === '~') s = os.homedir()
  else if (s.startsWith('~/')) s = path.join(os.homedir(), s.slice(2))
  else if (s.startsWith('file://')) {
    try {
      s = fileURLToPath(s)
    } catch {
      // not a valid file URL: keep it as a path
    }
  }
  return path.isAbsolute(s) ? path.resolve(s) : path.resolve(cwd, s)
}

/**
 * The macOS spellings of a missing path that may exist instead: a narrow no-break space
 * before AM/PM (screenshots), the NFD form, and a curly apostrophe.
 */
function macOsVariants(abs) {
  const out = new Set([
    abs.replace(/ (AM|PM)\./g, '\u202F$1.'),
    abs.normalize('NFD'),
    abs.replace(/'/g, '\u2019'),
  ])
  out.delete(abs)
  return [...out]
}

/** The first existing macOS variant of a missing `abs`, or undefined. */
async function findReadPathVariant(abs) {
  for (const v of macOsVariants(abs)) {
    try {
      await fsp.access(v)
      return v
    } catch {
      // try the next spelling
    }
  }
  return undefined
}

module.exports = { resolveToCwd, macOsVariants, findReadPathVariant }
