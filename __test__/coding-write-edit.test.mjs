import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createReadTool, createWriteTool, createEditTool, createShellTool, withFileMutationQueue } from 'prism-native/coding-tools/agent'
import { isWindows, underWine, WINE_NO_SYMLINKS } from './fixtures/platform.mjs'

const ctx = { sessionId: 's', runId: 'r', toolCallId: 'call-1' }
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-coding-we-'))
test.after(() => fs.rmSync(dir, { recursive: true, force: true }))
const at = (name) => path.join(dir, name)
const put = (name, data) => {
  fs.mkdirSync(path.dirname(at(name)), { recursive: true })
  fs.writeFileSync(at(name), data)
}
const text = (r) => r.content?.[0]?.text
const errorShape = (r, name, message) => {
  assert.deepEqual(r, { toolCallId: 'call-1', name, content: [{ type: 'text', text: message }], error: { message } })
}
const deny = { check: () => ({ allowed: false, reason: 'denied by test' }) }

test('write: argument errors and the input bound at its edge, before the policy', async () => {
  const checked = []
  const write = createWriteTool(dir, { maxInputBytes: 5, executionPolicy: { check: (a) => { checked.push(a); return { allowed: true } } } })
  errorShape(await write.execute({ path: '', content: 'x' }, ctx), 'write', 'path is required and must be a non-empty string.')
  errorShape(await write.execute({ path: 'a' }, ctx), 'write', 'content is required and must be a string.')
  errorShape(await write.execute({ path: 'a', content: 'é12345' }, ctx), 'write', 'Write input is 7 bytes, exceeds 5 byte limit.')
  errorShape(await write.execute({ path: 'a', content: '123456' }, ctx), 'write', 'Write input is 6 bytes, exceeds 5 byte limit.')
  assert.equal(checked.length, 0)
  assert.equal(text(await write.execute({ path: 'edge.txt', content: '12345' }, ctx)), `Successfully wrote 5 bytes (1 lines) to ${at('edge.txt')}`)
  assert.deepEqual(checked[0], { kind: 'write', operation: 'write', paths: [at('edge.txt')], risk: 'medium', metadata: { bytes: 5, sessionId: 's', runId: 'r', signal: undefined } })
  assert.throws(() => createWriteTool(dir, { maxInputBytes: 64 * 1024 * 1024 + 1 }), { message: 'maxInputBytes must be a positive safe integer at most 67108864' })
})

test('write: mkdir -p, atomic replace, line counting, metadata, file_changed, no temp files left', async () => {
  const events = []
  const write = createWriteTool(dir, { onEvent: (e) => events.push(e) })
  const r = await write.execute({ path: 'deep/er/f.txt', content: 'a\n' }, ctx)
  assert.equal(text(r), `Successfully wrote 2 bytes (2 lines) to ${at('deep/er/f.txt')}`)
  assert.deepEqual(r.metadata, { bytes: 2, lines: 2, path: at('deep/er/f.txt') })
  assert.deepEqual(events, [{ type: 'file_changed', path: at('deep/er/f.txt'), op: 'write', toolCallId: 'call-1' }])
  fs.chmodSync(at('deep/er/f.txt'), 0o640)
  assert.equal((await write.execute({ path: 'deep/er/f.txt', content: '' }, ctx)).metadata.lines, 0)
  assert.equal(fs.readFileSync(at('deep/er/f.txt'), 'utf8'), '')
  if (!isWindows) assert.equal(fs.statSync(at('deep/er/f.txt')).mode & 0o777, 0o640) // Windows has no file modes
  assert.deepEqual(fs.readdirSync(at('deep/er')), ['f.txt'])
})

test('write and edit go through a symlink to its target and keep the link', { skip: underWine(WINE_NO_SYMLINKS) }, async () => {
  put('target.txt', 'one')
  fs.symlinkSync(at('target.txt'), at('via-link.txt'))
  await createWriteTool(dir).execute({ path: 'via-link.txt', content: 'two' }, ctx)
  await createEditTool(dir).execute({ path: 'via-link.txt', edits: [{ oldText: 'two', newText: 'three' }] }, ctx)
  assert.equal(fs.lstatSync(at('via-link.txt')).isSymbolicLink(), true)
  assert.equal(fs.readFileSync(at('target.txt'), 'utf8'), 'three')
})

