// The bridge against a hostile Streamable HTTP server on 127.0.0.1: every fault must end its
// request at once with an error that names the bound or the fault (never at callTimeoutMs,
// which these bridges set far beyond the test's own timeout), the next call on the same
// bridge must work, and close() must settle.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { connectMcpTools, HARD_MAX_HTTP_RESPONSE_BYTES } from '../lib/mcp/index.mjs'
import { startHostileHttpServer, nested } from './fixtures/mcp-hostile-http-server.mjs'
import { collectUntil } from './fixtures/mcp-helpers.mjs'

const NEVER = 30 * 60 * 1000 // callTimeoutMs no test waits for: an answer that needs it fails the test
const TEST = { timeout: 120_000 }
const MIB = 1024 * 1024
const ctx = (toolCallId = 'c1', extra = {}) => ({ sessionId: 's', runId: 'r', toolCallId, ...extra })
const failed = (message) => ({ name: 'McpToolError', message, code: 'ERR_PRISM_MCP_TOOL' })

/** A bridge to the fixture; `fn(call)` runs, then close() must settle. */
async function withBridge(server, options, fn) {
  const { transport, ...rest } = options
  const bridge = await connectMcpTools({ serverId: 'h', callTimeoutMs: NEVER, ...rest, transport: server.transport('normal', transport) })
  const call = (name, args = {}, extra) => bridge.tools.find((t) => t.name === `mcp:h:${name}`).execute(args, ctx(name, extra))
  try {
    return await fn(call, bridge)
  } finally {
    await bridge.close()
  }
}

/** `name` fails with `message`, then `echo` on the same bridge still answers. */
async function failsThenUsable(call, name, args, message) {
  const r = await call(name, args)
  assert.deepEqual(r.error, failed(message), name)
  assert.equal(r.content, undefined, name)
  const echo = await call('echo', { message: `after ${name}` })
  assert.deepEqual(echo.content, [{ type: 'text', text: `echo: after ${name}` }], `echo after ${name}`)
}

/** Waits until `cond()` holds: effects the client sends without waiting (a cancellation, a
 * closed socket) reach the server a little later. The bound is on the wait, not a speed claim. */
async function eventually(cond, what) {
  const end = Date.now() + 30_000
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
  assert.ok(cond(), what)
}

async function withServer(fn, options) {
  const server = await startHostileHttpServer(options)
  try {
    return await fn(server)
  } finally {
    await server.close()
  }
}

test('a body over maxResponseBytes fails its call at once, with and without Content-Length, at the edge', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, { transport: { maxResponseBytes: MIB } }, async (call) => {
      for (const name of ['huge-json', 'huge-json-chunked']) {
        const fits = await call(name, { total: MIB })
        assert.equal(fits.error, undefined, `${name} at the limit`)
        assert.equal(fits.content[0].text.length > MIB - 100, true)
        await failsThenUsable(call, name, { total: MIB + 1 }, 'MCP message exceeds 1048576 bytes')
        await failsThenUsable(call, name, { bytes: 8 * MIB }, 'MCP message exceeds 1048576 bytes')
      }
    })
  })
})

test('a body over the hard cap fails at once with the cap named', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, { transport: { maxResponseBytes: HARD_MAX_HTTP_RESPONSE_BYTES }, maxResultBytes: 16 * MIB }, async (call) => {
      const message = `MCP message exceeds ${HARD_MAX_HTTP_RESPONSE_BYTES} bytes`
      await failsThenUsable(call, 'huge-json', { total: HARD_MAX_HTTP_RESPONSE_BYTES + 1 }, message)
      await failsThenUsable(call, 'huge-json-chunked', { total: HARD_MAX_HTTP_RESPONSE_BYTES + 1 }, message)
    })
  })
})

test('an SSE event over maxResponseBytes fails its call at once', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, { transport: { maxResponseBytes: MIB } }, async (call) => {
      await failsThenUsable(call, 'huge-sse', { bytes: 2 * MIB }, 'MCP message exceeds 1048576 bytes')
    })
  })
})

