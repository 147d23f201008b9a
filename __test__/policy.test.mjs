// Coding security (API.md section 9): the approval policy's check order, reasons, approval
// flow and cache, command rules, metacharacters, lexical containment and the sandbox seam.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  createCodingApprovalPolicy,
  evaluateCommandRules,
  explainCommand,
  hasShellMetacharacters,
  isPathInside,
  createSandboxBashOperations,
  SandboxExecutionError,
} from '../lib/coding-tools/security.mjs'
import { assertExecutionAllowed } from '../index.mjs'

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-policy-')))
fs.writeFileSync(path.join(root, 'a.txt'), 'a')
process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }))

const file = path.join(root, 'a.txt')
const yes = () => true
const shell = (command, metadata) => ({ kind: 'shell', operation: 'exec', command, paths: [root], metadata })

test('check order: no roots, then read-only, then paths', async () => {
  const none = createCodingApprovalPolicy({ roots: [], approve: yes })
  assert.deepEqual(await none.check({ kind: 'read', operation: 'read', paths: [file] }), { allowed: false, reason: 'no trusted roots configured' })
  const ro = createCodingApprovalPolicy({ roots: [root], readOnly: true, approve: yes })
  for (const kind of ['write', 'glob', 'repo_list', 'repo_search', 'shell']) {
    assert.deepEqual(await ro.check({ kind, operation: 'x', paths: ['/etc/passwd'] }), { allowed: false, reason: 'read-only mode' })
  }
  assert.deepEqual(await ro.check({ kind: 'read', operation: 'read', paths: [file] }), { allowed: true, exclusive: false })
  assert.deepEqual(await ro.check({ kind: 'read', operation: 'read', paths: ['/etc/passwd'] }), { allowed: false, reason: 'path outside trusted roots: /etc/passwd' })
})

test('paths: relative to the process cwd, missing parents and new files', async () => {
  const p = createCodingApprovalPolicy({ roots: [root], approve: yes })
  assert.deepEqual(await p.check({ kind: 'read', operation: 'read', paths: ['c.txt'] }), { allowed: false, reason: 'path outside trusted roots: c.txt' })
  const missingParent = path.join(root, 'no', 'such', 'x.txt')
  assert.equal((await p.check({ kind: 'read', operation: 'read', paths: [missingParent] })).reason, `path outside trusted roots: ${missingParent}`)
  assert.deepEqual(await p.check({ kind: 'write', operation: 'write', paths: [path.join(root, 'new.txt')] }), { allowed: true, exclusive: false })
})

test('approval: required, granted, denied; shell decisions are exclusive', async () => {
  assert.deepEqual(await createCodingApprovalPolicy({ roots: [root] }).check({ kind: 'write', operation: 'write', paths: [file] }), { allowed: false, reason: 'approval required' })
  assert.deepEqual(await createCodingApprovalPolicy({ roots: [root] }).check({ kind: 'read', operation: 'read', paths: [file] }), { allowed: true, exclusive: false })
  const seen = []
  const p = createCodingApprovalPolicy({ roots: [root], approve: (req) => (seen.push(req), true) })
  const action = shell('ls -la')
  assert.deepEqual(await p.check(action), { allowed: true, exclusive: true })
  assert.equal(seen.length, 1)
  assert.equal(seen[0].action, action)
  assert.equal(seen[0].signal, undefined)
  const no = createCodingApprovalPolicy({ roots: [root], approve: async () => false })
  assert.deepEqual(await no.check(shell('ls')), { allowed: false, reason: 'approval denied' })
  const truthy = createCodingApprovalPolicy({ roots: [root], approve: () => 'yes' })
  assert.deepEqual(await truthy.check(shell('ls')), { allowed: false, reason: 'approval denied' })
})

