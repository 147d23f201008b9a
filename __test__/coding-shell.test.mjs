import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createShellTool } from 'prism-native/coding-tools/agent'
import { collectGarbage } from './fixtures/runtime.mjs'
import { findOnPath } from './fixtures/optional-tools.mjs'
import { isWindows, posixOnly, underWine, WINE_NO_BASH } from './fixtures/platform.mjs'

const ctx = { sessionId: 's', runId: 'r', toolCallId: 'call-1' }
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-coding-shell-'))
const PREFIX = `prism-shell-test-${process.pid}`
const spills = () => fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(PREFIX))
test.after(() => {
  for (const n of spills()) fs.rmSync(path.join(os.tmpdir(), n), { force: true })
  fs.rmSync(dir, { recursive: true, force: true })
})
const text = (r) => r.content?.[0]?.text
const errorShape = (r, message, shown = message) => {
  assert.deepEqual(r, { toolCallId: 'call-1', name: 'shell', content: [{ type: 'text', text: shown }], error: { message } })
}
/** Whether `pid` is a live (not zombie) process: from /proc where there is one, else signal 0. */
const alive = (pid) => {
  if (process.platform !== 'linux') {
    try {
      process.kill(pid, 0)
      return true
    } catch (e) {
      return e.code === 'EPERM'
    }
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}
// Every test that runs a real command needs bash; under Wine bash.exe is a cmd.exe stand-in.
const bash = { skip: underWine(WINE_NO_BASH) }
// The process-group tests read the grandchild's pid from bash's `$!`: on Windows (Git Bash)
// that is an MSYS pid, not the Windows process the Job Object holds.
const processGroups = { skip: underWine(WINE_NO_BASH) || posixOnly("process groups (bash's $! there is an MSYS pid)") }
const shell = (options = {}) => createShellTool(dir, { tempFilePrefix: PREFIX, ...options })

test('construction: limits at their edges, maxTotalOutputBytes >= maxBytes, tempFilePrefix', () => {
  for (const [name, hard] of [['maxLines', 100000], ['maxBytes', 1048576], ['timeout', 3600], ['maxTotalOutputBytes', 1073741824]]) {
    assert.doesNotThrow(() => createShellTool(dir, { [name]: hard }))
    assert.throws(() => createShellTool(dir, { [name]: hard + 1 }), { message: `${name} must be a positive safe integer at most ${hard}` })
    assert.throws(() => createShellTool(dir, { [name]: 0 }), { message: `${name} must be a positive safe integer at most ${hard}` })
  }
  assert.doesNotThrow(() => createShellTool(dir, { maxBytes: 1000, maxTotalOutputBytes: 1000 }))
  assert.throws(() => createShellTool(dir, { maxBytes: 1000, maxTotalOutputBytes: 999 }), { message: 'maxTotalOutputBytes must be at least maxBytes (1000)', code: 'ERR_PRISM_CODING_INVALID_OPTION' })
  assert.throws(() => createShellTool(dir, { tempFilePrefix: '../x' }), { message: 'tempFilePrefix must match /^[A-Za-z0-9._-]+$/', code: 'ERR_PRISM_CODING_INVALID_OPTION' })
})

test('argument errors: command and timeout (seconds) at the edges', bash, async () => {
  const sh = shell()
  errorShape(await sh.execute({ command: '' }, ctx), 'command is required and must be a non-empty string.', 'Error: command is required and must be a non-empty string.')
  errorShape(await sh.execute({}, ctx), 'command is required and must be a non-empty string.', 'Error: command is required and must be a non-empty string.')
  // Blank as String.prototype.trim reads it (U+FEFF and U+3000 included), and not a string.
  for (const command of [' \t\n', '\ufeff', '\u3000\u2028', 42, null]) {
    errorShape(await sh.execute({ command }, ctx), 'command is required and must be a non-empty string.', 'Error: command is required and must be a non-empty string.')
  }
  for (const timeout of [0, Infinity, 3601, 1.5, -1, '5', null]) {
    errorShape(await sh.execute({ command: 'true', timeout }, ctx), 'timeout must be a positive safe integer at most 3600')
  }
  assert.equal(text(await sh.execute({ command: 'echo ok', timeout: 3600 }, ctx)), 'ok\n')
})

test('merged output, "(no output)", and a non-zero exit as a result, not an error', bash, async () => {
  const sh = shell()
  const r = await sh.execute({ command: 'echo out; echo err 1>&2; exit 7' }, ctx)
  assert.equal(text(r), 'out\nerr\n\n\n[Command exited with code 7]')
  assert.equal(r.error, undefined)
  assert.equal(r.metadata.exitCode, 7)
  assert.equal(r.metadata.outputLimitExceeded, false)
  assert.equal(r.metadata.fullOutputPath, undefined)
  assert.equal(text(await sh.execute({ command: 'true' }, ctx)), '(no output)')
})

test('commandPrefix, envAllowlist and shellPath', bash, async () => {
  process.env.PRISM_TEST_SECRET = 'hidden'
  process.env.PRISM_TEST_SHOWN = 'shown'
  try {
    const sh = shell({ commandPrefix: 'X=prefixed', envAllowlist: ['PRISM_TEST_SHOWN', 'PATH'] })
    assert.equal(text(await sh.execute({ command: 'echo "$X ${PRISM_TEST_SHOWN} ${PRISM_TEST_SECRET:-unset}"' }, ctx)), 'prefixed shown unset\n')
    assert.equal(text(await shell().execute({ command: 'echo ${PRISM_TEST_SECRET}' }, ctx)), 'hidden\n')
  } finally {
    delete process.env.PRISM_TEST_SECRET
    delete process.env.PRISM_TEST_SHOWN
  }
  // Windows has no /bin/sh: Git for Windows puts its sh.exe on PATH.
  const shPath = isWindows ? findOnPath('sh.exe') : '/bin/sh'
  assert.equal(text(await shell({ shellPath: shPath }).execute({ command: 'echo sh' }, ctx)), 'sh\n')
  errorShape(await shell({ shellPath: '/no/such/shell' }).execute({ command: 'true' }, ctx), 'Custom shell path not found: /no/such/shell')
  errorShape(await createShellTool(path.join(dir, 'missing'), {}).execute({ command: 'true' }, ctx), `Working directory does not exist: ${path.join(dir, 'missing')}\nCannot execute shell commands.`)
})

test('spawnHook runs before the policy; the policy sees the action; modified.command is honoured', bash, async () => {
  const order = []
  const seen = []
  const sh = shell({
    commandPrefix: 'P=1',
    spawnHook: ({ command, cwd, env }) => { order.push('hook'); return { command: `${command} hooked`, cwd, env } },
    executionPolicy: { check: (a) => { order.push('policy'); seen.push(a); return { allowed: true, modified: { command: 'echo modified', paths: ['/elsewhere'] } } } },
  })
  const r = await sh.execute({ command: 'echo', timeout: 5 }, ctx)
  assert.equal(text(r), 'modified\n')
  assert.deepEqual(order, ['hook', 'policy'])
  assert.deepEqual(seen[0], { kind: 'shell', operation: 'execute', command: 'P=1\necho hooked', paths: [dir], risk: 'high', metadata: { timeout: 5, sessionId: 's', runId: 'r', signal: undefined } })
})

test('a spawnHook that returns a cwd that is not a string gets an error result in our words', async () => {
  for (const [cwd, type] of [[5, 'number'], [null, 'null'], [{}, 'object']]) {
    errorShape(await shell({ spawnHook: (s) => ({ ...s, cwd }) }).execute({ command: 'true' }, ctx), `spawnHook: cwd must be a string (got ${type})`)
  }
})

test('a denial spawns nothing', async () => {
  const marker = path.join(dir, 'marker')
  errorShape(await shell({ executionPolicy: { check: () => ({ allowed: false, reason: 'no shell' }) } }).execute({ command: `touch ${marker}` }, ctx), 'no shell')
  errorShape(await shell({ executionPolicy: { check: () => ({ allowed: false }) } }).execute({ command: `touch ${marker}` }, ctx), 'Execution denied for shell:execute')
  errorShape(await shell({ executionPolicy: { check: async () => { throw new Error('policy down') } } }).execute({ command: `touch ${marker}` }, ctx), 'policy down')
  await new Promise((r) => setTimeout(r, 100))
  assert.equal(fs.existsSync(marker), false)
})

test('timeout kills the whole process group, grandchildren included', processGroups, async () => {
  const pidFile = path.join(dir, 'timeout.pid')
  const r = await shell().execute({ command: `sleep 60 & echo $! > ${pidFile}; echo started; sleep 60`, timeout: 1 }, ctx)
  assert.equal(r.error.message, 'Command timed out after 1 seconds')
  assert.equal(text(r), 'started\n\n\n[Command timed out after 1 seconds]')
  assert.equal(r.metadata.exitCode, null)
  const pid = Number(fs.readFileSync(pidFile, 'utf8'))
  await new Promise((res) => setTimeout(res, 100))
  assert.equal(alive(pid), false, `grandchild ${pid} survived`)
})

test('abort kills the whole process group, grandchildren included', processGroups, async () => {
  const pidFile = path.join(dir, 'abort.pid')
  const ac = new AbortController()
  setTimeout(() => ac.abort(), 300)
  const r = await shell().execute({ command: `(sleep 60 & echo $! > ${pidFile}; wait) ; sleep 60` }, { ...ctx, signal: ac.signal })
  assert.equal(r.error.message, 'Command aborted')
  const pid = Number(fs.readFileSync(pidFile, 'utf8'))
  await new Promise((res) => setTimeout(res, 100))
  assert.equal(alive(pid), false, `grandchild ${pid} survived`)
  const pre = new AbortController()
  pre.abort()
  errorShape(await shell().execute({ command: `touch ${path.join(dir, 'pre')}` }, { ...ctx, signal: pre.signal }), 'Command aborted', '[Command aborted]')
  assert.equal(fs.existsSync(path.join(dir, 'pre')), false)
})

test('a host that exits takes the running command group with it', processGroups, async () => {
  const pidFile = path.join(dir, 'exit.pid')
  const script = `
    const { createShellTool } = require('prism-native/coding-tools/agent')
    createShellTool(${JSON.stringify(dir)}).execute({ command: ${JSON.stringify(`sleep 60 & echo $! > ${pidFile}; sleep 60`)} }, { toolCallId: 'x' })
    setTimeout(() => process.exit(0), 500)
  `
  const { spawnSync } = await import('node:child_process')
  const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20000 })
  assert.equal(out.status, 0, out.stderr)
  const pid = Number(fs.readFileSync(pidFile, 'utf8'))
  await new Promise((res) => setTimeout(res, 100))
  assert.equal(alive(pid), false, `grandchild ${pid} survived its host`)
})