test('an SSE stream that never answers ends at callTimeoutMs, is closed by the client, and close() settles', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, { callTimeoutMs: 300 }, async (call) => {
      const r = await call('sse-forever')
      assert.deepEqual(r.error, failed('MCP tool call timed out after 300ms'))
      assert.deepEqual((await call('echo', { message: 'ok' })).content, [{ type: 'text', text: 'echo: ok' }])
      await eventually(() => server.stats.cancelled.length === 1, 'the server saw notifications/cancelled')
      await eventually(() => server.openStreams() === 0, 'the client closed the stream after the timeout')
    })
    // A call still streaming when the bridge closes ends with the bridge: close() settles,
    // the call settles with an error that is not the timeout, and the stream is closed.
    const bridge = await connectMcpTools({ serverId: 'h', callTimeoutMs: NEVER, transport: server.transport() })
    const pending = bridge.tools.find((t) => t.name === 'mcp:h:sse-forever').execute({}, ctx('p1'))
    await eventually(() => server.openStreams() === 1, 'the stream is open')
    await bridge.close()
    assert.deepEqual((await pending).error, failed('MCP bridge is closed'))
    await eventually(() => server.openStreams() === 0, 'close() closed the stream')
  })
})

test('a bridge dropped without close() ends its session once it is collected (its DELETE is best-effort)', TEST, async () => {
  await withServer(async (server) => {
    let collected = false
    const registry = new FinalizationRegistry(() => (collected = true))
    await (async () => {
      const bridge = await connectMcpTools({ serverId: 'h', callTimeoutMs: NEVER, transport: server.transport() })
      const r = await bridge.tools.find((t) => t.name === 'mcp:h:echo').execute({ message: 'then dropped' }, ctx())
      assert.deepEqual(r.content, [{ type: 'text', text: 'echo: then dropped' }])
      registry.register(bridge, 'bridge')
    })()
    assert.ok(await collectUntil(() => collected), 'the bridge was collected')
    assert.ok(await collectUntil(() => server.stats.deletes === 1), 'the session was deleted')
    assert.ok(await collectUntil(() => server.openStreams() === 0), 'the GET stream was closed')
  }, { getStream: 'forever' })
})

test('a handshake that never ends times out, and the client lets go of its request (JSON and SSE)', TEST, async () => {
  await withServer(async (server) => {
    for (const mode of ['hang-init', 'hang-init-sse']) {
      await assert.rejects(connectMcpTools({ serverId: 'h', callTimeoutMs: 300, transport: server.transport(mode) }), {
        code: 'ERR_PRISM_MCP_CONNECT_TIMEOUT',
        message: 'MCP connect timed out after 300ms',
      })
      await eventually(() => server.openStreams() === 0, `${mode}: the client closed the handshake's request`)
    }
    const controller = new AbortController()
    const reason = new Error('host gave up')
    const connecting = connectMcpTools({ serverId: 'h', callTimeoutMs: NEVER, signal: controller.signal, transport: server.transport('hang-init-sse') })
    await eventually(() => server.openStreams() === 1, 'the handshake is waiting')
    controller.abort(reason)
    await assert.rejects(connecting, (err) => err === reason)
    await eventually(() => server.openStreams() === 0, 'abort: the client closed the handshake request')
  })
})

test('a hostile session stream (GET) changes nothing: calls work and close() settles', TEST, async () => {
  for (const getStream of ['forever', 'huge-event']) {
    await withServer(async (server) => {
      await withBridge(server, { transport: { maxResponseBytes: MIB } }, async (call) => {
        assert.deepEqual((await call('echo', { message: getStream })).content, [{ type: 'text', text: `echo: ${getStream}` }])
      })
      await eventually(() => server.openStreams() === 0, `${getStream}: close() closed the GET stream`)
    }, { getStream })
  }
})

