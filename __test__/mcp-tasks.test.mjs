// Tools called as tasks (the 2025-11-25 revision's tasks): a tool whose listing requires a
// task is called with params.task, polled with tasks/get and its result fetched with
// tasks/result; abort and timeout send tasks/cancel. Against server-everything's
// simulate-research-query (stdio and Streamable HTTP), compared with what the official SDK
// client gets, and against the misbehaving fixture's task mode for the hostile cases.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectMcpTools } from '../lib/mcp/index.mjs'
import { EVERYTHING_MAIN, everythingStdio, misbehaving, startEverythingHttp, waitGone } from './fixtures/mcp-helpers.mjs'
import { underWine, WINE_NO_LOOPBACK_FETCH } from './fixtures/platform.mjs'

const ctx = (toolCallId = 'c1', extra = {}) => ({ sessionId: 's', runId: 'r', toolCallId, ...extra })
const RESEARCH = 'simulate-research-query'
const ARGS = { topic: 'tide pools' }

/** What the official SDK client's task helper gets for the research call. */
async function sdkResearch(transport) {
  const client = new Client({ name: 'sdk-reference', version: '1.0.0' })
  await client.connect(transport)
  try {
    await client.listTools()
    const seen = []
    let result
    for await (const m of client.experimental.tasks.callToolStream({ name: RESEARCH, arguments: ARGS })) {
      seen.push(m.type)
      if (m.type === 'error') throw m.error
      if (m.type === 'result') result = m.result
    }
    assert.ok(seen.includes('taskCreated'), `the SDK made a task: ${seen}`)
    return result
  } finally {
    await client.close()
  }
}

async function bridgeResearch(bridge, serverId) {
  const research = bridge.tools.find((t) => t.name === `mcp:${serverId}:${RESEARCH}`)
  assert.ok(research, 'listed')
  const r = await research.execute(ARGS, ctx('r1'))
  assert.equal(r.error, undefined, JSON.stringify(r.error))
  return r
}

test('stdio: server-everything research query is called as a task, as the SDK client gets it', async () => {
  const bridge = await connectMcpTools({ serverId: 'ev', transport: everythingStdio() })
  try {
    assert.equal(bridge.protocolVersion ?? '2025-11-25', '2025-11-25')
    const r = await bridgeResearch(bridge, 'ev')
    const sdk = await sdkResearch(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_MAIN, 'stdio'], stderr: 'ignore' }))
    assert.deepEqual(r.content, sdk.content)
    assert.match(r.content[0].text, /# Research Report: tide pools/)
    // A plain tool still works on the same session afterwards.
    const echo = await bridge.tools.find((t) => t.name === 'mcp:ev:echo').execute({ message: 'after' }, ctx())
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: after' }])
  } finally {
    await bridge.close()
  }
  assert.deepEqual(await waitGone([bridge.serverPid]), [])
})

test('stdio: aborting a research task fails the call as aborted, and the session stays usable', async () => {
  const bridge = await connectMcpTools({ serverId: 'ev', transport: everythingStdio() })
  try {
    const research = bridge.tools.find((t) => t.name === `mcp:ev:${RESEARCH}`)
    const controller = new AbortController()
    const pending = research.execute(ARGS, ctx('a1', { signal: controller.signal }))
    setTimeout(() => controller.abort(), 1200)
    const r = await pending
    assert.equal(r.error.message, 'MCP tool call was aborted')
    const echo = await bridge.tools.find((t) => t.name === 'mcp:ev:echo').execute({ message: 'after' }, ctx())
    assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: after' }])
  } finally {
    await bridge.close()
  }
})

// The SDK client's side of the comparison goes through Node's own fetch.
test('Streamable HTTP: server-everything research query is called as a task, as the SDK client gets it', { skip: underWine(WINE_NO_LOOPBACK_FETCH) }, async () => {
  const server = await startEverythingHttp()
  try {
    const bridge = await connectMcpTools({
      serverId: 'evh',
      transport: { type: 'streamable-http', url: server.url, allowedOrigins: [server.origin], allowLoopbackHttp: true },
    })
    try {
      const r = await bridgeResearch(bridge, 'evh')
      const sdk = await sdkResearch(new StreamableHTTPClientTransport(new URL(server.url)))
      assert.deepEqual(r.content, sdk.content)
      const controller = new AbortController()
      const pending = bridge.tools.find((t) => t.name === `mcp:evh:${RESEARCH}`).execute(ARGS, ctx('a1', { signal: controller.signal }))
      setTimeout(() => controller.abort(), 1200)
      assert.equal((await pending).error.message, 'MCP tool call was aborted')
    } finally {
      await bridge.close()
    }
  } finally {
    await server.stop()
  }
})

async function withTasks(options, fn) {
  const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving('tasks'), ...options })
  try {
    return await fn((n) => bridge.tools.find((t) => t.name === `mcp:bad:${n}`))
  } finally {
    await bridge.close()
    assert.deepEqual(await waitGone([bridge.serverPid]), [])
  }
}

test('fixture: a task is polled to its result; the ttl asked is maxTotalTimeoutMs; optional support is a plain call', async () => {
  await withTasks({ maxTotalTimeoutMs: 120_000 }, async (tool) => {
    const ok = await tool('task-ok').execute({ message: 'hi' }, ctx('t1'))
    assert.deepEqual(ok.content, [{ type: 'text', text: 'task done: hi' }])
    const optional = await tool('task-optional').execute({}, ctx())
    assert.deepEqual(optional.content, [{ type: 'text', text: 'called plainly' }])
    const stats = await tool('stats').execute({}, ctx())
    assert.equal(stats.value.taskTtl, 120_000)
    assert.deepEqual(stats.value.taskCancels, [])
  })
})

test('fixture: malformed, failed, cancelled and input_required tasks are errors naming why', async () => {
  await withTasks({}, async (tool) => {
    const malformed = await tool('task-malformed').execute({}, ctx())
    assert.equal(malformed.error.message, 'MCP server sent an invalid response: its CreateTaskResult task has no string taskId')
    const failed = await tool('task-failed').execute({}, ctx())
    assert.equal(failed.error.message, 'MCP tool call task failed: the disk is full')
    const cancelled = await tool('task-cancelled').execute({}, ctx())
    assert.equal(cancelled.error.message, 'MCP tool call task was cancelled by the server: shut down')
    const input = await tool('task-input').execute({}, ctx())
    assert.match(input.error.message, /^MCP tool call task needs input \(status input_required\).*: which one\?$/)
    const stats = await tool('stats').execute({}, ctx())
    // Only the task that was still alive (waiting for input) was cancelled.
    assert.equal(stats.value.taskCancels.length, 1)
  })
})

test('fixture: a task that never ends times out as a plain call does, and is cancelled', async () => {
  await withTasks({ callTimeoutMs: 600 }, async (tool) => {
    const r = await tool('task-never').execute({}, ctx('n1'))
    assert.equal(r.error.message, 'MCP tool call timed out after 600ms')
    const stats = await tool('stats').execute({}, ctx())
    assert.equal(stats.value.taskCancels.length, 1)
  })
})

test('fixture: an abort cancels the task on the server', async () => {
  await withTasks({}, async (tool) => {
    const controller = new AbortController()
    const pending = tool('task-never').execute({}, ctx('a1', { signal: controller.signal }))
    setTimeout(() => controller.abort(), 300)
    assert.equal((await pending).error.message, 'MCP tool call was aborted')
    const stats = await tool('stats').execute({}, ctx())
    assert.equal(stats.value.taskCancels.length, 1)
  })
})