test('write: a denial creates nothing; modified.paths[0] is honoured', async () => {
  errorShape(await createWriteTool(dir, { executionPolicy: deny }).execute({ path: 'never/x.txt', content: 'x' }, ctx), 'write', 'denied by test')
  assert.equal(fs.existsSync(at('never')), false)
  const redirect = { check: () => ({ allowed: true, modified: { paths: [at('redirected.txt')] } }) }
  await createWriteTool(dir, { executionPolicy: redirect }).execute({ path: 'asked.txt', content: 'r' }, ctx)
  assert.equal(fs.existsSync(at('asked.txt')), false)
  assert.equal(fs.readFileSync(at('redirected.txt'), 'utf8'), 'r')
})

test('write and edit: read-before-write refusal unless read or forced, naming the tool and the path as given', async () => {
  put('rbw.txt', 'old')
  const readPathSet = new Set()
  const write = createWriteTool(dir, { requireReadBeforeWrite: true, readPathSet })
  const edit = createEditTool(dir, { requireReadBeforeWrite: true, readPathSet })
  const msg = (tool, p) => `Refusing ${tool} to ${p}: not read in this session. Read first or pass force=true.`
  errorShape(await write.execute({ path: 'rbw.txt', content: 'new' }, ctx), 'write', msg('write', 'rbw.txt'))
  errorShape(await edit.execute({ path: 'rbw.txt', edits: [{ oldText: 'old', newText: 'x' }] }, ctx), 'edit', msg('edit', 'rbw.txt'))
  errorShape(await edit.execute({ path: at('rbw.txt'), edits: [{ oldText: 'old', newText: 'x' }] }, ctx), 'edit', msg('edit', at('rbw.txt')))
  assert.equal(fs.readFileSync(at('rbw.txt'), 'utf8'), 'old')
  // A file that does not exist yet has not been read either.
  errorShape(await write.execute({ path: 'brand-new.txt', content: 'n' }, ctx), 'write', msg('write', 'brand-new.txt'))
  assert.equal(fs.existsSync(at('brand-new.txt')), false)
  assert.equal(text(await write.execute({ path: 'brand-new.txt', content: 'n', force: true }, ctx)).startsWith('Successfully'), true)
  assert.equal(text(await write.execute({ path: 'rbw.txt', content: 'forced', force: true }, ctx)).startsWith('Successfully'), true)
  // A read that fails (missing file, policy denial) does not mark the path.
  const read = createReadTool(dir, { readPathSet })
  assert.ok((await read.execute({ path: 'missing.txt' }, ctx)).error)
  const denied = createReadTool(dir, { readPathSet, executionPolicy: deny })
  assert.ok((await denied.execute({ path: 'rbw.txt' }, ctx)).error)
  assert.deepEqual([...readPathSet], [])
  errorShape(await write.execute({ path: 'missing.txt', content: 'm' }, ctx), 'write', msg('write', 'missing.txt'))
  await read.execute({ path: 'rbw.txt' }, ctx)
  assert.deepEqual([...readPathSet], [at('rbw.txt')])
  assert.equal(text(await edit.execute({ path: 'rbw.txt', edits: [{ oldText: 'forced', newText: 'read' }] }, ctx)), 'Successfully replaced 1 block(s) in rbw.txt.')
})

test('withFileMutationQueue: same path serialised, different paths parallel, released on throw', async () => {
  const log = []
  const job = (p, tag, ms) => withFileMutationQueue(p, async () => { log.push(`${tag}+`); await new Promise((r) => setTimeout(r, ms)); log.push(`${tag}-`) })
  await Promise.all([job(at('q1'), 'a', 30), job(at('q1'), 'b', 1), job(at('q2'), 'c', 1)])
  assert.ok(log.indexOf('a-') < log.indexOf('b+'), log.join(' '))
  assert.ok(log.indexOf('c-') < log.indexOf('a-'), log.join(' '))
  await assert.rejects(withFileMutationQueue(at('q1'), async () => { throw new Error('boom') }), { message: 'boom' })
  assert.equal(await withFileMutationQueue(at('q1'), async () => 'after'), 'after')
})

