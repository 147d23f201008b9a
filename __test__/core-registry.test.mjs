import test from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as esm from 'prism-native'
import { createToolRegistry, filterTools } from 'prism-native'

const require = createRequire(import.meta.url)
const tool = (name, extra = {}) => ({ name, execute: () => ({ toolCallId: 'x', name }), ...extra })

test('ESM and CommonJS entries export the same names and the same objects', () => {
  const cjs = require('prism-native')
  assert.deepEqual(Object.keys(esm).filter((k) => k !== 'default').sort(), Object.keys(cjs).sort())
  for (const k of Object.keys(cjs)) assert.equal(esm[k], cjs[k], k)
})

test('registry keeps insertion order and replaces in place', () => {
  const first = tool('a')
  const other = tool('b')
  const second = tool('a')
  const r = createToolRegistry([first, other])
  r.register(second)
  assert.deepEqual(r.list(), [second, other])
  assert.equal(r.get('a'), second)
  assert.equal(r.get('missing'), undefined)
  assert.throws(() => r.resolve('missing'), { name: 'Error', message: 'Unknown tool: missing', code: 'ERR_PRISM_UNKNOWN_TOOL' })
})

test('duplicate "error" throws in the constructor and in register', () => {
  assert.throws(() => createToolRegistry([tool('a'), tool('a')], { duplicate: 'error' }), { name: 'Error', message: 'Duplicate tool: a', code: 'ERR_PRISM_DUPLICATE_TOOL' })
  const r = createToolRegistry([tool('a')], { duplicate: 'error' })
  assert.throws(() => r.register(tool('a')), { message: 'Duplicate tool: a' })
})

test('registry rejects tools that are not tool definitions', () => {
  const r = createToolRegistry()
  assert.throws(() => r.register(null), TypeError)
  assert.throws(() => r.register({ name: 'x' }), TypeError)
})

test('filterTools: exact names, deny wins, every non-empty allow must list the name', () => {
  const tools = [tool('read'), tool('write'), tool('readme')]
  const names = (f) => filterTools(tools, f).map((t) => t.name)
  assert.deepEqual(names(undefined), ['read', 'write', 'readme'])
  assert.deepEqual(names({ allow: ['read'] }), ['read'])
  assert.deepEqual(names({ allow: ['read', 'write'], deny: ['write'] }), ['read'])
  assert.deepEqual(names([{ allow: ['read', 'write'] }, { allow: ['write', 'readme'] }]), ['write'])
  assert.deepEqual(names([{ allow: [] }, { deny: ['readme'] }]), ['read', 'write'])
})
