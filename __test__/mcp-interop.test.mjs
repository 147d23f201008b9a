// The interop matrix: servers no one here wrote (server-everything and server-filesystem from
// the official TypeScript SDK's authors, and a server written with the official Python SDK),
// over stdio and Streamable HTTP, negotiated and pinned to each revision the server speaks.
// Every call's result is compared field by field with what the official TypeScript SDK
// client returns for the same call.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectMcpTools } from '../lib/mcp/index.mjs'
import { everythingStdio, freePort, startEverythingHttp, startHttpServer } from './fixtures/mcp-helpers.mjs'
import { scriptCommand } from './fixtures/runtime.mjs'
import { underWine, WINE_NO_LOOPBACK_FETCH } from './fixtures/platform.mjs'
import { optionalTest, pythonMcp } from './fixtures/optional-tools.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const PYTHON_SERVER = join(here, 'fixtures', 'python-mcp-server.py')
const FILESYSTEM_MAIN = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js')
const ctx = (toolCallId) => ({ sessionId: 's', runId: 'r', toolCallId })

/** A block as the bridge maps it: text and images kept, the SDK's extra fields dropped. */
function mapped(block) {
  if (block.type === 'text') return { type: 'text', text: block.text }
  if (block.type === 'image') return { type: 'image', mimeType: block.mimeType, data: block.data }
  return { type: block.type }
}

/**
 * The bridge's result for a call equals the SDK client's, field by field: every text and
 * image block in order (other block kinds become text blocks of the bridge's own wording),
 * `structuredContent` as the value, `isError` as an McpToolError carrying the content's text.
 */
function assertSame(bridged, sdk, label) {
  const content = bridged.content ?? []
  assert.equal(content.length, sdk.content.length, `${label}: one block for each`)
  sdk.content.forEach((block, i) => {
    if (block.type === 'text' || block.type === 'image') assert.deepEqual(content[i], mapped(block), `${label}: block ${i}`)
    else assert.equal(content[i].type, 'text', `${label}: block ${i} as text`)
  })
  if (sdk.isError) {
    assert.equal(bridged.error?.name, 'McpToolError', `${label}: an error`)
    const text = sdk.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n')
    assert.equal(bridged.error.message, text, `${label}: the error's message`)
    assert.equal(bridged.value, undefined, `${label}: no value`)
  } else {
    assert.equal(bridged.error, undefined, `${label}: no error`)
    assert.deepEqual(bridged.value, sdk.structuredContent, `${label}: structuredContent`)
  }
}

/** Connects the SDK client and the bridge to the same server and compares each call. */
async function compareCalls({ serverId, bridgeTransport, sdkTransport, protocolVersion, calls, expectRevision }) {
  const client = new Client({ name: 'interop-test', version: '1.0.0' })
  await client.connect(sdkTransport())
  const bridge = await connectMcpTools({ serverId, transport: bridgeTransport, ...(protocolVersion ? { protocolVersion } : {}) })
  const label = `${serverId} ${bridgeTransport.type} ${protocolVersion ?? 'negotiated'}`
  try {
    if (expectRevision) assert.equal(bridge.protocolVersion, expectRevision, `${label}: revision`)
    const listed = (await client.listTools()).tools.map((t) => `mcp:${serverId}:${t.name}`).sort()
    assert.deepEqual(bridge.tools.map((t) => t.name).sort(), listed, `${label}: tools`)
    for (const [name, args] of calls) {
      const sdk = await client.callTool({ name, arguments: args })
      const tool = bridge.tools.find((t) => t.name === `mcp:${serverId}:${name}`)
      const bridged = await tool.execute(args, ctx(name))
      assertSame(bridged, sdk, `${label} ${name}`)
    }
  } finally {
    await bridge.close()
    await client.close()
  }
}

// --- The official Python SDK's server -----------------------------------------------------

const py = pythonMcp()
const PYTHON_CALLS = [
  ['add', { a: 2, b: 40 }],
  ['shout', { text: 'quiet' }],
  ['explode', { reason: 'boom' }],
  ['describe', { name: 'prism' }],
]

