#!/usr/bin/env node
// The project's structural rules, checked on the source tree (plain Node, no dependencies):
//
// 1. No import cycle between the files of a library crate: the engine, the command analysis
//    it re-exports, and every other `crates/*/src/lib.rs`. Each crate's module tree is read
//    from the `mod` declarations, starting at its `lib.rs` (inline `mod x { ... }` blocks
//    included); each file's edges are the paths it names that start with `crate::`,
//    `super::` or `self::` (in `use` items and in code), `use` paths that start with a
//    child module's name, and names a `use ... as alias` introduced. A path belongs to the
//    file of the deepest module it names. A reference to one's own ancestors (`super::Error`
//    from a submodule) is not an edge: the parent declares the child, and the child seeing
//    its parent is how Rust nests modules. Code compiled only for tests (`#[cfg(test)]`
//    items and modules) is not part of the graph: a test may drive its module through a
//    higher one. Any other cycle fails, named file by file.
// 2. No hand-written source file over MAX_LINES lines among `crates/*/src/**/*.rs`,
//    `src/*.rs` and `lib/**/*.js` (generated files such as `binding.js` and test trees such
//    as `crates/engine/tests/` and `__test__/` are outside these globs or skipped by name).
//
// Usage: `node scripts/check-structure.mjs [root]`; exits 1 naming every problem.

import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs'
import { join, dirname, basename, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The most lines a hand-written source file may have. */
export const MAX_LINES = 1500

/** Generated files, never counted against MAX_LINES. */
const GENERATED = new Set(['binding.js', 'binding.d.ts'])

const KEYWORDS = new Set(['crate', 'super', 'self'])

/**
 * Cycles tolerated while work that owns them is in progress, each as the sorted files of its
 * strongly connected component: tolerated while they exist exactly so (a file joining one
 * fails), and an entry that no longer matches fails too, so this list only shrinks. Empty: no
 * library crate has an import cycle.
 */
export const KNOWN_CYCLES = []

/** Every file under `dir` (recursively) whose name ends with `ext`, sorted. */
function walk(dir, ext) {
  if (!existsSync(dir)) return []
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...walk(full, ext))
    else if (entry.name.endsWith(ext)) out.push(full)
  }
  return out.sort()
}

/**
 * Rust source as tokens: identifiers (keywords included), `::`, and single punctuation
 * characters, with comments, string, byte-string, raw-string and char literals dropped
 * (a string literal becomes the token `"`). Lifetimes are dropped too.
 */
export function tokenize(src) {
  const tokens = []
  let i = 0
  const n = src.length
  const isIdentStart = (c) => /[A-Za-z_]/.test(c)
  const isIdent = (c) => /[A-Za-z0-9_]/.test(c)
  while (i < n) {
    const c = src[i]
    if (c === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i += 1
      continue
    }
    if (c === '/' && src[i + 1] === '*') {
      let depth = 1
      i += 2
      while (i < n && depth > 0) {
        if (src[i] === '/' && src[i + 1] === '*') { depth += 1; i += 2 }
        else if (src[i] === '*' && src[i + 1] === '/') { depth -= 1; i += 2 }
        else i += 1
      }
      continue
    }
    // Raw strings: r"..", r#".."#, br#".."#.
    const raw = /^(b?r)(#*)"/.exec(src.slice(i, i + 40))
    if (raw && (i === 0 || !isIdent(src[i - 1]))) {
      const close = `"${raw[2]}`
      const end = src.indexOf(close, i + raw[0].length)
      i = end < 0 ? n : end + close.length
      tokens.push('"')
      continue
    }
    if (c === '"' || (c === 'b' && src[i + 1] === '"' && (i === 0 || !isIdent(src[i - 1])))) {
      i += c === 'b' ? 2 : 1
      while (i < n && src[i] !== '"') i += src[i] === '\\' ? 2 : 1
      i += 1
      tokens.push('"')
      continue
    }
    if (c === '\'' || (c === 'b' && src[i + 1] === '\'' && (i === 0 || !isIdent(src[i - 1])))) {
      const at = c === 'b' ? i + 1 : i
      // A char literal ('a', '\n', '\u{1F600}', '\'') or a lifetime ('a, 'static).
      const m = /^'(\\u\{[0-9A-Fa-f]+\}|\\x[0-9A-Fa-f]{2}|\\.|[^\\'])'/u.exec(src.slice(at, at + 16))
      if (m) {
        i = at + m[0].length
        tokens.push('"')
      } else {
        i = at + 1
        while (i < n && isIdent(src[i])) i += 1
      }
      continue
    }
    if (isIdentStart(c)) {
      let j = i + 1
      while (j < n && isIdent(src[j])) j += 1
      // `r#ident`.
      if (src.slice(i, j) === 'r' && src[j] === '#' && isIdentStart(src[j + 1] ?? '')) {
        let k = j + 1
        while (k < n && isIdent(src[k])) k += 1
        tokens.push(src.slice(j + 1, k))
        i = k
        continue
      }
      tokens.push(src.slice(i, j))
      i = j
      continue
    }
    if (/[0-9]/.test(c)) {
      let j = i + 1
      while (j < n && /[0-9A-Za-z_.]/.test(src[j]) && !(src[j] === '.' && src[j + 1] === '.')) j += 1
      i = j
      continue
    }
    if (c === ':' && src[i + 1] === ':') {
      tokens.push('::')
      i += 2
      continue
    }
    if (/\s/.test(c)) {
      i += 1
      continue
    }
    tokens.push(c)
    i += 1
  }
  return tokens
}