test('withFileMutationQueue: a symlink and its target share one queue', { skip: underWine(WINE_NO_SYMLINKS) }, async () => {
  put('real.txt', 'x')
  fs.symlinkSync(at('real.txt'), at('link.txt'))
  const order = []
  await Promise.all([
    withFileMutationQueue(at('real.txt'), async () => { order.push(1); await new Promise((r) => setTimeout(r, 20)); order.push(2) }),
    withFileMutationQueue(at('link.txt'), async () => { order.push(3) }),
  ])
  assert.deepEqual(order, [1, 2, 3])
})

test('withFileMutationQueue: calls for one file queue in call order, however their realpath lookups settle', async () => {
  put('order-real.txt', 'x')
  fs.symlinkSync(at('order-real.txt'), at('order-link.txt'))
  // The first call's lookup (through the symlink) is held until the test lets it go; the
  // second call's lookup would answer at once. The second call must still run second.
  const realpath = fs.promises.realpath
  let releaseLink
  const linkHeld = new Promise((resolve) => { releaseLink = resolve })
  const looked = []
  fs.promises.realpath = async (p) => {
    looked.push(path.basename(p))
    if (p === at('order-link.txt')) {
      await linkHeld
      return at('order-real.txt')
    }
    return p
  }
  try {
    const order = []
    const first = withFileMutationQueue(at('order-link.txt'), async () => { order.push('first') })
    const second = withFileMutationQueue(at('order-real.txt'), async () => { order.push('second') })
    await new Promise((resolve) => setImmediate(resolve))
    assert.deepEqual(order, [], 'nothing ran while the first lookup was held')
    assert.deepEqual(looked, ['order-link.txt'], 'the second lookup waits for the first')
    releaseLink()
    await Promise.all([first, second])
    assert.deepEqual(order, ['first', 'second'])
  } finally {
    fs.promises.realpath = realpath
  }
})

test('coding tools return an error result when a context getter throws', async () => {
  const hostile = { toolCallId: 'call-1', get signal() { throw new Error('getter broke') } }
  const tools = [
    [createReadTool(dir), { path: 'a' }],
    [createWriteTool(dir), { path: 'a', content: 'x' }],
    [createEditTool(dir), { path: 'a', edits: [{ oldText: 'a', newText: 'b' }] }],
    [createShellTool(dir), { command: 'true' }],
  ]
  for (const [tool, args] of tools) {
    const r = await tool.execute(args, hostile)
    errorShape(r, tool.name, 'Invalid execution context: getter broke')
  }
  const noId = { get toolCallId() { throw new Error('no id') } }
  const r = await createReadTool(dir).execute({ path: 'a' }, noId)
  assert.equal(r.error.message, 'Invalid execution context: no id')
  assert.equal(r.toolCallId, undefined)
})

