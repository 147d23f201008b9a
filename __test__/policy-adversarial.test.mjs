// The adversarial shell corpus (fixtures/policy-adversarial.tsv): hostile command lines, one
// class per bypass the analysis closed (code bash evaluates where a parser walk can miss it,
// environment prefixes that run code, wrapper option spellings, spellings of the command name,
// gaps in the default rules) and harmless look-alikes. Every case gets its exact verdict, none
// runs without approval under `allowRulesSkipApproval`, and each executable case is run by
// real bash in a scratch directory, with stub programs, to prove what it executes.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { evaluateCommandRules, explainCommand, createCodingApprovalPolicy } from '../lib/coding-tools/security.mjs'
import { adversarialCorpus } from './fixtures/command-corpora.mjs'
import { posixOnly, underWine, WINE_NO_BASH } from './fixtures/platform.mjs'

const RULES = [
  { pattern: /^(cat|echo|ls|true|grep|printf)\b/, action: 'allow' },
  { pattern: 'git status', action: 'allow' },
  { pattern: 'touch', action: 'deny', reason: 'no touching' },
]

const corpus = adversarialCorpus()

test('the adversarial corpus covers every class and verdict', () => {
  assert.ok(corpus.length >= 100, `${corpus.length} cases`)
  for (const v of ['allow', 'requireApproval', 'deny']) assert.ok(corpus.filter((c) => c.expected === v).length >= 10, v)
  assert.ok(corpus.filter((c) => c.runs !== '-').length >= 50)
})

test('every adversarial case gets its verdict (0 bypasses, 0 false denials)', () => {
  const wrong = []
  for (const c of corpus) {
    const got = evaluateCommandRules(c.command, RULES).action
    if (got !== c.expected) wrong.push({ command: c.command, expected: c.expected, got, why: explainCommand(c.command, { rules: RULES }).unsupported })
  }
  assert.deepEqual(wrong, [])
})

test('under the default rules alone, every case keeps its verdict but what the host rules add', () => {
  const touch = RULES.filter((r) => r.action === 'deny')
  const wrong = []
  for (const c of corpus) {
    const alone = evaluateCommandRules(c.command, []).action
    // A command only the host's touch rule denies is harmless to the default rules.
    if (alone !== 'deny' && evaluateCommandRules(c.command, touch).action === 'deny') continue
    // Without the host's allow rules a case may need approval; it is never allowed when the
    // host rules do not allow it, and it is denied exactly when the corpus says so.
    const ok = c.expected === 'allow' ? alone !== 'deny' : c.expected === 'deny' ? alone === 'deny' : alone === 'requireApproval'
    if (!ok) wrong.push({ command: c.command, expected: c.expected, alone })
  }
  assert.deepEqual(wrong, [])
})

