import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import * as esm from 'prism-native/coding-tools/agent'
import { collectGarbage } from './fixtures/runtime.mjs'
import { posixOnly } from './fixtures/platform.mjs'
import {
  createReadTool,
  createWriteTool,
  createEditTool,
  createShellTool,
  formatSize,
  resolveToCwd,
  DEFAULT_MAX_LINES,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_IMAGE_BYTES,
  HARD_MAX_IMAGE_BYTES,
  HARD_MAX_LINES,
  HARD_MAX_BYTES,
} from 'prism-native/coding-tools/agent'

const require = createRequire(import.meta.url)
const ctx = { sessionId: 's', runId: 'r', toolCallId: 'call-1' }
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-coding-read-'))
test.after(() => fs.rmSync(dir, { recursive: true, force: true }))
const file = (name, data) => {
  const p = path.join(dir, name)
  fs.mkdirSync(path.dirname(p), { recursive: true })
  fs.writeFileSync(p, data)
  return p
}
const text = (r) => r.content?.[0]?.text
const errorShape = (r, message) => {
  assert.deepEqual(r, { toolCallId: 'call-1', name: 'read', content: [{ type: 'text', text: message }], error: { message } })
}
const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.alloc(17),
])

test('ESM and CommonJS entries export the same objects; constants and formatSize', () => {
  const cjs = require('prism-native/coding-tools/agent')
  assert.deepEqual(Object.keys(esm).filter((k) => k !== 'default').sort(), Object.keys(cjs).sort())
  for (const k of Object.keys(cjs)) assert.equal(esm[k], cjs[k], k)
  assert.equal(DEFAULT_MAX_LINES, 2000)
  assert.equal(DEFAULT_MAX_BYTES, 51200)
  assert.equal(DEFAULT_MAX_IMAGE_BYTES, 10_000_000)
  assert.equal(HARD_MAX_IMAGE_BYTES, 33_554_432)
  assert.equal(HARD_MAX_LINES, 100_000)
  assert.equal(HARD_MAX_BYTES, 1_048_576)
  assert.deepEqual([0, 1023, 1024, 51200, 1048575, 1048576].map(formatSize), ['0B', '1023B', '1.0KB', '50.0KB', '1024.0KB', '1.0MB'])
})

test('tool definitions carry the section-10 kind, effect, exclusive and parameters', () => {
  const shape = (t) => [t.name, t.kind, t.effect, t.exclusive, t.parameters.additionalProperties, t.parameters.required]
  assert.deepEqual(shape(createReadTool(dir)), ['read', 'read', { kind: 'none', idempotency: 'none' }, undefined, false, ['path']])
  assert.deepEqual(shape(createWriteTool(dir)), ['write', 'edit', { kind: 'local_mutation', idempotency: 'optional' }, undefined, false, ['path', 'content']])
  assert.deepEqual(shape(createEditTool(dir)), ['edit', 'edit', { kind: 'local_mutation', idempotency: 'optional' }, undefined, false, ['path', 'edits']])
  assert.deepEqual(shape(createShellTool(dir)), ['shell', 'execute', { kind: 'external_mutation', idempotency: 'unsupported' }, true, false, ['command']])
  assert.deepEqual(Object.keys(createReadTool(dir).parameters.properties), ['path', 'offset', 'limit', 'findText', 'findMode'])
  assert.deepEqual(createReadTool(dir).parameters.properties.findMode.enum, ['exact', 'case-insensitive'])
})

test('autoResizeImages (any value, own key) throws the TypeError before any filesystem access', () => {
  const touched = []
  const operations = new Proxy({}, { get: (_t, k) => { touched.push(k); return async () => {} } })
  for (const value of [true, false, undefined]) {
    assert.throws(
      () => createReadTool('/no/such/dir', { autoResizeImages: value, operations }),
      (e) => e instanceof TypeError && e.message === 'Read tool: "autoResizeImages" was removed in 0.1.5; use "transformImage" instead.',
    )
  }
  assert.deepEqual(touched, [])
  assert.doesNotThrow(() => createReadTool(dir, Object.create({ autoResizeImages: true })))
})

