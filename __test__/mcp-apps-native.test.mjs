// MCP Apps (`mcpApps: true`) on the engine's own session, over stdio and Streamable HTTP:
// connectMcpTools and connectMcpCapabilities against a server offering the
// `io.modelcontextprotocol/ui` extension, compared with the same server through a host's SDK
// client (attachMcpToolBridge, attachMcpCapabilities): the negotiation, the split of the
// model's tools from the app tools, the `ui://` resources read and refused, and the app's calls.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import * as mcp from '../lib/mcp/index.mjs'
import { freePort, startHttpServer, waitGone } from './fixtures/mcp-helpers.mjs'
import { scriptCommand } from './fixtures/runtime.mjs'

const { connectMcpTools, connectMcpCapabilities, attachMcpToolBridge, attachMcpCapabilities, createMcpCapabilityClient } = mcp
const here = dirname(fileURLToPath(import.meta.url))
const SERVER = join(here, 'fixtures', 'mcp-apps-server.mjs')
/** The fixture's view (`fixtures/mcp-apps-server.mjs`). */
const VIEW_HTML = '<!DOCTYPE html><html><head><title>view</title></head><body>view</body></html>'
const NOT_NEGOTIATED = 'MCP Apps extension was not negotiated'
/** Small enough that the large resource's read result breaks it, large enough for the rest. */
const MAX_RESULT_BYTES = 3000

const stdio = (env = {}) => ({ type: 'stdio', ...scriptCommand(SERVER), env: { ...env }, stderr: 'ignore' })
const http = (server) => ({ type: 'streamable-http', url: server.url, allowedOrigins: [server.origin], allowLoopbackHttp: true })

/** Runs `fn(transports)` with a stdio and a Streamable HTTP way to the fixture, `env` set. */
async function withServers(env, fn) {
  const port = await freePort()
  const server = await startHttpServer(process.execPath, [SERVER], port, { PORT: String(port), ...env })
  try {
    await fn({
      stdio: { native: stdio(env), host: () => new StdioClientTransport({ ...scriptCommand(SERVER), env: { ...process.env, ...env }, stderr: 'ignore' }) },
      // The host's SDK client over the SDK's HTTP transport from createMcpTransport (the
      // engine's fetch under it): Node's own fetch to loopback fails under Wine.
      http: { native: http(server), host: () => mcp.createMcpTransport(http(server)) },
    })
  } finally {
    await server.stop()
  }
}

/** The host-client path: the SDK client declaring the extension, connected over `transport`. */
async function hostClient(transport) {
  const client = createMcpCapabilityClient({ mcpApps: true })
  await client.connect(transport)
  return client
}

/** How a promise (or a call) settles: its value, or the error's class, code and message. */
async function outcome(fn) {
  try {
    return { value: await fn() }
  } catch (err) {
    return { error: { name: err.name, code: err.code, message: err.message } }
  }
}

/** Everything a host sees of a bridge with MCP Apps, for the two paths to be compared. */
async function observe(bridge) {
  return {
    tools: bridge.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters, effect: t.effect })),
    negotiated: bridge.apps.negotiated,
    serverId: bridge.apps.serverId,
    apps: bridge.apps.tools,
    resources: await bridge.apps.listResources(),
    view: await outcome(() => bridge.apps.readResource('ui://apps/view')),
    notUi: await outcome(() => bridge.apps.readResource('https://apps/view')),
    undeclared: await outcome(() => bridge.apps.readResource('ui://apps/none')),
    wrongMime: await outcome(() => bridge.apps.readResource('ui://apps/odd')),
    overBound: await outcome(() => bridge.apps.readResource('ui://apps/big')),
    poke: await outcome(() => bridge.apps.callTool('poke', {}, { toolCallId: 'c1' })),
    modelOnly: await outcome(() => bridge.apps.callTool('model_only', {}, { toolCallId: 'c2' })),
    unknown: await outcome(() => bridge.apps.callTool('nope', {}, { toolCallId: 'c3' })),
  }
}

/** What the fixture's resources and tools make of MCP Apps, checked on one path. */
function assertExpected(seen) {
  assert.deepEqual(
    seen.tools.map((t) => t.name),
    ['mcp:apps:show', 'mcp:apps:model_only', 'mcp:apps:plain', 'mcp:apps:client_extensions'],
  )
  assert.deepEqual(
    seen.apps.map((t) => [t.prismName, t.resourceUri, t.visibility]),
    [
      ['mcp:apps:show', 'ui://apps/view', ['model', 'app']],
      ['mcp:apps:poke', 'ui://apps/view', ['app']],
      ['mcp:apps:model_only', undefined, ['model']],
      ['mcp:apps:odd', 'ui://apps/odd', ['app']],
      ['mcp:apps:big', 'ui://apps/big', ['app']],
      ['mcp:apps:plain', undefined, ['model', 'app']],
      ['mcp:apps:client_extensions', undefined, ['model', 'app']],
    ],
  )
  assert.equal(seen.negotiated, true)
  assert.equal(seen.serverId, 'apps')
  assert.deepEqual(
    seen.resources.map((r) => r.uri),
    ['ui://apps/view', 'ui://apps/big'],
  )
  assert.deepEqual(seen.resources[0].ui, { csp: { resourceDomains: ['https://cdn.example'] }, prefersBorder: true })
  // The content's metadata supersedes the listing's.
  assert.deepEqual(seen.view.value, {
    uri: 'ui://apps/view',
    name: 'show',
    description: 'Shows the view',
    mimeType: 'text/html;profile=mcp-app',
    html: VIEW_HTML,
    ui: { permissions: { camera: true } },
  })
  assert.match(seen.notUi.error.message, /^MCP App resource URI is invalid$/)
  assert.match(seen.undeclared.error.message, /^MCP App resource is unavailable$/)
  assert.match(seen.wrongMime.error.message, /^MCP App resource must be declared HTML$/)
  assert.match(seen.overBound.error.message, new RegExp(`exceeds ${MAX_RESULT_BYTES} bytes`))
  assert.equal(seen.poke.value.name, 'mcp:apps:poke')
  assert.deepEqual(seen.poke.value.content, [{ type: 'text', text: 'poke done' }])
  assert.equal(seen.modelOnly.error.message, 'MCP App tool is unavailable')
  assert.equal(seen.unknown.error.message, 'MCP App tool is unavailable')
}

