// Every rule exists once: each blocked-reason message, blocked-reason name, dispatch gate name
// and distinctive engine limit is defined in exactly one engine source file (the engine crate,
// or the command-analysis crate whose modules and caps it re-exports). The search covers the
// shipped source (crates/, src/, lib/, index.js) without comments, test modules, tests, docs or
// type declarations, so a copy in JavaScript (or a second Rust file) fails here.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')
const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Source files under `dir` with one of `exts`, skipping tests, examples and build output. */
function sourceFiles(dir, exts) {
  const out = []
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'target' || name === 'tests' || name === 'examples' || name === 'benches') continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path, exts))
    else if (exts.some((e) => name.endsWith(e)) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/**
 * `text` without comments (line and block) and, for Rust, without its `#[cfg(test)]` tail; a
 * `tests.rs` file is such a tail moved out of its `mod.rs` (declared there last, as
 * `#[cfg(test)] mod tests;`), so it has no code here.
 */
function code(path, text) {
  let t = text
  if (path.endsWith('/tests.rs')) return ''
  if (path.endsWith('.rs')) {
    const tests = t.indexOf('#[cfg(test)]')
    if (tests !== -1) t = t.slice(0, tests)
  }
  t = t.replace(/\/\*[\s\S]*?\*\//g, '')
  // A line comment: `//` not inside a quoted URL (`"https://..."` keeps its line).
  return t.replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

const FILES = [
  ...sourceFiles(join(ROOT, 'crates'), ['.rs']),
  ...sourceFiles(join(ROOT, 'src'), ['.rs']),
  ...sourceFiles(join(ROOT, 'lib'), ['.js', '.mjs']),
  join(ROOT, 'index.js'),
  join(ROOT, 'index.mjs'),
].map((path) => {
  const rel = relative(ROOT, path).split(sep).join('/')
  return { rel, text: code(rel, readFileSync(path, 'utf8')) }
})
const ENGINE = 'crates/engine/src/'
// The shell command analysis, a crate of its own that the engine re-exports: engine source too.
const ANALYSIS = 'crates/command-analysis/src/'
const ENGINE_SOURCES = [ENGINE, ANALYSIS]
const isEngine = (rel) => ENGINE_SOURCES.some((dir) => rel.startsWith(dir))
// The files that define limits: the engine's, and the analysis's caps (re-exported by the engine).
const LIMITS = [`${ANALYSIS}limits.rs`, `${ENGINE}limits.rs`]

/** The files whose code matches `re`. */
const filesMatching = (re) => FILES.filter((f) => re.test(f.text)).map((f) => f.rel)

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function assertDefinedOnceInEngine(what, re) {
  const files = filesMatching(re)
  assert.equal(files.length, 1, `${what} is defined in ${files.length} files: ${files.join(', ') || '(none)'}`)
  assert.ok(isEngine(files[0]), `${what} is defined outside the engine, in ${files[0]}`)
}

test('the search sees the engine, the binding and the facade', () => {
  for (const f of [...LIMITS, 'crates/engine/src/tools/blocked.rs', `${ANALYSIS}shell/mod.rs`, 'src/errors.rs', 'lib/core/dispatch.js', 'index.js']) {
    assert.ok(FILES.some((x) => x.rel === f), f)
  }
  assert.ok(!FILES.some((x) => x.rel.includes('/tests/') || x.rel.startsWith('__test__')))
})

test('each blocked-reason message is written in one engine file', () => {
  // The fixed text of every message literal in blocked.rs (placeholders cut out).
  const blocked = FILES.find((f) => f.rel === `${ENGINE}tools/blocked.rs`).text
  const fragments = [...blocked.matchAll(/"((?:[^"\\]|\\.)*)"/g)]
    .flatMap((m) => m[1].split(/\{[^}]*\}/))
    .map((s) => s.trim())
    .filter((s) => /\s/.test(s) && s.length >= 8)
  assert.ok(fragments.length >= 3, `messages found: ${fragments.join(' | ')}`)
  for (const fragment of fragments) assertDefinedOnceInEngine(`message "${fragment}"`, new RegExp(escape(fragment)))
})

test('each blocked-reason name and gate name is a string literal in one engine file', () => {
  const words = native.dispatchVocabulary()
  assert.equal(words.reasons.length, 6)
  assert.equal(Object.keys(words.gates).length, 11)
  const names = [...words.reasons, ...Object.keys(words.gates), ...Object.keys(words.hooks)]
  for (const name of new Set(names)) {
    assertDefinedOnceInEngine(`name "${name}"`, new RegExp(`["'\`]${escape(name)}["'\`]`))
  }
})

/** The files with a whole string literal equal to `name` (not a word inside a longer one). */
function filesWithLiteral(name) {
  const literal = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g
  return FILES.filter((f) => [...f.text.matchAll(literal)].some((m) => m[0].slice(1, -1) === name)).map((f) => f.rel)
}

test('each event type and ledger-row status is a string literal in one engine file', () => {
  const words = native.dispatchVocabulary()
  const statuses = Object.keys(words.statuses)
  assert.deepEqual(statuses.sort(), ['blocked', 'error', 'finished', 'started'])
  // `error` is left out: the same word names JSON-RPC errors and a registry duplicate policy.
  for (const name of [words.started, words.finished, words.blocked, ...statuses.filter((s) => s !== 'error')]) {
    const files = filesWithLiteral(name)
    assert.deepEqual(files, [`${ENGINE}tools/events.rs`], `"${name}" is a literal in: ${files.join(', ')}`)
  }
})

test('each validation walk message is written in one engine file', () => {
  const file = FILES.find((f) => f.rel === `${ENGINE}validation/walk_problem.rs`).text
  const fragments = [...file.matchAll(/#\[error\("((?:[^"\\]|\\.)*)"/g)]
    .flatMap((m) => m[1].split(/\{[^}]*\}/))
    .map((s) => s.replace(/^[:.\s]+/, '').trim())
    .filter((s) => /\s/.test(s) && s.length >= 8)
  assert.ok(fragments.length >= 8, `messages found: ${fragments.join(' | ')}`)
  for (const fragment of fragments) assertDefinedOnceInEngine(`message "${fragment}"`, new RegExp(escape(fragment)))
})

test('each permission, trust, execution, validator-adapter, registry, middleware and coding-argument message is written in one engine file', () => {
  const files = ['tools/permission.rs', 'tools/validator.rs', 'tools/registry.rs', 'tools/middleware.rs']
  for (const rel of [...files, 'coding/arguments.rs', 'coding/edit.rs', 'coding/write.rs']) {
    // Rust char literals (`'"'`) out of the way of the string-literal search.
    const file = FILES.find((f) => f.rel === `${ENGINE}${rel}`).text.replace(/'(?:\\.|[^'\\])'/g, "''")
    const fragments = [...file.matchAll(/"((?:[^"\\]|\\.)*)"/g)]
      .flatMap((m) => m[1].split(/\{[^}]*\}|\\"/))
      .map((s) => s.replace(/[:\s]+$/, '').trim())
      .filter((s) => /\s/.test(s) && s.length >= 8)
    assert.ok(fragments.length >= 2, `${rel}: messages found: ${fragments.join(' | ')}`)
    for (const fragment of fragments) assertDefinedOnceInEngine(`message "${fragment}"`, new RegExp(escape(fragment)))
  }
})

/** The value of a `limits.rs` expression (`16 * 1024`, `64 << 20`, `30 * 60 * 1_000`), or null. */
function evaluate(expr, known) {
  let e = expr.trim().replace(/(\d)_(?=\d)/g, '$1').replace(/\.0$/, '').replace(/\b0+(?=\d)/g, '')
  e = e.replace(/\b[A-Z][A-Z0-9_]+\b/g, (name) => (name in known ? String(known[name]) : 'NaN'))
  if (!/^[\d\s*+<()-]+$|^[\d\s*+<()NaN-]+$/.test(e)) return null
  e = e.replace(/(\d+)\s*<<\s*(\d+)/g, (_, a, b) => `(${a} * 2 ** ${b})`)
  const v = Function(`"use strict"; return (${e})`)()
  return Number.isSafeInteger(v) ? v : null
}

/**
 * Every number the limits files define: each `default`/`hard` of a `Limit`, each numeric
 * constant (the analysis's first, as the engine's may be written in terms of them).
 */
function engineNumbers() {
  const file = LIMITS.map((rel) => FILES.find((f) => f.rel === rel).text).join('\n')
  const known = {}
  const values = []
  for (const m of file.matchAll(/pub const ([A-Z0-9_]+): (?:u64|u32|usize|f64) = ([^;]+);/g)) {
    const v = evaluate(m[2], known)
    if (v !== null) {
      known[m[1]] = v
      values.push(v)
    }
  }
  // `limit!` declarations: `pub const NAME = "option", default <v>, hard <v>, Dialect;`.
  for (const m of file.matchAll(/= "\w+", default ([^,\n]+), hard ([^,\n]+),/g)) {
    for (const text of [m[1], m[2]]) {
      const v = evaluate(text, known)
      if (v !== null) values.push(v)
    }
  }
  return values
}

// Numbers that are also units (a KiB, a second in ms, an hour in seconds, a minute and an hour
// and a day in ms), so they rightly occur in conversions elsewhere; every other number of 1,000 or more
// is distinctive.
const UNITS = new Set([1000, 1024, 3600, 60_000, 3_600_000, 86_400_000])

test('each limit constant is defined in one limits file (the engine re-exports the analysis caps)', () => {
  const names = (rel) => [...FILES.find((f) => f.rel === rel).text.matchAll(/pub const ([A-Z0-9_]+)\b/g)].map((m) => m[1])
  const [analysis, engine] = LIMITS.map(names)
  assert.ok(analysis.includes('POLICY_ANALYSIS_MAX_COMMAND_BYTES'), `analysis caps found: ${analysis.join(', ')}`)
  assert.deepEqual(analysis.filter((n) => engine.includes(n)), [])
  const engineLimits = FILES.find((f) => f.rel === LIMITS[1]).text
  assert.match(engineLimits, /pub use prism_command_analysis::limits::\*;/)
})

test('each distinctive engine number is written in a limits.rs and nowhere else', () => {
  const numbers = [...new Set(engineNumbers())].filter((n) => n >= 1000 && !UNITS.has(n))
  assert.ok(numbers.length >= 20, `numbers found: ${numbers.join(', ')}`)
  // The numbers a file writes: each literal, and each product or shift of literals
  // (`64 * 1024`, `8 << 20`) that is not unit arithmetic.
  const written = (text) => {
    const found = new Set()
    for (const m of text.matchAll(/(?<![\w.])\d[\d_]*(?:\s*(?:\*|<<)\s*\d[\d_]*)*(?:\.\d+)?(?![\w.])/g)) {
      const parts = m[0].split(/\*|<</).map((part) => Number(part.trim().replace(/_/g, '')))
      for (const part of parts) found.add(part)
      // A product of units (`1024 * 1024`, a MiB) is a unit too, not a limit.
      if (parts.length > 1 && parts.every((part) => UNITS.has(part))) continue
      const v = evaluate(m[0], {})
      if (v !== null) found.add(v)
    }
    return found
  }
  const others = FILES.filter((f) => !LIMITS.includes(f.rel)).map((f) => ({ rel: f.rel, numbers: written(f.text) }))
  for (const n of numbers) {
    const files = others.filter((f) => f.numbers.has(n)).map((f) => f.rel)
    assert.deepEqual(files, [], `${n} (a limits.rs number) is also written in: ${files.join(', ')}`)
  }
})

test('each approval reason is written in one engine file, and the approval driver names no kind', () => {
  const texts = native.approvalWords().denialTexts.filter((t) => t.trim().length > 0)
  assert.ok(texts.length >= 7, `reasons found: ${texts.join(' | ')}`)
  for (const text of new Set(texts)) assertDefinedOnceInEngine(`reason "${text.trim()}"`, new RegExp(escape(text.trim())))
  const driver = FILES.find((f) => f.rel === 'lib/coding-tools/security/approval-policy.js').text
  for (const kind of ['read', 'shell', 'write', 'edit', 'delete', 'move', 'sessionId', 'runId']) {
    assert.ok(!new RegExp(`["'\`]${kind}["'\`]`).test(driver), `the approval driver writes "${kind}"`)
  }
})

test('each facade word is written in one engine file, and every key the facade says exists', () => {
  const file = FILES.find((f) => f.rel === `${ENGINE}facade_words.rs`).text
  const fragments = [...file.matchAll(/"((?:[^"\\]|\\.)*)"/g)]
    .flatMap((m) => m[1].split(/\{[^}]*\}|\\"/))
    .map((s) => s.replace(/[:\s]+$/, '').trim())
    // Longer than the others' 8: a template's pieces between values are shorter ("MCP tool").
    .filter((s) => /\s/.test(s) && s.length >= 12)
  assert.ok(fragments.length >= 40, `facade words found: ${fragments.length}`)
  for (const fragment of fragments) assertDefinedOnceInEngine(`facade word "${fragment}"`, new RegExp(escape(fragment)))
  const { templates } = native.facadeWords()
  const said = FILES.filter((f) => f.rel.startsWith('lib/')).flatMap((f) => [...f.text.matchAll(/\bsay\('([A-Za-z]+)'/g)].map((m) => [f.rel, m[1]]))
  assert.ok(said.length >= 40, `say() calls found: ${said.length}`)
  for (const [rel, key] of said) assert.ok(Object.hasOwn(templates, key), `${rel} says "${key}", which the engine does not define`)
})

test('the facade throws no error message of its own', () => {
  // An Error built from a string literal is a message written in JavaScript. Allowed: the
  // bug report of a facade word that does not exist. (The sandbox runner's rejections,
  // `aborted` and `timeout:<s>`, are the engine's words.)
  const allowed = new Set(['`no facade word ${key}`'])
  const found = []
  for (const f of FILES.filter((x) => x.rel.startsWith('lib/') || x.rel.startsWith('index'))) {
    for (const m of f.text.matchAll(/\bnew [A-Za-z]*Error\(\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)/g)) {
      if (!allowed.has(m[1])) found.push(`${f.rel}: ${m[1]}`)
    }
  }
  assert.deepEqual(found, [])
})

test('the facade writes no error code: each comes from the engine\'s code table', () => {
  // A code in a string literal is a code written in JavaScript.
  const facade = FILES.filter((x) => x.rel.startsWith('lib/') || x.rel.startsWith('index'))
  const found = facade.flatMap((f) => [...f.text.matchAll(/['"`]ERR_[A-Za-z0-9_]*['"`]?/g)].map((m) => `${f.rel}: ${m[0]}`))
  assert.deepEqual(found, [])
  const codes = native.errorCodes()
  const read = facade.flatMap((f) => [...f.text.matchAll(/\bCODES\.([A-Za-z]+)/g)].map((m) => [f.rel, m[1]]))
  assert.ok(read.length >= 12, `CODES reads found: ${read.length}`)
  for (const [rel, key] of read) assert.ok(Object.hasOwn(codes, key), `${rel} reads code "${key}", which the engine does not define`)
})