test('JSON nested deeper than 129 levels (the stdio bound) fails at once (result, SSE result, error data); 129 levels pass', TEST, async () => {
  await withServer(async (server) => {
    // root (1) -> result (2) -> structuredContent (3) -> v: n arrays -> n + 3 levels in the message
    await withBridge(server, { maxJsonDepth: 128 }, async (call) => {
      for (const name of ['deep-result', 'deep-result-sse']) {
        // 128 levels: past serde_json's recursion limit (which rmcp parses with), within ours.
        const deep = await call(name, { depth: 125 })
        assert.equal(deep.error, undefined, `${name} at 128 levels`)
        assert.equal(JSON.stringify(deep.value.v), nested(125), `${name}: the whole value arrives`)
        // 129 levels pass the message bound; the result itself (its leaf at depth 129) is then
        // past the hard maxJsonDepth, which says so.
        await failsThenUsable(call, name, { depth: 126 }, `MCP tool ${name} result exceeds depth 128`)
        // Past the message bound too, the configured depth bound is what the call reports.
        await failsThenUsable(call, name, { depth: 127 }, `MCP tool ${name} result exceeds depth 128`)
        await failsThenUsable(call, name, { depth: 100_000 }, `MCP tool ${name} result exceeds depth 128`)
      }
      // root (1) -> error (2) -> data: n arrays
      assert.deepEqual((await call('deep-error', { depth: 127 })).error, failed('MCP error -32000: m'))
      await failsThenUsable(call, 'deep-error', { depth: 128 }, 'MCP tool deep-error result exceeds depth 128')
    })
  })
})

test('over-deep JSON during connect: initialize answer, tools/list schema (JSON and SSE), tools/list error data', TEST, async () => {
  await withServer(async (server) => {
    const connect = (mode) => connectMcpTools({ serverId: 'h', callTimeoutMs: NEVER, transport: server.transport(mode) })
    await assert.rejects(connect('deep-init'), { code: 'ERR_PRISM_MCP_CONNECT', message: 'MCP connect failed: MCP message nests deeper than 129 levels' })
    await assert.rejects(connect('deep-schema'), { code: 'ERR_PRISM_MCP_JSON_BOUND', message: 'MCP message nests deeper than 129 levels' })
    await assert.rejects(connect('deep-list-error'), { code: 'ERR_PRISM_MCP_JSON_BOUND', message: 'MCP message nests deeper than 129 levels' })
    await assert.rejects(connect('deep-list-sse-1000'), { code: 'ERR_PRISM_MCP_JSON_BOUND', message: 'MCP message nests deeper than 129 levels' })
    // The same server, unharmed, still serves a well-behaved connect.
    const ok = await connect('normal')
    assert.ok(ok.tools.length > 1)
    await ok.close()
  })
})

test('answers rmcp reads (server/discover, initialize and tools/list on a stream) meet the same 129 levels at the edge', TEST, async () => {
  await withServer(async (server) => {
    const connect = (mode, extra = {}) => connectMcpTools({ serverId: 'h', callTimeoutMs: NEVER, ...extra, transport: server.transport(mode) })
    const usableThenClosed = async (bridge, what) => {
      const echo = await bridge.tools.find((t) => t.name === 'mcp:h:echo').execute({ message: what }, ctx())
      assert.deepEqual(echo.content, [{ type: 'text', text: `echo: ${what}` }], what)
      await bridge.close()
    }
    const tooDeep = 'MCP message nests deeper than 129 levels'

    // server/discover (the 2026-07-28 revision): 129 levels answer it, no initialize follows;
    // 130 are refused, and the client falls back to initialize as for any older server.
    const { initializes } = server.stats
    const modern = await connect('deep-discover-129')
    assert.equal(server.stats.initializes, initializes, 'the discover answer was taken')
    await usableThenClosed(modern, 'discover at 129')
    const fellBack = await connect('deep-discover-130')
    assert.equal(server.stats.initializes, initializes + 1, 'the discover answer was refused')
    await usableThenClosed(fellBack, 'discover at 130')
    assert.equal(server.stats.discovered, 2)

    // initialize answered on an SSE stream (after a notification).
    for (const depth of [127, 128, 129]) await usableThenClosed(await connect(`deep-init-sse-${depth}`), `initialize at ${depth}`)
    await assert.rejects(connect('deep-init-sse-130'), { code: 'ERR_PRISM_MCP_CONNECT', message: `MCP connect failed: ${tooDeep}` })

    // tools/list answered on SSE streams, in two pages, the first with a schema at the hard
    // maxJsonDepth: 127 levels (what rmcp reads itself) and 128-129 (held for the bridge)
    // list the same way, the second page read by rmcp in every case.
    for (const depth of [127, 128, 129]) {
      const listed = await connect(`deep-list-sse-${depth}`, { maxJsonDepth: 128 })
      assert.deepEqual(listed.tools.map((t) => t.name), ['mcp:h:d', 'mcp:h:echo'], `listing at ${depth}: both pages`)
      const deep = () => listed.tools.find((t) => t.name === 'mcp:h:d')
      assert.equal(JSON.stringify(deep().parameters.default), nested(depth - 5), `listing at ${depth}: the whole schema arrives`)
      await listed.refresh()
      assert.equal(JSON.stringify(deep().parameters.default), nested(depth - 5), `listing at ${depth}: refreshed`)
      await usableThenClosed(listed, `listing at ${depth}`)
    }
    await assert.rejects(connect('deep-list-sse-130', { maxJsonDepth: 128 }), { code: 'ERR_PRISM_MCP_JSON_BOUND', message: tooDeep })

    // After every refusal, the same server still serves a well-behaved connect.
    await usableThenClosed(await connect('normal'), 'normal')
  })
})