test('read limits are validated at construction, at their edges', () => {
  const cases = [
    ['maxLines', 100000], ['maxBytes', 1048576], ['maxScanBytes', 1073741824], ['maxImageBytes', 33554432],
  ]
  for (const [name, hard] of cases) {
    assert.doesNotThrow(() => createReadTool(dir, { [name]: hard }))
    assert.doesNotThrow(() => createReadTool(dir, { [name]: 1 }))
    for (const bad of [0, hard + 1, 1.5, -1, Infinity, NaN, '5']) {
      assert.throws(() => createReadTool(dir, { [name]: bad }), { message: `${name} must be a positive safe integer at most ${hard}` })
    }
  }
})

test('read argument errors, in order, with the common error shape', async () => {
  const read = createReadTool(dir)
  const ac = new AbortController()
  ac.abort()
  errorShape(await read.execute({ path: 'x' }, { ...ctx, signal: ac.signal }), 'Operation aborted')
  errorShape(await read.execute({ path: '' }, ctx), 'path is required and must be a non-empty string.')
  errorShape(await read.execute({ path: 3 }, ctx), 'path is required and must be a non-empty string.')
  errorShape(await read.execute({ path: 'x', findText: '' }, ctx), 'findText must be a non-empty string.')
  errorShape(await read.execute({ path: 'x', findText: 'a', findMode: 'regex' }, ctx), "findMode must be 'exact' or 'case-insensitive'.")
  errorShape(await read.execute({ path: 'x', offset: 0 }, ctx), 'offset must be a positive safe integer at most 9007199254740991')
  errorShape(await read.execute({ path: 'x', offset: 1.5 }, ctx), 'offset must be a positive safe integer at most 9007199254740991')
  errorShape(await read.execute({ path: 'x', limit: 100001 }, ctx), 'limit must be a positive safe integer at most 100000')
  file('edge.txt', 'a\nb')
  assert.equal(text(await read.execute({ path: 'edge.txt', limit: 100000 }, ctx)), 'a\nb')
  const missing = await read.execute({ path: 'missing.txt' }, ctx)
  assert.equal(missing.error.code, undefined)
  assert.equal(missing.metadata, undefined)
  assert.match(missing.error.message, /^ENOENT: no such file or directory/)
  // A missing path (the engine says ENOENT) is tried in its macOS spellings: the screenshot
  // name with a narrow no-break space before PM is read when the plain-space one is asked for.
  file('Shot at 1.02.03\u202FPM.txt', 'found')
  assert.equal(text(await read.execute({ path: 'Shot at 1.02.03 PM.txt' }, ctx)), 'found')
  // Another failure (a directory) is not a missing file: no variant is tried.
  fs.mkdirSync(path.join(dir, 'Dir at 1.02.03 PM.txt'), { recursive: true })
  file('Dir at 1.02.03\u202FPM.txt', 'not this')
  const notFile = await read.execute({ path: 'Dir at 1.02.03 PM.txt' }, ctx)
  assert.ok(notFile.error, 'a directory is an error, not the variant')
})

test('text pages: trailing LF kept, line and byte footers, limit footer, first-line overflow', async () => {
  file('hw.txt', 'hello\nworld\n')
  const read = createReadTool(dir)
  const r = await read.execute({ path: 'hw.txt' }, ctx)
  assert.equal(text(r), 'hello\nworld\n')
  assert.equal(r.metadata.truncation.truncated, false)
  assert.equal(r.metadata.truncation.truncatedBy, null)
  assert.equal(r.metadata.scannedBytes, 12)

  file('five.txt', '1\n2\n3\n4\n5')
  const byLines = createReadTool(dir, { maxLines: 2 })
  assert.equal(text(await byLines.execute({ path: 'five.txt' }, ctx)), '1\n2\n\n[Showing lines 1-2 of 5. Use offset=3 to continue.]')
  assert.equal(text(await createReadTool(dir, { maxLines: 5 }).execute({ path: 'five.txt' }, ctx)), '1\n2\n3\n4\n5')
  const byBytes = createReadTool(dir, { maxBytes: 5 })
  // Each kept line costs its LF: "2\n3\n" is 4 bytes, "4\n" would make 6. A byte cut stops the
  // scan at once, so the footer has no "of T".
  assert.equal(text(await byBytes.execute({ path: 'five.txt', offset: 2 }, ctx)), '2\n3\n\n[Showing lines 2-3 (5B limit). Use offset=4 to continue.]')
  assert.equal(text(await createReadTool(dir, { maxBytes: 4 }).execute({ path: 'five.txt', offset: 4 }, ctx)), '4\n5')
  assert.equal(text(await read.execute({ path: 'five.txt', offset: 2, limit: 2 }, ctx)), '2\n3\n\n[2 more lines in file. Use offset=4 to continue.]')
  assert.equal(text(await read.execute({ path: 'five.txt', offset: 4, limit: 2 }, ctx)), '4\n5')

  file('long.txt', `short\n${'x'.repeat(20)}\n`)
  const narrow = createReadTool(dir, { maxBytes: 10 })
  const over = await narrow.execute({ path: 'long.txt', offset: 2 }, ctx)
  assert.equal(text(over), "[Line 2 exceeds 10B limit. Use the shell tool: sed -n '2p' long.txt | head -c 10]")
  assert.equal(over.metadata.truncation.firstLineExceedsLimit, true)
})