test('tail truncation by lines keeps a 0600 spill file with the full output', bash, async () => {
  const r = await shell({ maxLines: 10 }).execute({ command: 'seq 1 30' }, ctx)
  const full = r.metadata.fullOutputPath
  assert.ok(full.startsWith(path.join(os.tmpdir(), `${PREFIX}-`)) && /-[0-9a-f]{32}\.log$/.test(full), full)
  // Lines as the reference counts them: the final LF ends line 30 and starts no line 31; the
  // cut tail loses that LF.
  assert.equal(text(r), `21\n22\n23\n24\n25\n26\n27\n28\n29\n30\n\n[Showing lines 21-30 of 30. Full output: ${full}]`)
  if (!isWindows) assert.equal(fs.statSync(full).mode & 0o777, 0o600) // Windows has no file modes
  assert.equal(fs.readFileSync(full, 'utf8'), Array.from({ length: 30 }, (_, i) => `${i + 1}\n`).join(''))
  assert.equal(r.metadata.truncation.truncatedBy, 'lines')
  fs.rmSync(full)
  const edge = await shell({ maxLines: 30 }).execute({ command: 'seq 1 30' }, ctx)
  assert.equal(edge.metadata.truncation.truncated, false)
  assert.equal(edge.metadata.truncation.totalLines, 30)
  assert.equal(text(edge), Array.from({ length: 30 }, (_, i) => `${i + 1}\n`).join(''))
  assert.equal(edge.metadata.fullOutputPath, undefined)
})

