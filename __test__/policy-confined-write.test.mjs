// The coding read, write and edit tools under createCodingApprovalPolicy open files through the
// approved root's directory handle: a directory swapped for a symlink after the policy's check
// cannot redirect the read or the write outside the root.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync, existsSync, statSync, chmodSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createEditTool, createReadTool, createWriteTool } from 'prism-native/coding-tools/agent'
import { createCodingApprovalPolicy } from 'prism-native/coding-tools/security'
import { isWindows, posixOnly, underWine, WINE_NO_SYMLINKS } from './fixtures/platform.mjs'

const ctx = { sessionId: 's', runId: 'r', toolCallId: 'w' }
const symlinks = { skip: underWine(WINE_NO_SYMLINKS) }

function workspace() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'prism-confined-')))
  const root = join(base, 'root')
  const outside = join(base, 'outside')
  mkdirSync(join(root, 'dir'), { recursive: true })
  mkdirSync(outside)
  return { base, root, outside }
}

test('allowed write and edit decisions carry the approved root, not enumerably', async () => {
  const { base, root } = workspace()
  try {
    const policy = createCodingApprovalPolicy({ roots: [root], approve: () => true })
    const decision = await policy.check({ kind: 'write', operation: 'write', paths: [join(root, 'dir', 'new.txt')] })
    assert.deepEqual(decision, { allowed: true, exclusive: false })
    assert.deepEqual(decision.writeBeneath, { root, path: join(root, 'dir', 'new.txt') })
    const read = await policy.check({ kind: 'read', operation: 'read', paths: [join(root, 'dir', 'new.txt')] })
    assert.deepEqual(read, { allowed: true, exclusive: false })
    assert.deepEqual(read.writeBeneath, { root, path: join(root, 'dir', 'new.txt') })
    const shell = await policy.check({ kind: 'shell', operation: 'execute', command: 'ls', paths: [root] })
    assert.equal(shell.writeBeneath, undefined)
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
})

test('write and edit through the policy keep working and keep file modes', async () => {
  const { base, root } = workspace()
  try {
    const executionPolicy = createCodingApprovalPolicy({ roots: [root], approve: () => true })
    const write = createWriteTool(root, { executionPolicy })
    const edit = createEditTool(root, { executionPolicy })
    const w = await write.execute({ path: 'dir/a.sh', content: 'echo one\n' }, ctx)
    assert.equal(w.error, undefined, w.error?.message)
    chmodSync(join(root, 'dir/a.sh'), 0o755)
    const e = await edit.execute({ path: 'dir/a.sh', edits: [{ oldText: 'one', newText: 'two' }], force: true }, ctx)
    assert.equal(e.error, undefined, e.error?.message)
    assert.equal(readFileSync(join(root, 'dir/a.sh'), 'utf8'), 'echo two\n')
    if (!isWindows) assert.equal(statSync(join(root, 'dir/a.sh')).mode & 0o777, 0o755) // Windows has no file modes
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
})

test('a directory swapped for a symlink during writes never lets a write escape', { ...symlinks, timeout: 60_000 }, async () => {
  const { base, root, outside } = workspace()
  writeFileSync(join(root, 'dir', 'seed.txt'), 'seed')
  const racer = flipper(root, outside)
  try {
    await flipping(root)
    const executionPolicy = createCodingApprovalPolicy({ roots: [root], approve: () => true })
    const write = createWriteTool(root, { executionPolicy })
    const edit = createEditTool(root, { executionPolicy })
    let written = 0
    for (let i = 0; i < 400; i++) {
      const r = await write.execute({ path: `dir/f${i}.txt`, content: `w${i}` }, ctx)
      if (!r.error) written++
      await edit.execute({ path: 'dir/seed.txt', edits: [{ oldText: 'seed', newText: 'seed' + i }], force: true }, ctx)
    }
    assert.deepEqual(readdirSync(outside), [], 'nothing was written outside the root')
    assert.ok(written > 0, 'some writes went through while the directory was real')
    assert.ok(written < 400, 'some writes met the swapped directory')
    assert.equal(racer.exitCode, null, 'the flipper ran throughout')
  } finally {
    await stop(racer)
    rmSync(base, { recursive: true, force: true })
  }
})

/**
 * Kills `child` and waits for its exit; at once when it has exited already (its 'exit' event
 * was emitted then, and waiting for another would never end: a flipper that ended early once
 * hung a test until its timeout).
 */
async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGKILL')
  await exited
}

/**
 * A separate process that flips root/dir between a real directory and a symlink to `outside`
 * for 20 s, holding each state for a random 0-0.3 ms (so swaps land inside operations, and
 * some operations also see a settled directory). A write may create root/dir in the moment
 * between the rename and the link (the tools create missing parents); the flipper then
 * removes that directory and brings the real one back, instead of stopping there (it did,
 * and a run whose flipper stopped before any write met the link failed under Deno). Its script carries its paths inline: under Deno, `-e`'s `process.argv` has the
 * evaluated script's own path at index 1, which the flipper used to take for the directory
 * (so it flipped nothing there).
 */
function flipper(root, outside) {
  const paths = JSON.stringify([join(root, 'dir'), join(root, 'spare'), outside])
  const script = `const fs = require('fs')
    const [dir, spare, outside] = ${paths}
    const end = Date.now() + 20000
    const hold = () => { const until = performance.now() + Math.random() * 0.3; while (performance.now() < until) {} }
    while (Date.now() < end) {
      try { fs.renameSync(dir, spare); fs.symlinkSync(outside, dir) } catch {}
      hold()
      // Back: whatever holds the name goes (the link, or a directory a write made in the
      // moment between the rename and the link), and the real directory returns.
      try { if (fs.existsSync(spare)) { fs.rmSync(dir, { recursive: true, force: true }); fs.renameSync(spare, dir) } } catch {}
      hold()
    }`
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' })
}

/** Resolves once root/dir has been seen as a symlink (the flipper is racing); fails after 10 s. */
async function flipping(root) {
  const dir = join(root, 'dir')
  for (const end = Date.now() + 10_000; Date.now() < end; ) {
    try {
      if (lstatSync(dir).isSymbolicLink()) return
    } catch {}
    await new Promise((r) => setImmediate(r))
  }
  assert.fail('the flipper never swapped the directory')
}

/** A document reader that hands back the bytes it was given as the document's text. */
const echoReader = { maxInputBytes: 1024, maxTextBytes: 1024, extract: async ({ buffer }) => ({ text: buffer.toString(), format: 'pdf', pages: 1, truncatedBy: null }) }

test('a directory swapped for a symlink during reads never lets a read return an outside file', { ...symlinks, timeout: 60_000 }, async () => {
  const { base, root, outside } = workspace()
  writeFileSync(join(root, 'dir', 'secret.txt'), 'inside')
  writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE')
  const racer = flipper(root, outside)
  try {
    await flipping(root)
    const executionPolicy = createCodingApprovalPolicy({ roots: [root] })
    // Text reads, and reads whose bytes go to a document reader (read by the same confined
    // handle, not by a second open of the path).
    const tools = [createReadTool(root, { executionPolicy }), createReadTool(root, { executionPolicy, documentReader: echoReader })]
    const inside = [0, 0]
    let escaped = 0
    for (let i = 0; i < 2000; i++) {
      const r = await tools[i % 2].execute({ path: 'dir/secret.txt' }, ctx)
      const text = r.content[0].text
      if (text.includes('OUTSIDE')) escaped++
      else if (!r.error && text === 'inside') inside[i % 2]++
    }
    assert.equal(escaped, 0, 'no read returned the file outside the root')
    assert.ok(inside[0] > 0 && inside[1] > 0, `some reads of each kind went through while the directory was real: ${inside}`)
    assert.ok(inside[0] + inside[1] < 2000, 'some reads met the swapped directory')
    assert.equal(racer.exitCode, null, 'the flipper ran throughout')
  } finally {
    await stop(racer)
    rmSync(base, { recursive: true, force: true })
  }
})

test('a confined read refuses a planted symlink', symlinks, async () => {
  const { base, root, outside } = workspace()
  try {
    writeFileSync(join(outside, 'x.txt'), 'OUTSIDE')
    symlinkSync(outside, join(root, 'link'))
    const planted = { check: async () => ({ allowed: true, writeBeneath: { root, path: join(root, 'link', 'x.txt') } }) }
    const r = await createReadTool(root, { executionPolicy: planted }).execute({ path: 'link/x.txt' }, ctx)
    assert.match(r.error.message, /path escapes its trusted root/)
    const doc = await createReadTool(root, { executionPolicy: planted, documentReader: echoReader }).execute({ path: 'link/x.txt' }, ctx)
    assert.match(doc.error.message, /path escapes its trusted root/)
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
})

test('confined read and edit refuse a FIFO before reading', { skip: posixOnly('FIFOs') }, async () => {
  const { base, root } = workspace()
  try {
    execFileSync('mkfifo', [join(root, 'dir', 'pipe')])
    const executionPolicy = createCodingApprovalPolicy({ roots: [root], approve: () => true })
    const fifo = await createReadTool(root, { executionPolicy }).execute({ path: 'dir/pipe' }, ctx)
    assert.equal(fifo.error?.message, 'Refusing to read dir/pipe: not a regular file (FIFO).')
    const fifoDoc = await createReadTool(root, { executionPolicy, documentReader: echoReader }).execute({ path: 'dir/pipe' }, ctx)
    assert.equal(fifoDoc.error?.message, 'Refusing to read dir/pipe: not a regular file (FIFO).')
    const edited = await createEditTool(root, { executionPolicy }).execute({ path: 'dir/pipe', edits: [{ oldText: 'a', newText: 'b' }] }, ctx)
    assert.equal(edited.error?.message, 'Refusing to edit dir/pipe: not a regular file (FIFO).')
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
})

test('a symlink planted before the write is refused with the escape error', symlinks, async () => {
  const { base, root, outside } = workspace()
  try {
    const executionPolicy = { check: async () => ({ allowed: true, writeBeneath: { root, path: join(root, 'link', 'x.txt') } }) }
    symlinkSync(outside, join(root, 'link'))
    const r = await createWriteTool(root, { executionPolicy }).execute({ path: 'link/x.txt', content: 'x' }, ctx)
    assert.match(r.error.message, /path escapes its trusted root/)
    assert.equal(existsSync(join(outside, 'x.txt')), false)
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
})
