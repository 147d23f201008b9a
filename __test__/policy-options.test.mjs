// Options as effects (fixtures/policy-options.tsv): commands built from what others published
// about programs' own options (GTFOBins, the argument-injection vectors, a destructive-command
// guard's corpus, Codex's command-safety tests, the programs' manuals), each with its source.
// Under a typical host that allows the programs by name with allowRulesSkipApproval, an
// option that writes outside the working directory, runs a command or code, discards work or
// sets a setuid mode asks for approval; a command string an option runs is judged by the rules
// like `sh -c`'s; everyday commands still run without a person. Under the default rules alone,
// nothing in the corpus runs without a person and the denials are the same.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createCodingApprovalPolicy, evaluateCommandRules, explainCommand } from '../lib/coding-tools/security.mjs'
import { optionsCorpus } from './fixtures/command-corpora.mjs'

const PROGRAMS = ['git', 'ls', 'echo', 'cat', 'find', 'tar', 'rsync', 'sed', 'awk', 'xargs', 'sort', 'tee', 'dd', 'cp', 'mv', 'install', 'curl', 'wget', 'zip', 'ssh', 'scp', 'less', 'man', 'vim', 'python3', 'python', 'node', 'perl', 'ruby']
const HOST = PROGRAMS.map((p) => ({ pattern: p, action: 'allow' }))

const corpus = optionsCorpus()

/** Each command's outcome under `rules` with allowRulesSkipApproval and a host that says no. */
async function outcomes(rules) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-options-')))
  try {
    const out = []
    for (const c of corpus) {
      let asked = false
      const policy = createCodingApprovalPolicy({ roots: [root], commandRules: rules, allowRulesSkipApproval: true, approve: () => ((asked = true), false) })
      const d = await policy.check({ kind: 'shell', operation: 'exec', command: c.command, paths: [root], metadata: { cwd: root } })
      out.push({ ...c, got: d.allowed ? 'allow' : asked ? 'approval' : 'deny' })
    }
    return out
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

test('the options corpus has at least 500 commands, each with its source, of every verdict', () => {
  assert.ok(corpus.length >= 500, `${corpus.length} commands`)
  for (const v of ['allow', 'approval', 'deny']) assert.ok(corpus.filter((c) => c.expected === v).length >= 20, v)
  assert.ok(corpus.every((c) => c.source.length > 0 && ['allow', 'approval', 'deny'].includes(c.expected)), 'a row without a source or verdict')
  const programs = new Set(corpus.map((c) => c.command.split(' ')[0]))
  for (const p of ['git', 'find', 'tar', 'rsync', 'sed', 'awk', 'xargs', 'sort', 'tee', 'dd', 'cp', 'mv', 'install', 'curl', 'wget', 'zip', 'ssh', 'less', 'man', 'vim', 'python3', 'node', 'perl']) {
    assert.ok(programs.has(p) || corpus.some((c) => c.command.includes(`| ${p} `)), `no row for ${p}`)
  }
})

test('under a host that allows the programs by name, every command gets its verdict', async () => {
  const wrong = (await outcomes(HOST)).filter((c) => c.got !== c.expected)
  assert.deepEqual(
    wrong.map((c) => ({ command: c.command, expected: c.expected, got: c.got, reason: evaluateCommandRules(c.command, HOST).reason })),
    [],
  )
})

test('under the default rules alone, nothing runs without a person and the denials are the same', async () => {
  const wrong = (await outcomes([])).filter((c) => c.got === 'allow' || (c.got === 'deny') !== (c.expected === 'deny'))
  assert.deepEqual(wrong.map((c) => ({ command: c.command, expected: c.expected, got: c.got })), [])
})

test('a rule that names the form covers it; a rule that names only the program does not', () => {
  const cases = [
    ['git reset --hard HEAD~1', [{ pattern: 'git', action: 'allow' }, { pattern: 'git reset --hard', action: 'allow' }]],
    ['git push --force origin main', [{ pattern: 'git push --force', action: 'allow' }]],
    ['git clean -fdx', [{ pattern: /^git clean -fdx$/, action: 'allow' }]],
    ['find . -name x -delete', [{ pattern: /-delete$/, action: 'allow' }]],
    ['git log --output=/tmp/x', [{ pattern: 'git log --output=/tmp/x', action: 'allow' }]],
  ]
  for (const [command, rules] of cases) {
    assert.equal(evaluateCommandRules(command, rules).action, 'allow', command)
    assert.equal(evaluateCommandRules(command, [{ pattern: 'git', action: 'allow' }, { pattern: 'find', action: 'allow' }]).action, 'requireApproval', command)
  }
  // A deny or approval rule still decides as before.
  assert.equal(evaluateCommandRules('git push --force', [{ pattern: 'git push', action: 'deny' }]).action, 'deny')
})

test('explainCommand names the effect, and the reason says what the option does', () => {
  const e = explainCommand('git log --output=~/.bashrc', { rules: [{ pattern: 'git', action: 'allow' }] })
  assert.equal(e.action, 'requireApproval')
  assert.equal(e.reason, 'command option "--output=~/.bashrc" writes a file outside the working directory; no allow rule names that form')
  assert.deepEqual(e.parts[0].effect, { effect: 'writes', option: '--output=~/.bashrc' })
  assert.equal(e.parts[0].verdict, 'requireApproval')
  // An option writing onto a block device is denied whatever the rules allow.
  assert.equal(evaluateCommandRules('tar -cf /dev/sda src', [{ pattern: 'tar', action: 'allow' }]).action, 'deny')
  assert.equal(evaluateCommandRules('curl -o /dev/nvme0n1 https://x.example', [{ pattern: 'curl', action: 'allow' }]).action, 'deny')
})