test('tail truncation by bytes and a partial last line', bash, async () => {
  const r = await shell({ maxBytes: 10 }).execute({ command: 'printf "aaaa\\nbbbb\\ncccc\\n"' }, ctx)
  const full = r.metadata.fullOutputPath
  fs.rmSync(full)
  assert.equal(text(r), `bbbb\ncccc\n\n[Showing lines 2-3 of 3 (10B limit). Full output: ${full}]`)
  const p = await shell({ maxBytes: 1000 }).execute({ command: "head -c 5000 /dev/zero | tr '\\0' a" }, ctx)
  assert.equal(text(p), `${'a'.repeat(1000)}\n\n[Showing last 1000B of line 1 (line is 4.9KB). Full output: ${p.metadata.fullOutputPath}]`)
  assert.equal(p.metadata.truncation.lastLinePartial, true)
  fs.rmSync(p.metadata.fullOutputPath)
})

test('maxBytes and maxTotalOutputBytes at their edges', bash, async () => {
  const fits = await shell({ maxBytes: 10 }).execute({ command: 'printf 123456789X' }, ctx)
  assert.equal(fits.metadata.truncation.truncated, false)
  const over = await shell({ maxBytes: 10 }).execute({ command: 'printf 123456789XY' }, ctx)
  assert.equal(over.metadata.truncation.truncated, true)
  fs.rmSync(over.metadata.fullOutputPath)
  const atCap = await shell({ maxBytes: 1024, maxTotalOutputBytes: 10240 }).execute({ command: 'head -c 10240 /dev/zero' }, ctx)
  assert.equal(atCap.error, undefined)
  assert.equal(fs.statSync(atCap.metadata.fullOutputPath).size, 10240)
  fs.rmSync(atCap.metadata.fullOutputPath)
  const pastCap = await shell({ maxBytes: 1024, maxTotalOutputBytes: 10240 }).execute({ command: 'head -c 10241 /dev/zero' }, ctx)
  assert.equal(pastCap.error.message, 'Command output exceeded 10.0KB limit')
  assert.deepEqual(spills(), [])
})

