// The README's code runs as written. Every ```js / ```mjs / ```ts block in README.md is either
// complete, and then run in a scratch project whose node_modules/prism-native is this
// repository (it must exit 0 within its time limit), or marked as a fragment by the line
// `<!-- fragment: assumes a, b, ... -->` just before it, and then type-checked with `tsc`
// inside a harness that declares each assumed name with the type listed in ASSUMED below.
// A complete block followed by "It prints:" and a ```text block must print that text (times
// aside). A failure names the block's line in README.md. It also checks that the chart README.md shows is
// up to date and that every export of the .d.ts files carries a doc comment.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { optionalTest } from './fixtures/optional-tools.mjs'
import { underWine, WINE_NO_SYMLINKS } from './fixtures/platform.mjs'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const README = path.join(root, 'README.md')
const BLOCK_TIMEOUT_MS = 60_000
const TSC_TIMEOUT_MS = 120_000

/** What a fragment may assume, by name: the type the harness declares it with. */
const ASSUMED = {
  registry: "import('prism-native').ToolRegistry",
  call: "import('prism-native').ToolCallContent",
  calls: "readonly import('prism-native').ToolCallContent[]",
  context: "import('prism-native').ToolExecutionContext",
  signal: 'AbortSignal',
  loopContext: "import('prism-native').LoopContext",
  runOptions: 'Parameters<typeof import(\'prism-native\').resolveToolConcurrency>[0]',
  agentConfig: 'Parameters<typeof import(\'prism-native\').resolveToolConcurrency>[1]',
  client: "import('@modelcontextprotocol/sdk/client/index.js').Client",
  transport: "import('@modelcontextprotocol/sdk/shared/transport.js').Transport",
  askTheUser: '(action: import(\'prism-native\').ExecutionAction, signal?: AbortSignal) => Promise<boolean>',
  oauthState: "import('prism-native/mcp').McpClientAuthState",
  openBrowser: '(url: URL) => void',
  waitForCode: '() => Promise<string>',
  currentIdToken: '() => Promise<string>',
}

/** Every js/mjs/ts block of a Markdown text: `{ line, lang, code, fragment?: string[] }`. */
export function extractBlocks(markdown) {
  const lines = markdown.split('\n')
  const blocks = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(js|mjs|ts|javascript|typescript)\s*$/.exec(lines[i])
    if (!open) {
      if (/^```/.test(lines[i])) {
        // another language: skip to its closing fence
        for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++);
      }
      continue
    }
    const start = i
    const body = []
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i])
    if (i >= lines.length) throw new Error(`README.md:${start + 1}: unclosed code block`)
    let prev = start - 1
    while (prev >= 0 && lines[prev].trim() === '') prev--
    const marker = prev >= 0 ? /^<!--\s*fragment(?::\s*assumes\s+([^>]*?))?\s*-->$/.exec(lines[prev].trim()) : null
    const lang = open[1] === 'javascript' ? 'js' : open[1] === 'typescript' ? 'ts' : open[1]
    // "It prints ...:" and a ```text block right after: the output the block must print
    let next = i + 1
    while (next < lines.length && lines[next].trim() === '') next++
    let prints
    if (/^It prints\b.*:$/.test(lines[next] ?? '') && /^```text\s*$/.test(lines[next + 2] ?? '')) {
      prints = []
      for (let k = next + 3; k < lines.length && !/^```\s*$/.test(lines[k]); k++) prints.push(lines[k])
    }
    blocks.push({
      line: start + 1,
      lang,
      code: body.join('\n') + '\n',
      fragment: marker ? (marker[1] ?? '').split(/[\s,]+/).filter(Boolean) : undefined,
      prints,
    })
  }
  return blocks
}

const blocks = extractBlocks(fs.readFileSync(README, 'utf8'))
const complete = blocks.filter((b) => b.fragment === undefined)
const fragments = blocks.filter((b) => b.fragment !== undefined)

function linkInto(dir, name, target) {
  const at = path.join(dir, 'node_modules', name)
  fs.mkdirSync(path.dirname(at), { recursive: true })
  fs.symlinkSync(target, at, 'junction')
}