test('command rules inside check: default deny, host deny without reason, requireApproval', async () => {
  let asked = 0
  const p = createCodingApprovalPolicy({
    roots: [root],
    approve: () => (asked++, true),
    commandRules: [{ pattern: /^docker\b/, action: 'deny' }, { pattern: 'git push', action: 'deny', reason: 'no pushing' }],
  })
  assert.deepEqual(await p.check(shell('ls; rm -rf ~')), { allowed: false, reason: 'command matches default deny pattern' })
  assert.deepEqual(await p.check(shell('docker ps')), { allowed: false, reason: 'command denied by policy' })
  assert.deepEqual(await p.check(shell('git status && git push')), { allowed: false, reason: 'no pushing' })
  assert.equal(asked, 0)
  assert.deepEqual(await p.check({ kind: 'shell', operation: 'exec', paths: [root] }), { allowed: true, exclusive: true })
})

test('redirection targets are held to the roots', async () => {
  const p = createCodingApprovalPolicy({ roots: [root], approve: yes, denyMetacharacters: false })
  assert.deepEqual(await p.check(shell('echo hi > /etc/prism-x')), { allowed: false, reason: 'path outside trusted roots: /etc/prism-x' })
  assert.deepEqual(await p.check(shell('cat < ../../etc/passwd', { cwd: root })), { allowed: false, reason: 'path outside trusted roots: ../../etc/passwd' })
  assert.deepEqual(await p.check(shell('echo hi > out.txt', { cwd: root })), { allowed: true, exclusive: true })
  assert.deepEqual(await p.check(shell('echo hi > ~/.bashrc')), { allowed: false, reason: 'path outside trusted roots: ~/.bashrc' })
})

test('allow rules do not skip approval unless allowRulesSkipApproval (Decision 4)', async () => {
  const rules = [{ pattern: /^git (status|diff)\b/, action: 'allow' }]
  assert.deepEqual(await createCodingApprovalPolicy({ roots: [root], commandRules: rules }).check(shell('git status')), { allowed: false, reason: 'approval required' })
  const fast = createCodingApprovalPolicy({ roots: [root], commandRules: rules, allowRulesSkipApproval: true })
  assert.deepEqual(await fast.check(shell('git status && git diff')), { allowed: true, exclusive: true })
  assert.deepEqual(await fast.check(shell('git status; ls')), { allowed: false, reason: 'approval required' })
  assert.deepEqual(await fast.check(shell('git status > /tmp/x')), { allowed: false, reason: 'path outside trusted roots: /tmp/x' })
})

test('approval timeout, abort and rejection count as denial; a sync throw rejects check()', async () => {
  const never = () => new Promise(() => {})
  const t = createCodingApprovalPolicy({ roots: [root], approve: never, approvalTimeoutMs: 20 })
  assert.deepEqual(await t.check(shell('ls')), { allowed: false, reason: 'approval denied' })
  const slow = () => new Promise((r) => setTimeout(() => r(true), 40))
  assert.deepEqual(await createCodingApprovalPolicy({ roots: [root], approve: slow, approvalTimeoutMs: 0 }).check(shell('ls')), { allowed: true, exclusive: true })
  assert.deepEqual(await createCodingApprovalPolicy({ roots: [root], approve: slow, approvalTimeoutMs: -1 }).check(shell('ls')), { allowed: true, exclusive: true })

  let called = 0
  const counted = createCodingApprovalPolicy({ roots: [root], approve: () => (called++, true) })
  const aborted = AbortSignal.abort()
  assert.deepEqual(await counted.check(shell('ls', { signal: aborted })), { allowed: false, reason: 'approval denied' })
  assert.equal(called, 0)

  const ac = new AbortController()
  let received
  const waiting = createCodingApprovalPolicy({ roots: [root], approve: (req) => ((received = req.signal), never()) })
  const pending = waiting.check(shell('ls', { signal: ac.signal }))
  setTimeout(() => ac.abort(), 10)
  assert.deepEqual(await pending, { allowed: false, reason: 'approval denied' })
  assert.equal(received, ac.signal)

  const rejects = createCodingApprovalPolicy({ roots: [root], approve: () => Promise.reject(new Error('x')) })
  assert.deepEqual(await rejects.check(shell('ls')), { allowed: false, reason: 'approval denied' })
  const throws = createCodingApprovalPolicy({ roots: [root], approve: () => { throw new Error('boom') } })
  await assert.rejects(throws.check(shell('ls')), /boom/)
})

