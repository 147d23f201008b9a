// The bridge against a server that misbehaves on purpose: nothing may hang, flood the host,
// or survive close().
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import v8 from 'node:v8'
import { connectMcpTools, McpBridgeClosedError, McpToolNameCollisionError } from '../lib/mcp/index.mjs'
import { createToolRegistry, dispatchToolCall } from '../index.js'
import { collectUntil, groupAlive, isAlive, misbehaving, waitGone } from './fixtures/mcp-helpers.mjs'
import { setsidEscapes } from './fixtures/platform.mjs'

const ctx = (toolCallId = 'c1', extra = {}) => ({ sessionId: 's', runId: 'r', toolCallId, ...extra })

async function withBridge(options, fn, mode = 'normal') {
  const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving(mode), ...options })
  try {
    return await fn(bridge, (n) => bridge.tools.find((t) => t.name === `mcp:bad:${n}`))
  } finally {
    await bridge.close()
    assert.deepEqual(await waitGone([bridge.serverPid]), [])
  }
}

test('a hanging call times out as an error result, is cancelled on the server, and the bridge stays usable', async () => {
  await withBridge({ callTimeoutMs: 1500 }, async (bridge, tool) => {
    const r = await tool('hang').execute({}, ctx('h1'))
    assert.deepEqual(r, {
      toolCallId: 'h1',
      name: 'mcp:bad:hang',
      error: { name: 'McpToolError', message: 'MCP tool call timed out after 1500ms', code: 'ERR_PRISM_MCP_TOOL' },
      metadata: { mcp: { serverId: 'bad', remoteName: 'hang' } },
    })
    const echo = await tool('echo').execute({ message: 'still here' }, ctx())
    assert.deepEqual(echo.content, [{ type: 'text', text: 'echo: still here' }])
    const stats = await tool('stats').execute({}, ctx())
    assert.equal(stats.value.cancelled.length, 1, 'the server saw notifications/cancelled')
  })
})

test('context.signal aborts a call (also when already aborted) and cancels it on the server', async () => {
  await withBridge({}, async (bridge, tool) => {
    const controller = new AbortController()
    const pending = tool('hang').execute({}, ctx('a1', { signal: controller.signal }))
    setTimeout(() => controller.abort(), 50)
    const r = await pending
    assert.equal(r.error.message, 'MCP tool call was aborted')
    const pre = await tool('hang').execute({}, ctx('a2', { signal: AbortSignal.abort() }))
    assert.equal(pre.error.message, 'MCP tool call was aborted')
    const stats = await tool('stats').execute({}, ctx())
    assert.equal(stats.value.cancelled.length, 1)
  })
})

test('an oversized result is an error result at the edge, and the bridge stays usable', async () => {
  // the raw result is {"content":[{"type":"text","text":"<n x>"}]}: 39 + n bytes
  await withBridge({ maxResultBytes: 1000 }, async (bridge, tool) => {
    const big = await tool('big').execute({ bytes: 5000 }, ctx())
    assert.equal(big.error.message, 'MCP tool big result exceeds 1000 bytes')
    assert.equal(big.content, undefined)
    const fits = await tool('big').execute({ bytes: 1000 - 39 }, ctx())
    assert.equal(fits.error, undefined)
    const over = await tool('big').execute({ bytes: 1000 - 38 }, ctx())
    assert.equal(over.error?.message, 'MCP tool big result exceeds 1000 bytes')
    assert.equal((await tool('echo').execute({ message: 'ok' }, ctx())).error, undefined)
  })
})

test('deep nesting is refused at maxJsonDepth', async () => {
  await withBridge({ maxJsonDepth: 10 }, async (bridge, tool) => {
    // root (1) -> structuredContent (2) -> v (3) -> 7 arrays -> 0 at depth 10
    assert.equal((await tool('deep').execute({ depth: 7 }, ctx())).error, undefined)
    const deep = await tool('deep').execute({ depth: 8 }, ctx())
    assert.equal(deep.error.message, 'MCP tool deep result exceeds depth 10')
  })
  await withBridge({}, async (bridge, tool) => {
    const r = await tool('deep').execute({ depth: 100 }, ctx())
    assert.equal(r.error.message, 'MCP tool deep result exceeds depth 64')
  })
})

