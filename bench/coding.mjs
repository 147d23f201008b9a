// Coding tools, side by side with @mariozechner/pi-coding-agent's read, edit and bash tools on
// the same files and commands. Each (case, implementation) runs in its own child process so
// that one's heap cannot inflate the other's peak RSS; peak RSS growth is the kernel's
// high-water mark (VmHWM, reset after warm-up) minus the resident size before the case.
// Files are generated under a temp dir and deleted afterwards.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const here = fileURLToPath(import.meta.url)
const MB = 1024 * 1024
const CASES = {
  'read-last-page': { runs: 3, title: 'read: last page of a 200 MB text file', target: { speedup: 5, rssRatio: 0.1 } },
  'shell-1gb': { runs: 3, title: 'shell: command printing 1 GB', target: { speedup: 2, rssMax: 64 * MB } },
  'edit-100': { runs: 5, title: 'edit: 100 replacements in an 8 MB file, one call', target: { speedup: 3 } },
  'read-1000-small': { runs: 5, title: 'read: 1,000 small files, one call each', target: { speedup: 1.5 } },
}
const BIG_LINES = 2_000_000 // 100 bytes each: 200 MB
const EDIT_LINES = 80_000 // 100 bytes each: 8 MB

const lineOf = (i, width = 100) => {
  const head = `line ${String(i).padStart(8, '0')} `
  return head + 'x'.repeat(width - head.length - 1) + '\n'
}

function generate(dir) {
  const big = fs.openSync(path.join(dir, 'big.txt'), 'w')
  const chunk = []
  for (let i = 1; i <= BIG_LINES; i++) {
    chunk.push(lineOf(i))
    if (chunk.length === 20000) fs.writeSync(big, chunk.splice(0).join(''))
  }
  if (chunk.length) fs.writeSync(big, chunk.join(''))
  fs.closeSync(big)
  fs.mkdirSync(path.join(dir, 'small'))
  for (let i = 0; i < 1000; i++) {
    fs.writeFileSync(path.join(dir, 'small', `f${i}.txt`), Array.from({ length: 30 }, (_, k) => lineOf(i * 30 + k, 60)).join(''))
  }
}

let editBytes
function editFixture(dir) {
  const p = path.join(dir, 'edit.txt')
  editBytes ??= Buffer.from(Array.from({ length: EDIT_LINES }, (_, i) => lineOf(i + 1)).join(''))
  fs.writeFileSync(p, editBytes)
  const edits = []
  for (let k = 0; k < 100; k++) {
    const n = 1 + k * (EDIT_LINES / 100) + 7
    edits.push({ oldText: `line ${String(n).padStart(8, '0')} xx`, newText: `LINE ${n} edited` })
  }
  return { p, edits }
}

// ---- child: one implementation, one case --------------------------------------------------

const procStatus = (key) => Number(/(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(key)))[1]) * 1024

async function loadTools(impl) {
  if (impl === 'native') {
    const m = await import('prism-native/coding-tools/agent')
    const ctx = { sessionId: 'bench', runId: 'bench', toolCallId: 'c' }
    return {
      read: (cwd, opts) => { const t = m.createReadTool(cwd, { maxScanBytes: 256 * MB, ...opts }); return (args) => t.execute(args, ctx) },
      edit: (cwd) => { const t = m.createEditTool(cwd); return (args) => t.execute(args, ctx) },
      shell: (cwd) => { const t = m.createShellTool(cwd, { maxTotalOutputBytes: 1024 * MB }); return (args) => t.execute(args, ctx) },
      spill: (r) => r.metadata?.fullOutputPath,
      failed: (r) => r.error?.message,
    }
  }
  // The package's exports map names only its root; its tool factories live beside it.
  const main = fileURLToPath(import.meta.resolve('@mariozechner/pi-coding-agent'))
  const pi = await import(pathToFileURL(path.join(path.dirname(main), 'core/tools/index.js')).href)
  const wrap = (t) => async (args) => {
    try {
      return await t.execute('c', args)
    } catch (err) {
      return { error: { message: err.message }, details: err.details }
    }
  }
  return {
    read: (cwd) => wrap(pi.createReadTool(cwd)),
    edit: (cwd) => wrap(pi.createEditTool(cwd)),
    shell: (cwd) => wrap(pi.createBashTool(cwd)),
    spill: (r) => r.details?.fullOutputPath,
    failed: (r) => r.error?.message,
  }
}