/** A scratch project: prism-native is this repository; the README's other packages are linked from its node_modules. */
function scratchProject() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-readme-'))
  linkInto(dir, 'prism-native', root)
  const deps = { 'prism-native': '*' }
  for (const name of ['@modelcontextprotocol/server-everything', '@modelcontextprotocol/sdk', '@types/node']) {
    const target = path.join(root, 'node_modules', name)
    if (fs.existsSync(target)) {
      linkInto(dir, name, target)
      deps[name] = '*'
    }
  }
  const everything = path.join(root, 'node_modules', '@modelcontextprotocol/server-everything/dist/index.js')
  if (fs.existsSync(everything)) {
    fs.mkdirSync(path.join(dir, 'node_modules', '.bin'), { recursive: true })
    fs.symlinkSync(everything, path.join(dir, 'node_modules', '.bin', 'mcp-server-everything'))
  }
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'readme-scratch', private: true, type: 'module', dependencies: deps }))
  // `npx -y <package>` in a block finds the linked package and never asks a registry.
  fs.writeFileSync(path.join(dir, '.npmrc'), 'offline=true\n')
  return dir
}

/** Runs `command args` in `cwd` in its own process group, killed whole after `ms`. */
function run(command, args, cwd, ms) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let stdout = ''
    const keep = (d) => {
      out += d
      if (out.length > 64_000) out = out.slice(-32_000)
    }
    child.stdout.on('data', (d) => {
      if (stdout.length < 64_000) stdout += d
      keep(d)
    })
    child.stderr.on('data', keep)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
    }, ms)
    child.on('error', (error) => {
      clearTimeout(timer)
      resolve({ code: null, out: `${out}\n${error.message}`, stdout, timedOut })
    })
    child.on('close', (code, sig) => {
      clearTimeout(timer)
      // a block's leftovers (a server it forgot to close) go with its group
      try {
        process.kill(-child.pid, 'SIGKILL')
      } catch {}
      resolve({ code, sig, out, stdout, timedOut })
    })
  })
}

test('README.md has code blocks, and every fragment marker names only assumptions the harness knows', () => {
  assert.ok(complete.length > 0, 'no complete js block found in README.md')
  for (const b of fragments) {
    for (const name of b.fragment) {
      assert.ok(Object.hasOwn(ASSUMED, name), `README.md:${b.line}: fragment assumes "${name}", which __test__/readme-docs.test.mjs does not declare (add it to ASSUMED)`)
    }
  }
})

const everythingMissing = fs.existsSync(path.join(root, 'node_modules', '@modelcontextprotocol/server-everything/package.json'))
  ? undefined
  : '@modelcontextprotocol/server-everything is not installed: run npm install'

// The scratch project links this repository and its packages into its node_modules.
const scratchSkip = underWine(WINE_NO_SYMLINKS)
/** A test that needs the scratch project: skipped where it cannot be made, else an `optionalTest`. */
const scratchTest = (name, missing, fn) => (scratchSkip ? test(name, { skip: scratchSkip }, fn) : optionalTest(name, missing, fn))
let scratch
test.before(() => {
  if (!scratchSkip) scratch = scratchProject()
})
test.after(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true })
})

for (const b of complete) {
  const missing = /server-everything/.test(b.code) ? everythingMissing : undefined
  scratchTest(`README.md:${b.line}: the ${b.lang} block runs as written`, missing, async () => {
    const ext = b.lang === 'ts' ? 'mts' : 'mjs'
    const file = path.join(scratch, `block-${b.line}.${ext}`)
    fs.writeFileSync(file, b.code)
    const args = b.lang === 'ts' ? ['--experimental-strip-types', '--no-warnings', file] : [file]
    const r = await run(process.execPath, args, scratch, BLOCK_TIMEOUT_MS)
    assert.ok(!r.timedOut, `README.md:${b.line}: the block did not finish within ${BLOCK_TIMEOUT_MS} ms\n${r.out.slice(-4000)}`)
    assert.equal(r.code, 0, `README.md:${b.line}: the block exited with ${r.code ?? r.sig}\n${r.out.slice(-4000)}`)
    if (b.prints) {
      // times vary from run to run: "52 ms" is compared as "N ms"
      const norm = (text) => text.trimEnd().split('\n').map((l) => l.replace(/\d+(\.\d+)? ms\b/g, 'N ms'))
      assert.deepEqual(norm(r.stdout), norm(b.prints.join('\n')), `README.md:${b.line}: the block printed something else than the README says`)
    }
  })
}

