#!/usr/bin/env node
'use strict'
// Generates the documentation of every limit from the engine's option sets
// (crates/engine/src/option_sets.rs), so a limit's doc, default and hard cap are written once:
// - the doc comment of each limit option in the public `.d.ts` files (`<doc> Default <d>, hard <h>.`);
// - the `<name>` when unset / The largest `<name>` constant docs in those files;
// - the default and hard-cap cells of the README's limit tables.
// `node scripts/option-docs.js` rewrites them; `--check` lists what is stale and exits 1
// (run by __test__/option-docs.test.mjs).
const fs = require('node:fs')
const path = require('node:path')
const { limitTable } = require('../lib/limits.js')
const native = require('../lib/native.js')

const ROOT = path.join(__dirname, '..')

/** Which interfaces document which option set (every limit of the set unless `keys` says). */
const INTERFACES = [
  { file: 'lib/validation/json-schema.d.ts', name: 'JsonSchemaToolValidatorOptions', set: 'validation' },
  { file: 'lib/mcp/index.d.ts', name: 'ConnectMcpToolsOptions', set: 'mcp' },
  { file: 'lib/mcp/index.d.ts', name: 'McpClientLimitsInput', set: 'mcp', optional: true },
  { file: 'lib/mcp/index.d.ts', name: 'McpStreamableHttpTransport', set: 'mcpHttp' },
  { file: 'lib/coding-tools/agent.d.ts', name: 'ReadToolOptions', set: 'coding', keys: ['maxLines', 'maxBytes', 'readMaxScanBytes', 'maxImageBytes'] },
  { file: 'lib/coding-tools/agent.d.ts', name: 'WriteToolOptions', set: 'coding', keys: ['writeMaxInputBytes'] },
  { file: 'lib/coding-tools/agent.d.ts', name: 'EditToolOptions', set: 'coding', keys: ['editMaxFileBytes', 'editMaxInputBytes', 'maxEdits'] },
  { file: 'lib/coding-tools/agent.d.ts', name: 'ShellToolOptions', set: 'coding', keys: ['maxLines', 'maxBytes', 'shellTimeout', 'shellMaxTotalOutputBytes'] },
]

const KIB = 1024
const group = (n) => n.toLocaleString('en-US')

/** A limit's value as the docs print it, in the unit its name carries. */
function formatValue(row, value) {
  if (/Bytes$/.test(row.name)) {
    for (const [unit, size] of [['GiB', KIB ** 3], ['MiB', KIB ** 2], ['KiB', KIB]]) {
      if (value >= size && value % size === 0) return `${group(value / size)} ${unit}`
    }
    return group(value)
  }
  if (/Ms$/.test(row.name)) {
    for (const [unit, size] of [['h', 3_600_000], ['min', 60_000], ['s', 1000]]) {
      if (value >= size && value % size === 0) return `${group(value / size)} ${unit}`
    }
    return `${group(value)} ms`
  }
  return group(value)
}

// A value and its unit stay on one line when a comment wraps.
const NBSP = '\u00a0'

/** `<doc> Default <d>, hard <h>.` (a value's spaces are no-break spaces until written). */
function summary(row) {
  const value = (v) => formatValue(row, v).replace(/ /g, NBSP)
  return `${row.doc} Default ${value(row.default)}, hard ${value(row.hard)}.`
}

/** A doc comment at `indent`, on one line when it fits in 100 columns, else wrapped. */
function docComment(text, indent) {
  const one = `${indent}/** ${text} */`
  if (one.length <= 100) return [one.replaceAll(NBSP, ' ')]
  const lines = [`${indent}/**`]
  let line = `${indent} *`
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > 100 && line !== `${indent} *`) {
      lines.push(line)
      line = `${indent} *`
    }
    line += ` ${word}`
  }
  lines.push(line, `${indent} */`)
  return lines.map((l) => l.replaceAll(NBSP, ' '))
}

