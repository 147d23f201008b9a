// Sandbox backends: bubblewrap (skipped with an install hint when missing; a failure under
// PRISM_REQUIRE_OPTIONAL=1, which CI sets) and Landlock (where the kernel has ABI 4+). Each must really deny writes outside the roots and network access, stream output,
// pass env, and kill the whole process group on abort and timeout.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { execFileSync } from 'node:child_process'
import {
  createBubblewrapSandbox,
  createLandlockSandbox,
  createSandboxBashOperations,
  landlockAbiVersion,
  SandboxExecutionError,
} from '../lib/coding-tools/security.mjs'
import { bubblewrapMissing, optionalTest } from './fixtures/optional-tools.mjs'
import { EVAL } from './fixtures/runtime.mjs'

const noBwrap = bubblewrapMissing()

// Outside must not be under /tmp: bubblewrap gives the sandbox a private /tmp.
const base = fs.mkdtempSync(path.join(os.homedir(), '.prism-sandbox-test-'))
const root = path.join(base, 'root')
const outside = path.join(base, 'outside')
fs.mkdirSync(root)
fs.mkdirSync(outside)
process.on('exit', () => fs.rmSync(base, { recursive: true, force: true }))

// The Node binary the sandboxed commands run is the one running this test. Bubblewrap gives the
// sandbox a private /tmp, so a Node installed under /tmp is copied beside the roots first.
function sandboxNode() {
  const underTmp = path.relative('/tmp', process.execPath)
  if (underTmp.startsWith('..') || path.isAbsolute(underTmp)) return process.execPath
  const copy = path.join(base, 'node')
  fs.copyFileSync(process.execPath, copy)
  fs.chmodSync(copy, 0o755)
  return copy
}
const node = JSON.stringify(sandboxNode())
async function run(ops, command, options = {}) {
  let out = ''
  const result = await ops.exec(command, root, { onData: (d) => (out += d), ...options })
  return { ...result, out }
}

function listen() {
  return new Promise((resolve) => {
    const server = net.createServer((s) => s.on('error', () => {}).end('hello'))
    server.listen(0, '127.0.0.1', () => resolve(server))
  })
}
const connectScript = (port) => `${node} ${EVAL} "import('node:net').then((net)=>net.connect(${port},'127.0.0.1').on('connect',()=>{console.log('CONNECTED');process.exit(0)}).on('error',e=>{console.log('NETERR',e.code);process.exit(3)}))"`

function alive(marker) {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').some((l) => l.includes(marker))
}

async function commonChecks(t, make) {
  const ops = createSandboxBashOperations(await make({ roots: [root] }))
  const server = await listen()
  t.after(() => server.close())
  const port = server.address().port

  const w = await run(ops, `echo inside > in.txt; cat in.txt; echo outside > ${outside}/x.txt; echo rc=$?`)
  assert.equal(w.exitCode, 0)
  assert.match(w.out, /^inside$/m)
  assert.match(w.out, /rc=[12]/)
  assert.equal(fs.readFileSync(path.join(root, 'in.txt'), 'utf8'), 'inside\n')
  assert.equal(fs.existsSync(path.join(outside, 'x.txt')), false, 'out-of-root write must be denied')
  const home = await run(ops, `touch ${os.homedir()}/.prism-sandbox-escape; echo rc=$?`)
  assert.match(home.out, /rc=1/)
  assert.equal(fs.existsSync(path.join(os.homedir(), '.prism-sandbox-escape')), false)

  // Metadata changes outside the roots: chmod and explicit times on a file the user owns.
  const meta = path.join(outside, 'meta.txt')
  fs.writeFileSync(meta, 'm')
  fs.chmodSync(meta, 0o644)
  fs.utimesSync(meta, 1_000_000, 1_000_000)
  const m = await run(ops, `chmod 600 ${meta}; echo chmod=$?; touch -m -d @2000000 ${meta}; echo touch=$?`)
  const after = fs.statSync(meta)
  const metadata = { out: m.out, mode: after.mode & 0o777, mtime: after.mtimeMs / 1000 }
  fs.rmSync(meta)

  const n = await run(ops, connectScript(port))
  assert.equal(n.exitCode, 3, n.out)
  assert.match(n.out, /NETERR/)

  assert.equal((await run(ops, 'exit 7')).exitCode, 7)
  assert.match((await run(ops, 'echo $PRISM_X', { env: { ...process.env, PRISM_X: 'forwarded' } })).out, /forwarded/)

  const marker = `sleep 31.${process.pid}`
  const ac = new AbortController()
  const pending = run(ops, `${marker} & ${marker}; echo never`, { signal: ac.signal })
  setTimeout(() => ac.abort(), 300)
  await assert.rejects(pending, (e) => e instanceof SandboxExecutionError && e.message === 'aborted')
  await new Promise((r) => setTimeout(r, 100))
  assert.equal(alive(marker), false, 'the whole process group is killed on abort')
  const timed = `sleep 33.${process.pid}`
  await assert.rejects(run(ops, `${timed} & ${timed}`, { timeout: 1 }), { message: 'timeout:1', code: 'ERR_PRISM_SANDBOX_EXECUTION' })
  await new Promise((r) => setTimeout(r, 100))
  assert.equal(alive(timed), false, 'the whole process group is killed on timeout')
  // What a command leaves running in the background ends with it.
  const left = `sleep 34.${process.pid}`
  assert.equal((await run(ops, `${left} & echo started`)).exitCode, 0)
  await new Promise((r) => setTimeout(r, 100))
  assert.equal(alive(left), false, 'no orphan outlives a finished command')
  await assert.rejects(run(ops, 'echo never', { signal: AbortSignal.abort() }), { message: 'aborted', code: 'ERR_PRISM_SANDBOX_EXECUTION' })
  return { ops, port, metadata }
}