test('maxTotalOutputBytes aborts the command and removes the spill file', bash, async () => {
  const r = await shell({ maxBytes: 1024, maxTotalOutputBytes: 10240 }).execute({ command: 'yes' }, ctx)
  assert.equal(r.error.message, 'Command output exceeded 10.0KB limit')
  assert.equal(r.metadata.outputLimitExceeded, true)
  assert.equal(r.metadata.outputStorageFailed, false)
  assert.equal(r.metadata.exitCode, null)
  assert.equal(r.metadata.totalOutputBytes, 10240, 'output is kept up to the cap')
  assert.equal(r.metadata.truncation.totalBytesKnown, false)
  assert.ok(text(r).endsWith('\n\n[Command output exceeded 10.0KB limit]'))
  assert.deepEqual(spills(), [])
})

test('a 2 GB output stream keeps the host RSS bounded (cut at the 1 GiB hard cap)', bash, async () => {
  collectGarbage()
  const before = process.memoryUsage().rss
  let peak = before
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 10)
  const r = await shell({ maxTotalOutputBytes: 1 << 30 }).execute({ command: 'head -c 2000000000 /dev/zero' }, ctx)
  clearInterval(timer)
  assert.equal(r.error.message, 'Command output exceeded 1024.0MB limit')
  assert.ok(peak - before < 32 * 1024 * 1024, `RSS grew by ${peak - before}`)
  assert.deepEqual(spills(), [])
})

test('BashOperations backend: output through the same bounds, timeout and failures', async () => {
  const operations = {
    exec: async (command, cwd, { onData, env }) => {
      assert.equal(cwd, dir)
      assert.equal(typeof env, 'object')
      onData(Buffer.from(`ran ${command}\n`))
      return { exitCode: 3 }
    },
  }
  assert.equal(text(await shell({ operations }).execute({ command: 'x' }, ctx)), 'ran x\n\n\n[Command exited with code 3]')
  const hanging = { exec: (_c, _d, { signal }) => new Promise((_res, rej) => signal.addEventListener('abort', () => rej(new Error('killed')))) }
  const t = await shell({ operations: hanging }).execute({ command: 'x', timeout: 1 }, ctx)
  assert.equal(t.error.message, 'Command timed out after 1 seconds')
  const failing = { exec: async () => { throw new Error('backend down') } }
  assert.equal((await shell({ operations: failing }).execute({ command: 'x' }, ctx)).error.message, 'backend down')
})
