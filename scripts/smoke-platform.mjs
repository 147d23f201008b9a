// A smoke test of one built binary under one JavaScript runtime: run by node, bun or deno
// (`deno run -A`) on the platform the binary was built for (the cross-checks run the arm64
// Linux binary this way under emulation; scripts/ci-runtimes.sh runs it under Bun and Deno).
// It imports every entry point of the package by its name, the way a user's import does
// (`prism-native` and each subpath of package.json "exports"), and exercises each native part
// once: a dispatch with JSON Schema validation (one call passes, one is refused), a parallel
// turn appended in call order, the shell policy's verdicts, the shell tool under the approval
// policy, the read, write and edit tools under that policy, the tool-conformance helpers and
// an MCP call over stdio. Prints one line per check; exits non-zero, naming the check, on any
// difference.
//
// The MCP call goes to PRISM_SMOKE_MCP_URL over Streamable HTTP when it is set (under
// emulation: qemu-user cannot start a stdio server, it refuses the child-subreaper prctl the
// server's process tree needs; scripts/smoke-emulated.mjs serves one from the host), else to
// the fixture server over stdio, started by this runtime's own executable.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createToolRegistry, dispatchToolCall, dispatchToolCallsInOrder } from 'prism-native'
import { createJsonSchemaToolArgumentValidator } from 'prism-native/validation/json-schema'
import { connectMcpTools } from 'prism-native/mcp'
import { createEditTool, createReadTool, createShellTool, createWriteTool } from 'prism-native/coding-tools/agent'
import { createCodingApprovalPolicy, evaluateCommandRules, explainCommand } from 'prism-native/coding-tools/security'
import { assertToolBlocked, assertToolDispatchConforms } from 'prism-native/testing/tool-conformance'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'))

const runtime = globalThis.Bun
  ? `bun ${globalThis.Bun.version}`
  : globalThis.Deno
    ? `deno ${globalThis.Deno.version.deno}`
    : `node ${process.versions.node}`

const ctx = { sessionId: 'smoke', runId: 'run', toolCallId: 'c' }
const part = async (name, fn) => {
  try {
    await fn()
    console.log(`ok   ${name}`)
  } catch (e) {
    console.error(`FAIL ${name}: ${e?.stack ?? e}`)
    process.exitCode = 1
  }
}

console.log(`${process.platform}-${process.arch}, ${runtime}`)

await part('every entry point of package.json "exports" loads', async () => {
  const subpaths = Object.keys(pkg.exports).filter((k) => k !== './package.json')
  assert.ok(subpaths.length >= 6, `exports: ${subpaths.join(', ')}`)
  for (const sub of subpaths) {
    const name = sub === '.' ? pkg.name : `${pkg.name}/${sub.slice(2)}`
    const mod = await import(name)
    const fns = Object.values(mod).filter((v) => typeof v === 'function')
    assert.ok(fns.length > 0, `${name} exports no function`)
  }
})

const add = {
  name: 'add',
  parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: (args, c) => ({ toolCallId: c.toolCallId, name: 'add', content: [{ type: 'text', text: String(args.a + args.b) }] }),
}

await part('dispatch with JSON Schema validation', async () => {
  const registry = createToolRegistry([add])
  const validate = createJsonSchemaToolArgumentValidator()
  const call = (args) => dispatchToolCall({ call: { type: 'tool_call', id: 'c', name: 'add', arguments: args }, registry, context: ctx, validate })
  const good = await call({ a: 20, b: 22 })
  assert.equal(good.content?.[0]?.text, '42')
  const bad = await call({ a: 'x', b: 1 })
  assert.match(bad.error?.message ?? '', /must be number/)
})

await part('parallel turn: dispatchToolCallsInOrder appends in call order', async () => {
  const calls = Array.from({ length: 8 }, (_, i) => ({ type: 'tool_call', id: `t${i}`, name: 'slow', arguments: { i } }))
  let inFlight = 0
  let peak = 0
  const history = []
  const appended = []
  await dispatchToolCallsInOrder(calls, {
    sessionId: 'smoke',
    runId: 'run',
    metadata: {},
    signal: new AbortController().signal,
    history,
    input: 'go',
    inputMessages: [],
    maxToolRounds: 1,
    toolConcurrency: 3,
    assemble: async () => ({}),
    generate: async () => ({}),
    // Later calls finish sooner, so completion order differs from call order.
    dispatchToolCall: async (call) => {
      peak = Math.max(peak, ++inFlight)
      await new Promise((r) => setTimeout(r, 2 + 3 * (8 - call.arguments.i)))
      inFlight--
      return { toolCallId: call.id, name: call.name, value: call.arguments.i }
    },
    appendMessage: async (m) => void appended.push(m),
    emit: () => {},
  })
  assert.equal(peak, 3)
  assert.deepEqual(history.map((m) => m.content[0].toolCallId), calls.map((c) => c.id))
  assert.deepEqual(appended, history)
})