test('frames that break a transport bound fail their call at once, and the bridge stays usable', async () => {
  // callTimeoutMs is far beyond the test's own timeout: an answer that waits for it fails the test.
  await withBridge({ callTimeoutMs: 30 * 60 * 1000 }, async (bridge, tool) => {
    const expect = async (name, message) => {
      const r = await tool(name).execute({}, ctx(name))
      assert.deepEqual(r.error, { name: 'McpToolError', message, code: 'ERR_PRISM_MCP_TOOL' }, name)
      assert.deepEqual((await tool('echo').execute({ message: 'after' }, ctx())).content, [{ type: 'text', text: 'echo: after' }])
    }
    await expect('huge-line', 'MCP message exceeds 16777216 bytes')
    await expect('huge-line-id-last', 'MCP message exceeds 16777216 bytes')
    await expect('too-deep', 'MCP tool too-deep result exceeds depth 64')
    await expect('deep-error', 'MCP tool deep-error result exceeds depth 64')
    await expect('string-result', 'MCP server sent an invalid response: its result is not an object')
    await expect('array-result', 'MCP server sent an invalid response: its result is not an object')
  }, 'hostile')
})

test('an oversized frame whose id cannot be read fails every waiting call', async () => {
  await withBridge({ callTimeoutMs: 30 * 60 * 1000 }, async (bridge, tool) => {
    const waiting = tool('hang').execute({}, ctx('w1'))
    const r = await tool('huge-line-no-id').execute({}, ctx('n1'))
    assert.equal(r.error.message, 'MCP message exceeds 16777216 bytes')
    assert.equal((await waiting).error.message, 'MCP message exceeds 16777216 bytes')
    assert.equal((await tool('echo').execute({ message: 'ok' }, ctx())).error, undefined)
  }, 'hostile')
})

test('bounds during connect: a 20 MB initialize answer and an over-deep schema fail connect at once', async () => {
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving('huge-init'), callTimeoutMs: 30 * 60 * 1000 }), {
    code: 'ERR_PRISM_MCP_CONNECT',
    message: 'MCP connect failed: MCP message exceeds 16777216 bytes',
  })
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving('deep-schema'), callTimeoutMs: 30 * 60 * 1000 }), {
    code: 'ERR_PRISM_MCP_JSON_BOUND',
    message: 'MCP message nests deeper than 129 levels',
  })
})

test('tool names with control or bidirectional characters are refused', async () => {
  for (const [name, at] of [['a\u0000b', 'U+0000 at byte 1'], ['a\nb', 'U+000A at byte 1'], ['ok\u202Etxt', 'U+202E at byte 2'], ['\u2066x', 'U+2066 at byte 0']]) {
    await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving('bad-name', { MCP_FIXTURE_TOOL_NAME: JSON.stringify(name) }) }), {
      code: 'ERR_PRISM_MCP_INVALID_PAGE',
      message: `MCP tools/list returned an invalid page: a tool name contains the control or bidirectional character ${at}`,
    })
  }
  const ok = await connectMcpTools({ serverId: 'bad', transport: misbehaving('bad-name', { MCP_FIXTURE_TOOL_NAME: JSON.stringify('caf\u00e9') }) })
  assert.deepEqual(ok.tools.map((t) => t.name), ['mcp:bad:caf\u00e9'])
  await ok.close()
})

test('garbage lines on stdout are skipped', async () => {
  await withBridge({}, async (bridge, tool) => {
    const r = await tool('garbage').execute({}, ctx())
    assert.deepEqual(r.content, [{ type: 'text', text: 'after garbage' }])
  })
})

test('isError and images map as the contract says', async () => {
  await withBridge({ maxResultBytes: 200 }, async (bridge, tool) => {
    const r = await tool('fail').execute({}, ctx('f1'))
    assert.deepEqual(r.error, { name: 'McpToolError', message: 'the tool failed', code: 'ERR_PRISM_MCP_TOOL' })
    assert.deepEqual(r.content, [{ type: 'text', text: 'the tool failed' }])
    assert.equal(r.metadata.mcp.truncated, false)
    const img = await tool('image').execute({}, ctx())
    assert.deepEqual(img.content, [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }, { type: 'text', text: 'img' }])
    assert.equal(img.metadata.mcp.bytesUsed, 8 + 3)
  })
})