test('offset past the end and the scan limit', async () => {
  file('two.txt', 'a\nb\n')
  const read = createReadTool(dir)
  assert.equal(text(await read.execute({ path: 'two.txt', offset: 3 }, ctx)), '')
  errorShape(await read.execute({ path: 'two.txt', offset: 4 }, ctx), 'Offset 4 is beyond end of file (3 lines total)')
  file('many.txt', 'line\n'.repeat(1000))
  const scan = createReadTool(dir, { maxScanBytes: 1024 })
  errorShape(await scan.execute({ path: 'many.txt', offset: 900 }, ctx), 'Text read exceeded 1.0KB scan limit before reaching the requested page')
  const page = await createReadTool(dir, { maxScanBytes: 1024, maxLines: 3 }).execute({ path: 'many.txt' }, ctx)
  assert.equal(text(page), 'line\nline\nline\n\n[Showing lines 1-3. Use offset=4 to continue.]')
  assert.equal(page.metadata.truncation.totalLinesKnown, false)
})

test('findText pages from the first matching line; a miss has no file body', async () => {
  file('find.txt', 'alpha\nBeta gamma\ndelta\n')
  const read = createReadTool(dir)
  assert.equal(text(await read.execute({ path: 'find.txt', findText: 'beta', findMode: 'case-insensitive', limit: 1 }, ctx)), 'Beta gamma\n\n[2 more lines in file. Use offset=3 to continue.]')
  errorShape(await read.execute({ path: 'find.txt', findText: 'beta' }, ctx), 'Could not find "beta" in find.txt.')
})

test('path resolution: @, ~, file:// URLs, Unicode spaces; absolute paths outside cwd are allowed', async () => {
  // path.resolve: on Windows '/w' is the current drive's root folder (C:\w).
  assert.equal(resolveToCwd('@a/b', '/w'), path.resolve('/w', 'a', 'b'))
  assert.equal(resolveToCwd('~', '/w'), os.homedir())
  assert.equal(resolveToCwd('~/x', '/w'), path.join(os.homedir(), 'x'))
  assert.equal(resolveToCwd('a\u00A0b', '/w'), path.resolve('/w', 'a b'))
  assert.equal(resolveToCwd('/abs/../p', '/w'), path.resolve('/p'))
  const p = file('url file.txt', 'via url')
  const read = createReadTool('/')
  assert.equal(text(await read.execute({ path: pathToFileURL(p).href }, ctx)), 'via url')
  assert.equal(text(await read.execute({ path: `@${p}` }, ctx)), 'via url')
})