/** The paths of a `use` tree (tokens between `use` and `;`), as segment arrays and aliases. */
function useTreePaths(tokens) {
  const paths = []
  let i = 0
  function tree(prefix) {
    const segs = [...prefix]
    if (tokens[i] === '::') i += 1; // a leading `::`
    for (;;) {
      const t = tokens[i]
      if (t === '{') {
        i += 1
        while (i < tokens.length && tokens[i] !== '}') {
          tree(segs)
          if (tokens[i] === ',') i += 1
        }
        i += 1
        return
      }
      if (t === '*') {
        i += 1
        paths.push({ segs, alias: null })
        return
      }
      if (t === undefined || !/^[A-Za-z_]\w*$/.test(t)) return
      i += 1
      if (t === 'self' && segs.length > 0) {
        // `a::{self}`: the module itself.
      } else {
        segs.push(t)
      }
      if (tokens[i] === '::') {
        i += 1
        continue
      }
      let alias = null
      if (tokens[i] === 'as') {
        alias = tokens[i + 1]
        i += 2
      }
      paths.push({ segs, alias, last: t === 'self' ? segs[segs.length - 1] : t })
      return
    }
  }
  tree([])
  return paths
}

/** The source folders of the library crates under `crates/` (each with a `src/lib.rs`), sorted. */
export function libraryCrates(root) {
  const crates = join(root, 'crates')
  if (!existsSync(crates)) return []
  return readdirSync(crates)
    .sort()
    .map((c) => `crates/${c}/src`)
    .filter((src) => existsSync(join(root, src, 'lib.rs')))
}

/**
 * A crate's module graph (the engine's unless `crateSrc` names another) at file level:
 * `{ files, edges }` where `edges` maps each file (relative to `root`) to the set of files it
 * references.
 */