/** The lines of `text` with each configured field's doc comment generated. */
function rewriteInterfaces(file, text, problems) {
  const lines = text.split('\n')
  for (const spec of INTERFACES.filter((s) => s.file === file)) {
    const rows = limitTable(spec.set).filter((r) => !spec.keys || spec.keys.includes(r.key))
    const start = lines.findIndex((l) => new RegExp(`^export interface ${spec.name}\\b`).test(l))
    if (start < 0) {
      problems.push(`${file}: no interface ${spec.name}`)
      continue
    }
    for (const row of rows) {
      const end = lines.findIndex((l, i) => i > start && l === '}')
      const at = lines.findIndex((l, i) => i > start && i < end && new RegExp(`^  readonly ${row.name}\\?: number$`).test(l))
      if (at < 0) {
        if (!spec.optional) problems.push(`${file}: ${spec.name} does not declare ${row.name}`)
        continue
      }
      // The doc comment right above the field, if any.
      let from = at
      if (lines[at - 1]?.trim().endsWith('*/')) {
        from = at - 1
        while (from > start && !lines[from].trim().startsWith('/**')) from--
      }
      const generated = docComment(summary(row), '  ')
      lines.splice(from, at - from, ...generated)
    }
  }
  return lines.join('\n')
}

/** Rows that name a limit unambiguously by option name (across every set). */
function limitsByName() {
  const byName = new Map()
  for (const set of native.limitSetNames()) {
    for (const row of limitTable(set)) byName.set(row.name, [...(byName.get(row.name) ?? []), row])
  }
  return byName
}

/** The `DEFAULT_*` / `HARD_*` constant docs: "`<name>` when unset: <v>." and "The largest `<name>`: <v>." */
function rewriteConstants(text, byName) {
  const unique = (name) => {
    const rows = byName.get(name)
    return rows && rows.length === 1 ? rows[0] : undefined
  }
  return text
    .replace(/`(\w+)` when unset: ([^.*]+?)\. \*\//g, (all, name, value) => {
      const row = unique(name)
      return row ? `\`${name}\` when unset: ${formatValue(row, row.default)}. */` : all
    })
    .replace(/The largest `(\w+)`: ([^.*]+?)\. \*\//g, (all, name) => {
      const row = unique(name)
      return row ? `The largest \`${name}\`: ${formatValue(row, row.hard)}. */` : all
    })
}

/** The README's limit rows with their default and hard-cap cells generated. */
function rewriteReadme(text, byName) {
  return text
    .split('\n')
    .map((line) => {
      const cells = line.split(' | ')
      const m = /^\| (?:(read|write|edit|shell) )?`(\w+)`/.exec(cells[0])
      if (!m || cells.length < 3) return line
      const candidates = byName.get(m[2]) ?? []
      const row = candidates.length === 1 ? candidates[0] : candidates.find((r) => r.key.startsWith(m[1] ?? '\0'))
      if (!row) return line
      const d = formatValue(row, row.default)
      const h = formatValue(row, row.hard)
      if (/\(hard /.test(cells[1])) cells[1] = `${d} (hard ${h})`
      else if (cells.length >= 4) [cells[1], cells[2]] = [d, h]
      return cells.join(' | ')
    })
    .join('\n')
}

function main() {
  const check = process.argv.includes('--check')
  const byName = limitsByName()
  const problems = []
  const files = [...new Set(INTERFACES.map((s) => s.file))]
  const outputs = files.map((file) => {
    const before = fs.readFileSync(path.join(ROOT, file), 'utf8')
    return [file, before, rewriteConstants(rewriteInterfaces(file, before, problems), byName)]
  })
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')
  outputs.push(['README.md', readme, rewriteReadme(readme, byName)])
  for (const [file, before, after] of outputs) {
    if (before === after) continue
    if (check) problems.push(`${file}: limit docs are stale (run node scripts/option-docs.js)`)
    else fs.writeFileSync(path.join(ROOT, file), after)
  }
  for (const p of problems) console.error(p)
  process.exitCode = problems.length ? 1 : 0
}

if (require.main === module) main()

module.exports = { formatValue, summary }
