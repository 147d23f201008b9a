// The analysis crosses as numbers in a reused buffer (strings sliced from the command or from
// one string of extras), and as JSON when it does not fit or runs off this thread. Both
// crossings must give the same object, on both command corpora and on the layout's edges.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { policyCorpus, adversarialCorpus } from './fixtures/command-corpora.mjs'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')
const { analyzeIntoBuffer, fromJson, BUFFER_WORDS } = require('../lib/coding-tools/security/analysis-layout.js')

const viaJson = (command) => fromJson(native.analyzeShellCommand(command))

function sameBothWays(command) {
  assert.deepStrictEqual(analyzeIntoBuffer(command), viaJson(command), JSON.stringify(command).slice(0, 200))
}

test('both corpora: the layout and the JSON crossing give the same analysis', () => {
  const all = [...policyCorpus(), ...adversarialCorpus()].map((c) => c.command)
  assert.ok(all.length > 500, `${all.length} commands`)
  for (const c of all) sameBothWays(c)
})

test('strings that are not spans of the command come from the extras', () => {
  for (const c of [
    "echo 'a b' \"c d\" e\\ f",
    'git -C /tmp status',
    'cat < in > out 2>&1 >> log',
    'echo > "$HOME/x"',
    'sudo rm -rf /',
    'ls $(echo ok)',
    '',
    '   ',
    'ls; rm -rf ~ && echo "$(id)" | sh',
  ]) {
    sameBothWays(c)
  }
})

test('non-ASCII commands: offsets are UTF-16 units', () => {
  for (const c of ['echo héllo wörld', "printf '\u{1F600}' x", 'ls \u202E; echo \u00e9 > \u00e9', 'cat 日本語.txt']) {
    sameBothWays(c)
  }
})

test('an analysis too large for the buffer comes back as JSON, the same object', () => {
  // Each `echo a;` is one part of several numbers, so enough of them overflow the buffer.
  const c = 'echo a; '.repeat(BUFFER_WORDS)
  const a = analyzeIntoBuffer(c)
  assert.ok(a.parts.length >= BUFFER_WORDS / 8, `${a.parts.length} parts`)
  assert.deepStrictEqual(a, viaJson(c))
  // The buffer is reused: the next small command reads its own layout.
  sameBothWays('ls -la')
})

test('a redirection target that is not a static word is null', () => {
  const a = analyzeIntoBuffer('echo x > "$(mktemp)"')
  assert.deepStrictEqual(a, viaJson('echo x > "$(mktemp)"'))
  assert.ok(a.redirects.some((r) => r.target === null), JSON.stringify(a.redirects))
})
