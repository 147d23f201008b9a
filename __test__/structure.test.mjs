// The structural check of scripts/check-structure.mjs, on tiny fake trees: an import cycle
// between the files of a library crate (the engine's, the command analysis's) and an oversize
// source file are reported by name; a child's use of
// its parent, a test module's imports and a generated file are not.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkStructure, moduleGraph } from '../scripts/check-structure.mjs'

/** A scratch tree holding `files` (path -> text); removed after `fn`. */
function withTree (files, fn) {
  const root = mkdtempSync(join(tmpdir(), 'prism-structure-'))
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    }
    return fn(root)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

const lines = (n) => 'x\n'.repeat(n)

test('a clean tree passes: a parent and its child may name each other, tests are not edges', () => {
  withTree({
    'crates/engine/src/lib.rs': '//! Root.\npub mod a;\npub mod b;\n',
    'crates/engine/src/a/mod.rs': 'mod inner;\npub use inner::Thing;\npub struct Error;\n',
    'crates/engine/src/a/inner.rs': 'use super::Error;\npub struct Thing(Error);\n',
    'crates/engine/src/b.rs': [
      'use crate::a::Thing;',
      'fn f(_: Thing) { let _ = "use crate::b::x; // mod z;"; }',
      '#[cfg(test)]',
      'mod tests {',
      '    use crate::a::inner;',
      '}',
      ''
    ].join('\n'),
    'lib/ok.js': lines(1500),
    'lib/binding.js': lines(4000)
  }, (root) => {
    assert.deepEqual(checkStructure(root, { knownCycles: [] }), [])
    const { edges } = moduleGraph(root)
    assert.deepEqual([...edges.get('crates/engine/src/b.rs')], ['crates/engine/src/a/mod.rs'])
  })
})

test('an import cycle and an oversize file are reported by name', () => {
  withTree({
    'crates/engine/src/lib.rs': 'pub mod a;\npub mod b;\nmod c;\n',
    'crates/engine/src/a.rs': 'use crate::b::{self, Y};\n',
    'crates/engine/src/b.rs': 'pub fn y() { super::c::z() }\n',
    'crates/engine/src/c.rs': 'pub fn z() { let _ = crate::a::X; }\n',
    'crates/other/src/big.rs': lines(1501),
    'src/small.rs': lines(10),
    'lib/deep/huge.js': lines(2000)
  }, (root) => {
    const problems = checkStructure(root, { knownCycles: [] })
    assert.deepEqual(problems, [
      'import cycle: crates/engine/src/a.rs -> crates/engine/src/b.rs -> crates/engine/src/c.rs -> crates/engine/src/a.rs',
      'crates/other/src/big.rs has 1501 lines (at most 1500); split it into files of one concept',
      'lib/deep/huge.js has 2000 lines (at most 1500); split it into files of one concept'
    ])
  })
})

test('every library crate is checked: a cycle in the command analysis is reported too', () => {
  withTree({
    'crates/engine/src/lib.rs': 'pub mod a;\n',
    'crates/engine/src/a.rs': 'pub use prism_command_analysis::shell;\n',
    'crates/command-analysis/src/lib.rs': 'pub mod shell;\nmod word;\n',
    'crates/command-analysis/src/shell.rs': 'use crate::word::Word;\npub struct S;\n',
    'crates/command-analysis/src/word.rs': 'pub struct Word(crate::shell::S);\n',
    'crates/mcp-test-server/src/main.rs': 'mod a;\n'
  }, (root) => {
    assert.deepEqual(checkStructure(root, { knownCycles: [] }), [
      'import cycle: crates/command-analysis/src/shell.rs -> crates/command-analysis/src/word.rs -> crates/command-analysis/src/shell.rs'
    ])
  })
})

test('a known cycle is tolerated while it exists exactly so; a stale entry fails', () => {
  withTree({
    'crates/engine/src/lib.rs': 'mod a;\nmod b;\n',
    'crates/engine/src/a.rs': 'use super::b::B;\npub struct A;\n',
    'crates/engine/src/b.rs': 'use crate::a::A;\npub struct B;\n'
  }, (root) => {
    const cycle = ['crates/engine/src/b.rs', 'crates/engine/src/a.rs']
    assert.deepEqual(checkStructure(root, { knownCycles: [cycle] }), [])
    assert.deepEqual(checkStructure(root, { knownCycles: [cycle, ['crates/engine/src/x.rs', 'crates/engine/src/y.rs']] }), [
      'known cycle no longer present, remove it from KNOWN_CYCLES: crates/engine/src/x.rs, crates/engine/src/y.rs'
    ])
  })
})

test('the project itself passes', () => {
  assert.deepEqual(checkStructure(fileURLToPath(new URL('..', import.meta.url))), [])
})
