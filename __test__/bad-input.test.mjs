// Every export of every entry point, called with wrong-typed arguments, must fail with a
// typed error in our words (TypeError, RangeError, one of the package's coded errors, or the
// host's own thrown value passed through), or return a documented result; never with
// Node-API's "Failed to convert napi value … into rust type" or its status codes. Objects the
// exports return (registries, validators, policies, tools, sandboxes) get the same treatment
// for each of their methods.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const ENTRIES = ['prism-native', 'prism-native/validation/json-schema', 'prism-native/mcp', 'prism-native/coding-tools/agent', 'prism-native/coding-tools/security', 'prism-native/testing/tool-conformance']
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-bad-input-'))
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }))

// The host's own throw: must come back unchanged (or inside a result), never be re-labelled.
const hostThrow = new Error('thrown by the host')
const TRAPS = ['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf', 'set', 'defineProperty', 'deleteProperty', 'apply', 'construct', 'isExtensible', 'preventExtensions', 'setPrototypeOf']
const throwingProxy = new Proxy({}, Object.fromEntries(TRAPS.map((k) => [k, () => { throw hostThrow }])))
// Every field read answers `value`: each option the callee reads has the wrong type.
const everyField = (value) => new Proxy({}, { get: (_, key) => (key === 'then' ? undefined : value), has: () => true })
const OPTION_NAMES = ['roots', 'cwd', 'schema', 'name', 'command', 'maxBytes', 'maxLines', 'maxResultBytes', 'timeout', 'signal', 'registry', 'call', 'tools', 'serverId', 'rules', 'path', 'content', 'limit', 'offset', 'network', 'shellPath', 'edits', 'oldText', 'newText']
const throwingGetters = Object.defineProperties({}, Object.fromEntries(OPTION_NAMES.map((k) => [k, { enumerable: true, get() { throw hostThrow } }])))

const BAD = {
  undefined: undefined, null: null, zero: 0, negative: -1, NaN: NaN, Infinity: Infinity, fraction: 1.5, huge: 2 ** 60,
  emptyString: '', string: 'x', boolean: true, symbol: Symbol('bad'), bigint: 10n, array: [], object: {}, function: () => {},
  throwingProxy, throwingGetters,
  symbolFields: everyField(Symbol('field')), bigintFields: everyField(5n), numberFields: everyField(42), stringFields: everyField('s'),
  objectFields: everyField({}), nullFields: everyField(null), negativeFields: everyField(-1),
}
const shapes = (v) => [[v], [v, v], ['a', v], [{}, v], ['a', 'b', v], [scratch, v]]

const NAPI = /rust type|napi value|Failed to convert|Failed to get .* value/i
const NAPI_CODES = new Set(['InvalidArg', 'ObjectExpected', 'StringExpected', 'NameExpected', 'FunctionExpected', 'NumberExpected', 'BooleanExpected', 'ArrayExpected', 'GenericFailure', 'BigintExpected', 'DateExpected', 'ArrayBufferExpected', 'DetachableArraybufferExpected'])
// The reference throws plain Errors with these messages for bad limits; kept for drop-in use.
const REFERENCE_PLAIN = [/ must be a positive safe integer at most /, /^tempFilePrefix must match /, /^Unknown tool: /]

const modules = await Promise.all(ENTRIES.map(async (e) => [e, await import(e)]))
const errorClasses = modules.flatMap(([, m]) => Object.values(m)).filter((v) => typeof v === 'function' && v.prototype instanceof Error)