test('images: sniffed by magic bytes, never by extension; readPathSet records reads', async () => {
  file('pic.txt', PNG)
  file('notes.png', 'plain text')
  const seen = new Set()
  const read = createReadTool(dir, { readPathSet: seen })
  const img = await read.execute({ path: 'pic.txt' }, ctx)
  assert.deepEqual(img.content, [
    { type: 'text', text: 'Read image file [image/png]' },
    { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' },
  ])
  assert.deepEqual(img.metadata, { image: { mimeType: 'image/png', resized: false, bytes: PNG.length } })
  assert.equal(text(await read.execute({ path: 'notes.png' }, ctx)), 'plain text')
  assert.ok(seen.has(path.join(dir, 'pic.txt')))
})

test('images over maxImageBytes: rejected by size at the edge, no base64 in the result', async () => {
  file('edge.png', PNG)
  assert.equal((await createReadTool(dir, { maxImageBytes: PNG.length }).execute({ path: 'edge.png' }, ctx)).content[1].type, 'image')
  const r = await createReadTool(dir, { maxImageBytes: PNG.length - 1 }).execute({ path: 'edge.png' }, ctx)
  errorShape(r, `Image file is ${PNG.length}B, exceeds ${PNG.length - 1}B limit.`)
  assert.ok(!JSON.stringify(r).includes(PNG.toString('base64').slice(0, 12)))
})

// A ReadOperations backend over an in-memory file, of the reference's shape: readText
// returns one page ({ content, startLine, outputLines, hasMore, nextOffset, ... }).
function memoryBackend(lines, calls = []) {
  const text = lines.join('\n')
  return {
    access: async (p) => { calls.push(['access', p]) },
    statFile: async () => ({ size: Buffer.byteLength(text) }),
    readFile: async () => { calls.push(['readFile']); return Buffer.from(text) },
    detectImageMimeType: async () => null,
    readText: async (_p, o) => {
      calls.push(['readText', o.offset, o.limit])
      const n = o.limit ?? o.maxLines
      const slice = lines.slice(o.offset - 1, o.offset - 1 + n)
      const hasMore = o.offset - 1 + n < lines.length
      return {
        content: slice.join('\n'),
        startLine: o.offset,
        outputLines: slice.length,
        hasMore,
        nextOffset: hasMore ? o.offset + n : undefined,
        truncatedBy: hasMore && o.limit === undefined ? 'lines' : null,
        firstLineExceedsLimit: false,
        scannedBytes: 10 * (o.offset - 1 + slice.length),
        totalLines: lines.length,
        totalBytes: Buffer.byteLength(text),
      }
    },
  }
}

test('ReadOperations backend: statFile rejects a large image before readFile is ever called', async () => {
  const calls = []
  const operations = { ...memoryBackend([]), detectImageMimeType: async () => 'image/png', statFile: async () => ({ size: 20_000_000 }), readFile: async () => { calls.push(['readFile']); return PNG } }
  const r = await createReadTool(dir, { operations }).execute({ path: 'virtual.png' }, ctx)
  errorShape(r, 'Image file is 19.1MB, exceeds 9.5MB limit.')
  assert.ok(!calls.some(([k]) => k === 'readFile'))
  const small = await createReadTool(dir, { operations: { ...operations, statFile: async () => ({ size: PNG.length }), readFile: async (_p, o) => { calls.push(['readFile', o.maxBytes]); return PNG } } }).execute({ path: 'virtual.png' }, ctx)
  assert.equal(small.content[1].mimeType, 'image/png')
  assert.deepEqual(calls.at(-1), ['readFile', DEFAULT_MAX_IMAGE_BYTES])
})

test('ReadOperations backend: pages rendered like local ones, paging options, over-returned data', async () => {
  const calls = []
  const operations = memoryBackend(['one', 'two', 'three', ''], calls)
  const paged = await createReadTool(dir, { operations, maxLines: 2 }).execute({ path: 'v.txt' }, ctx)
  assert.equal(text(paged), 'one\ntwo\n\n[Showing lines 1-2 of 4. Use offset=3 to continue.]')
  assert.equal(paged.metadata.scannedBytes, 20)
  assert.deepEqual(calls.slice(0, 2), [['access', path.join(dir, 'v.txt')], ['readText', 1, undefined]])
  const limited = await createReadTool(dir, { operations }).execute({ path: 'v.txt', offset: 2, limit: 1 }, ctx)
  assert.equal(text(limited), 'two\n\n[2 more lines in file. Use offset=3 to continue.]')
  assert.deepEqual(calls.at(-1), ['readText', 2, 1])
  const over = 'ReadOperations.readText returned data beyond the requested bounds'
  const page = { startLine: 1, outputLines: 1, hasMore: false, truncatedBy: null, firstLineExceedsLimit: false, scannedBytes: 1 }
  const greedy = { ...operations, readText: async () => ({ ...page, content: 'x'.repeat(11) }) }
  errorShape(await createReadTool(dir, { operations: greedy, maxBytes: 10 }).execute({ path: 'v.txt' }, ctx), over)
  const edge = { ...operations, readText: async () => ({ ...page, content: 'x'.repeat(10) }) }
  assert.equal(text(await createReadTool(dir, { operations: edge, maxBytes: 10 }).execute({ path: 'v.txt' }, ctx)), 'x'.repeat(10))
  const tooManyLines = { ...operations, readText: async () => ({ ...page, content: 'a\nb\nc', outputLines: 3 }) }
  errorShape(await createReadTool(dir, { operations: tooManyLines }).execute({ path: 'v.txt', limit: 2 }, ctx), over)
  const broken = { ...operations, readText: async () => ({ ...page, content: 42 }) }
  errorShape(await createReadTool(dir, { operations: broken }).execute({ path: 'v.txt' }, ctx), 'ReadOperations.readText returned an invalid page')
})

test('ReadOperations backend: findText pages through the backend, with its scan limit', async () => {
  const calls = []
  const operations = memoryBackend(['a', 'b', 'c', 'd NEEDLE', 'e'], calls)
  const hit = await createReadTool(dir, { operations, maxLines: 2 }).execute({ path: 'm', findText: 'needle', findMode: 'case-insensitive', limit: 1 }, ctx)
  assert.equal(text(hit), 'd NEEDLE\n\n[1 more lines in file. Use offset=5 to continue.]')
  assert.deepEqual(calls.filter(([k]) => k === 'readText'), [['readText', 1, undefined], ['readText', 3, undefined], ['readText', 4, 1]])
  errorShape(await createReadTool(dir, { operations, maxLines: 2 }).execute({ path: 'm', findText: 'absent' }, ctx), 'Could not find "absent" in m.')
  errorShape(await createReadTool(dir, { operations, maxLines: 2, maxScanBytes: 20 }).execute({ path: 'm', findText: 'absent' }, ctx), 'findText did not match within 20B scan limit')
  const stuck = { ...operations, readText: async (_p, o) => ({ content: 'x', startLine: o.offset, outputLines: 1, hasMore: true, nextOffset: o.offset, truncatedBy: null, firstLineExceedsLimit: false, scannedBytes: 1 }) }
  errorShape(await createReadTool(dir, { operations: stuck }).execute({ path: 'm', findText: 'y', offset: 3 }, ctx), 'findText could not advance past line 3')
})

test('detectSupportedImageMimeType and detectSupportedImageMimeTypeFromFile', async () => {
  const { detectSupportedImageMimeType, detectSupportedImageMimeTypeFromFile } = esm
  assert.equal(detectSupportedImageMimeType(PNG), 'image/png')
  assert.equal(detectSupportedImageMimeType(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg')
  assert.equal(detectSupportedImageMimeType(Buffer.from([0xff, 0xd8, 0xff, 0xf7])), null)
  assert.equal(detectSupportedImageMimeType(Buffer.from('GIF89a')), 'image/gif')
  assert.equal(detectSupportedImageMimeType(Buffer.from('plain')), null)
  assert.equal(detectSupportedImageMimeType(Buffer.alloc(0)), null)
  assert.equal(await detectSupportedImageMimeTypeFromFile(file('sniff.bin', PNG)), 'image/png')
  assert.equal(await detectSupportedImageMimeTypeFromFile(file('sniff.txt', 'text')), null)
})

test('transformImage: resized flag, and its result is re-checked against the limit', async () => {
  file('t.png', PNG)
  const small = Buffer.from('tiny')
  const ok = await createReadTool(dir, { transformImage: async ({ mimeType }) => { assert.equal(mimeType, 'image/png'); return small } }).execute({ path: 't.png' }, ctx)
  assert.deepEqual(ok.metadata.image, { mimeType: 'image/png', resized: true, bytes: 4 })
  assert.equal(ok.content[1].data, small.toString('base64'))
  const big = await createReadTool(dir, { maxImageBytes: 100, transformImage: async () => Buffer.alloc(101) }).execute({ path: 't.png' }, ctx)
  errorShape(big, 'Transformed image is 101B, exceeds 100B limit.')
})

test('execution policy: action shape, denial reasons, throwing policies, modified.paths[0]', async () => {
  file('a.txt', 'A')
  file('b.txt', 'B')
  const seen = []
  const allow = { check: (action) => { seen.push(action); return { allowed: true, modified: { paths: [path.join(dir, 'b.txt')], risk: 'high' } } } }
  const r = await createReadTool(dir, { executionPolicy: allow }).execute({ path: 'a.txt', offset: 1, limit: 5 }, ctx)
  assert.equal(text(r), 'B')
  assert.deepEqual(seen[0], { kind: 'read', operation: 'read', paths: [path.join(dir, 'a.txt')], risk: 'low', metadata: { offset: 1, limit: 5, sessionId: 's', runId: 'r', signal: undefined } })
  errorShape(await createReadTool(dir, { executionPolicy: { check: () => ({ allowed: false, reason: 'nope' }) } }).execute({ path: 'a.txt' }, ctx), 'nope')
  errorShape(await createReadTool(dir, { executionPolicy: { check: async () => ({ allowed: false }) } }).execute({ path: 'a.txt' }, ctx), 'Execution denied for read:read')
  errorShape(await createReadTool(dir, { executionPolicy: { check: () => { throw new Error('policy broke') } } }).execute({ path: 'a.txt' }, ctx), 'policy broke')
})

test('a page near the end of a 1 GB file is streamed, not held in memory', async () => {
  const big = path.join(dir, 'sparse.bin')
  fs.writeFileSync(big, '')
  fs.truncateSync(big, (1 << 30) - (1 << 20))
  fs.appendFileSync(big, '\nlast line\n')
  collectGarbage()
  const before = process.memoryUsage().rss
  let peak = before
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 5)
  const r = await createReadTool(dir, { maxScanBytes: 1 << 30, maxBytes: 1024 }).execute({ path: 'sparse.bin', offset: 2 }, ctx)
  clearInterval(timer)
  peak = Math.max(peak, process.memoryUsage().rss)
  assert.equal(text(r), 'last line\n')
  assert.ok(peak - before < 64 * 1024 * 1024, `RSS grew by ${peak - before}`)
  fs.rmSync(big)
})

test('read and edit refuse a FIFO, a socket and a device before anything could block', { skip: posixOnly('FIFOs, socket files or /dev/null') }, async () => {
  const { execFileSync } = await import('node:child_process')
  const net = await import('node:net')
  const fifo = path.join(dir, 'pipe')
  execFileSync('mkfifo', [fifo])
  // Nobody ever opens the FIFO for writing: a blocking open or read would never settle.
  errorShape(await createReadTool(dir).execute({ path: 'pipe' }, ctx), 'Refusing to read pipe: not a regular file (FIFO).')
  const edit = await createEditTool(dir).execute({ path: 'pipe', edits: [{ oldText: 'a', newText: 'b' }] }, ctx)
  assert.equal(edit.error.message, 'Refusing to edit pipe: not a regular file (FIFO).')
  await assert.rejects(esm.detectSupportedImageMimeTypeFromFile(fifo), { code: 'ESPIPE' })
  const sock = path.join(dir, 'sock')
  const server = net.createServer().listen(sock)
  await new Promise((resolve) => server.once('listening', resolve))
  try {
    errorShape(await createReadTool(dir).execute({ path: 'sock' }, ctx), 'Refusing to read sock: not a regular file (socket).')
  } finally {
    await new Promise((resolve) => server.close(resolve))
  }
  errorShape(await createReadTool(dir).execute({ path: '/dev/null' }, ctx), 'Refusing to read /dev/null: not a regular file (character device).')
  const d = await createReadTool(dir).execute({ path: '.' }, ctx)
  assert.match(d.error.message, /^EISDIR: illegal operation on a directory/)
})

test('a hard link is the file itself: read returns its content (the sandbox keeps outside files from being linked in)', async () => {
  // README, "Coding security": a hard link has no target to check, so read does not refuse
  // one; a shell that can create links runs in a sandbox where outside files cannot be linked.
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-coding-hl-'))
  try {
    fs.writeFileSync(path.join(outside, 'orig.txt'), 'linked')
    fs.linkSync(path.join(outside, 'orig.txt'), path.join(dir, 'hard.txt'))
    assert.equal(text(await createReadTool(dir).execute({ path: 'hard.txt' }, ctx)), 'linked')
  } finally {
    fs.rmSync(outside, { recursive: true, force: true })
  }
})

test('createReadPathSet: has/add/list/clear, and read marks what it read for requireReadBeforeWrite', async () => {
  const { createReadPathSet } = esm
  const set = createReadPathSet()
  set.add('/a')
  set.add('/b')
  set.add('/a')
  assert.deepEqual(set.list(), ['/a', '/b'])
  assert.equal(set.has('/b'), true)
  set.clear()
  assert.deepEqual(set.list(), [])
  const p = file('rps/read-me.txt', 'hello\n')
  await createReadTool(dir, { readPathSet: set }).execute({ path: 'rps/read-me.txt' }, ctx)
  assert.deepEqual(set.list(), [fs.realpathSync(p)])
})

test('documentReader: sized before reading, bounded input and text, null falls through to text', async () => {
  const p = file('docs/report.pdf', 'PDF-ish bytes\n')
  const seen = []
  const reader = (maxInputBytes, text) => ({
    maxInputBytes,
    maxTextBytes: 16,
    async extract({ buffer, path: at }) {
      seen.push([buffer.toString(), at])
      return text === null ? null : { text, format: 'pdf', pages: 2, truncatedBy: null }
    },
  })
  const ok = await createReadTool(dir, { documentReader: reader(1024, 'extracted') }).execute({ path: 'docs/report.pdf' }, ctx)
  assert.deepEqual(ok.content, [{ type: 'text', text: 'extracted' }])
  assert.deepEqual(ok.metadata, { document: { format: 'pdf', pages: 2, truncatedBy: null } })
  assert.deepEqual(seen[0], ['PDF-ish bytes\n', fs.realpathSync(p)])

  const big = await createReadTool(dir, { documentReader: reader(4, 'x') }).execute({ path: 'docs/report.pdf' }, ctx)
  assert.equal(big.error.message, `Document is ${formatSize(14)}, exceeds ${formatSize(4)} limit.`)
  assert.equal(seen.length, 1, 'an oversized document is never handed to extract')

  const long = await createReadTool(dir, { documentReader: reader(1024, 'x'.repeat(17)) }).execute({ path: 'docs/report.pdf' }, ctx)
  assert.match(long.error.message, /maxTextBytes/)

  const declined = await createReadTool(dir, { documentReader: reader(1024, null) }).execute({ path: 'docs/report.pdf' }, ctx)
  assert.match(declined.content[0].text, /^PDF-ish bytes/)

  // As in the reference, the reader comes before the text page: a page the text read would
  // refuse (an offset past the end) does not stop a document the reader extracts.
  const past = await createReadTool(dir, { documentReader: reader(1024, 'extracted') }).execute({ path: 'docs/report.pdf', offset: 99 }, ctx)
  assert.deepEqual(past.content, [{ type: 'text', text: 'extracted' }])

  // A host backend: the file is sized and read for the reader first, the text page read only
  // when the reader declines, and the backend is probed once.
  const calls = []
  const operations = memoryBackend(['doc line'], calls)
  const viaBackend = await createReadTool(dir, { operations, documentReader: reader(1024, 'extracted') }).execute({ path: 'v.pdf' }, ctx)
  assert.deepEqual(viaBackend.content, [{ type: 'text', text: 'extracted' }])
  assert.deepEqual(calls.map((c) => c[0]), ['access', 'readFile'])
  calls.length = 0
  const declinedBackend = await createReadTool(dir, { operations, documentReader: reader(1024, null) }).execute({ path: 'v.pdf' }, ctx)
  assert.match(declinedBackend.content[0].text, /^doc line/)
  assert.deepEqual(calls.map((c) => c[0]), ['access', 'readFile', 'readText'])
  const bigBackend = await createReadTool(dir, { operations, documentReader: reader(4, 'x') }).execute({ path: 'v.pdf' }, ctx)
  assert.equal(bigBackend.error.message, `Document is ${formatSize(8)}, exceeds ${formatSize(4)} limit.`)

  for (const bad of [() => 'text', { maxInputBytes: 1, maxTextBytes: 1 }, { maxInputBytes: 0, maxTextBytes: 1, extract() {} }]) {
    assert.throws(() => createReadTool(dir, { documentReader: bad }), TypeError)
  }
})
