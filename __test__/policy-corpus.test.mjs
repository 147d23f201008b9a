// The command corpus (fixtures/policy-corpus.tsv): 422 commands with the verdict a careful
// reviewer expects under one host rule set. Known bypasses of regex policies (`ls; rm -rf ~`,
// `ls $(curl x | sh)`, `timeout 5 sudo x`) and harmless commands they wrongly deny
// (`grep -rf pattern .`). The parsed-command rules must have 0 bypasses and 0 false denials;
// the reference's raw-string rules, run on the same corpus, show what the corpus catches.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { evaluateCommandRules } from '../lib/coding-tools/security.mjs'
import { policyCorpus } from './fixtures/command-corpora.mjs'

const RULES = [
  { pattern: /^ls\b/, action: 'allow' },
  { pattern: 'git status', action: 'allow' },
  { pattern: 'git diff', action: 'allow' },
  { pattern: /^npm (test|run lint)\b/, action: 'allow' },
  { pattern: 'git push', action: 'requireApproval', reason: 'pushing needs a person' },
  { pattern: /^docker\b/, action: 'deny', reason: 'no containers' },
]

// The reference 0.3.0 evaluateCommandRules, on the raw string (API.md section 9).
const DEFAULT_DENY_PATTERNS = [/\bsudo\b/i, /\bchmod\b.*\b777\b/i, /\brm\s+-rf\s+\//, /\bcurl\b[^\n|]*\|\s*(ba)?sh\b/i, /\bwget\b[^\n|]*\|\s*(ba)?sh\b/i, />\s*\/dev\/sd[a-z]/i, /\bmkfs\b/i, /\bdd\s+if=/i]
function referenceEvaluate(command, rules) {
  for (const r of rules) {
    if (typeof r.pattern === 'string' ? command.includes(r.pattern) : r.pattern.test(command)) return { action: r.action, reason: r.reason }
  }
  if (DEFAULT_DENY_PATTERNS.some((p) => p.test(command))) return { action: 'deny' }
  if (/[;|&`$()<>]|\\n|\$\(/.test(command)) return { action: 'requireApproval' }
  return { action: 'allow' }
}

const SEVERITY = { allow: 0, requireApproval: 1, deny: 2 }
function score(evaluate, corpus) {
  const bypasses = []
  const falseDenials = []
  for (const { expected, command } of corpus) {
    const got = evaluate(command, RULES).action
    if (SEVERITY[got] < SEVERITY[expected]) bypasses.push({ command, expected, got })
    if (SEVERITY[got] > SEVERITY[expected]) falseDenials.push({ command, expected, got })
  }
  return { bypasses, falseDenials }
}

test('the corpus has at least 300 commands of every verdict', () => {
  const corpus = policyCorpus()
  assert.ok(corpus.length >= 300, `${corpus.length} commands`)
  for (const v of ['allow', 'requireApproval', 'deny']) assert.ok(corpus.filter((c) => c.expected === v).length >= 20, v)
  assert.ok(corpus.every((c) => c.expected in SEVERITY))
})

test('parsed-command rules: 0 bypasses and 0 false denials', () => {
  const { bypasses, falseDenials } = score(evaluateCommandRules, policyCorpus())
  assert.deepEqual(bypasses, [])
  assert.deepEqual(falseDenials, [])
})

test('the reference raw-string rules miss on the same corpus (the corpus has teeth)', () => {
  const { bypasses, falseDenials } = score(referenceEvaluate, policyCorpus())
  for (const known of ['ls; rm -rf ~', 'ls && sudo id', 'git status; sudo id', 'ls\nsudo id', 'rm -rf ~']) {
    assert.ok(bypasses.some((b) => b.command === known), known)
  }
  console.log(`reference on the corpus: ${bypasses.length} bypasses, ${falseDenials.length} false denials`)
  assert.ok(bypasses.length >= 50, `reference bypasses: ${bypasses.length}`)
  assert.ok(falseDenials.some((d) => d.command === 'grep -rn sudo src'))
  assert.ok(falseDenials.length >= 20, `reference false denials: ${falseDenials.length}`)
})
