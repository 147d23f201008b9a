// Every limit's doc, default and hard cap are declared once, in the engine's option sets; the
// public .d.ts docs and README tables are generated from them and must be current.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const { limitTable, limitInput } = require('../lib/limits.js')
const native = require('../lib/native.js')
const script = fileURLToPath(new URL('../scripts/option-docs.js', import.meta.url))

test('the limit docs in the .d.ts files and README are generated from the engine (node scripts/option-docs.js)', () => {
  assert.doesNotThrow(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' }), 'stale limit docs: run node scripts/option-docs.js')
})

test('every option set has documented limits with defaults within their caps', () => {
  const names = native.limitSetNames()
  assert.deepEqual(names, ['validation', 'mcp', 'mcpHttp', 'coding'])
  for (const set of names) {
    for (const row of limitTable(set)) {
      assert.ok(row.doc.length > 0, `${set}.${row.key} has no doc`)
      assert.ok(Number.isSafeInteger(row.default) && row.default >= 1 && row.default <= row.hard, `${set}.${row.key}`)
    }
  }
  assert.throws(() => native.limitTable('nope'), { code: 'ERR_PRISM_INTERNAL' })
})

test('limit values reach the engine by option name; non-numbers become NaN, unset ones are left out', () => {
  assert.deepEqual(limitInput('mcp', { maxTools: 5, callTimeoutMs: '9', other: 1 }), { callTimeoutMs: Number.NaN, maxTools: 5 })
  assert.deepEqual(limitInput('validation', undefined), {})
})