test('edit: argument errors at their edges', async () => {
  put('args.txt', 'abc')
  const edit = createEditTool(dir, { maxEdits: 2, maxInputBytes: 6 })
  const e = (args) => edit.execute({ path: 'args.txt', ...args }, ctx)
  errorShape(await edit.execute({ path: '', edits: [] }, ctx), 'edit', 'path is required and must be a non-empty string.')
  errorShape(await e({ edits: [] }), 'edit', 'edits must contain at least one replacement.')
  errorShape(await e({}), 'edit', 'edits must contain at least one replacement.')
  errorShape(await e({ edits: [{ oldText: 'a', newText: 'b' }, { oldText: 'b', newText: 'c' }, { oldText: 'c', newText: 'd' }] }), 'edit', 'edits contains 3 replacements, exceeds 2 limit.')
  errorShape(await e({ edits: [{ oldText: 'a', newText: 'b' }, { oldText: 'b' }] }), 'edit', 'edits[1] must have string oldText and newText.')
  put('two.txt', 'a b')
  assert.equal(text(await edit.execute({ path: 'two.txt', edits: [{ oldText: 'a', newText: 'x' }, { oldText: 'b', newText: 'y' }] }, ctx)), 'Successfully replaced 2 block(s) in two.txt.')
  errorShape(await e({ edits: [{ oldText: 'abc', newText: 'defg' }] }), 'edit', 'edit input is 7 bytes, exceeds 6 byte limit.')
  assert.equal(text(await e({ edits: JSON.stringify([{ oldText: 'abc', newText: 'def' }]) })), 'Successfully replaced 1 block(s) in args.txt.')
  assert.equal(text(await e({ oldText: 'def', newText: 'xyz' })), 'Successfully replaced 1 block(s) in args.txt.')
  assert.equal(fs.readFileSync(at('args.txt'), 'utf8'), 'xyz')
  for (const [name, hard] of [['maxEdits', 1000], ['maxFileBytes', 67108864], ['maxInputBytes', 16777216]]) {
    assert.throws(() => createEditTool(dir, { [name]: hard + 1 }), { message: `${name} must be a positive safe integer at most ${hard}` })
  }
})

test('edit and write: hostile argument values become error results, read no further than needed', async () => {
  put('hostile.txt', 'abc')
  const edit = createEditTool(dir, { maxEdits: 2, maxInputBytes: 6 })
  const e = (edits) => edit.execute({ path: 'hostile.txt', edits }, ctx)
  // A list longer than maxEdits is refused before any entry is read.
  let reads = 0
  const long = new Proxy([], { get: (t, k) => (k === 'length' ? 2 ** 32 + 5 : (reads++, undefined)) })
  errorShape(await e(long), 'edit', `edits contains ${2 ** 32 + 5} replacements, exceeds 2 limit.`)
  assert.equal(reads, 0)
  for (const bad of [null, 'oldText', 7, false]) {
    errorShape(await e([bad]), 'edit', 'edits[0] must have string oldText and newText.')
  }
  errorShape(await e([{ oldText: 'a', newText: 1 }]), 'edit', 'edits[0] must have string oldText and newText.')
  const throwing = { oldText: 'a', get newText() { throw new Error('getter says no') } }
  errorShape(await e([throwing]), 'edit', 'getter says no')
  assert.equal(fs.readFileSync(at('hostile.txt'), 'utf8'), 'abc')
  // A lone surrogate counts as its replacement character's three bytes, as Buffer.byteLength does.
  errorShape(await e([{ oldText: '\ud800\ud800', newText: 'x' }]), 'edit', 'edit input is 7 bytes, exceeds 6 byte limit.')
  const write = createWriteTool(dir, { maxInputBytes: 3 })
  for (const content of [null, 12, { toString: () => 'abc' }]) {
    errorShape(await write.execute({ path: 'w.txt', content }, ctx), 'write', 'content is required and must be a string.')
  }
  errorShape(await write.execute({ path: 7, content: 'x' }, ctx), 'write', 'path is required and must be a non-empty string.')
  errorShape(await write.execute({ path: 'w.txt', content: '\ud800\ud800' }, ctx), 'write', 'Write input is 6 bytes, exceeds 3 byte limit.')
  assert.equal(text(await write.execute({ path: 'w.txt', content: '\ud800' }, ctx)), `Successfully wrote 3 bytes (1 lines) to ${at('w.txt')}`)
  assert.equal(text(await write.execute({ path: 'w.txt', content: '' }, ctx)), `Successfully wrote 0 bytes (0 lines) to ${at('w.txt')}`)
})

