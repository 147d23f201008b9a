// How often a shell call crosses between JavaScript and the engine. The engine decides a
// command from start to verdict: with no host callback at a step, a call crosses once to start
// (the argument checks and the job) and once to check and run it, with or without the engine's
// approval policy; a host callback (approve, a RegExp rule) adds its own crossings only.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')

// Every call into the binding is counted: its functions, and its classes' methods and
// constructors. Installed before the package loads, so the facade holds the counted ones.
let crossings = 0
const counted = (f) =>
  function (...args) {
    crossings++
    return new.target ? Reflect.construct(f, args, new.target) : f.apply(this, args)
  }
for (const [name, value] of Object.entries(native)) {
  if (typeof value !== 'function') continue
  if (/^[A-Z]/.test(name) && value.prototype) {
    for (const key of Object.getOwnPropertyNames(value.prototype)) {
      const d = Object.getOwnPropertyDescriptor(value.prototype, key)
      if (key !== 'constructor' && typeof d.value === 'function') value.prototype[key] = counted(d.value)
    }
  } else {
    native[name] = counted(value)
  }
}

const { createShellTool } = require('../lib/coding-tools/agent.js')
const { createCodingApprovalPolicy } = require('../lib/coding-tools/security.js')

const dir = mkdtempSync(join(tmpdir(), 'prism-crossings-'))
process.on('exit', () => rmSync(dir, { recursive: true, force: true }))

/** The crossings of one call of `tool` running `command` (after a first, warming call). */
async function crossingsOf(tool, command) {
  await tool.execute({ command }, { toolCallId: 'warm' })
  crossings = 0
  const r = await tool.execute({ command }, { toolCallId: 'c1' })
  return { n: crossings, r }
}

test('a shell call without a policy crosses twice: start, then run', async () => {
  const { n, r } = await crossingsOf(createShellTool(dir), 'echo hi')
  assert.equal(r.error, undefined, JSON.stringify(r))
  assert.equal(r.content[0].text.trim(), 'hi')
  assert.equal(n, 2)
})

test('with the engine approval policy and no host callback, a call still crosses twice', async () => {
  const executionPolicy = createCodingApprovalPolicy({
    roots: [dir],
    commandRules: [{ pattern: 'echo', action: 'allow' }],
    allowRulesSkipApproval: true,
  })
  const tool = createShellTool(dir, { executionPolicy })
  const { n, r } = await crossingsOf(tool, 'echo checked')
  assert.equal(r.content[0].text.trim(), 'checked')
  assert.equal(n, 2)
  // A denial crosses as often, and runs nothing.
  const denied = await crossingsOf(tool, 'rm -rf /')
  assert.match(denied.r.error.message, /deny/)
  assert.equal(denied.n, 2)
  // The policy's own check of an action is one crossing.
  crossings = 0
  const decision = await executionPolicy.check({ kind: 'shell', command: 'echo x', paths: [dir] })
  assert.deepEqual(decision, { allowed: true, exclusive: true })
  assert.equal(crossings, 1)
})

test('a host callback adds only its own crossings, and a wrapped check is honoured', async () => {
  let asked = 0
  const executionPolicy = createCodingApprovalPolicy({
    roots: [dir],
    commandRules: [{ pattern: /^echo/, action: 'allow' }],
    approve: () => {
      asked++
      return true
    },
  })
  const tool = createShellTool(dir, { executionPolicy })
  const { n, r } = await crossingsOf(tool, 'echo ok')
  assert.equal(r.content[0].text.trim(), 'ok')
  assert.equal(asked, 2)
  // start, check-and-run (stopped at the RegExp rule), decide with the answers, answer, a
  // new job for the approved run, run.
  assert.equal(n, 6)
  // A host that wraps `check` is asked through its wrapper.
  let wrapped = 0
  const own = executionPolicy.check
  executionPolicy.check = (action) => {
    wrapped++
    return own(action)
  }
  await tool.execute({ command: 'echo x' }, { toolCallId: 'w' })
  assert.equal(wrapped, 1)
})
