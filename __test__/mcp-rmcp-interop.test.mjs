// The interop matrix against a server written with rmcp, the SDK the bridge's own client is
// built on (crates/mcp-test-server, built here with cargo): every transport rmcp serves (stdio,
// Streamable HTTP with sessions, stateless with SSE answers, stateless with JSON answers) x
// both protocol lifecycles (a 2025-11-25 server: `initialize` only; a 2026-07-28 server:
// `server/discover` only), each connected unpinned, and each behaviour checked against the
// bridge's documented results: content mapping, structuredContent and outputSchema, isError,
// JSON-RPC errors, progress against the call timeout, cancellation reaching the server,
// pagination, list_changed, and (stdio) close() ending a setsid grandchild. Then a server that
// starts slowly (2.5 s) over stdio, on both revisions.
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { isAlive, waitGone } from './fixtures/mcp-helpers.mjs'
import { requireOptional } from './fixtures/optional-tools.mjs'
import { posixOnly, setsidEscapes, underWine, WINE_NO_BASH } from './fixtures/platform.mjs'

const require = createRequire(import.meta.url)
const { connectMcpTools } = require('../lib/mcp/index.js')

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const CRATE = 'prism-mcp-test-server'
const CARGO = process.env.CARGO || 'cargo'
const ctx = (toolCallId, extra = {}) => ({ sessionId: 's', runId: 'r', toolCallId, ...extra })


/** Why cargo cannot be used here, or undefined. */
function cargoMissing() {
  const probe = spawnSync(CARGO, ['--version'], { encoding: 'utf8', timeout: 60_000 })
  if (probe.error || probe.status !== 0) {
    return `cargo is not installed (${probe.error?.message ?? `exit code ${probe.status}`}): install Rust from rustup.rs (the rmcp interop server is built from crates/mcp-test-server)`
  }
  return undefined
}
// PRISM_RMCP_SERVER: a server binary built beforehand (scripts/ci-windows.sh builds it for
// Windows, where the tests run under Wine without cargo); then cargo is neither probed nor run.
const PREBUILT = process.env.PRISM_RMCP_SERVER || undefined
const missing = PREBUILT ? undefined : cargoMissing()

/**
 * `test` with a timeout; when cargo is missing, a skip naming it, or a failure with
 * PRISM_REQUIRE_OPTIONAL=1 (as `optionalTest` does).
 */
function rtest(name, options, fn) {
  if (missing === undefined) return test(name, { timeout: 30_000, ...options }, fn)
  if (requireOptional) return test(name, () => assert.fail(`${missing} (PRISM_REQUIRE_OPTIONAL=1 makes this a failure)`))
  return test(name, { skip: missing }, fn)
}

let BIN = PREBUILT
if (!PREBUILT && missing === undefined) {
  // One build for the file (a no-op when it is current); the binary's path as cargo reports it.
  before(async () => {
    // Its own profile (Cargo.toml): release unoptimized, a fraction of the compile time.
    const child = spawn(CARGO, ['build', '--profile', 'interop-server', '-p', CRATE, '--message-format=json-render-diagnostics'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    const code = await new Promise((resolve) => child.once('close', resolve))
    assert.equal(code, 0, `cargo build -p ${CRATE} failed`)
    for (const line of out.split('\n')) {
      if (!line.startsWith('{')) continue
      const msg = JSON.parse(line)
      if (msg.reason === 'compiler-artifact' && msg.target?.name === CRATE && msg.executable) BIN = msg.executable
    }
    assert.ok(BIN, 'cargo reported the server binary')
  }, { timeout: 15 * 60_000 })
}

const REVISIONS = ['2025-11-25', '2026-07-28']
const TRANSPORTS = ['stdio', 'http', 'http-stateless', 'http-json']

// Every process this file started, killed at the end whatever happened.
const children = new Set()
after(() => {
  for (const child of children) child.kill('SIGKILL')
})

/** Starts an HTTP server in `mode` and resolves to its URL (the first line it prints). */
async function startHttp(mode, revision) {
  const child = spawn(BIN, [`--${mode}`, '0', '--revision', revision, '--page-size', '3'], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let stderr = ''
  child.stderr.on('data', (d) => (stderr += d))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGKILL')
      await exited
    }
    children.delete(child)
  }
  try {
    const url = await new Promise((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`the ${mode} server printed no URL in 15 s: ${stderr}`)), 15_000)
      child.stdout.on('data', (d) => {
        out += d
        const end = out.indexOf('\n')
        if (end >= 0) {
          clearTimeout(timer)
          resolve(out.slice(0, end))
        }
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`the ${mode} server exited (${code}): ${stderr}`))
      })
    })
    return { url, stop }
  } catch (e) {
    await stop()
    throw e
  }
}