test('approval cache: scopes, ids, cached denials, key material', async () => {
  let asked = 0
  let answer = true
  const approve = () => (asked++, answer)
  const uncached = createCodingApprovalPolicy({ roots: [root], approve })
  await uncached.check(shell('ls', { runId: 'r', sessionId: 's1' }))
  await uncached.check(shell('ls', { runId: 'r', sessionId: 's1' }))
  assert.equal(asked, 2, 'by default nothing is cached: every check prompts')
  answer = false
  await uncached.check(shell('ls', { runId: 'r', sessionId: 's1' }))
  assert.deepEqual(await uncached.check(shell('ls', { runId: 'r', sessionId: 's1' })), { allowed: false, reason: 'approval denied' })
  assert.equal(asked, 4, 'a denial is not reused either')

  answer = true
  asked = 0
  const session = createCodingApprovalPolicy({ roots: [root], approve, approvalCacheScope: 'session' })
  await session.check(shell('ls', { sessionId: 's1' }))
  await session.check(shell('ls', { sessionId: 's1' }))
  assert.equal(asked, 1, 'the session scope reuses an answer within one session id')
  await session.check(shell('ls', { sessionId: 's2' }))
  await session.check(shell('ls', { sessionId: '' }))
  await session.check(shell('ls', { sessionId: '' }))
  assert.equal(asked, 4, 'another or an empty session id prompts again')
  await session.check({ kind: 'shell', operation: 'exec', command: 'ls', paths: [file], metadata: { sessionId: 's1' } })
  assert.equal(asked, 5, 'paths are part of the key')

  answer = false
  asked = 0
  const run = createCodingApprovalPolicy({ roots: [root], approve, approvalCacheScope: 'run' })
  assert.deepEqual(await run.check(shell('ls', { runId: 'r', sessionId: 's' })), { allowed: false, reason: 'approval denied' })
  assert.deepEqual(await run.check(shell('ls', { runId: 'r' })), { allowed: false, reason: 'approval denied (cached)' })
  assert.deepEqual(await run.check(shell('ls', { sessionId: 's' })), { allowed: false, reason: 'approval denied' })
  assert.equal(asked, 2)

  asked = 0
  const none = createCodingApprovalPolicy({ roots: [root], approve, approvalCacheScope: 'none' })
  await none.check(shell('ls', { runId: 'r', sessionId: 's' }))
  await none.check(shell('ls', { runId: 'r', sessionId: 's' }))
  assert.equal(asked, 2)
})

test('approval cache holds 1,000 entries, FIFO, hits not refreshed', async () => {
  const asked = []
  const p = createCodingApprovalPolicy({ roots: [root], approvalCacheScope: 'session', approve: ({ action }) => (asked.push(action.command), true) })
  const check = (i) => p.check({ kind: 'shell', operation: 'exec', command: `echo ${i}`, metadata: { sessionId: 's' } })
  for (let i = 0; i < 1000; i++) await check(i)
  assert.equal(asked.length, 1000)
  await check(0) // a hit: not refreshed
  await check(999)
  assert.equal(asked.length, 1000, 'all 1,000 are cached')
  await check(1000) // evicts entry 0, the oldest insertion
  await check(1)
  assert.equal(asked.length, 1001, 'entry 1 is still cached')
  await check(0)
  assert.equal(asked.length, 1002, 'entry 0 was evicted despite its hit')
})

test('option validation', () => {
  assert.throws(() => createCodingApprovalPolicy(), TypeError)
  assert.throws(() => createCodingApprovalPolicy({ roots: 'x' }), TypeError)
  assert.throws(() => createCodingApprovalPolicy({ roots: [], approvalCacheScope: 'forever' }), TypeError)
  assert.throws(() => createCodingApprovalPolicy({ roots: [], approve: 1 }), TypeError)
  assert.throws(() => createCodingApprovalPolicy({ roots: [], commandRules: [{ pattern: 1, action: 'allow' }] }), TypeError)
})