test('edit: several replacements, diff, patch and first changed line; policy action', async () => {
  put('multi.txt', 'one\ntwo\nthree\nfour\n')
  const seen = []
  const events = []
  const edit = createEditTool(dir, { executionPolicy: { check: (a) => { seen.push(a); return { allowed: true } } }, onEvent: (ev) => events.push(ev) })
  const r = await edit.execute({ path: 'multi.txt', edits: [{ oldText: 'four', newText: '4' }, { oldText: 'two', newText: '2' }] }, ctx)
  assert.equal(text(r), 'Successfully replaced 2 block(s) in multi.txt.')
  assert.equal(fs.readFileSync(at('multi.txt'), 'utf8'), 'one\n2\nthree\n4\n')
  assert.equal(r.metadata.path, at('multi.txt'))
  assert.equal(r.metadata.firstChangedLine, 2)
  assert.equal(r.metadata.fuzzy, undefined)
  assert.equal(r.metadata.patch, '--- multi.txt\n+++ multi.txt\n@@ -1,5 +1,5 @@\n one\n-two\n+2\n three\n-four\n+4\n \n')
  assert.match(r.metadata.diff, /-2 two\n\+2 2/)
  assert.equal(seen[0].kind, 'edit')
  assert.equal(seen[0].risk, 'medium')
  assert.equal(seen[0].metadata.editCount, 2)
  assert.deepEqual(events, [{ type: 'file_changed', path: at('multi.txt'), op: 'edit', toolCallId: 'call-1' }])
})

test('edit: BOM and CRLF preserved; fuzzy match reported', async () => {
  put('crlf.txt', '\uFEFFa\r\nb  \r\nc\r\n')
  const edit = createEditTool(dir)
  assert.equal(text(await edit.execute({ path: 'crlf.txt', edits: [{ oldText: 'b\nc', newText: 'B\nC' }] }, ctx)), 'Successfully replaced 1 block(s) in crlf.txt (fuzzy match).')
  assert.equal(fs.readFileSync(at('crlf.txt'), 'utf8'), '\uFEFFa\r\nB\r\nC\r\n')
  put('exact.txt', '\uFEFFx\r\ny\r\n')
  const r = await edit.execute({ path: 'exact.txt', edits: [{ oldText: 'y', newText: 'z' }] }, ctx)
  assert.equal(r.metadata.fuzzy, undefined)
  assert.equal(fs.readFileSync(at('exact.txt'), 'utf8'), '\uFEFFx\r\nz\r\n')
})

test('edit: not found (with Nearby), ambiguous, overlap, empty oldText, no change; file untouched', async () => {
  put('err.txt', 'alpha\nbeta gamma\ndelta\nbeta\n')
  const edit = createEditTool(dir)
  const e = (edits) => edit.execute({ path: 'err.txt', edits }, ctx)
  errorShape(await e([{ oldText: 'zeta', newText: 'x' }]), 'edit', 'Could not find the exact text in err.txt. The old text must match exactly including all whitespace and newlines.')
  const near = await e([{ oldText: 'beta gamma\nomega', newText: 'x' }])
  assert.equal(near.error.message, 'Could not find the exact text in err.txt. The old text must match exactly including all whitespace and newlines.\nNearby:\n  L2: beta gamma')
  errorShape(await e([{ oldText: 'alpha', newText: 'a' }, { oldText: 'zeta', newText: 'z' }]), 'edit', 'Could not find edits[1] in err.txt. The oldText must match exactly including all whitespace and newlines.')
  errorShape(await e([{ oldText: 'beta', newText: 'x' }]), 'edit', 'Found 2 occurrences of the text in err.txt. The text must be unique. Please provide more context to make it unique.')
  errorShape(await e([{ oldText: 'alpha', newText: 'a' }, { oldText: 'beta', newText: 'x' }]), 'edit', 'Found 2 occurrences of edits[1] in err.txt. Each oldText must be unique. Please provide more context to make it unique.')
  errorShape(await e([{ oldText: 'beta gamma', newText: 'x' }, { oldText: 'gamma\ndelta', newText: 'y' }]), 'edit', 'edits[0] and edits[1] overlap in err.txt. Merge them into one edit or target disjoint regions.')
  errorShape(await e([{ oldText: '', newText: 'x' }]), 'edit', 'oldText must not be empty in err.txt.')
  errorShape(await e([{ oldText: 'alpha', newText: 'a' }, { oldText: '', newText: 'x' }]), 'edit', 'edits[1].oldText must not be empty in err.txt.')
  errorShape(await e([{ oldText: 'alpha', newText: 'alpha' }]), 'edit', 'No changes made to err.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected.')
  assert.equal(fs.readFileSync(at('err.txt'), 'utf8'), 'alpha\nbeta gamma\ndelta\nbeta\n')
})