await part('shell policy: explainCommand and evaluateCommandRules', async () => {
  const rules = [{ pattern: 'git status', action: 'allow' }]
  const ex = explainCommand('git status && rm -rf /', { rules })
  assert.equal(ex.action, 'deny')
  assert.deepEqual(ex.parts.map((p) => [p.argv[0], p.verdict]), [['git', 'allow'], ['rm', 'deny']])
  assert.equal(ex.parts[1].defaultDeny, 'rm-recursive-wide')
  assert.equal(evaluateCommandRules('git status', rules).action, 'allow')
  assert.equal(evaluateCommandRules('ls | wc -l', rules).action, 'requireApproval')
})

await part('tool conformance helpers', async () => {
  await assertToolDispatchConforms(createToolRegistry(), { tool: add, validArgs: { a: 1, b: 2 } })
  const registry = createToolRegistry([add])
  await assertToolBlocked({ call: { type: 'tool_call', id: 'x', name: 'nope', arguments: {} }, registry }, 'unknown_tool')
})

await part('coding tools under the approval policy: shell, write, edit, read', async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'prism-smoke-')))
  try {
    // The policy resolves a missing name by its parent's realpath: the parent exists.
    fs.mkdirSync(path.join(dir, 'sub'))
    const asked = []
    const executionPolicy = createCodingApprovalPolicy({
      roots: [dir],
      approve: (req) => {
        asked.push(req.action?.command ?? req.action?.kind)
        return true
      },
    })
    const shell = createShellTool(dir, { timeout: 20, executionPolicy })
    const ran = await shell.execute({ command: 'echo shell-ok' }, ctx)
    assert.equal(ran.error, undefined, ran.content?.[0]?.text)
    assert.match(ran.content[0].text, /shell-ok/)
    const denied = await shell.execute({ command: 'rm -rf /' }, ctx)
    assert.ok(denied.error, 'rm -rf / ran')

    const write = await createWriteTool(dir, { executionPolicy }).execute({ path: 'sub/a.txt', content: 'one\ntwo\n' }, ctx)
    assert.equal(write.error, undefined, write.error?.message)
    const edit = await createEditTool(dir, { executionPolicy }).execute({ path: 'sub/a.txt', edits: [{ oldText: 'two', newText: 'three' }], force: true }, ctx)
    assert.equal(edit.error, undefined, edit.error?.message)
    assert.equal(fs.readFileSync(path.join(dir, 'sub', 'a.txt'), 'utf8'), 'one\nthree\n')
    const read = await createReadTool(dir, { executionPolicy }).execute({ path: 'sub/a.txt' }, ctx)
    assert.equal(read.error, undefined, read.error?.message)
    assert.match(read.content[0].text, /three/)
    const outside = await createWriteTool(dir, { executionPolicy }).execute({ path: path.join(os.tmpdir(), 'prism-smoke-outside.txt'), content: 'x' }, ctx)
    assert.match(outside.error?.message ?? '', /outside trusted roots/)
    assert.ok(asked.length >= 3, `approvals asked: ${asked.length}`)

    const decision = await executionPolicy.check({ kind: 'write', operation: 'write', paths: [path.join(dir, 'sub', 'b.txt')] })
    assert.deepEqual(decision.writeBeneath, { root: dir, path: path.join(dir, 'sub', 'b.txt') })
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

const mcpUrl = process.env.PRISM_SMOKE_MCP_URL
await part(`MCP call over ${mcpUrl ? 'Streamable HTTP' : 'stdio'}`, async () => {
  const server = path.join(root, '__test__', 'fixtures', 'mcp-misbehaving-server.js')
  // Deno runs a script through `deno run`; node and bun take the script itself.
  const args = globalThis.Deno ? ['run', '-A', server] : [server]
  const transport = mcpUrl
    ? { type: 'streamable-http', url: mcpUrl, allowedOrigins: [new URL(mcpUrl).origin], allowLoopbackHttp: true }
    : { type: 'stdio', command: process.execPath, args, stderr: 'ignore' }
  const bridge = await connectMcpTools({ serverId: 'smoke', transport, callTimeoutMs: 20_000 })
  try {
    const echo = bridge.tools.find((t) => t.name === 'mcp:smoke:echo')
    assert.ok(echo, `no echo tool among ${bridge.tools.map((t) => t.name).join(', ')}`)
    const r = await echo.execute({ message: 'hello' }, ctx)
    assert.equal(r.error, undefined, r.error?.message)
    assert.match(JSON.stringify(r.content), /hello/)
  } finally {
    await bridge.close()
  }
})