test('with allowRulesSkipApproval, only the allow cases run without approval', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-adv-')))
  try {
    let asked = 0
    let allowed = 0
    const policy = createCodingApprovalPolicy({ roots: [root], commandRules: RULES, allowRulesSkipApproval: true, approve: () => (asked++, false) })
    for (const c of corpus) {
      const d = await policy.check({ kind: 'shell', operation: 'exec', command: c.command, paths: [root], metadata: { cwd: root } })
      // Only an allow case may run without a person (one no host rule covers still asks).
      if (d.allowed) allowed++
      assert.ok(!d.allowed || c.expected === 'allow', c.command)
    }
    assert.ok(asked > 0)
    assert.ok(allowed >= 8, `${allowed} allowed`)
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

test('a deny is final: an approve-everything host is never asked about a command a deny rule could match', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-adv-deny-')))
  try {
    let asked = 0
    const policy = createCodingApprovalPolicy({ roots: [root], commandRules: RULES, approve: () => (asked++, true) })
    const denied = corpus.filter((c) => c.expected === 'deny')
    for (const c of denied) {
      const d = await policy.check({ kind: 'shell', operation: 'exec', command: c.command, paths: [root], metadata: { cwd: root } })
      assert.equal(d.allowed, false, c.command)
    }
    assert.equal(asked, 0, 'the approval callback was asked about a denied command')
    // The same host does approve what only needs a person.
    const ask = corpus.find((c) => c.expected === 'requireApproval')
    const d = await policy.check({ kind: 'shell', operation: 'exec', command: ask.command, paths: [root], metadata: { cwd: root } })
    assert.equal(d.allowed, true)
    assert.equal(asked, 1)
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

const which = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim()
const STUBS = ['hidden', 'sudo', 'touch', 'id', 'curl', 'wget']

// The corpus runs under a POSIX PATH of `#!/bin/sh` stubs, which Git Bash on Windows does not give.
test('real bash runs what the corpus says each case runs', { skip: underWine(WINE_NO_BASH) || posixOnly('#!/bin/sh stubs on a POSIX PATH for the corpus') }, (t) => {
  const bash = which('bash')
  if (!bash) {
    if (process.env.PRISM_REQUIRE_OPTIONAL === '1') assert.fail('bash is required')
    t.skip('bash not found: install bash to run the corpus through it')
    return
  }
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-adv-bash-')))
  try {
    const bin = path.join(dir, 'bin')
    fs.mkdirSync(bin)
    const log = path.join(dir, 'log')
    for (const name of STUBS) {
      // Each stub records that it ran; curl and wget print a script that runs `hidden`.
      const body = name === 'curl' || name === 'wget' ? 'echo hidden' : ''
      fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho "$(basename "$0") $*" >> "$LOG"\n${body}\n`, { mode: 0o755 })
    }
    const work = path.join(dir, 'work')
    fs.mkdirSync(work)
    const git = which('git')
    if (git) {
      fs.writeFileSync(path.join(work, 'a'), 'a')
      spawnSync(git, ['-c', 'init.defaultBranch=main', 'init', '-q'], { cwd: work })
      spawnSync(git, ['add', 'a'], { cwd: work })
    }
    const env = { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, HOME: dir, LOG: log, SHELL: bash, LANG: 'C' }
    const missing = new Set()
    let ran = 0
    for (const c of corpus) {
      if (c.runs === '-') continue
      const needs = ['git', 'script', 'rbash', 'python3', 'flock', 'setsid', 'stdbuf', 'timeout'].filter((tool) => new RegExp(`(^|[\\s;|(])${tool}\\b`).test(c.command))
      const absent = needs.filter((tool) => !which(tool))
      if (absent.length) {
        absent.forEach((a) => missing.add(a))
        continue
      }
      fs.rmSync(log, { force: true })
      const r = spawnSync(bash, ['-c', c.command], { cwd: work, env, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'pipe'] })
      assert.notEqual(r.signal, 'SIGTERM', `timed out: ${c.command}`)
      const lines = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n') : []
      const stub = c.runs.replace(/^!/, '')
      const didRun = lines.some((l) => l === stub || l.startsWith(`${stub} `))
      assert.equal(didRun, !c.runs.startsWith('!'), `${c.command}: log ${JSON.stringify(lines)} stderr ${r.stderr}`)
      ran++
    }
    if (missing.size) {
      const msg = `cases skipped: ${[...missing].join(', ')} not installed`
      if (process.env.PRISM_REQUIRE_OPTIONAL === '1') assert.fail(msg)
      t.diagnostic(msg)
    }
    assert.ok(ran >= 40, `${ran} cases ran`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('a long hostile command is analysed off the JS thread and never crashes', async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-adv-long-')))
  try {
    const policy = createCodingApprovalPolicy({ roots: [root], commandRules: RULES, allowRulesSkipApproval: true, approve: () => false })
    for (const [open, close] of [['$(', ')'], ['<(', ')'], ['${a:-$(', ')}'], ['$((', '))'], ['"$(', ')"']]) {
      const n = Math.floor((256 * 1024 - 64) / (open.length + close.length))
      const command = `echo ${open.repeat(n)}x${close.repeat(n)}`
      // Over the async threshold: the check analyses on the native blocking pool. Past the
      // nesting cap the command is refused, not put to a person.
      const d = await policy.check({ kind: 'shell', operation: 'exec', command, paths: [root] })
      assert.equal(d.allowed, false, open)
      assert.match(d.reason, /^command refused: shell syntax nested more than 128 levels deep \(the analysis's nesting cap\)$/, open)
      const e = explainCommand(command, { rules: RULES })
      assert.equal(e.action, 'deny', open)
      assert.equal(e.reason, d.reason, open)
      assert.match(e.unsupported, /nested more than 128 levels/, open)
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})

test('a command past any cap of the analysis is denied, so a denied command cannot hide past it', async () => {
  // Over the length cap, over the command-count cap with `sudo` as the last command, over the
  // brace caps with `sudo` among the words, and over the test-expression cap.
  const long = `echo ${'a'.repeat(256 * 1024)}`
  const many = `${'true;'.repeat(4096)}sudo id`
  const words = Array.from({ length: 64 }, (_, i) => `x${i}`).join(',')
  const test = `[[ ${Array(8).fill(`( ${Array(31).fill('-n a').join(' && ')} )`).join(' && ')} && -n b && -n b && -n b && ( -n c ) ]]`
  for (const [command, reason] of [
    [long, /^command refused: command longer than 262144 bytes \(the analysis's length cap\)$/],
    [many, /^command refused: more than 4096 simple commands \(the analysis's command cap\)$/],
    [`{sudo,${words}} id`, /^command refused: a brace expansion into more than 64 words in one command \(the analysis's brace-expansion cap\)$/],
    [`timeout 5 s{u,${words}}do id`, /\(the analysis's brace-expansion cap\)$/],
    [`{sudo,${'x'.repeat(1024)}} id`, /^command refused: a brace expansion in a word longer than 1024 bytes \(the analysis's word-length cap\)$/],
    [test, /^command refused: a test expression of more than 512 nodes \(the analysis's test-expression cap\)$/],
  ]) {
    const e = explainCommand(command, { rules: RULES })
    assert.equal(e.action, 'deny')
    assert.match(e.reason, reason)
  }
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-adv-caps-')))
  try {
    const policy = createCodingApprovalPolicy({ roots: [root], commandRules: RULES, allowRulesSkipApproval: true, approve: () => true })
    const d = await policy.check({ kind: 'shell', operation: 'exec', command: many, paths: [root] })
    assert.equal(d.allowed, false)
    assert.match(d.reason, /the analysis's command cap/)
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
})