optionalTest('bubblewrap: read-only root, writable roots, no network, group killed', noBwrap, async (t) => {
  const { port, metadata } = await commonChecks(t, createBubblewrapSandbox)
  assert.match(metadata.out, /chmod=1/)
  assert.match(metadata.out, /touch=1/)
  assert.deepEqual([metadata.mode, metadata.mtime], [0o644, 1_000_000], 'the read-only root denies metadata changes outside the roots')
  const sandbox = await createBubblewrapSandbox({ roots: [root] })
  assert.equal(sandbox.capabilities.filesystem.metadataChangesConfined, true)
  assert.equal(sandbox.capabilities.filesystem.readOnlyRoot, true)
  assert.deepEqual(sandbox.capabilities.filesystem.unconfinedOutsideRoots, [])
  assert.equal(sandbox.capabilities.backend, 'bubblewrap')
  assert.equal(sandbox.capabilities.network, false)
  assert.deepEqual(sandbox.capabilities.filesystem.writablePaths, [root])
  const server = await listen()
  t.after(() => server.close())
  const open = createSandboxBashOperations(await createBubblewrapSandbox({ roots: [root], network: true }))
  assert.match((await run(open, connectScript(server.address().port))).out, /CONNECTED/, 'network: true shares the host network')
  assert.ok(port > 0)
})

optionalTest('bubblewrap: everything in the sandbox dies with the host process', noBwrap, async () => {
  const marker = `sleep 32.${process.pid}`
  const lib = JSON.stringify(new URL('../lib/coding-tools/security.js', import.meta.url).pathname)
  const script = `const s = require(${lib}); s.createBubblewrapSandbox({ roots: [${JSON.stringify(root)}] }).then((b) => { b.exec({ command: '${marker} & ${marker}', cwd: ${JSON.stringify(root)} }); setTimeout(() => console.log('started'), 300) })`
  const { spawn } = await import('node:child_process')
  const host = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  // Listened for from the spawn on: a host that ends early must not leave this test waiting for
  // an 'exit' already emitted.
  const exited = new Promise((resolve) => host.once('exit', resolve))
  await Promise.race([new Promise((resolve) => host.stdout.once('data', resolve)), exited])
  assert.equal(alive(marker), true)
  host.kill('SIGKILL')
  await exited
  let gone = false
  for (let i = 0; i < 50 && !gone; i++) {
    await new Promise((r) => setTimeout(r, 50))
    gone = !alive(marker)
  }
  assert.equal(gone, true, 'sandboxed processes outlived the host')
})

test('bubblewrap: a host that cannot provide it gets a clear error, never a silent fallback', async () => {
  await assert.rejects(createBubblewrapSandbox({ roots: [root], bwrapPath: path.join(base, 'no-bwrap') }), (e) => e instanceof SandboxExecutionError && /^bubblewrap sandbox unavailable: /.test(e.message))
  await assert.rejects(createBubblewrapSandbox({ roots: [] }), TypeError)
})

test('landlock: writes confined to the roots, TCP denied', { skip: (process.platform !== 'linux' && 'Landlock is Linux only') || (landlockAbiVersion() < 4 && 'kernel Landlock ABI < 4') }, async (t) => {
  const { metadata } = await commonChecks(t, createLandlockSandbox)
  const sandbox = await createLandlockSandbox({ roots: [root] })
  assert.equal(sandbox.capabilities.backend, 'landlock')
  assert.equal(sandbox.capabilities.network, false)
  const abi = landlockAbiVersion()
  assert.equal(sandbox.capabilities.abi, abi)
  // Landlock has no access right for metadata changes: chmod and utimes outside the roots go
  // through, and the capability report says exactly that.
  assert.match(metadata.out, /chmod=0/)
  assert.match(metadata.out, /touch=0/)
  assert.deepEqual([metadata.mode, metadata.mtime], [0o600, 2_000_000])
  const expected = ['chmod', 'chown', 'utimes', 'setxattr', 'removexattr']
  if (abi < 5) expected.push('ioctl on devices')
  if (abi < 9) expected.push('connect to pathname UNIX sockets')
  assert.equal(sandbox.capabilities.filesystem.metadataChangesConfined, false)
  // Writes are confined, but a root whose metadata can change is not read-only.
  assert.equal(sandbox.capabilities.filesystem.readOnlyRoot, false)
  assert.deepEqual(sandbox.capabilities.filesystem.unconfinedOutsideRoots, expected)
  assert.equal(Object.isFrozen(sandbox.capabilities.filesystem.unconfinedOutsideRoots), true)
  assert.equal(sandbox.capabilities.networkScope, abi < 9 ? 'tcp bind and connect denied; UDP and UNIX sockets are not restricted' : 'tcp bind and connect denied; UDP is not restricted')
})

test('the sandbox backends spawn and kill through the engine: no child_process in their code', () => {
  const dir = new URL('../lib/coding-tools/security/', import.meta.url)
  const users = fs.readdirSync(dir).filter((f) => /['"`](node:)?child_process['"`]/.test(fs.readFileSync(new URL(f, dir), 'utf8')))
  assert.deepEqual(users, [])
})

test('sandbox options of the wrong type are TypeErrors before anything starts', async () => {
  for (const make of [createBubblewrapSandbox, createLandlockSandbox]) {
    await assert.rejects(make({ roots: [root], shellPath: 1 }), { name: 'TypeError', message: /shellPath must be a non-empty path string$/ })
    await assert.rejects(make({ roots: [root, 2] }), TypeError)
  }
  await assert.rejects(createBubblewrapSandbox({ roots: [root], bwrapPath: Symbol('x') }), { name: 'TypeError', message: /bwrapPath must be a non-empty path string$/ })
})