test('evaluateCommandRules: first host rule wins per part, then defaults, then metacharacters', () => {
  const rules = [{ pattern: 'git status', action: 'allow', reason: 'read only' }, { pattern: /^git/, action: 'requireApproval', reason: 'git' }]
  assert.deepEqual(evaluateCommandRules('git status -s', rules), { action: 'allow', reason: 'read only' })
  assert.deepEqual(evaluateCommandRules('git statusx', rules), { action: 'requireApproval', reason: 'git' })
  assert.deepEqual(evaluateCommandRules('echo git status', rules), { action: 'allow' })
  assert.deepEqual(evaluateCommandRules('sudo ls', undefined), { action: 'deny', reason: 'command matches default deny pattern' })
  assert.deepEqual(evaluateCommandRules('sudo ls', [{ pattern: /^sudo ls$/, action: 'allow' }]), { action: 'allow' })
  assert.deepEqual(evaluateCommandRules('sudo ls', [{ pattern: /^(sudo )?ls$/, action: 'allow', reason: 'ok' }]), { action: 'allow', reason: 'ok' })
  assert.deepEqual(evaluateCommandRules('ls | wc -l', []), { action: 'requireApproval', reason: 'command contains shell metacharacters' })
  assert.deepEqual(evaluateCommandRules('ls | wc -l', [], { denyMetacharacters: false }), { action: 'allow' })
  assert.deepEqual(evaluateCommandRules('ls > f', [], { denyMetacharacters: false }), { action: 'requireApproval', reason: 'command redirects to a file' })
  assert.deepEqual(evaluateCommandRules('ls > /dev/null 2>&1', [], { denyMetacharacters: false }), { action: 'allow' })
  // A program name bash decides at run time could be a denied one: a deny, naming the word.
  assert.deepEqual(evaluateCommandRules('$X', [], { denyMetacharacters: false }), { action: 'deny', reason: 'command word "$X" may expand to a command that deny rule sudo matches' })
  assert.deepEqual(evaluateCommandRules('/usr/bin/tou?h f', [{ pattern: 'touch', action: 'deny', reason: 'no' }]), { action: 'deny', reason: 'command word "/usr/bin/tou?h" may expand to a command that deny rule "touch" (no) matches' })
  assert.equal(evaluateCommandRules('/usr/bin/l? f', [{ pattern: 'touch', action: 'deny' }]).action, 'requireApproval')
  assert.equal(evaluateCommandRules('git push $X', [{ pattern: 'git push --force', action: 'deny' }]).action, 'deny')
  assert.equal(evaluateCommandRules('git push "$X" main', [{ pattern: 'git pull', action: 'deny' }]).action, 'requireApproval')
  assert.match(evaluateCommandRules('f() { ls; }', []).reason, /^command could not be analyzed: /)
  const g = /^ls/g
  for (let i = 0; i < 3; i++) assert.equal(evaluateCommandRules('ls', [{ pattern: g, action: 'deny' }]).action, 'deny')
  assert.equal(evaluateCommandRules('ls\nsudo x', [{ pattern: /^ls/, action: 'allow' }]).action, 'deny')
})

test('explainCommand says which part matched which rule', () => {
  const e = explainCommand('timeout 5 sudo x', { rules: [{ pattern: /^timeout/, action: 'allow' }] })
  assert.equal(e.action, 'deny')
  assert.deepEqual(e.parts.map((p) => [p.text, p.verdict, p.rule?.pattern ?? p.defaultDeny ?? null]), [
    ['timeout 5 sudo x', 'allow', '/^timeout/'],
    ['sudo x', 'deny', 'sudo'],
    ['x', 'unmatched', null],
  ])
  const r = explainCommand('cat a > out.txt')
  assert.deepEqual(r.redirects, [{ op: '>', target: 'out.txt', write: true }])
  assert.equal(r.metacharacters, true)
})