test('a server/discover refusal falls back to initialize as rmcp reads it; other failures fail the connect', TEST, async () => {
  await withServer(async (server) => {
    const connect = (mode) => connectMcpTools({ serverId: 'h', callTimeoutMs: NEVER, transport: server.transport(mode) })
    for (const mode of ['discover-404-text', 'discover-500-json']) {
      const { initializes } = server.stats
      const bridge = await connect(mode)
      assert.equal(server.stats.initializes, initializes + 1, `${mode}: initialize followed`)
      const echo = await bridge.tools.find((t) => t.name === 'mcp:h:echo').execute({ message: mode }, ctx())
      assert.deepEqual(echo.content, [{ type: 'text', text: `echo: ${mode}` }])
      await bridge.close()
    }
    await assert.rejects(connect('discover-500'), { code: 'ERR_PRISM_MCP_CONNECT', message: 'MCP connect failed: MCP transport error: the server answered HTTP 500' })
    await assert.rejects(connect('discover-401'), { code: 'ERR_PRISM_MCP_CONNECT', message: 'MCP connect failed: MCP transport error: the server answered HTTP 401 Unauthorized' })
  })
})

test('oversized answers during connect: initialize (with and without Content-Length), a tools/list SSE event', TEST, async () => {
  await withServer(async (server) => {
    const connect = (mode) => connectMcpTools({ serverId: 'h', callTimeoutMs: NEVER, transport: server.transport(mode, { maxResponseBytes: MIB }) })
    for (const mode of ['huge-init', 'huge-init-chunked']) {
      await assert.rejects(connect(mode), { code: 'ERR_PRISM_MCP_CONNECT', message: 'MCP connect failed: MCP message exceeds 1048576 bytes' })
    }
    // An oversized server/discover answer is refused at the bound; the client then falls
    // back to initialize, as for any server that does not speak server/discover.
    const fellBack = await connect('huge-discover')
    assert.ok(fellBack.tools.length > 1)
    await fellBack.close()
    await assert.rejects(connect('huge-list-sse'), { code: 'ERR_PRISM_MCP_TOO_LARGE', message: 'MCP message exceeds 1048576 bytes' })
    await assert.rejects(connect('string-list'), { code: 'ERR_PRISM_MCP_INVALID_RESPONSE', message: 'MCP server sent an invalid response: its result is not an object' })
    // The same server, unharmed, still serves a well-behaved connect.
    const ok = await connect('normal')
    assert.ok(ok.tools.length > 1)
    await ok.close()
  })
})

test('replies of the wrong JSON-RPC shape fail their call at once, in a JSON body and on an SSE stream; strays on a stream are skipped', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, {}, async (call) => {
      const invalid = (reason) => `MCP server sent an invalid response: ${reason}`
      await failsThenUsable(call, 'string-result', {}, invalid('its result is not an object'))
      await failsThenUsable(call, 'string-result-sse', {}, invalid('its result is not an object'))
      await failsThenUsable(call, 'missing-id', {}, invalid('it has no id'))
      await failsThenUsable(call, 'mismatched-id', {}, invalid('its id does not match the request'))
      // On a stream, an answer naming no request or another one is a stray: skipped, and the
      // call gets its own answer.
      for (const name of ['missing-id-sse', 'mismatched-id-sse']) {
        const r = await call(name)
        assert.equal(r.error, undefined, name)
        assert.deepEqual(r.content, [{ type: 'text', text: 'the real answer' }], name)
      }
      await failsThenUsable(call, 'bad-error-code', {}, invalid('its error has no integer code and string message'))
      await failsThenUsable(call, 'bad-error-code-sse', {}, invalid('its error has no integer code and string message'))
    })
  })
})