test('a server that exits mid-call gives an error result, not a hang', async () => {
  const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving(), callTimeoutMs: 10_000 })
  // Ends with the transport's error, not at callTimeoutMs (that would say "timed out").
  const r = await bridge.tools.find((t) => t.name === 'mcp:bad:exit').execute({}, ctx())
  assert.equal(r.error.code, 'ERR_PRISM_MCP_TOOL')
  assert.match(r.error.message, /closed|transport/i)
  await bridge.close()
})

test('close() ends the whole process group, grandchildren included; it is idempotent', async () => {
  const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving() })
  const r = await bridge.tools.find((t) => t.name === 'mcp:bad:grandchild').execute({}, ctx())
  const grandchild = Number(r.content[0].text)
  const server = r.value.pid
  assert.equal(server, bridge.serverPid)
  assert.ok(isAlive(grandchild) && isAlive(server))
  const tool = bridge.tools[0]
  await Promise.all([bridge.close(), bridge.close()])
  await bridge.close()
  assert.deepEqual(await waitGone([server, grandchild]), [])
  assert.throws(() => bridge.tools, McpBridgeClosedError)
  await assert.rejects(async () => tool.execute({}, ctx()), McpBridgeClosedError)
  await assert.rejects(bridge.refresh(), McpBridgeClosedError)
})

/** How many objects named `name` a heap snapshot holds (taking one runs a full GC first). */
async function liveObjects(name) {
  const stream = v8.getHeapSnapshot()
  stream.setEncoding('utf8')
  let text = ''
  for await (const chunk of stream) text += chunk
  const { snapshot, nodes, strings } = JSON.parse(text)
  const fields = snapshot.meta.node_fields
  const [typeAt, nameAt] = [fields.indexOf('type'), fields.indexOf('name')]
  const objectType = snapshot.meta.node_types[typeAt].indexOf('object')
  let n = 0
  for (let i = 0; i < nodes.length; i += fields.length) {
    if (nodes[i + typeAt] === objectType && strings[nodes[i + nameAt]] === name) n++
  }
  return n
}

test('nothing of a closed bridge stays reachable: its native object is garbage collected', async () => {
  const cycle = async () => {
    const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving() })
    const r = await bridge.tools.find((t) => t.name === 'mcp:bad:echo').execute({ message: 'x' }, ctx())
    assert.equal(r.error, undefined)
    await bridge.close()
  }
  // The first bridge also instantiates the class itself (its prototype counts as one).
  await cycle()
  const before = await liveObjects('NativeMcpBridge')
  for (let i = 0; i < 3; i++) await cycle()
  // The list_changed callback the native side held kept every bridge alive, closed or not.
  // Its release reaches the JS thread a loop turn or so after close() resolved.
  let alive
  for (let i = 0; i < 100 && alive !== before; i++) {
    await new Promise((r) => setTimeout(r, 20))
    alive = await liveObjects('NativeMcpBridge')
  }
  assert.equal(alive, before)
})

test('a bridge dropped without close() ends its server, grandchildren and group once it is collected', async () => {
  let collected = false
  const registry = new FinalizationRegistry(() => (collected = true))
  // Everything that used to hold a bridge: a call (the keep-alive timer, the results callback),
  // a list_changed with a debounced auto-refresh (the notification callback, the timer).
  const { server, grandchild } = await (async () => {
    const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving(), autoRefresh: { debounceMs: 0 } })
    const tool = (n) => bridge.tools.find((t) => t.name === `mcp:bad:${n}`)
    const r = await tool('grandchild').execute({}, ctx())
    const before = bridge.tools
    await tool('change-list').execute({}, ctx())
    const end = Date.now() + 30_000 // a bound on the wait, not a speed claim
    while (bridge.tools === before && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
    assert.ok(bridge.tools.some((t) => t.name === 'mcp:bad:added'), 'auto-refreshed')
    registry.register(bridge, 'bridge')
    return { server: r.value.pid, grandchild: Number(r.content[0].text) }
  })()
  assert.ok(isAlive(server) && isAlive(grandchild) && (process.platform === 'win32' || groupAlive(server)))
  assert.ok(await collectUntil(() => collected), 'the bridge was collected')
  // Gone means reaped too: a zombie still answers kill(pid, 0).
  assert.ok(await collectUntil(() => !isAlive(server) && !isAlive(grandchild) && !groupAlive(server)), 'the server tree ended')
})

