// `npm install` reuses a binary that loads: a second install does not rebuild.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { statSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

test('the install script keeps a binary that loads and never calls cargo', () => {
  const binary = readdirSync(root).find((f) => /^prism-native\..+\.node$/.test(f))
  assert.ok(binary, 'npm install built a binary')
  const before = statSync(join(root, binary)).mtimeMs
  // CARGO=false would make any build attempt fail: the script must not try one.
  const out = execFileSync(process.execPath, [join(root, 'scripts', 'install.js')], {
    env: { ...process.env, CARGO: 'false', PRISM_NATIVE_BUILD: '' },
    encoding: 'utf8',
  })
  assert.equal(out, '')
  assert.equal(statSync(join(root, binary)).mtimeMs, before)
})

test('a forced build with a failing cargo exits non-zero with a clear message', () => {
  let err
  try {
    execFileSync(process.execPath, [join(root, 'scripts', 'install.js')], {
      env: { ...process.env, CARGO: 'definitely-not-a-cargo-binary', PRISM_NATIVE_BUILD: '1' },
      encoding: 'utf8',
      stdio: 'pipe',
    })
  } catch (e) {
    err = e
  }
  assert.ok(err, 'the script failed')
  assert.match(err.stderr, /could not run cargo/)
})