// The fragments, type-checked together in one tsc run (each in its own module file).
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const tscMissing = fs.existsSync(tsc) ? undefined : 'typescript is not installed: run npm install (it is a devDependency)'
const HEADER_LINES = 2
let tscOutput
function typeCheck() {
  if (tscOutput !== undefined) return tscOutput
  const dir = path.join(scratch, 'fragments')
  fs.mkdirSync(dir, { recursive: true })
  for (const b of fragments) {
    const declared = b.fragment.filter((n) => Object.hasOwn(ASSUMED, n)).map((n) => `declare const ${n}: ${ASSUMED[n]};`)
    // HEADER_LINES lines before the fragment, so an error's line maps back to README.md
    const text = `export {}; // what this fragment assumes:\n${declared.join(' ')}\n${b.code}`
    fs.writeFileSync(path.join(dir, `fragment-${b.line}.ts`), text)
  }
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], skipLibCheck: true, allowJs: false },
      include: ['*.ts'],
    }),
  )
  const r = spawnSync(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '-p', dir], { cwd: dir, encoding: 'utf8', timeout: TSC_TIMEOUT_MS })
  if (r.error) throw r.error
  tscOutput = (r.stdout ?? '') + (r.stderr ?? '')
  return tscOutput
}

for (const b of fragments) {
  scratchTest(`README.md:${b.line}: the fragment type-checks with what it assumes (${b.fragment.join(', ') || 'nothing'})`, tscMissing, () => {
    const out = typeCheck()
    const mine = out
      .split('\n')
      .filter((l) => l.startsWith(`fragment-${b.line}.ts(`))
      .map((l) => l.replace(/^fragment-\d+\.ts\((\d+),(\d+)\)/, (_, ln, col) => `README.md:${b.line + Number(ln) - HEADER_LINES}:${col}`))
    assert.deepEqual(mine, [], `README.md:${b.line}: the fragment does not type-check:\n${mine.join('\n')}`)
  })
}

test('bench/ratios.svg, which README.md shows, is what bench/chart.mjs draws from BENCHMARKS.md (run it after editing BENCHMARKS.md)', async () => {
  const { ratiosFromBenchmarks, svg } = await import('../bench/chart.mjs')
  const data = ratiosFromBenchmarks(fs.readFileSync(path.join(root, 'BENCHMARKS.md'), 'utf8'))
  assert.ok(data.rows.length > 0, 'no ratios found in BENCHMARKS.md')
  assert.equal(fs.readFileSync(path.join(root, 'bench', 'ratios.svg'), 'utf8'), svg(data))
  assert.match(fs.readFileSync(README, 'utf8'), /\(bench\/ratios\.svg\)/)
})

test('every exported function, class and constant of index.d.ts and lib/**/*.d.ts has a doc comment (editors show it)', () => {
  const files = ['index.d.ts', ...fs.readdirSync(path.join(root, 'lib'), { recursive: true }).filter((f) => f.endsWith('.d.ts')).map((f) => path.join('lib', f))]
  const bare = []
  for (const rel of files) {
    const lines = fs.readFileSync(path.join(root, rel), 'utf8').split('\n')
    lines.forEach((line, i) => {
      if (!/^export (declare )?(function|class|const) /.test(line)) return
      // overloads and grouped declarations share the comment above the first of them
      let j = i - 1
      while (j >= 0 && /^export (declare )?function /.test(lines[j]) && lines[j].split('(')[0] === line.split('(')[0]) j--
      if (!(j >= 0 && lines[j].trim().endsWith('*/'))) bare.push(`${rel}:${i + 1}: ${line.slice(0, 100)}`)
    })
  }
  assert.deepEqual(bare, [], `exports without a doc comment:\n${bare.join('\n')}`)
})