test('bridges dropped right after connect (never called) end their servers once collected', async () => {
  const pids = []
  for (let i = 0; i < 2; i++) {
    pids.push(await (async () => (await connectMcpTools({ serverId: 'bad', transport: misbehaving() })).serverPid)())
  }
  assert.ok(pids.every(isAlive))
  assert.ok(await collectUntil(() => pids.every((p) => !isAlive(p) && !groupAlive(p))), 'both servers ended')
})

test('close() also ends a grandchild that left the process group with setsid()', { skip: setsidEscapes() }, async () => {
  const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving('hostile') })
  const r = await bridge.tools.find((t) => t.name === 'mcp:bad:setsid-grandchild').execute({}, ctx())
  const grandchild = Number(r.content[0].text)
  assert.ok(grandchild > 0 && isAlive(grandchild))
  await bridge.close()
  assert.deepEqual(await waitGone([r.value.pid, grandchild]), [])
})

test('close() ends a setsid() grandchild of a server that exits at end of input: 50 cycles, no survivor', { skip: setsidEscapes() }, async () => {
  // The tree is recorded before stdin closes: once such a server has exited, its orphan
  // belongs to init and is no longer below it.
  const survivors = []
  for (let i = 0; i < 50; i++) {
    const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving('hostile', { MCP_FIXTURE_EXIT_AT_EOF: '1' }) })
    let grandchild = 0
    try {
      const r = await bridge.tools.find((t) => t.name === 'mcp:bad:setsid-grandchild').execute({}, ctx(`g${i}`))
      assert.ok(r.content !== undefined, `cycle ${i}: the call failed: ${JSON.stringify(r.error)}`)
      grandchild = Number(r.content[0].text)
      assert.ok(grandchild > 0, `cycle ${i}: the server reported its grandchild`)
    } finally {
      await bridge.close()
    }
    if (isAlive(grandchild)) survivors.push(grandchild)
  }
  // close() has returned for every cycle: whatever still runs now was missed, unless it is
  // only still dying (a bounded wait for that, not a speed claim).
  const left = await waitGone(survivors, 10_000)
  const described = left.map((pid) => {
    try {
      return readFileSync(`/proc/${pid}/stat`, 'utf8').trim()
    } catch {
      return String(pid)
    }
  })
  assert.deepEqual(described, [])
})

test('a failed connect ends the server and its grandchild (hang at initialize, crash at start)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'prism-mcp-'))
  try {
    const pidFile = join(dir, 'pids')
    await assert.rejects(
      connectMcpTools({ serverId: 'bad', transport: misbehaving('hang-init', { MCP_FIXTURE_PID_FILE: pidFile }), callTimeoutMs: 3000 }),
      { code: 'ERR_PRISM_MCP_CONNECT_TIMEOUT', message: 'MCP connect timed out after 3000ms' },
    )
    const pids = readFileSync(pidFile, 'utf8').split(' ').map(Number)
    assert.equal(pids.length, 2)
    assert.ok(pids.every((p) => Number.isInteger(p) && p > 0), 'the fixture wrote both pids')
    assert.deepEqual(await waitGone(pids), [])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: { ...misbehaving('crash-init'), stderr: 'pipe' } }), (err) => {
    assert.equal(err.code, 'ERR_PRISM_MCP_CONNECT')
    assert.match(err.message, /server stderr: fatal: the fixture crashed at initialize$/)
    return true
  })
})