test('edit: access failure, file size bound at its edge, denial leaves the file unchanged', async () => {
  errorShape(await createEditTool(dir).execute({ path: 'nope.txt', edits: [{ oldText: 'a', newText: 'b' }] }, ctx), 'edit', 'Could not edit file: nope.txt. Error code: ENOENT.')
  put('size.txt', '0123456789')
  errorShape(await createEditTool(dir, { maxFileBytes: 9 }).execute({ path: 'size.txt', edits: [{ oldText: '0', newText: 'x' }] }, ctx), 'edit', 'Edit target is 10 bytes, exceeds 9 byte limit.')
  assert.equal(text(await createEditTool(dir, { maxFileBytes: 10 }).execute({ path: 'size.txt', edits: [{ oldText: '0', newText: 'x' }] }, ctx)), 'Successfully replaced 1 block(s) in size.txt.')
  errorShape(await createEditTool(dir, { executionPolicy: deny }).execute({ path: 'size.txt', edits: [{ oldText: 'x', newText: 'y' }] }, ctx), 'edit', 'denied by test')
  assert.equal(fs.readFileSync(at('size.txt'), 'utf8'), 'x123456789')
  assert.deepEqual(fs.readdirSync(dir).filter((n) => n.startsWith('.prism-write-')), [])
})

test('EditOperations and WriteOperations backends are used instead of the native path', async () => {
  // The tools resolve paths with node:path: on Windows '/virtual' is the current drive's root folder.
  const v = (name) => path.resolve('/virtual', name)
  const files = new Map([[v('f.txt'), 'hello world']])
  const operations = {
    access: async (p) => { if (!files.has(p)) throw Object.assign(new Error('missing'), { code: 'ENOENT' }) },
    statFile: async (p) => ({ size: Buffer.byteLength(files.get(p)) }),
    readFile: async (p) => Buffer.from(files.get(p)),
    writeFile: async (p, c) => { files.set(p, c) },
    mkdir: async () => {},
  }
  const r = await createEditTool('/virtual', { operations }).execute({ path: 'f.txt', edits: [{ oldText: 'world', newText: 'there' }] }, ctx)
  assert.equal(text(r), 'Successfully replaced 1 block(s) in f.txt.')
  assert.equal(files.get(v('f.txt')), 'hello there')
  errorShape(await createEditTool('/virtual', { operations }).execute({ path: 'g.txt', edits: [{ oldText: 'a', newText: 'b' }] }, ctx), 'edit', 'Could not edit file: g.txt. Error code: ENOENT.')
  await createWriteTool('/virtual', { operations }).execute({ path: 'new.txt', content: 'n' }, ctx)
  assert.equal(files.get(v('new.txt')), 'n')
  assert.equal(fs.existsSync('/virtual'), false)
})

test('EditOperations: statFile bounds the target before any read; the read is bounded and re-checked', async () => {
  let reads = 0
  const operations = {
    access: async () => {},
    statFile: async () => ({ size: 12 }),
    readFile: async (_p, o) => { reads++; assert.equal(o.maxBytes, 11); return Buffer.from('hello world') },
    writeFile: async () => { throw new Error('must not write') },
  }
  const big = await createEditTool('/v', { operations, maxFileBytes: 11 }).execute({ path: 'f', edits: [{ oldText: 'hello', newText: 'x' }] }, ctx)
  errorShape(big, 'edit', 'Edit target is 12 bytes, exceeds 11 byte limit.')
  assert.equal(reads, 0)
  const liar = { ...operations, statFile: async () => ({ size: 1 }), readFile: async () => { reads++; return Buffer.alloc(12, 97) } }
  errorShape(await createEditTool('/v', { operations: liar, maxFileBytes: 11 }).execute({ path: 'f', edits: [{ oldText: 'a', newText: 'b' }] }, ctx), 'edit', 'Edit target is 12 bytes, exceeds 11 byte limit.')
  assert.equal(reads, 1)
})