test('brace expansion: rules see the words bash runs', async () => {
  const e = explainCommand('rm -{r,f} /')
  assert.equal(e.action, 'deny')
  assert.deepEqual(e.parts.map((p) => [p.text, p.argv, p.defaultDeny]), [['rm -{r,f} /', ['rm', '-r', '-f', '/'], 'rm-recursive-wide']])
  assert.equal(evaluateCommandRules('chmod {0,}777 x', []).action, 'deny')
  // A string rule matches the expanded words, for deny and allow alike.
  assert.equal(evaluateCommandRules('t{o,x}uch notes', [{ pattern: 'touch', action: 'deny', reason: 'no' }]).reason, 'no')
  assert.deepEqual(evaluateCommandRules('mkdir -p src/{a,b}', [{ pattern: 'mkdir -p', action: 'allow', reason: 'ok' }]), { action: 'allow', reason: 'ok' })
  // Quoted braces and ${...} do not expand; past 64 words the command is refused (a denied name
  // could be among the words not expanded).
  assert.deepEqual(explainCommand("echo '{a,b}' ${x:-{c,d}}").parts[0].argv, ['echo', '{a,b}', '${x:-{c,d}}'])
  assert.deepEqual(evaluateCommandRules('echo {1..65}', [{ pattern: /.*/, action: 'allow' }]), {
    action: 'deny',
    reason: "command refused: a brace expansion into more than 64 words in one command (the analysis's brace-expansion cap)",
  })
  // A word that begins with `{` where a command starts: the expanded words meet the rules.
  assert.deepEqual(explainCommand('ls; {s,}udo id').parts.map((p) => [p.argv, p.defaultDeny]), [
    [['ls'], undefined],
    [['sudo', 'udo', 'id'], 'sudo'],
    [['udo', 'id'], undefined],
  ])
  assert.equal(evaluateCommandRules('{t,}ouch notes', [{ pattern: 'touch', action: 'deny', reason: 'no' }]).reason, 'no')
  assert.equal(evaluateCommandRules('{ls,x} y', [{ pattern: /.*/, action: 'allow' }]).action, 'requireApproval')
  assert.equal(explainCommand('echo {1..64}').unsupported, undefined)
  // A redirection target expands too: `> {f,}` writes to f.
  const p = createCodingApprovalPolicy({ roots: [root], approve: yes, denyMetacharacters: false })
  assert.deepEqual(await p.check(shell('echo hi > {/etc/prism-x,}')), { allowed: false, reason: 'path outside trusted roots: /etc/prism-x' })
})

test('a command nested past the nesting cap is refused, whatever the rules', async () => {
  const command = `echo ${'$('.repeat(129)}ls${')'.repeat(129)}`
  const reason = "command refused: shell syntax nested more than 128 levels deep (the analysis's nesting cap)"
  const allowAll = [{ pattern: /.*/, action: 'allow' }]
  assert.deepEqual(evaluateCommandRules(command, allowAll), { action: 'deny', reason })
  const e = explainCommand(command, { rules: allowAll })
  assert.equal(e.action, 'deny')
  assert.equal(e.reason, reason)
  const p = createCodingApprovalPolicy({ roots: [root], approve: yes, commandRules: allowAll, allowRulesSkipApproval: true })
  assert.deepEqual(await p.check(shell(command)), { allowed: false, reason })
  const nested = `${'eval '.repeat(9)}ls`
  assert.match(evaluateCommandRules(nested, allowAll).reason, /^command refused: commands nested more than 8 levels deep/)
  assert.equal(evaluateCommandRules(`${'eval '.repeat(8)}ls`, allowAll).action, 'allow')
})

test('hasShellMetacharacters is the reference regex', () => {
  for (const c of ['ls;', 'a|b', 'a&b', 'echo `x`', 'echo $HOME', '(x)', 'a<b', 'a>b', 'a\\nb', 'echo $(x)']) assert.equal(hasShellMetacharacters(c), true, c)
  for (const c of ['ls -la', 'git status', 'a\nb', "echo 'x'"]) assert.equal(hasShellMetacharacters(c), false, c)
})