test('aborting the signal during connect closes the bridge and rethrows the reason', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'prism-mcp-'))
  try {
    const pidFile = join(dir, 'pids')
    const controller = new AbortController()
    const reason = new Error('host gave up')
    const poll = setInterval(() => {
      if (existsSync(pidFile)) {
        clearInterval(poll)
        controller.abort(reason)
      }
    }, 20)
    await assert.rejects(
      connectMcpTools({ serverId: 'bad', transport: misbehaving('hang-init', { MCP_FIXTURE_PID_FILE: pidFile }), signal: controller.signal }),
      (err) => err === reason,
    )
    const pids = readFileSync(pidFile, 'utf8').split(' ').map(Number)
    assert.equal(pids.length, 2)
    assert.ok(pids.every((p) => Number.isInteger(p) && p > 0), 'the fixture wrote both pids')
    assert.deepEqual(await waitGone(pids), [])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('listing bounds: repeated cursor, endless pages, maxListPages at its edge, collisions, hanging list', async () => {
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving('repeat-cursor') }), {
    message: 'MCP tools/list repeated a pagination cursor',
  })
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving('endless-pages') }), {
    message: 'MCP tools/list exceeds 20 pages',
  })
  const three = await connectMcpTools({ serverId: 'bad', transport: misbehaving('three-pages'), maxListPages: 3 })
  assert.deepEqual(three.tools.map((t) => t.name), ['mcp:bad:p0', 'mcp:bad:p1', 'mcp:bad:p2'])
  await three.close()
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving('three-pages'), maxListPages: 2 }), {
    message: 'MCP tools/list exceeds 2 pages',
  })
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving('collide') }), (err) => {
    assert.ok(err instanceof McpToolNameCollisionError)
    assert.equal(err.message, 'MCP tool name collision: mcp:bad:same (remote tool same)')
    return true
  })
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving('hang-list'), callTimeoutMs: 1500 }), {
    message: 'MCP tool call timed out after 1500ms',
  })
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving(), maxTools: 12 }), {
    message: 'MCP tools/list exceeds 12 tools',
  })
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving(), maxToolDescriptionBytes: 10 }), {
    message: 'MCP tool echo description exceeds 10 bytes',
  })
})

test('definitions: prefix, custom namePrefix, parameters, default and custom effect', async () => {
  await withBridge({ namePrefix: 'x/', effect: ({ remoteName }) => (remoteName === 'echo' ? { kind: 'none', idempotency: 'none' } : undefined) }, async (bridge) => {
    const echo = bridge.tools.find((t) => t.name === 'x/echo')
    assert.deepEqual(echo.parameters, { type: 'object', properties: { message: { type: 'string' } } })
    assert.equal(echo.description, 'the echo tool')
    assert.deepEqual(echo.effect, { kind: 'none', idempotency: 'none' })
    assert.deepEqual(bridge.tools.find((t) => t.name === 'x/hang').effect, { kind: 'external_mutation', idempotency: 'unsupported' })
    assert.equal(echo.exclusive, undefined)
  })
  await assert.rejects(connectMcpTools({ serverId: 'bad', transport: misbehaving(), effect: () => ({ kind: 'nope' }) }), {
    name: 'McpBridgeError',
  })
})

