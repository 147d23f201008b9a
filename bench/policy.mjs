// Command analysis over the whole policy corpus: the native analysis (one call, the result
// read from a reused buffer of numbers: what every policy check pays) against web-tree-sitter
// with the tree-sitter-bash wasm grammar, walked in JavaScript to the same simple commands
// (the approach JavaScript agent CLIs use). Also the full evaluateCommandRules per command.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import { Parser, Language } from 'web-tree-sitter'
import { evaluateCommandRules } from '../lib/coding-tools/security.mjs'
import { policyCorpus } from '../__test__/fixtures/command-corpora.mjs'

const require = createRequire(import.meta.url)
const { analyzeIntoBuffer: analyzeCommand } = require('../lib/coding-tools/security/analysis-layout.js')

const corpus = policyCorpus().map((c) => c.command)

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
const contenders = [
  ['web-tree-sitter + tree-sitter-bash.wasm, JS walk', jsAnalyze],
  ['native analysis (numeric layout, strings sliced from the command)', analyzeCommand],
  ['native evaluateCommandRules (analysis + rules + verdict)', (c) => evaluateCommandRules(c, rules)],
]
// Rounds alternate between the contenders so that a busy machine slows them alike. Two sets:
// - steady: no forced collection, as in a host that analyses commands as they come;
// - forced GC: a full collection before each timed round (with --expose-gc, as `npm run bench`
//   runs it). It roughly doubles the peer's time (its walk allocates a JS object per node; the
//   cause inside V8 is not pinned down: it is not more scavenges), and the native side's much
//   less, so this set flatters the native side.
// The steady set is the comparison a host sees; both are printed.
const ROUNDS = 41
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
for (const [, fn] of contenders) for (let i = 0; i < 5; i++) for (const c of corpus) fn(c)
const sets = [['steady, no forced GC', () => {}]]
if (globalThis.gc) sets.push(['forced GC before each round', globalThis.gc])
console.log(`policy analysis: ${corpus.length} corpus commands per round, median of ${ROUNDS} interleaved rounds (JS walk found fewer commands on ${mismatches})`)
for (const [set, before] of sets) {
  const times = contenders.map(() => [])
  for (let r = 0; r < ROUNDS; r++) {
    contenders.forEach(([, fn], k) => {
      before()
      const t0 = process.hrtime.bigint()
      for (const c of corpus) fn(c)
      times[k].push(Number(process.hrtime.bigint() - t0) / 1e6)
    })
  }
  const medians = times.map(median)
  const wasmMs = medians[0]
  console.log(`\n${set}:`)
  console.log('| what | ms/corpus | µs/cmd | speed-up vs wasm |')
  console.log('|---|---|---|---|')
  contenders.forEach(([name], k) => {
    const ms = medians[k]
    console.log(`| ${name.padEnd(58)} | ${ms.toFixed(3).padStart(9)} | ${((ms * 1000) / corpus.length).toFixed(2).padStart(7)} | ${(wasmMs / ms).toFixed(2).padStart(6)}x |`)
  })
}