/** Why `error` is not acceptable, or undefined. */
function judge(error) {
  if (error === hostThrow) return undefined
  if (!(error instanceof Error)) return `threw a non-Error ${typeof error}`
  const text = `${error.name}: ${error.message}`
  if (NAPI.test(error.message) || NAPI_CODES.has(error.code)) return `Node-API conversion error: ${text} (code ${error.code})`
  if (error instanceof TypeError || error instanceof RangeError) return undefined
  if (errorClasses.some((C) => error instanceof C)) return undefined
  if (typeof error.code === 'string' && error.code.startsWith('ERR_PRISM_')) return undefined
  // A file-system error of a path argument (ENOENT, ...), as the reference gives it.
  if (typeof error.code === 'string' && /^E[A-Z]+$/.test(error.code) && typeof error.syscall === 'string') return undefined
  if (error.constructor === Error && REFERENCE_PLAIN.some((re) => re.test(error.message))) return undefined
  return `untyped error: ${text}`
}

const isClass = (f) => /^class\b/.test(Function.prototype.toString.call(f))
// Results that settle later are awaited; one that never settles is reported by the runner's
// per-test timeout, not by a clock here.
async function attempt(f, self, args, construct) {
  try {
    const r = construct ? new f(...args) : Reflect.apply(f, self, args)
    return { value: r && typeof r.then === 'function' ? await r : r }
  } catch (error) {
    return { error }
  }
}

function methodsOf(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return []
  const names = new Set()
  for (let o = value; o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
    for (const k of Object.getOwnPropertyNames(o)) {
      if (k === 'constructor') continue
      const d = Object.getOwnPropertyDescriptor(o, k)
      if (d && typeof d.value === 'function') names.add(k)
    }
  }
  return [...names]
}

// Arguments that build a usable object from a factory, so its methods can be probed.
const GOOD = [[], [{}], [scratch], [scratch, {}], [{ roots: [scratch] }], [{ tools: [] }]]
// Methods whose valid use starts processes or servers are probed at the top level only.
const SKIP_METHODS = new Set(['close', 'exec'])
// Exports that return an object of another package (createMcpCapabilityClient: the MCP SDK's
// `Client`), whose methods are that package's, not probed.
const FOREIGN_RESULTS = new Set(['createMcpCapabilityClient'])

/** Calls each method of `value` with every bad value in every shape; pushes what is wrong. */
async function probeMethods(value, label, seen, problems) {
  for (const method of methodsOf(value)) {
    if (seen.has(method) || SKIP_METHODS.has(method)) continue
    seen.add(method)
    for (const [badLabel, v] of Object.entries(BAD)) {
      for (const args of shapes(v)) {
        const { error } = await attempt(value[method], value, args, false)
        if (error !== undefined) {
          const why = judge(error)
          if (why) problems.push(`${label}.${method}(${badLabel} as arg ${args.length}): ${why}`)
        }
      }
    }
  }
}

let exportsProbed = 0
for (const [entry, mod] of modules) {
  for (const [name, f] of Object.entries(mod)) {
    if (name === 'default' || (typeof f !== 'function' && (f === null || typeof f !== 'object'))) continue
    if (typeof f === 'function' && f.prototype instanceof Error) continue
    exportsProbed++
    test(`${entry} ${name}: wrong-typed arguments give typed errors`, { timeout: 120_000 }, async () => {
      const problems = []
      const seen = new Set()
      if (typeof f === 'function') {
        const construct = isClass(f)
        for (const [label, v] of Object.entries(BAD)) {
          for (const args of shapes(v)) {
            const { error } = await attempt(f, undefined, args, construct)
            if (error !== undefined) {
              const why = judge(error)
              if (why) problems.push(`${name}(${label} as arg ${args.length}): ${why}`)
            }
          }
        }
        for (const args of FOREIGN_RESULTS.has(name) ? [] : GOOD) {
          const { value } = await attempt(f, undefined, args, construct)
          await probeMethods(value, `${name}(…)`, seen, problems)
        }
      } else {
        await probeMethods(f, name, seen, problems)
      }
      const unique = [...new Set(problems)]
      assert.deepEqual(unique, [], unique.slice(0, 40).join('\n'))
    })
  }
}

test('every entry point was enumerated', () => {
  assert.equal(modules.length, ENTRIES.length)
  assert.ok(exportsProbed >= 50, `only ${exportsProbed} exports probed`)
})