test('isPathInside is lexical', () => {
  assert.equal(isPathInside('/a', '/a'), true)
  assert.equal(isPathInside('/a', '/a/b/c'), true)
  assert.equal(isPathInside('/a', '/ab'), false)
  assert.equal(isPathInside('/a', '/a/../b'), false)
  assert.equal(isPathInside('/a/', '/a/..b'), true)
  assert.equal(isPathInside('/a', '/'), false)
})

test('createSandboxBashOperations forwards and wraps errors', async () => {
  const got = []
  const onData = () => {}
  const ops = createSandboxBashOperations({ exec: async (req) => (got.push(req), { exitCode: 3 }) })
  assert.deepEqual(await ops.exec('ls', '/w', { onData, timeout: 5, env: { A: '1' } }), { exitCode: 3 })
  assert.deepEqual(got[0], { command: 'ls', cwd: '/w', env: { A: '1' }, onData, signal: undefined, timeout: 5 })
  for (const exec of [async () => { throw new Error('nope') }, () => { throw new Error('nope') }]) {
    const err = await createSandboxBashOperations({ exec }).exec('ls', '/', {}).catch((e) => e)
    assert.ok(err instanceof SandboxExecutionError)
    assert.equal(err.name, 'SandboxExecutionError')
    assert.equal(err.code, 'ERR_PRISM_SANDBOX_EXECUTION')
    assert.equal(err.message, 'nope')
  }
  assert.throws(() => createSandboxBashOperations({}), TypeError)
})

test('the policy is an ExecutionPolicy for the core harness', async () => {
  const p = createCodingApprovalPolicy({ roots: [root], approve: yes })
  await assert.rejects(assertExecutionAllowed(p, shell('sudo reboot')), { name: 'ExecutionDeniedError', code: 'ERR_PRISM_EXECUTION_DENIED', message: 'command matches default deny pattern' })
  assert.deepEqual(await assertExecutionAllowed(p, shell('ls')), shell('ls'))
})

test('the engine drives the check: kinds, paths as any iterable, concurrent checks', async () => {
  // A kind that is not a string is no kind the engine knows: no approval needed, not read-only.
  const p = createCodingApprovalPolicy({ roots: [root] })
  assert.deepEqual(await p.check({ kind: 5, operation: 'x', paths: [file] }), { allowed: true, exclusive: false })
  const ro = createCodingApprovalPolicy({ roots: [root], readOnly: 1, approve: yes })
  assert.deepEqual(await ro.check({ kind: 5, operation: 'x' }), { allowed: false, reason: 'read-only mode' })
  // Paths may be any iterable, contained in order: the first outside names itself.
  assert.deepEqual(await p.check({ kind: 'read', operation: 'read', paths: new Set([file, '/etc/passwd', '/etc/x']) }), {
    allowed: false,
    reason: 'path outside trusted roots: /etc/passwd',
  })
  assert.deepEqual(await p.check({ kind: 'delete', operation: 'rm', paths: [] }), { allowed: false, reason: 'approval required' })
  // Many checks in flight on one policy each keep their own state.
  let n = 0
  const q = createCodingApprovalPolicy({ roots: [root], approve: async ({ action }) => (n++, action.command !== 'ls -l') })
  const results = await Promise.all([
    q.check(shell('ls')),
    q.check(shell('ls -l')),
    q.check({ kind: 'read', operation: 'read', paths: ['/etc/passwd'] }),
    q.check(shell('sudo x')),
    q.check({ kind: 'write', operation: 'write', paths: [file] }),
  ])
  assert.deepEqual(results, [
    { allowed: true, exclusive: true },
    { allowed: false, reason: 'approval denied' },
    { allowed: false, reason: 'path outside trusted roots: /etc/passwd' },
    { allowed: false, reason: 'command matches default deny pattern' },
    { allowed: true, exclusive: false },
  ])
  assert.equal(n, 3)
})