export function moduleGraph(root, crateSrc = 'crates/engine/src') {
  const srcDir = join(root, crateSrc)
  const rootFile = join(srcDir, 'lib.rs')
  /** Module path (`crate::a::b`) -> file (relative). */
  const moduleFile = new Map()
  /** Per file: its module path, declared children, and the raw references to resolve. */
  const parsed = []
  const rel = (f) => relative(root, f).split(sep).join('/')

  function parseFile(file, modPath) {
    const tokens = tokenize(readFileSync(file, 'utf8'))
    const isDirOwner = ['lib.rs', 'mod.rs', 'main.rs'].includes(basename(file))
    const childDir = isDirOwner ? dirname(file) : join(dirname(file), basename(file, '.rs'))
    moduleFile.set(modPath.join('::'), rel(file))
    const refs = []; // { from: modPath array, segs, isUse }
    const aliases = []; // { scope: modPath array, name, segs }
    const children = []; // { scope, name }
    // Brace stack: `{ name, test }`, `name` an inline module's (else null), `test` when the
    // block is compiled only for tests.
    const stack = []
    const names = () => stack.filter((s) => s.name !== null).map((s) => s.name)
    const scope = () => [...modPath, ...names()]
    const dirOf = () => join(childDir, ...names())
    const inTest = () => stack.some((s) => s.test)
    let pendingMod = null
    // The next item is `#[cfg(test)]`-gated (`cfg(all(test, unix))` too; not `cfg(not(test))`).
    let pendingTest = false
    for (let i = 0; i < tokens.length; i += 1) {
      const t = tokens[i]
      if (t === '#' && (tokens[i + 1] === '[' || (tokens[i + 1] === '!' && tokens[i + 2] === '['))) {
        let j = tokens.indexOf('[', i)
        const start = j
        let depth = 0
        for (; j < tokens.length; j += 1) {
          if (tokens[j] === '[') depth += 1
          if (tokens[j] === ']') { depth -= 1; if (depth === 0) break }
        }
        const attr = tokens.slice(start + 1, j)
        if (tokens[i + 1] === '[' && attr[0] === 'cfg' && attr.includes('test') && !attr.includes('not')) {
          pendingTest = true
        }
        i = j
        continue
      }
      if (t === 'mod' && /^[A-Za-z_]\w*$/.test(tokens[i + 1] ?? '') && tokens[i - 1] !== '::') {
        const name = tokens[i + 1]
        if (tokens[i + 2] === ';') {
          const dir = dirOf()
          const candidates = [join(dir, `${name}.rs`), join(dir, name, 'mod.rs')]
          const found = candidates.find((c) => existsSync(c))
          if (found && !pendingTest && !inTest()) children.push({ file: found, path: [...scope(), name] })
          pendingTest = false
          i += 2
          continue
        }
        if (tokens[i + 2] === '{') {
          pendingMod = name
          moduleFile.set([...scope(), name].join('::'), rel(file))
          i += 1
          continue
        }
      }
      if (t === '{') {
        stack.push({ name: pendingMod, test: pendingTest })
        pendingMod = null
        pendingTest = false
        continue
      }
      if (t === '}') {
        stack.pop()
        continue
      }
      if (t === ';') {
        pendingTest = false
        continue
      }
      if (t === 'use' && tokens[i - 1] !== '::') {
        let j = i + 1
        let depth = 0
        while (j < tokens.length && !(tokens[j] === ';' && depth === 0)) {
          if (tokens[j] === '{') depth += 1
          if (tokens[j] === '}') depth -= 1
          j += 1
        }
        if (!pendingTest && !inTest()) {
          for (const p of useTreePaths(tokens.slice(i + 1, j))) {
            refs.push({ from: scope(), segs: p.segs, isUse: true })
            const name = p.alias ?? p.last
            if (name && name !== '_') aliases.push({ scope: scope().join('::'), name, segs: p.segs, from: scope() })
          }
        }
        pendingTest = false
        i = j
        continue
      }
      // A path in code: IDENT (:: IDENT)+.
      if (/^[A-Za-z_]\w*$/.test(t) && tokens[i + 1] === '::' && tokens[i - 1] !== '::') {
        const segs = [t]
        let j = i + 1
        while (tokens[j] === '::' && /^[A-Za-z_]\w*$/.test(tokens[j + 1] ?? '')) {
          segs.push(tokens[j + 1])
          j += 2
        }
        if (!pendingTest && !inTest()) refs.push({ from: scope(), segs, isUse: false })
        i = j - 1
      }
    }
    parsed.push({ file: rel(file), modPath, refs, aliases })
    for (const child of children) parseFile(child.file, child.path)
  }

  parseFile(rootFile, ['crate'])

  const known = new Set(moduleFile.keys())
  const aliasesByScope = new Map()
  for (const p of parsed) {
    for (const a of p.aliases) {
      const key = `${a.scope}\u0000${a.name}`
      if (!aliasesByScope.has(key)) aliasesByScope.set(key, a)
    }
  }

  /** The absolute module path of `segs` named from module `from`, or null (external). */
  function absolute(from, segs, isUse, seen = new Set()) {
    let base
    let rest
    if (segs[0] === 'crate') {
      base = ['crate']
      rest = segs.slice(1)
    } else if (segs[0] === 'super' || segs[0] === 'self') {
      base = [...from]
      let k = 0
      while (segs[k] === 'super' || segs[k] === 'self') {
        if (segs[k] === 'super') base.pop()
        k += 1
      }
      rest = segs.slice(k)
    } else if (known.has([...from, segs[0]].join('::'))) {
      // A child module named directly (`use unix as platform;`, `linux::open()`).
      base = [...from]
      rest = segs
    } else {
      const alias = aliasesByScope.get(`${from.join('::')}\u0000${segs[0]}`)
      if (!alias || seen.has(alias) || (isUse && segs.length === 1)) return null
      seen.add(alias)
      const target = absolute(alias.from, alias.segs, true, seen)
      if (!target) return null
      base = target
      rest = segs.slice(1)
    }
    return [...base, ...rest]
  }

  /** The file of the deepest module that `abs` names. */
  function fileOf(abs) {
    for (let k = abs.length; k > 0; k -= 1) {
      const f = moduleFile.get(abs.slice(0, k).join('::'))
      if (f) return { file: f, module: abs.slice(0, k) }
    }
    return null
  }

  const edges = new Map()
  const files = []
  for (const p of parsed) {
    files.push(p.file)
    const out = new Set()
    for (const r of p.refs) {
      if (r.segs.length < 2 && !(r.isUse && r.segs.length === 1 && KEYWORDS.has(r.segs[0]))) continue
      const abs = absolute(r.from, r.segs, r.isUse)
      if (!abs) continue
      const target = fileOf(abs)
      if (!target || target.file === p.file) continue
      // One's own ancestor module: not an edge (see the header).
      const own = p.modPath.join('::')
      const anc = target.module.join('::')
      if (own.startsWith(`${anc}::`)) continue
      out.add(target.file)
    }
    edges.set(p.file, out)
  }
  return { files, edges }
}