/**
 * A fresh server in `mode` on `revision` (its own state: added tools, cancellation counts) and
 * a bridge connected to it, unpinned unless `options.protocolVersion`; both end in `finally`.
 */
async function withServer(mode, revision, options, fn, serverArgs = []) {
  let http
  let transport
  if (mode === 'stdio') {
    transport = { type: 'stdio', command: BIN, args: ['--stdio', '--revision', revision, '--page-size', '3', ...serverArgs], stderr: 'ignore' }
  } else {
    http = await startHttp(mode, revision)
    transport = { type: 'streamable-http', url: http.url, allowedOrigins: [new URL(http.url).origin], allowLoopbackHttp: true }
  }
  let bridge
  try {
    bridge = await connectMcpTools({ serverId: 'rmcp', transport, ...options })
    const tool = (name) => {
      const found = bridge.tools.find((t) => t.name === `mcp:rmcp:${name}`)
      assert.ok(found, `the bridge lists ${name}`)
      return found
    }
    return await fn(bridge, tool)
  } finally {
    await bridge?.close()
    if (bridge?.serverPid) assert.deepEqual(await waitGone([bridge.serverPid]), [], 'close() ended the stdio server')
    await http?.stop()
  }
}

/** Polls the server's cancellation counts until `done(counts)` or 5 s. */
async function cancelCounts(tool, done) {
  const end = Date.now() + 5000 // a bound on the wait, not a speed claim
  let counts
  do {
    const r = await tool('cancelled-count').execute({}, ctx('count'))
    assert.equal(r.error, undefined, JSON.stringify(r.error))
    counts = r.value
    if (done(counts)) break
    await new Promise((r) => setTimeout(r, 50))
  } while (Date.now() < end)
  return counts
}