/** The declared extensions the fixture saw in `initialize`, through its tool. */
async function declaredExtensions(bridge) {
  const tool = bridge.tools.find((t) => t.name === 'mcp:apps:client_extensions')
  const result = await tool.execute({}, { toolCallId: 'x' })
  return JSON.parse(result.content[0].text)
}

const OPTIONS = { serverId: 'apps', mcpApps: true, maxResultBytes: MAX_RESULT_BYTES }

for (const kind of ['stdio', 'http']) {
  test(`connectMcpTools with mcpApps over ${kind}: the host-client path's tools, apps, resources and calls`, async () => {
    await withServers({}, async (ways) => {
      const way = ways[kind]
      const native = await connectMcpTools({ ...OPTIONS, transport: way.native })
      const transport = way.host()
      const host = await attachMcpToolBridge(await hostClient(transport), transport, OPTIONS)
      try {
        assert.deepEqual(await declaredExtensions(native), { 'io.modelcontextprotocol/ui': {} })
        const seen = await observe(native)
        assertExpected(seen)
        assert.deepEqual(seen, await observe(host))
        // A refresh keeps the split.
        await native.refresh()
        assert.deepEqual(
          native.apps.tools.map((t) => t.name),
          seen.apps.map((t) => t.name),
        )
      } finally {
        await native.close()
        await host.close()
      }
      assert.throws(() => native.apps.tools, { name: 'McpBridgeClosedError' })
      await assert.rejects(native.apps.readResource('ui://apps/view'), { name: 'McpBridgeClosedError' })
    })
  })

  test(`connectMcpTools without mcpApps over ${kind}: every tool, no apps, nothing declared`, async () => {
    await withServers({}, async (ways) => {
      const bridge = await connectMcpTools({ serverId: 'apps', transport: ways[kind].native })
      try {
        assert.equal(bridge.apps, undefined)
        assert.equal(bridge.tools.length, 7)
        assert.equal(await declaredExtensions(bridge), null)
      } finally {
        await bridge.close()
      }
    })
  })

  test(`connectMcpTools with mcpApps over ${kind} on an earlier revision: the tools' metadata still reaches the judgement`, async () => {
    await withServers({}, async (ways) => {
      const bridge = await connectMcpTools({ ...OPTIONS, protocolVersion: '2025-06-18', transport: ways[kind].native })
      try {
        assert.equal(bridge.protocolVersion, '2025-06-18')
        assertExpected(await observe(bridge))
      } finally {
        await bridge.close()
      }
    })
  })

  test(`connectMcpCapabilities with mcpApps over ${kind}: as attachMcpCapabilities`, async () => {
    await withServers({}, async (ways) => {
      const way = ways[kind]
      const native = await connectMcpCapabilities({ ...OPTIONS, transport: way.native })
      const transport = way.host()
      const host = await attachMcpCapabilities(await hostClient(transport), transport, OPTIONS)
      try {
        assert.deepEqual(await declaredExtensions(native), { 'io.modelcontextprotocol/ui': {} })
        const seen = await observe(native)
        assertExpected(seen)
        assert.deepEqual(seen, await observe(host))
        // The capability methods stay beside the apps.
        assert.deepEqual(
          (await native.listResources()).map((r) => r.uri),
          ['ui://apps/view', 'ui://apps/odd', 'ui://apps/big'],
        )
      } finally {
        await native.close()
        await host.close()
      }
    })
  })

  test(`not negotiated over ${kind}: both connects fail as the host-client path, and the server is let go`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prism-apps-'))
    try {
      const pidFile = join(dir, 'pid')
      await withServers({ MCP_APPS_ACK: '0', MCP_APPS_PID_FILE: pidFile }, async (ways) => {
        const way = ways[kind]
        const transport = way.host()
        const expected = await outcome(async () => attachMcpToolBridge(await hostClient(transport), transport, OPTIONS))
        await transport.close()
        assert.equal(expected.error?.message, NOT_NEGOTIATED)
        for (const connect of [connectMcpTools, connectMcpCapabilities]) {
          const seen = await outcome(() => connect({ ...OPTIONS, transport: way.native }))
          assert.deepEqual(seen, expected, connect.name)
          if (kind === 'stdio') {
            const pid = Number(readFileSync(pidFile, 'utf8'))
            assert.deepEqual(await waitGone([pid]), [], `${connect.name}: the server process is gone`)
          }
        }
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
}