/**
 * The cycles of `edges`: one per strongly connected component of more than one file, as
 * `{ files, path }` (its sorted files, and one closed path through them).
 */
export function findCycles(edges) {
  // Tarjan's strongly connected components; each component of more than one file is a
  // cycle, reported as one closed path through it.
  let index = 0
  const idx = new Map()
  const low = new Map()
  const onStack = new Set()
  const stack = []
  const comps = []
  function strong(v) {
    idx.set(v, index)
    low.set(v, index)
    index += 1
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        strong(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), idx.get(w)))
      }
    }
    if (low.get(v) === idx.get(v)) {
      const comp = []
      let w
      do {
        w = stack.pop()
        onStack.delete(w)
        comp.push(w)
      } while (w !== v)
      if (comp.length > 1) comps.push(comp.sort())
    }
  }
  for (const v of [...edges.keys()].sort()) if (!idx.has(v)) strong(v)
  // A closed path inside each component, from its first file back to it (breadth first).
  return comps.map((comp) => {
    const inComp = new Set(comp)
    const start = comp[0]
    const prev = new Map()
    const queue = [start]
    let found = null
    while (queue.length && !found) {
      const v = queue.shift()
      for (const w of [...(edges.get(v) ?? [])].sort()) {
        if (!inComp.has(w)) continue
        if (w === start) { found = v; break }
        if (!prev.has(w)) { prev.set(w, v); queue.push(w) }
      }
    }
    const path = [start]
    for (let v = found; v && v !== start; v = prev.get(v)) path.splice(1, 0, v)
    path.push(start)
    return { files: comp, path }
  })
}

/** The hand-written source files over MAX_LINES lines: `[{ file, lines }]`. */
export function oversizeFiles(root, maxLines = MAX_LINES) {
  const crates = join(root, 'crates')
  const candidates = []
  if (existsSync(crates)) {
    for (const c of readdirSync(crates).sort()) {
      if (statSync(join(crates, c)).isDirectory()) candidates.push(...walk(join(crates, c, 'src'), '.rs'))
    }
  }
  candidates.push(...(existsSync(join(root, 'src'))
    ? readdirSync(join(root, 'src')).filter((f) => f.endsWith('.rs')).sort().map((f) => join(root, 'src', f))
    : []))
  candidates.push(...walk(join(root, 'lib'), '.js'))
  const out = []
  for (const file of candidates) {
    if (GENERATED.has(basename(file))) continue
    const text = readFileSync(file, 'utf8')
    const lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
    if (lines > maxLines) out.push({ file: relative(root, file).split(sep).join('/'), lines })
  }
  return out
}

/** Every structural problem of the tree at `root`, as messages (empty when it passes). */
export function checkStructure(root, { maxLines = MAX_LINES, knownCycles = KNOWN_CYCLES } = {}) {
  const problems = []
  // One graph over every library crate: a file's edges stay inside its crate (cargo allows no
  // cycle between crates), so the cycles found are each crate's own.
  const edges = new Map()
  for (const crateSrc of libraryCrates(root)) {
    for (const [file, out] of moduleGraph(root, crateSrc).edges) edges.set(file, out)
  }
  const known = new Set(knownCycles.map((c) => [...c].sort().join('\n')))
  const seen = new Set()
  for (const { files, path } of findCycles(edges)) {
    const key = files.join('\n')
    if (known.has(key)) {
      seen.add(key)
      continue
    }
    problems.push(`import cycle: ${path.join(' -> ')}`)
  }
  for (const key of known) {
    if (!seen.has(key)) {
      problems.push(`known cycle no longer present, remove it from KNOWN_CYCLES: ${key.split('\n').join(', ')}`)
    }
  }
  for (const { file, lines } of oversizeFiles(root, maxLines)) {
    problems.push(`${file} has ${lines} lines (at most ${maxLines}); split it into files of one concept`)
  }
  return problems
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..')
  const problems = checkStructure(root)
  if (problems.length > 0) {
    for (const p of problems) console.error(p)
    process.exit(1)
  }
  console.log('structure: no import cycle in %s, no source file over %d lines', libraryCrates(root).join(', '), MAX_LINES)
}