/** Waits (bounded) until `bridge.tools` is a new array; returns whether it changed. */
async function toolsChange(bridge, before, ms = 5000) {
  const end = Date.now() + ms // a bound on the wait, not a speed claim
  while (bridge.tools === before && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
  return bridge.tools !== before
}

const LISTED = [
  'echo', 'image', 'resources', 'structured-object', 'structured-array', 'structured-mismatch', 'tool-error', 'protocol-error',
  'slow-progress', 'wait-cancel', 'cancelled-count', 'add-tool', 'spawn-grandchild', 'filler-1', 'filler-2', 'filler-3', 'filler-4',
]

for (const mode of TRANSPORTS) {
  for (const revision of REVISIONS) {
    const modern = revision === '2026-07-28'
    // Where a notifications/cancelled can reach the handler: stdio, and an HTTP session
    // (stateless rmcp drops client notifications; 2026-07-28 has no sessions). Elsewhere the
    // handler learns of it from the answer's stream being closed.
    const notificationsReach = mode === 'stdio' || (mode === 'http' && !modern)

    describe(`rmcp server, ${mode}, ${revision}`, () => {
      rtest('connects unpinned, negotiates the server revision, and lists every page in order', {}, async () => {
        await withServer(mode, revision, {}, async (bridge) => {
          assert.equal(bridge.protocolVersion, revision)
          assert.equal(bridge.serverPid > 0, mode === 'stdio', 'serverPid is the stdio server, 0 for HTTP')
          assert.deepEqual(bridge.tools.map((t) => t.name), LISTED.map((n) => `mcp:rmcp:${n}`))
        })
        // 17 tools in pages of 3: six pages, so five is one short.
        await assert.rejects(withServer(mode, revision, { maxListPages: 5 }, async () => {}), {
          code: 'ERR_PRISM_MCP_TOO_MANY_PAGES',
          message: 'MCP tools/list exceeds 5 pages',
        })
      })

      rtest('pinned to its own revision it connects; pinned to the other one it does not', {}, async () => {
        await withServer(mode, revision, { protocolVersion: revision }, async (bridge) => {
          assert.equal(bridge.protocolVersion, revision)
        })
        const other = modern ? '2025-11-25' : '2026-07-28'
        await assert.rejects(withServer(mode, revision, { protocolVersion: other }, async () => {}), (e) => {
          assert.equal(e.code, 'ERR_PRISM_MCP_CONNECT', e.message)
          return true
        })
      })

      rtest('text, image, embedded resource and resource_link content map as documented', {}, async () => {
        await withServer(mode, revision, {}, async (bridge, tool) => {
          const echo = await tool('echo').execute({ text: 'interop' }, ctx('e1'))
          assert.deepEqual(echo, {
            toolCallId: 'e1',
            name: 'mcp:rmcp:echo',
            content: [{ type: 'text', text: 'echo: interop' }],
            metadata: { mcp: { serverId: 'rmcp', remoteName: 'echo', truncated: false, bytesUsed: 13 } },
          })
          const image = await tool('image').execute({}, ctx('i1'))
          assert.equal(image.error, undefined)
          assert.equal(image.content.length, 2)
          assert.equal(image.content[0].type, 'image')
          assert.equal(image.content[0].mimeType, 'image/png')
          assert.match(image.content[0].data, /^iVBORw0KGgo/)
          assert.deepEqual(image.content[1], { type: 'text', text: 'a pixel' })
          const resources = await tool('resources').execute({}, ctx('r1'))
          assert.deepEqual(resources.content, [
            { type: 'text', text: 'Resource file:///notes/readme.txt (text/plain): embedded text' },
            { type: 'text', text: 'Resource link big.bin: file:///notes/big.bin — a large file — mime=application/octet-stream — size=1024' },
          ])
          assert.equal(resources.value, undefined)
        })
      })

      rtest('structuredContent: an object is the value; one that breaks its outputSchema is an error', {}, async () => {
        await withServer(mode, revision, {}, async (bridge, tool) => {
          const object = await tool('structured-object').execute({}, ctx('o1'))
          assert.equal(object.error, undefined)
          assert.deepEqual(object.value, { zeta: 1, alpha: 'two', mid: { y: true, b: null } })
          const wrong = await tool('structured-mismatch').execute({}, ctx('o2'))
          assert.deepEqual(wrong.error, {
            name: 'McpToolError',
            message: 'MCP tool structured-mismatch returned structuredContent that does not match its outputSchema: /celsius must be number',
            code: 'ERR_PRISM_MCP_TOOL',
          })
        })
      })

      if (modern) {
        rtest('structuredContent: an array (2026-07-28) is the value', {}, async () => {
          await withServer(mode, revision, {}, async (bridge, tool) => {
            const array = await tool('structured-array').execute({}, ctx('a1'))
            assert.equal(array.error, undefined, JSON.stringify(array.error))
            assert.deepEqual(array.value, [3, 1, 2])
            assert.deepEqual(array.content, [{ type: 'text', text: '[3,1,2]' }])
          })
        })
      } else {
        rtest('structuredContent: an array is not sent to a 2025-11-25 client (rmcp keeps it as text)', {}, async () => {
          await withServer(mode, revision, {}, async (bridge, tool) => {
            const array = await tool('structured-array').execute({}, ctx('a1'))
            assert.equal(array.error, undefined, JSON.stringify(array.error))
            assert.equal(array.value, undefined)
            assert.deepEqual(array.content, [{ type: 'text', text: '[3,1,2]' }])
          })
        })
      }

      rtest("the server's key order is kept in value and parameters", {}, async () => {
        await withServer(mode, revision, {}, async (bridge, tool) => {
          const echo = tool('echo')
          assert.deepEqual(Object.keys(echo.parameters), ['type', 'properties', 'required'])
          assert.deepEqual(Object.keys(echo.parameters.properties), ['text', 'after'])
          const object = await tool('structured-object').execute({}, ctx('k1'))
          assert.deepEqual(Object.keys(object.value), ['zeta', 'alpha', 'mid'])
          assert.deepEqual(Object.keys(object.value.mid), ['y', 'b'])
        })
      })

      rtest('isError is an McpToolError with the text; a JSON-RPC error carries its code and message', {}, async () => {
        await withServer(mode, revision, {}, async (bridge, tool) => {
          const failed = await tool('tool-error').execute({}, ctx('f1'))
          assert.deepEqual(failed.error, { name: 'McpToolError', message: 'the tool failed on purpose', code: 'ERR_PRISM_MCP_TOOL' })
          assert.deepEqual(failed.content, [{ type: 'text', text: 'the tool failed on purpose' }])
          const rpc = await tool('protocol-error').execute({}, ctx('f2'))
          assert.deepEqual(rpc.error, { name: 'McpToolError', message: 'MCP error -32001: refused on purpose', code: 'ERR_PRISM_MCP_TOOL' })
          assert.equal(rpc.content, undefined)
          // The session stays usable.
          assert.deepEqual((await tool('echo').execute({ text: 'after' }, ctx('f3'))).content, [{ type: 'text', text: 'echo: after' }])
        })
      })

      rtest('progress restarts callTimeoutMs, up to maxTotalTimeoutMs', {}, async () => {
        // Six steps of 250 ms: 1.5 s in all against a 1 s call timeout.
        const args = { steps: 6, intervalMs: 250 }
        await withServer(mode, revision, { callTimeoutMs: 1000 }, async (bridge, tool) => {
          const r = await tool('slow-progress').execute(args, ctx('p1'))
          assert.equal(r.error, undefined, JSON.stringify(r.error))
          assert.deepEqual(r.content, [{ type: 'text', text: 'done after 6 steps (progress token: true)' }])
        })
        await withServer(mode, revision, { callTimeoutMs: 1000, maxTotalTimeoutMs: 1200 }, async (bridge, tool) => {
          const r = await tool('slow-progress').execute(args, ctx('p2'))
          assert.deepEqual(r.error, {
            name: 'McpToolError',
            message: 'MCP tool call timed out after 1200ms in all (maxTotalTimeoutMs), though it reported progress',
            code: 'ERR_PRISM_MCP_TOOL',
          })
        })
      })

      rtest('a timed-out or aborted call is cancelled on the server, and the bridge stays usable', {}, async () => {
        await withServer(mode, revision, { callTimeoutMs: 1000 }, async (bridge, tool) => {
          const timedOut = await tool('wait-cancel').execute({}, ctx('w1'))
          assert.deepEqual(timedOut.error, { name: 'McpToolError', message: 'MCP tool call timed out after 1000ms', code: 'ERR_PRISM_MCP_TOOL' })
          const reached = (c) => c.calls >= 1 && (!notificationsReach || c.notifications >= 1)
          let counts = await cancelCounts(tool, reached)
          assert.ok(reached(counts), `the server saw the cancellation: ${JSON.stringify(counts)}`)
          const controller = new AbortController()
          const pending = tool('wait-cancel').execute({}, ctx('w2', { signal: controller.signal }))
          // Aborted once the server is running it (so that there is something to cancel).
          counts = await cancelCounts(tool, (c) => c.waiting === 1)
          assert.equal(counts.waiting, 1, 'the server runs the call')
          controller.abort()
          assert.equal((await pending).error?.message, 'MCP tool call was aborted')
          const twice = (c) => c.calls >= 2 && (!notificationsReach || c.notifications >= 2)
          counts = await cancelCounts(tool, twice)
          assert.ok(twice(counts), `the server saw both cancellations: ${JSON.stringify(counts)}`)
          assert.deepEqual((await tool('echo').execute({ text: 'still here' }, ctx('w3'))).content, [{ type: 'text', text: 'echo: still here' }])
        })
      })

      rtest('a tool added on the server is listed by refresh()', {}, async () => {
        await withServer(mode, revision, {}, async (bridge, tool) => {
          assert.ok(!bridge.tools.some((t) => t.name === 'mcp:rmcp:added'))
          await tool('add-tool').execute({}, ctx('l1'))
          await bridge.refresh()
          assert.ok(bridge.tools.some((t) => t.name === 'mcp:rmcp:added'))
          assert.deepEqual((await tool('added').execute({}, ctx('l2'))).content, [{ type: 'text', text: 'added' }])
        })
      })

      rtest('autoRefresh: notifications/tools/list_changed refreshes the catalogue', {}, async () => {
        await withServer(mode, revision, { autoRefresh: { debounceMs: 10 } }, async (bridge, tool) => {
          const before = bridge.tools
          await tool('add-tool').execute({}, ctx('l3'))
          assert.ok(await toolsChange(bridge, before), 'the catalogue was refreshed without refresh()')
          assert.ok(bridge.tools.some((t) => t.name === 'mcp:rmcp:added'))
        })
      })

      if (mode === 'stdio') {
        // The server starts its grandchild with `sh -c 'setsid sleep 300 &'`.
        rtest('close() ends the server and a grandchild that left with setsid', { skip: underWine(WINE_NO_BASH) || posixOnly('setsid') || setsidEscapes() }, async () => {
          let pids = []
          try {
            await withServer(mode, revision, {}, async (bridge, tool) => {
              const r = await tool('spawn-grandchild').execute({}, ctx('g1'))
              assert.equal(r.error, undefined, JSON.stringify(r.error))
              assert.equal(r.value.serverPid, bridge.serverPid)
              pids = [r.value.serverPid, r.value.pid]
              assert.ok(pids.every(isAlive), 'both run before close()')
            })
            assert.deepEqual(await waitGone(pids), [], 'both are gone after close()')
          } finally {
            // What close() left behind ends here, not 300 s later.
            for (const pid of pids.filter(isAlive)) process.kill(pid, 'SIGKILL')
          }
        })
      }
    })
  }
}

describe('rmcp server narrowed to 2025-11-25 by supported_protocol_versions, unpinned', () => {
  // rmcp's own way to make a server legacy-only: it answers server/discover with "Unsupported
  // protocol version" (-32022) and the revisions it supports, every one of them through
  // initialize, which the bridge speaks.
  for (const mode of ['stdio', 'http']) {
    rtest(`${mode}: connects with initialize and negotiates 2025-11-25`, {}, async () => {
      await withServer(mode, '2025-11-25-narrowed', {}, async (bridge, tool) => {
        assert.equal(bridge.protocolVersion, '2025-11-25')
        assert.deepEqual((await tool('echo').execute({ text: 'narrowed' }, ctx('n1'))).content, [{ type: 'text', text: 'echo: narrowed' }])
      })
    })
  }
  rtest('pinned to 2025-11-25 it connects (the workaround)', {}, async () => {
    await withServer('stdio', '2025-11-25-narrowed', { protocolVersion: '2025-11-25' }, async (bridge) => {
      assert.equal(bridge.protocolVersion, '2025-11-25')
    })
  })
})

describe('rmcp server starting slowly (2.5 s) over stdio, unpinned', () => {
  for (const revision of REVISIONS) {
    rtest(`${revision}: connects and negotiates ${revision}`, {}, async () => {
      await withServer('stdio', revision, { callTimeoutMs: 10_000 }, async (bridge, tool) => {
        assert.equal(bridge.protocolVersion, revision)
        assert.deepEqual((await tool('echo').execute({ text: 'late' }, ctx('s1'))).content, [{ type: 'text', text: 'echo: late' }])
      }, ['--start-delay-ms', '2500'])
    })
  }
})