// A tool built from hostile constructor arguments (a `cwd` that is no path, options whose every
// field has the wrong type) either throws at construction in our words, or its `execute`
// answers in our words: a thrown error the judge accepts, or an error result whose message is
// not Node-API's. String cwds are valid paths, so they are left out (a relative one would write
// into the test's own directory).
const TOOL_CALLS = {
  createReadTool: { path: 'f.txt' },
  createWriteTool: { path: 'f.txt', content: 'x' },
  createEditTool: { path: 'f.txt', edits: [{ oldText: 'x', newText: 'y' }] },
  createShellTool: { command: 'true' },
}
test('each coding tool built from hostile constructor arguments executes or refuses in our words', { timeout: 120_000 }, async () => {
  const agent = await import('prism-native/coding-tools/agent')
  const problems = []
  let executed = 0
  for (const [factory, args] of Object.entries(TOOL_CALLS)) {
    for (const [label, v] of Object.entries(BAD)) {
      const ctorArgs = typeof v === 'string' ? [[scratch, v]] : [[v], [v, {}], [scratch, v]]
      for (const ctor of ctorArgs) {
        const built = await attempt(agent[factory], undefined, ctor, false)
        const where = `${factory}(${label} as arg ${ctor.indexOf(v) + 1})`
        if (built.error !== undefined) {
          const why = judge(built.error)
          if (why) problems.push(`${where}: ${why}`)
          continue
        }
        const tool = built.value
        const run = await attempt(tool.execute, tool, [args, { toolCallId: 'c1' }], false)
        executed++
        if (run.error !== undefined) {
          const why = judge(run.error)
          if (why) problems.push(`${where}.execute: ${why}`)
        } else if (NAPI.test(run.value?.error?.message ?? '')) {
          problems.push(`${where}.execute: Node-API conversion error in the result: ${run.value.error.message}`)
        }
      }
    }
  }
  assert.deepEqual(problems, [], problems.slice(0, 40).join('\n'))
  assert.ok(executed > 50, `only ${executed} tools built and executed`)
})

test('createShellTool refuses a cwd that is not a string at construction, naming its type', async () => {
  const { createShellTool } = await import('prism-native/coding-tools/agent')
  for (const [cwd, type] of [[{ cwd: scratch }, 'object'], [1, 'number'], [null, 'null'], [[scratch], 'array'], [Symbol('s'), 'symbol'], [undefined, 'undefined']]) {
    assert.throws(() => createShellTool(cwd), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: `createShellTool: cwd must be a string (got ${type})` })
  }
  assert.equal(createShellTool(scratch).name, 'shell')
})

