// The shared dispatch scenarios (fixtures/dispatch-vectors.json) through the public
// dispatchToolCall; crates/engine/tests/dispatch_vectors.rs runs the same table through the Rust
// host's driver, so the two paths of the one dispatch machine cannot drift.
import test from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import { createToolRegistry, dispatchToolCall } from 'prism-native'

const vectors = JSON.parse(fs.readFileSync(new URL('./fixtures/dispatch-vectors.json', import.meta.url), 'utf8'))
const OK = { content: [{ type: 'text', text: 'ok' }] }

/** A vector's error (`{ name?, message, code? }`) as a thrown Error. */
function thrown({ name, message, code }) {
  const error = new Error(message)
  if (name !== undefined) error.name = name
  if (code !== undefined) error.code = code
  return error
}

/** A vector's hook as a callback that allows or throws (`check` of a policy, or a hook). */
function hook(spec) {
  if (spec === undefined) return undefined
  return () => {
    if (spec !== 'allow') throw thrown(spec.throws)
    return true
  }
}

/** The result's ErrorInfo with its undefined keys left out (as the vectors write it). */
function defined(info) {
  if (info === undefined) return null
  return Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined))
}

for (const s of vectors.scenarios) {
  test(`dispatch scenario: ${s.name}`, async () => {
    const execute = () => {
      if (s.execute?.throws) throw thrown(s.execute.throws)
      return s.execute && 'returns' in s.execute ? structuredClone(s.execute.returns) : structuredClone(OK)
    }
    const trust = hook(s.trust)
    const permission = hook(s.permission)
    const events = []
    const options = {
      registry: createToolRegistry([{ name: 't', execute }]),
      call: { type: 'tool_call', id: 'c1', name: 't', arguments: { x: 1 }, ...s.call },
      emit: (e) => void events.push(e),
      secrets: s.secrets,
      filter: s.filter,
      trust: trust && { check: () => (trust(), { trusted: true }) },
      permission: permission && { check: () => (permission(), { allowed: true }) },
      validate: 'validate' in s ? () => s.validate : undefined,
      beforeExecute: hook(s.beforeExecute),
    }
    let result
    try {
      result = await dispatchToolCall(options)
    } catch (err) {
      assert.equal(err.code, s.expect.rejects, `${s.name}: rejected with ${err.message}`)
      assert.deepEqual(events.map((e) => e.type), s.expect.events)
      return
    }
    assert.equal(s.expect.rejects, undefined, 'should reject')
    assert.deepEqual(events.map((e) => e.type), s.expect.events)
    const last = events.at(-1)
    assert.equal(last?.type === 'tool_execution_blocked' ? last.reason : null, s.expect.blocked)
    assert.deepEqual(defined(result.error), s.expect.error)
    if ('value' in s.expect) assert.deepEqual(result, s.expect.value)
  })
}