test('a body that is not JSON, a wrong content type and HTTP 500 fail at once; non-JSON SSE data is skipped', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, {}, async (call) => {
      await failsThenUsable(call, 'not-json', {}, 'MCP server sent an invalid response: its body is not a JSON-RPC message')
      await failsThenUsable(call, 'wrong-type', {}, 'MCP server sent an invalid response: its content type text/html is neither application/json nor text/event-stream')
      await failsThenUsable(call, 'http-500', {}, 'MCP transport error: the server answered HTTP 500')
      await failsThenUsable(call, 'http-500-json', {}, 'MCP error -32603: the server broke')
      // An error the server could not tie to a request answers the request it came back on.
      await failsThenUsable(call, 'idless-error', {}, 'MCP error -32700: Parse error')
      // A stream that ends without the response (and no event id to resume from) fails the
      // call when it ends, as a closed connection does.
      await failsThenUsable(call, 'sse-ends-early', {}, 'MCP transport error: the server closed the connection')
      const r = await call('not-json-sse')
      assert.deepEqual(r.content, [{ type: 'text', text: 'after garbage' }])
    })
  })
})

test('a 404 for the session: one new session and a retry; a second 404 fails the call', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, {}, async (call) => {
      const before = server.stats.initializes
      const r = await call('expire-once')
      assert.deepEqual(r.content, [{ type: 'text', text: 'a new session' }])
      assert.equal(server.stats.initializes, before + 1, 'the client opened a new session')
      await failsThenUsable(call, 'expire-always', {}, 'MCP transport error: Session expired (HTTP 404)')
    })
  })
})

test('a redirect is never followed, to a private address or anywhere else', TEST, async () => {
  const hits = []
  const elsewhere = createServer((req, res) => {
    hits.push(req.url)
    res.writeHead(500)
    res.end()
  })
  await new Promise((r) => elsewhere.listen(0, '127.0.0.1', r))
  try {
    for (const redirectTo of [`http://127.0.0.1:${elsewhere.address().port}/mcp`, 'http://10.0.0.1/mcp', 'http://169.254.169.254/latest/meta-data/']) {
      await withServer(async (server) => {
        await withBridge(server, {}, async (call) => {
          await failsThenUsable(call, 'redirect', {}, 'MCP transport error: the server answered HTTP 307 Temporary Redirect (redirects are not followed)')
        })
      }, { redirectTo })
    }
    assert.deepEqual(hits, [], 'the redirect target saw no request')
  } finally {
    await new Promise((r) => elsewhere.close(r))
  }
})

test('a huge response header fails the call at once', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, {}, async (call) => {
      const r = await call('huge-header', { bytes: 2 * MIB })
      assert.equal(r.error?.code, 'ERR_PRISM_MCP_TOOL')
      assert.match(r.error.message, /^MCP transport error: .*message head is too large$/)
      assert.deepEqual((await call('echo', { message: 'ok' })).content, [{ type: 'text', text: 'echo: ok' }])
    })
  })
})

test('resumability: a call whose stream closes after a priming event resumes with GET and Last-Event-ID; a refused resume fails the call', TEST, async () => {
  await withServer(async (server) => {
    await withBridge(server, {}, async (call) => {
      const r = await call('sse-resume')
      assert.equal(r.error, undefined)
      assert.deepEqual(r.content, [{ type: 'text', text: 'resumed' }])
      assert.equal(server.stats.resumes, 1)
      const refused = await call('sse-resume-refused')
      assert.equal(refused.error?.name, 'McpToolError')
      assert.ok(server.stats.resumes >= 2)
      const echo = await call('echo', { message: 'after' })
      assert.deepEqual(echo.content, [{ type: 'text', text: 'echo: after' }])
    })
  })
})