test('the binding names the argument a wrong type came in', async () => {
  const { formatSize } = await import('prism-native/coding-tools/agent')
  const { summarizeMcpContent, mapMcpContentToBlocks, McpBridgeError, MCP_LIMITS } = await import('prism-native/mcp')
  const { dispatchToolCallsInOrder } = await import('prism-native')
  assert.throws(() => formatSize('12'), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: 'bytes must be a number (got string)' })
  assert.throws(() => formatSize(undefined), { name: 'TypeError', message: 'bytes must be a number (got undefined)' })
  assert.equal(formatSize(2048), '2.0KB')
  // In floating point, as the reference computes it: never a saturated integer.
  const reference = (b) => (b < 1024 ? `${b}B` : b < 1048576 ? `${(b / 1024).toFixed(1)}KB` : `${(b / 1048576).toFixed(1)}MB`)
  for (const b of [2 ** 70, 2 ** 64, 1e30, 1280, 1792, 1.5, -1, -0, NaN, Infinity, -Infinity, Number.MAX_VALUE, 5e-324]) {
    assert.equal(formatSize(b), reference(b), String(b))
  }
  assert.equal(formatSize(2 ** 70), '1125899906842624.0MB')
  assert.throws(() => summarizeMcpContent([], 10n), { name: 'TypeError', message: 'maxBytes must be a number (got bigint)' })
  assert.equal(summarizeMcpContent([{ type: 'text', text: 'hi' }]), 'hi')
  // maxResultBytes is a limit: a bad value gets the limit's McpBridgeError, as the reference;
  // options that are no object, or that lack maxResultBytes, are a TypeError naming it.
  const hard = MCP_LIMITS.maxResultBytes.hard
  for (const options of [{}, { maxResultBytes: undefined }]) {
    assert.throws(() => mapMcpContentToBlocks([], options), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: `mapMcpContentToBlocks: options.maxResultBytes is required (a positive safe integer <= ${hard})` })
  }
  for (const [options, type] of [[undefined, 'undefined'], [null, 'null'], [7, 'number']]) {
    assert.throws(() => mapMcpContentToBlocks([], options), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: `mapMcpContentToBlocks: options must be an object with maxResultBytes (got ${type})` })
  }
  for (const bad of ['x', 0, 1.5, hard + 1, Symbol('x')]) {
    assert.throws(() => mapMcpContentToBlocks([], { maxResultBytes: bad }), (e) => e instanceof McpBridgeError && e.code === 'ERR_PRISM_MCP_INVALID_LIMIT' && /^maxResultBytes must be a positive safe integer/.test(e.message), String(bad))
  }
  assert.deepEqual(mapMcpContentToBlocks([], { maxResultBytes: hard }), { content: [], truncated: false, bytesUsed: 0 })
  await assert.rejects(dispatchToolCallsInOrder(undefined, {}), { name: 'TypeError', message: 'dispatchToolCallsInOrder: calls must be an array of tool calls' })
})

test('MCP transport options of the wrong type are TypeErrors naming the field; a host getter throw passes through', async () => {
  const { connectMcpTools } = await import('prism-native/mcp')
  const cases = [
    [{ type: 'stdio', command: 1 }, 'connectMcpTools: command: expected a string, got number'],
    [{ type: 'stdio', command: 'x', args: ['ok', 2n] }, 'connectMcpTools: args: expected a string, got bigint'],
    [{ type: 'stdio', command: 'x', env: { A: true } }, 'connectMcpTools: env: expected a string, got boolean'],
    [{ type: 'streamable-http', url: {} }, 'connectMcpTools: url: expected a string, got object'],
  ]
  for (const [transport, message] of cases) {
    await assert.rejects(connectMcpTools({ serverId: 's', transport }), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message })
    // createMcpTransport checks the same fields in the same words (read field by field by the
    // binding, never by parsing a conversion message).
    const { createMcpTransport } = await import('prism-native/mcp')
    assert.throws(() => createMcpTransport(transport), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: message.replace('connectMcpTools', 'createMcpTransport') })
  }
  const transport = new Proxy({ type: 'stdio' }, { get: (t, k) => { if (k === 'command') throw hostThrow; return t[k] } })
  await assert.rejects(connectMcpTools({ serverId: 's', transport }), (e) => e === hostThrow)
})

test('tool filters of the wrong type are TypeErrors naming the field, read field by field', async () => {
  const { filterTools } = await import('prism-native')
  const tools = [{ name: 'a' }, { name: 'b' }]
  const cases = [
    [{ allow: 'a' }, 'filterTools: allow: expected an array, got string'],
    [{ allow: [1] }, 'filterTools: allow: expected a string, got number'],
    [[5], 'filterTools: expected an object, got number'],
    [{ deny: [null] }, 'filterTools: deny: expected a string, got null'],
  ]
  for (const [filter, message] of cases) {
    assert.throws(() => filterTools(tools, filter), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message })
  }
  assert.deepEqual(filterTools(tools, [null, undefined, { deny: ['a'] }]).map((t) => t.name), ['b'])
  const hostile = new Proxy({}, { get: () => { throw hostThrow } })
  assert.throws(() => filterTools(tools, hostile), (e) => e === hostThrow)
})