async function child(impl, name, dir) {
  const tools = await loadTools(impl)
  const runs = CASES[name].runs
  const times = []
  let check = ''
  const prepared = {
    'read-last-page': () => {
      const read = tools.read(dir)
      return { run: () => read({ path: 'big.txt', offset: BIG_LINES - 99 }), verify: (r) => r.content[0].text.slice(0, 13) }
    },
    'shell-1gb': () => {
      const sh = tools.shell(dir)
      const cmd = `yes ${'a'.repeat(99)} | head -c 1000000000`
      return {
        run: () => sh({ command: cmd, timeout: 600 }),
        verify: (r) => {
          const spill = tools.spill(r)
          const size = spill ? fs.statSync(spill).size : 0
          if (spill) fs.rmSync(spill, { force: true })
          return tools.failed(r) ?? `spill ${size}`
        },
      }
    },
    'edit-100': () => {
      const edit = tools.edit(dir)
      let fixture
      return {
        before: () => { fixture = editFixture(dir) },
        run: () => edit({ path: fixture.p, edits: fixture.edits }),
        verify: (r) => tools.failed(r) ?? r.content[0].text,
      }
    },
    'read-1000-small': () => {
      const read = tools.read(path.join(dir, 'small'))
      return {
        run: async () => {
          let r
          for (let i = 0; i < 1000; i++) r = await read({ path: `f${i}.txt` })
          return r
        },
        verify: (r) => r.content[0].text.slice(0, 13),
      }
    },
  }[name]()
  if (name === 'read-1000-small') await prepared.run() // warm the code path (not the files: the OS caches both alike)
  if (name === 'edit-100') prepared.before() // build the fixture's bytes before the baseline
  globalThis.gc?.()
  const baseline = procStatus('VmRSS:')
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5')
  } catch {
    // old kernel: the high-water mark then includes start-up
  }
  for (let i = 0; i < runs; i++) {
    prepared.before?.()
    const t0 = process.hrtime.bigint()
    const r = await prepared.run()
    times.push(Number(process.hrtime.bigint() - t0) / 1e6)
    check = prepared.verify(r)
  }
  const peak = procStatus('VmHWM:')
  times.sort((a, b) => a - b)
  process.stdout.write(JSON.stringify({ median: times[Math.floor(times.length / 2)], rssGrowth: Math.max(0, peak - baseline), check }))
}

// ---- parent ----------------------------------------------------------------------------------

function fmtMs(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`
}
function fmtMb(b) {
  return `${(b / MB).toFixed(1)} MB`
}

function parent() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-bench-coding-'))
  try {
    generate(dir)
    const rows = []
    const only = process.argv.slice(2)
    for (const name of Object.keys(CASES).filter((n) => only.length === 0 || only.includes(n))) {
      const res = {}
      for (const impl of ['native', 'pi']) {
        const out = spawnSync(process.execPath, ['--expose-gc', here, '--child', impl, name, dir], { encoding: 'utf8', maxBuffer: 1 << 20 })
        if (out.status !== 0) throw new Error(`${impl} ${name} failed: ${out.stderr}`)
        res[impl] = JSON.parse(out.stdout)
      }
      rows.push({ name, ...res })
    }
    console.log('| case | prism-native median | pi median | speedup (target) | native peak RSS growth | pi peak RSS growth | RSS (target) |')
    console.log('|---|---|---|---|---|---|---|')
    for (const { name, native, pi } of rows) {
      const c = CASES[name]
      const speedup = pi.median / native.median
      const rssRatio = pi.rssGrowth > 0 ? native.rssGrowth / pi.rssGrowth : 0
      let rssCol = '–'
      if (c.target.rssRatio) rssCol = `${rssRatio.toFixed(3)}× of pi (≤ ${c.target.rssRatio}) ${rssRatio <= c.target.rssRatio ? 'met' : 'MISSED'}`
      if (c.target.rssMax) rssCol = `${fmtMb(native.rssGrowth)} (≤ ${fmtMb(c.target.rssMax)}) ${native.rssGrowth <= c.target.rssMax ? 'met' : 'MISSED'}`
      console.log(
        `| ${c.title} | ${fmtMs(native.median)} | ${fmtMs(pi.median)} | ${speedup.toFixed(2)}× (≥ ${c.target.speedup}×) ${speedup >= c.target.speedup ? 'met' : 'MISSED'} | ${fmtMb(native.rssGrowth)} | ${fmtMb(pi.rssGrowth)} | ${rssCol} |`,
      )
      if (native.check !== pi.check) console.log(`  (outputs differ: native ${JSON.stringify(native.check)} vs pi ${JSON.stringify(pi.check)})`)
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], process.argv[5])
else parent()
