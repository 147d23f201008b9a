// A smoke test of one built binary, run by the node of the platform it was built for (the
// cross-checks run the arm64 Linux binary this way under emulation). It loads the package the
// way a user's import does and exercises each native part once: a dispatch with JSON Schema
// validation (one call passes, one is refused), an MCP call over stdio, a read and a shell
// command. Exits non-zero, naming the part, on any difference.
//
// The MCP call goes to PRISM_SMOKE_MCP_URL over Streamable HTTP when it is set (under
// emulation: qemu-user cannot start a stdio server, it refuses the child-subreaper prctl the
// server's process tree needs; scripts/smoke-emulated.mjs serves one from the host), else to
// the fixture server over stdio.
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createToolRegistry, dispatchToolCall } from '../index.mjs'
import { createJsonSchemaToolArgumentValidator } from '../lib/validation/json-schema.mjs'
import { connectMcpTools } from '../lib/mcp/index.mjs'
import { createReadTool, createShellTool } from '../lib/coding-tools/agent.mjs'

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')

const ctx = { sessionId: 'smoke', runId: 'run', toolCallId: 'c' }
const part = async (name, fn) => {
  try {
    await fn()
    console.log(`ok   ${name}`)
  } catch (e) {
    console.error(`FAIL ${name}: ${e.stack ?? e}`)
    process.exitCode = 1
  }
}

console.log(`${process.platform}-${process.arch}, node ${process.versions.node}`)

await part('dispatch with JSON Schema validation', async () => {
  const registry = createToolRegistry([
    {
      name: 'add',
      parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      execute: (args, c) => ({ toolCallId: c.toolCallId, name: 'add', content: [{ type: 'text', text: String(args.a + args.b) }] }),
    },
  ])
  const validate = createJsonSchemaToolArgumentValidator()
  const call = (args) => dispatchToolCall({ call: { type: 'tool_call', id: 'c', name: 'add', arguments: args }, registry, context: ctx, validate })
  const good = await call({ a: 20, b: 22 })
  assert.equal(good.content?.[0]?.text, '42')
  const bad = await call({ a: 'x', b: 1 })
  assert.match(bad.error?.message ?? '', /must be number/)
})

const mcpUrl = process.env.PRISM_SMOKE_MCP_URL
await part(`MCP call over ${mcpUrl ? 'Streamable HTTP' : 'stdio'}`, async () => {
  const server = path.join(root, '__test__', 'fixtures', 'mcp-misbehaving-server.js')
  const transport = mcpUrl
    ? { type: 'streamable-http', url: mcpUrl, allowedOrigins: [new URL(mcpUrl).origin], allowLoopbackHttp: true }
    : { type: 'stdio', command: process.execPath, args: [server], stderr: 'ignore' }
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

await part('read and shell', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-smoke-'))
  try {
    fs.writeFileSync(path.join(dir, 'a.txt'), 'one\ntwo\n')
    const read = await createReadTool(dir).execute({ path: 'a.txt' }, ctx)
    assert.match(read.content[0].text, /two/)
    const shell = await createShellTool(dir, { timeout: 20 }).execute({ command: 'echo shell-ok' }, ctx)
    assert.equal(shell.error, undefined, shell.content?.[0]?.text)
    assert.match(shell.content[0].text, /shell-ok/)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})
