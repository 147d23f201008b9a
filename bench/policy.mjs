// Command analysis over the whole policy corpus: the native tree-sitter-bash walk (one call,
// JSON back, parsed in JS: what every policy check pays) against web-tree-sitter with the
// tree-sitter-bash wasm grammar, walked in JavaScript to the same simple commands (the
// approach JavaScript agent CLIs use). Also the full evaluateCommandRules per command.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { Parser, Language } from 'web-tree-sitter'
import { evaluateCommandRules } from '../lib/coding-tools/security.mjs'

const require = createRequire(import.meta.url)
const { analyzeCommand } = require('../lib/coding-tools/security/command-rules.js')

const corpus = fs
  .readFileSync(new URL('../__test__/fixtures/policy-corpus.tsv', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => l.slice(l.indexOf('\t') + 1).replace(/\\(n|\\)/g, (_, c) => (c === 'n' ? '\n' : '\\')))

await Parser.init()
const wasm = require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm')
const bash = await Language.load(fs.readFileSync(wasm))
const parser = new Parser()
parser.setLanguage(bash)

/** The JS walk: every `command` node's text and argv, like the native analysis reports. */
function jsAnalyze(command) {
  const tree = parser.parse(command)
  const parts = []
  const stack = [tree.rootNode]
  while (stack.length) {
    const node = stack.pop()
    if (node.type === 'command') {
      const argv = []
      for (const c of node.namedChildren) if (c.type !== 'variable_assignment' && !c.type.endsWith('redirect')) argv.push(c.text)
      parts.push({ text: node.text, argv })
    }
    for (let i = node.namedChildCount - 1; i >= 0; i--) stack.push(node.namedChild(i))
  }
  const unsupported = tree.rootNode.hasError
  tree.delete()
  return { parts, unsupported }
}

// Both sides must see the same simple commands before we time them.
let mismatches = 0
for (const c of corpus) {
  const n = analyzeCommand(c).parts.filter((p) => !p.derived).length
  if (jsAnalyze(c).parts.length < n) mismatches++
}

const rules = [{ pattern: /^ls\b/, action: 'allow' }, { pattern: 'git status', action: 'allow' }]
function measure(fn, rounds = 31) {
  for (let i = 0; i < 5; i++) for (const c of corpus) fn(c)
  const times = []
  for (let r = 0; r < rounds; r++) {
    globalThis.gc?.()
    const t0 = process.hrtime.bigint()
    for (const c of corpus) fn(c)
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

const wasmMs = measure(jsAnalyze)
const nativeMs = measure(analyzeCommand)
const evalMs = measure((c) => evaluateCommandRules(c, rules))
const row = (name, ms) => `| ${name.padEnd(58)} | ${ms.toFixed(3).padStart(9)} | ${((ms * 1e6) / corpus.length / 1000).toFixed(2).padStart(7)} | ${(wasmMs / ms).toFixed(2).padStart(6)}x |`
console.log(`policy analysis: ${corpus.length} corpus commands per round, median of 31 rounds (JS walk found fewer commands on ${mismatches})`)
console.log('| what | ms/corpus | µs/cmd | vs wasm |')
console.log('|---|---|---|---|')
console.log(row('web-tree-sitter + tree-sitter-bash.wasm, JS walk', wasmMs))
console.log(row('native analyzeShellCommand (+ JSON.parse)', nativeMs))
console.log(row('native evaluateCommandRules (analysis + rules + verdict)', evalMs))
