// Realpath containment (API.md section 9 step 3, Decision 8): symlink leaf, dangling and
// ancestor cases, for isPathInsideReal, assertPathInsideRoots and the policy.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { isPathInsideReal, assertPathInsideRoots, createCodingApprovalPolicy } from '../lib/coding-tools/security.mjs'
import { underWine, WINE_NO_SYMLINKS } from './fixtures/platform.mjs'

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-paths-')))
process.on('exit', () => fs.rmSync(base, { recursive: true, force: true }))
const root = path.join(base, 'root')
const outside = path.join(base, 'outside')
fs.mkdirSync(path.join(root, 'sub'), { recursive: true })
fs.mkdirSync(outside)
fs.writeFileSync(path.join(root, 'in.txt'), 'in')
fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret')
// Every case but a few is a symlink.
const symlinks = { skip: underWine(WINE_NO_SYMLINKS) }
const link = (target, name) => symlinks.skip || fs.symlinkSync(target, path.join(root, name))
link(path.join(outside, 'secret.txt'), 'leaf-out')
link(path.join(root, 'in.txt'), 'leaf-in')
link(path.join(outside, 'missing.txt'), 'dangling-out')
link(path.join(root, 'missing.txt'), 'dangling-in')
link('../outside/nope.txt', 'dangling-relative-out')
link(outside, 'dir-out')
link(path.join(root, 'sub'), 'dir-in')
link(path.join(root, 'loop-b'), 'loop-a')
link(path.join(root, 'loop-a'), 'loop-b')
if (!symlinks.skip) fs.symlinkSync(base, path.join(base, 'alias'))
const aliasRoot = path.join(base, 'alias', 'root')

const cases = [
  ['a plain file', 'in.txt', true],
  ['a new file in an existing directory', 'new.txt', true],
  ['a new file in a missing directory', 'no/dir/new.txt', false],
  ['a leaf symlink to outside', 'leaf-out', false],
  ['a leaf symlink to inside', 'leaf-in', true],
  ['a dangling symlink to outside', 'dangling-out', false],
  ['a dangling relative symlink to outside', 'dangling-relative-out', false],
  ['a dangling symlink to inside', 'dangling-in', true],
  ['a file beneath an ancestor symlink to outside', 'dir-out/secret.txt', false],
  ['a new file beneath an ancestor symlink to outside', 'dir-out/new.txt', false],
  ['a file beneath an ancestor symlink to inside', 'dir-in/x.txt', true],
  ['a symlink loop', 'loop-a', false],
  ['a dot-dot escape', '../outside/secret.txt', false],
  ['the root itself', '.', true],
]

test('isPathInsideReal and assertPathInsideRoots agree on every symlink case', symlinks, async () => {
  for (const [what, rel, inside] of cases) {
    const target = path.join(root, rel)
    assert.equal(await isPathInsideReal(root, target), inside, what)
    assert.equal(await assertPathInsideRoots([outside + '-none', root], target), inside, what)
    assert.equal(await isPathInsideReal(aliasRoot, target), inside, `${what} (root given through a symlink)`)
  }
  assert.equal(await isPathInsideReal(path.join(base, 'missing-root'), path.join(root, 'in.txt')), false)
  assert.equal(await assertPathInsideRoots([], path.join(root, 'in.txt')), false)
  assert.equal(await assertPathInsideRoots([root], 42), false)
})

test('the policy denies every escape with the reference reason', symlinks, async () => {
  const policy = createCodingApprovalPolicy({ roots: [root], approve: () => true })
  for (const [what, rel, inside] of cases) {
    const target = path.join(root, rel)
    const decision = await policy.check({ kind: 'write', operation: 'write', paths: [target] })
    assert.deepEqual(decision, inside ? { allowed: true, exclusive: false } : { allowed: false, reason: `path outside trusted roots: ${target}` }, what)
  }
})