optionalTest('Python SDK server over stdio: every tool equals the SDK client, negotiated (2026-07-28) and pinned to older revisions', py.missing, async () => {
  const transport = { type: 'stdio', command: py.python, args: [PYTHON_SERVER, 'stdio'], stderr: 'ignore' }
  for (const [protocolVersion, expectRevision] of [[undefined, '2026-07-28'], ['2025-11-25', '2025-11-25'], ['2025-06-18', '2025-06-18']]) {
    await compareCalls({
      serverId: 'py',
      bridgeTransport: transport,
      sdkTransport: () => new StdioClientTransport({ command: py.python, args: [PYTHON_SERVER, 'stdio'], stderr: 'ignore' }),
      protocolVersion,
      expectRevision,
      calls: PYTHON_CALLS,
    })
  }
})

optionalTest('Python SDK server over Streamable HTTP: every tool equals the SDK client, negotiated and pinned', py.missing, async () => {
  const port = await freePort()
  const server = await startHttpServer(py.python, [PYTHON_SERVER, 'streamable-http', String(port)], port)
  try {
    const transport = { type: 'streamable-http', url: server.url, allowedOrigins: [server.origin], allowLoopbackHttp: true }
    for (const protocolVersion of [undefined, '2025-11-25', '2025-06-18']) {
      await compareCalls({
        serverId: 'pyhttp',
        bridgeTransport: transport,
        sdkTransport: () => new StreamableHTTPClientTransport(new URL(server.url)),
        protocolVersion,
        expectRevision: protocolVersion,
        calls: PYTHON_CALLS,
      })
    }
  } finally {
    await server.stop()
  }
})

// --- server-everything and server-filesystem (TypeScript SDK) ----------------------------------

const EVERYTHING_CALLS = [
  ['echo', { message: 'interop' }],
  ['get-sum', { a: 19, b: 23 }],
  ['get-structured-content', { location: 'New York' }],
  ['get-tiny-image', {}],
  ['get-annotated-message', { messageType: 'error', includeImage: false }],
]

test('server-everything over stdio: results equal the SDK client, negotiated and pinned', async () => {
  const stdio = everythingStdio()
  for (const protocolVersion of [undefined, '2025-11-25', '2025-06-18']) {
    await compareCalls({
      serverId: 'everything',
      bridgeTransport: stdio,
      sdkTransport: () => new StdioClientTransport({ command: stdio.command, args: stdio.args, stderr: 'ignore' }),
      protocolVersion,
      expectRevision: protocolVersion,
      calls: EVERYTHING_CALLS,
    })
  }
})

// The SDK client's side of the comparison goes through Node's own fetch.
test('server-everything over Streamable HTTP: results equal the SDK client, negotiated and pinned', { skip: underWine(WINE_NO_LOOPBACK_FETCH) }, async () => {
  const server = await startEverythingHttp()
  try {
    for (const protocolVersion of [undefined, '2025-06-18']) {
      await compareCalls({
        serverId: 'everythinghttp',
        bridgeTransport: { type: 'streamable-http', url: server.url, allowedOrigins: [server.origin], allowLoopbackHttp: true },
        sdkTransport: () => new StreamableHTTPClientTransport(new URL(server.url)),
        protocolVersion,
        expectRevision: protocolVersion,
        calls: EVERYTHING_CALLS,
      })
    }
  } finally {
    await server.stop()
  }
})

test('server-filesystem over stdio: reads, listings and a refused path equal the SDK client', async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'prism-fs-')))
  try {
    writeFileSync(join(dir, 'note.txt'), 'hello from the filesystem server\n')
    const args = [FILESYSTEM_MAIN, dir]
    for (const protocolVersion of [undefined, '2025-06-18']) {
      await compareCalls({
        serverId: 'fs',
        bridgeTransport: { type: 'stdio', ...scriptCommand(...args), stderr: 'ignore' },
        sdkTransport: () => new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore' }),
        protocolVersion,
        expectRevision: protocolVersion,
        calls: [
          ['list_allowed_directories', {}],
          ['read_text_file', { path: join(dir, 'note.txt') }],
          ['list_directory', { path: dir }],
          ['read_text_file', { path: '/etc/hostname-outside-the-root' }],
        ],
      })
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