test('list_changed invalidates the catalogue; autoRefresh refreshes it; refresh() is atomic and coalesced', async () => {
  await withBridge({ autoRefresh: { debounceMs: 10 } }, async (bridge, tool) => {
    const before = bridge.tools
    assert.equal(before.length, 13)
    await tool('change-list').execute({}, ctx())
    const end = Date.now() + 30_000 // a bound on the wait, not a speed claim
    while (bridge.tools === before && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
    assert.ok(bridge.tools.some((t) => t.name === 'mcp:bad:added'), 'auto-refreshed')
    const p1 = bridge.refresh()
    const p2 = bridge.refresh()
    assert.equal(p1, p2, 'concurrent refreshes coalesce')
    await p1
    const current = bridge.tools
    await tool('break-list').execute({}, ctx())
    await assert.rejects(bridge.refresh(), McpToolNameCollisionError)
    assert.equal(bridge.tools, current, 'a failed refresh keeps the previous array object')
  })
})

test('refresh() resolves with a listing that started after it was called, never one already running', async () => {
  const bridge = await connectMcpTools({ serverId: 'bad', transport: misbehaving('normal', { MCP_FIXTURE_LIST_DELAY_MS: '300' }) })
  try {
    const tool = (n) => bridge.tools.find((t) => t.name === `mcp:bad:${n}`)
    const p1 = bridge.refresh()
    const p2 = bridge.refresh()
    assert.equal(p1, p2, 'calls made before a listing starts share it')
    // p1's listing is out (the server answers it in 300 ms with the tools it has now); the
    // change lands while it runs, and a refresh() called after the change must see it.
    await new Promise((r) => setTimeout(r, 50))
    await tool('change-list').execute({}, ctx())
    const p3 = bridge.refresh()
    assert.notEqual(p3, p1, 'a running listing is not joined')
    await p1
    assert.ok(!bridge.tools.some((t) => t.name === 'mcp:bad:added'), 'the first listing began before the change')
    await p3
    assert.ok(bridge.tools.some((t) => t.name === 'mcp:bad:added'), 'the later refresh listed after the change')
  } finally {
    await bridge.close()
  }
})

test('on 2026-07-28, list changes come on a subscriptions/listen stream the bridge opens: autoRefresh sees them', async () => {
  const bridge = await connectMcpTools({ serverId: 'm', transport: misbehaving('modern'), autoRefresh: { debounceMs: 10 } })
  try {
    assert.equal(bridge.protocolVersion, '2026-07-28')
    const before = bridge.tools
    assert.ok(!before.some((t) => t.name === 'mcp:m:added'))
    // The fixture sends the change only to an open listen stream that asked for tool changes.
    // The bridge opens the stream once connected, beside the calls; a change made before the
    // server has the stream's request goes to no stream, so the change waits until the server
    // reports the stream open (under load the first call can reach it first).
    const stats = bridge.tools.find((t) => t.name === 'mcp:m:stats')
    const open = Date.now() + 30_000 // a bound on the wait, not a speed claim
    while (!(await stats.execute({}, ctx('st'))).value?.listening && Date.now() < open) await new Promise((r) => setTimeout(r, 10))
    await bridge.tools.find((t) => t.name === 'mcp:m:change-list').execute({}, ctx('lc'))
    const end = Date.now() + 30_000 // a bound on the wait, not a speed claim
    while (bridge.tools === before && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
    assert.ok(bridge.tools.some((t) => t.name === 'mcp:m:added'), 'auto-refreshed from the listen stream')
  } finally {
    await bridge.close()
  }
})

test('on 2026-07-28, connect resolves once the listen stream is acknowledged: a change right after it is seen', async () => {
  for (let round = 0; round < 3; round++) {
    const bridge = await connectMcpTools({ serverId: 'm', transport: misbehaving('modern'), autoRefresh: { debounceMs: 10 } })
    try {
      const before = bridge.tools
      // No wait for the stream: the change is made as soon as connect has resolved.
      await bridge.tools.find((t) => t.name === 'mcp:m:change-list').execute({}, ctx('lc'))
      const end = Date.now() + 30_000 // a bound on the wait, not a speed claim
      while (bridge.tools === before && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
      assert.ok(bridge.tools.some((t) => t.name === 'mcp:m:added'), `round ${round}: the change reached the bridge`)
    } finally {
      await bridge.close()
    }
  }
})

test('without autoRefresh, list_changed only invalidates: the next tools access refreshes in the background', async () => {
  await withBridge({}, async (bridge, tool) => {
    const before = bridge.tools
    await tool('change-list').execute({}, ctx())
    await new Promise((r) => setTimeout(r, 100))
    assert.equal(bridge.tools, before, 'the first access after the notification still returns the old list')
    const end = Date.now() + 30_000 // a bound on the wait, not a speed claim
    while (bridge.tools === before && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
    assert.ok(bridge.tools.some((t) => t.name === 'mcp:bad:added'))
  })
})

test('MCP tools go through dispatchToolCall like local tools', async () => {
  await withBridge({}, async (bridge) => {
    const registry = createToolRegistry()
    for (const t of bridge.tools) registry.register(t)
    const events = []
    const result = await dispatchToolCall({
      call: { type: 'tool_call', id: 'd1', name: 'mcp:bad:echo', arguments: { message: 'via dispatch' } },
      registry,
      context: { sessionId: 's', runId: 'r', toolCallId: 'd1' },
      emit: (e) => events.push(e.type),
    })
    assert.deepEqual(result.content, [{ type: 'text', text: 'echo: via dispatch' }])
    assert.deepEqual(events, ['tool_execution_started', 'tool_execution_finished'])
  })
})

test('host exit ends every server process group it started', async () => {
  const script = `
    const { connectMcpTools } = require(${JSON.stringify(fileURLToPath(new URL('../lib/mcp/index.js', import.meta.url)))})
    ;(async () => {
      const b = await connectMcpTools({ serverId: 'bad', transport: ${JSON.stringify(misbehaving())} })
      const r = await b.tools.find((t) => t.name === 'mcp:bad:grandchild').execute({}, { toolCallId: 'x' })
      console.log(JSON.stringify([b.serverPid, Number(r.content[0].text)]))
      process.exit(0)
    })()`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  await new Promise((r) => child.once('exit', r))
  const pids = JSON.parse(out)
  assert.equal(pids.length, 2)
  assert.deepEqual(await waitGone(pids), [])
})

// An answer that is not a success never reads as one, and answers to nobody are ignored.
test('a JSON-RPC error answering tools/call is an McpToolError with its code and message, bounded', async () => {
  const bridge = await connectMcpTools({ serverId: 'm', transport: misbehaving('hostile'), maxResultBytes: 200 })
  try {
    const tool = (n) => bridge.tools.find((t) => t.name === `mcp:m:${n}`)
    const r = await tool('rpc-error').execute({ bytes: 10 }, ctx('e1'))
    assert.equal(r.content, undefined)
    assert.equal(r.error.name, 'McpToolError')
    assert.equal(r.error.message, `MCP error -32000: long failure ${'x'.repeat(10)}`)
    const long = await tool('rpc-error').execute({ bytes: 5000 }, ctx('e2'))
    assert.equal(Buffer.byteLength(long.error.message), 200)
    assert.ok(long.error.message.startsWith('MCP error -32000: long failure'))
    const shape = await tool('not-a-result').execute({}, ctx('e3'))
    assert.match(shape.error.message, /not a CallToolResult: its content is not an array/)
    // The session stays usable.
    const echo = await tool('echo').execute({ message: 'ok' }, ctx('e4'))
    assert.deepEqual(echo.content, [{ type: 'text', text: 'echo: ok' }])
  } finally {
    await bridge.close()
  }
})

test('answers for ids never sent and a duplicate answer are ignored; the call gets its own answer', async () => {
  const bridge = await connectMcpTools({ serverId: 'm', transport: misbehaving('hostile') })
  try {
    const tool = (n) => bridge.tools.find((t) => t.name === `mcp:m:${n}`)
    const [a, b] = await Promise.all([tool('strays').execute({}, ctx('s1')), tool('slow').execute({ ms: 50 }, ctx('s2'))])
    assert.equal(a.error, undefined)
    assert.deepEqual(a.content, [{ type: 'text', text: 'the real answer' }])
    assert.deepEqual(b.content, [{ type: 'text', text: 'slow done' }])
    const again = await tool('echo').execute({ message: 'after' }, ctx('s3'))
    assert.deepEqual(again.content, [{ type: 'text', text: 'echo: after' }])
  } finally {
    await bridge.close()
  }
})

test('negotiation: an empty or missing discover answer, or a server that exits on it, falls back to initialize; a modern server gets the _meta envelope', async () => {
  for (const mode of ['discover-empty', 'discover-silent', 'discover-exits', 'modern']) {
    const bridge = await connectMcpTools({ serverId: 'm', transport: misbehaving(mode) })
    try {
      const echo = bridge.tools.find((t) => t.name === 'mcp:m:echo')
      const r = await echo.execute({ message: mode }, ctx('n1'))
      assert.deepEqual(r.content, [{ type: 'text', text: `echo: ${mode}` }], mode)
      const failed = await bridge.tools.find((t) => t.name === 'mcp:m:rpc-error').execute({}, ctx('n2'))
      assert.match(failed.error.message, /^MCP error -32000: long failure/, mode)
    } finally {
      await bridge.close()
    }
  }
})

test('a slow-starting server connects over stdio on both revisions: a late discover answer is taken, initialize never follows it', async () => {
  // 2.5 s before the server reads anything: past the 2 s in which a silent server is given a
  // fresh process with initialize. The first process's late answer decides, and the fresh
  // one ends. A 2026-07-28 server refuses an initialize sent after discover (mode 'modern'
  // requires the _meta envelope on every request but discover).
  for (const [mode, revision] of [['modern', '2026-07-28'], ['normal', '2025-11-25']]) {
    const bridge = await connectMcpTools({ serverId: 'm', transport: misbehaving(mode, { MCP_FIXTURE_START_DELAY_MS: '2500' }) })
    try {
      assert.equal(bridge.protocolVersion, revision, mode)
      const r = await bridge.tools.find((t) => t.name === 'mcp:m:echo').execute({ message: mode }, ctx('slow'))
      assert.deepEqual(r.content, [{ type: 'text', text: `echo: ${mode}` }], mode)
    } finally {
      await bridge.close()
    }
    assert.deepEqual(await waitGone([bridge.serverPid]), [], mode)
  }
})

test('structuredContent may be any JSON value on 2026-07-28; older revisions still require an object', async () => {
  for (const [mode, revision] of [['modern', '2026-07-28'], ['discover-empty', '2025-11-25']]) {
    const bridge = await connectMcpTools({ serverId: 'm', transport: misbehaving(mode) })
    try {
      assert.equal(bridge.protocolVersion, revision)
      const r = await bridge.tools.find((t) => t.name === 'mcp:m:structured-array').execute({}, ctx('sa'))
      if (revision === '2026-07-28') {
        assert.equal(r.error, undefined, mode)
        assert.equal(JSON.stringify(r.value), '[{"z":1,"a":2},"two"]', mode)
        assert.deepEqual(r.content, [{ type: 'text', text: 'two items' }])
      } else {
        assert.match(r.error.message, /is not a CallToolResult: its structuredContent is not an object/, mode)
      }
    } finally {
      await bridge.close()
    }
  }
})

test('protocolVersion pins one revision; an unknown one is refused up front', async () => {
  await assert.rejects(
    connectMcpTools({ serverId: 'm', transport: misbehaving('modern'), protocolVersion: '2031-01-01' }),
    (e) => e.code === 'ERR_PRISM_MCP_INVALID_TRANSPORT' && /protocolVersion must be one of 2026-07-28/.test(e.message),
  )
  const legacy = await connectMcpTools({ serverId: 'm', transport: misbehaving('normal'), protocolVersion: '2025-06-18' })
  try {
    const r = await legacy.tools.find((t) => t.name === 'mcp:m:echo').execute({ message: 'old' }, ctx('p1'))
    assert.deepEqual(r.content, [{ type: 'text', text: 'echo: old' }])
  } finally {
    await legacy.close()
  }
  await assert.rejects(connectMcpTools({ serverId: 'm', transport: misbehaving('normal'), protocolVersion: '2026-07-28' }), /server\/discover|Method not found/)
})

test("structuredContent is checked against the tool's outputSchema, as the official SDK client does", async () => {
  const bridge = await connectMcpTools({ serverId: 'm', transport: misbehaving('typed') })
  try {
    const tool = (n) => bridge.tools.find((t) => t.name === `mcp:m:${n}`)
    const ok = await tool('typed-ok').execute({}, ctx('o1'))
    assert.equal(ok.error, undefined)
    assert.deepEqual(ok.value, { celsius: 21, sky: 'clear' })
    const wrong = await tool('typed-wrong').execute({}, ctx('o2'))
    assert.equal(wrong.error.name, 'McpToolError')
    assert.equal(
      wrong.error.message,
      'MCP tool typed-wrong returned structuredContent that does not match its outputSchema: /celsius must be number; /sky must be string',
    )
    const missing = await tool('typed-missing').execute({}, ctx('o3'))
    assert.equal(missing.error.message, 'MCP tool typed-missing has an outputSchema but returned no structuredContent')
    // An error result needs no structured content: it stays the tool's own error.
    const failed = await tool('typed-error').execute({}, ctx('o4'))
    assert.equal(failed.error.message, 'no sensor')
    // Tools without an output schema are not checked.
    const echo = await tool('echo').execute({ message: 'plain' }, ctx('o5'))
    assert.deepEqual(echo.content, [{ type: 'text', text: 'echo: plain' }])
  } finally {
    await bridge.close()
  }
})