test('a deny rule reason is passed through as the host wrote it', async () => {
  const p = createCodingApprovalPolicy({ roots: [root], approve: yes, commandRules: [{ pattern: 'rm', action: 'deny', reason: 42 }, { pattern: 'mv', action: 'deny', reason: null }] })
  assert.deepEqual(await p.check(shell('rm x')), { allowed: false, reason: 42 })
  assert.deepEqual(await p.check(shell('mv a b')), { allowed: false, reason: 'command denied by policy' })
})

test('a redirection without a file is not contained; each with a file is, in order', async () => {
  const p = createCodingApprovalPolicy({ roots: [root], approve: yes, denyMetacharacters: false })
  assert.deepEqual(await p.check(shell('ls 2>&1 > out.txt', { cwd: root })), { allowed: true, exclusive: true })
  assert.deepEqual(await p.check(shell('ls > a.txt 2>/etc/one >/etc/two', { cwd: root })), { allowed: false, reason: 'path outside trusted roots: /etc/one' })
})

test('approval cache: missing paths read as [] and a missing command as "", operation counts', async () => {
  let asked = 0
  const p = createCodingApprovalPolicy({ roots: [root], approve: () => (asked++, true), approvalCacheScope: 'run' })
  const move = (extra) => ({ kind: 'move', operation: 'mv', metadata: { runId: 'r' }, ...extra })
  await p.check(move({}))
  await p.check(move({ paths: [], command: '' }))
  await p.check(move({ paths: null, command: null }))
  assert.equal(asked, 1, 'undefined, null and empty paths and command share one key')
  await p.check(move({ operation: 'rename' }))
  await p.check(move({ operation: undefined }))
  await p.check(move({ operation: null }))
  assert.equal(asked, 3, 'another operation is another key; a missing one reads as null')
  await p.check(move({ metadata: { runId: 5 } }))
  await p.check(move({ metadata: { runId: 5 } }))
  assert.equal(asked, 5, 'an id that is not a string gives no key')
})

test('the engine words every reason, and the machine refuses a state it never gave', async () => {
  const { createRequire } = await import('node:module')
  const native = createRequire(import.meta.url)('../lib/native.js')
  const words = native.approvalWords()
  assert.deepEqual(
    words.denialTexts.filter(Boolean),
    ['no trusted roots configured', 'read-only mode', 'path outside trusted roots: ', 'command denied by policy', 'path outside trusted roots: ', 'approval required', 'approval denied (cached)', 'approval denied'],
  )
  assert.deepEqual(words.cacheScopes, ['session', 'run', 'none'])
  assert.deepEqual(words.cacheIds, { session: 'sessionId', run: 'runId' })
  const rules = new native.NativeCommandRules([], [], [], [], [])
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-machine-'))
  const m = new native.NativeApprovalPolicy([root], false, true, false, 'none', rules, true)
  // One decide contains the path and stops at the host's step.
  const d = await m.decide({ kind: 'write', paths: [path.join(root, 'f.txt')], commandPresent: false, base: '', home: '' }, null)
  const asked = d.state
  assert.equal(asked & words.stepMask, words.steps.ask)
  assert.throws(() => m.answer(0.5, true), { code: 'ERR_PRISM_INTERNAL' })
  assert.throws(() => m.lookUp(asked, undefined), { code: 'ERR_PRISM_INTERNAL', message: /does not answer the step ask/ })
  assert.throws(() => new native.NativeApprovalPolicy([root], false, true, false, 'forever', rules, true), /no approval cache scope/)
  const done = m.answer(asked, true)
  assert.equal(done & words.stepMask, words.steps.allow)
  assert.equal((done >> words.detailShift) & words.allowFlags.writeBeneath, words.allowFlags.writeBeneath)
  assert.throws(() => m.answer(done, true), { code: 'ERR_PRISM_INTERNAL' })
})
