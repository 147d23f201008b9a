// The prebuilt-binary path, end to end: pack the package and this platform's binary package,
// install both tarballs into an empty project, and dispatch a tool call from there. The
// install must pick the prebuilt binary, never fall back to a cargo build.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isWindows, underWine, WINE_NO_NPM } from './fixtures/platform.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const triple = readdirSync(root).find((f) => /^prism-native\..+\.node$/.test(f))?.slice('prism-native.'.length, -'.node'.length)

test('npm pack + install into an empty project uses the prebuilt binary package', { skip: (triple ? false : 'no built binary') || underWine(WINE_NO_NPM), timeout: 180_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'prism-native-pack-'))
  try {
    // On Windows npm is npm.cmd, which Node runs only through the shell.
    const npm = (args, cwd, env = {}) => execFileSync(isWindows ? 'npm.cmd' : 'npm', args, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: isWindows })
    // The platform package, as the release workflow publishes it.
    const platformDir = join(work, 'platform')
    cpSync(join(root, 'npm', triple), platformDir, { recursive: true })
    copyFileSync(join(root, `prism-native.${triple}.node`), join(platformDir, `prism-native.${triple}.node`))
    const platformTgz = join(work, npm(['pack', '--silent', '--pack-destination', work], platformDir).trim().split('\n').pop())
    const mainTgz = join(work, npm(['pack', '--silent', '--pack-destination', work], root).trim().split('\n').pop())
    const listing = execFileSync('tar', ['-tzf', mainTgz], { encoding: 'utf8' })
    assert.doesNotMatch(listing, /\.node\n/, 'the main package ships no binary')
    for (const f of ['package/index.js', 'package/index.d.ts', 'package/binding.js', 'package/lib/core/dispatch.js', 'package/Cargo.toml']) {
      assert.match(listing, new RegExp(`^${f.replace('.', '\\.')}$`, 'm'))
    }
    // A source build (no prebuilt binary) needs every crate the addon depends on: each path
    // dependency of the workspace ships its Cargo.toml and its sources.
    const crates = [...readFileSync(join(root, 'Cargo.toml'), 'utf8').matchAll(/path = "(crates\/[\w-]+)"/g)].map((m) => m[1])
    assert.ok(crates.includes('crates/engine') && crates.includes('crates/command-analysis'), crates.join(', '))
    for (const c of crates) {
      for (const f of [`${c}/Cargo.toml`, `${c}/src/lib.rs`]) assert.ok(listing.includes(`package/${f}\n`), `the package ships ${f}`)
    }

    const app = join(work, 'app')
    mkdirSync(app)
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, type: 'module' }))
    // CARGO=false: a fallback to a source build fails at once instead of compiling for minutes.
    npm(['install', '--no-audit', '--no-fund', '--no-save', platformTgz, mainTgz], app, { CARGO: 'false', PRISM_NATIVE_BUILD: '' })
    assert.ok(existsSync(join(app, 'node_modules', pkg.name, 'package.json')))
    assert.equal(readdirSync(join(app, 'node_modules', pkg.name)).some((f) => f.endsWith('.node')), false, 'no local build happened')

    writeFileSync(
      join(app, 'main.mjs'),
      `import { createToolRegistry, dispatchToolCall } from 'prism-native'
const registry = createToolRegistry([{ name: 'echo', execute: (a, c) => ({ toolCallId: c.toolCallId, name: 'echo', value: a.text }) }])
const r = await dispatchToolCall({ call: { type: 'tool_call', id: '1', name: 'echo', arguments: { text: 'from the tarball' } }, registry, context: { sessionId: 's', runId: 'r', toolCallId: '1' } })
const { createRequire } = await import('node:module')
const cjs = createRequire(import.meta.url)('prism-native')
console.log(JSON.stringify({ value: r.value, cjs: typeof cjs.dispatchToolCall }))
`,
    )
    const out = JSON.parse(execFileSync(process.execPath, ['main.mjs'], { cwd: app, encoding: 'utf8' }))
    assert.deepEqual(out, { value: 'from the tarball', cjs: 'function' })
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
})
