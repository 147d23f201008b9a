// transport.resolveHostname (the reference's DNS seam) on connectMcpTools and on the SDK
// transport of createMcpTransport: the engine asks the host for the server's addresses, bounds
// and checks its answer as it checks the system resolver's, and pins what it checked.
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { connectMcpTools, createMcpTransport } from '../lib/mcp/index.mjs'
import { startEverythingHttp } from './fixtures/mcp-helpers.mjs'

let everything
before(async () => {
  everything = await startEverythingHttp()
})
after(() => everything.stop())

// A name only the host's resolver knows (plain http is allowed to *.localhost names).
const NAME = 'everything.localhost'
const transport = (resolveHostname) => ({
  type: 'streamable-http',
  url: `http://${NAME}:${everything.port}/mcp`,
  allowedOrigins: [`http://${NAME}:${everything.port}`],
  allowLoopbackHttp: true,
  resolveHostname,
})

test('connectMcpTools resolves through the host once and connects to the address it gave', async () => {
  const asked = []
  const bridge = await connectMcpTools({
    serverId: 'everything',
    transport: transport(async (hostname, signal) => {
      asked.push([hostname, signal instanceof AbortSignal])
      return [{ address: '127.0.0.1', family: 4 }]
    }),
  })
  try {
    const echo = bridge.tools.find((t) => t.name === 'mcp:everything:echo')
    const result = await echo.execute({ message: 'resolved' }, { sessionId: 's', runId: 'r', toolCallId: 'c' })
    assert.deepEqual(result.content, [{ type: 'text', text: 'Echo: resolved' }])
    assert.deepEqual(asked, [[NAME, true]])
  } finally {
    await bridge.close()
  }
})

test("the host's answer is checked as DNS answers are, and bounded", async () => {
  const connect = (resolveHostname, extra = {}) => connectMcpTools({ serverId: 'everything', transport: transport(resolveHostname), ...extra })
  await assert.rejects(connect(async () => [{ address: '10.0.0.1', family: 4 }]), { code: 'ERR_PRISM_MCP_NOT_PUBLIC', message: 'MCP server address 10.0.0.1 is not public' })
  // One private address among public ones fails the whole answer.
  await assert.rejects(connect(async () => [{ address: '127.0.0.1', family: 4 }, { address: '169.254.169.254', family: 4 }]), { code: 'ERR_PRISM_MCP_NOT_PUBLIC' })
  await assert.rejects(connect(async () => Array(33).fill({ address: '127.0.0.1', family: 4 })), {
    message: `MCP connect failed: cannot resolve ${NAME}: resolveHostname returned 33 addresses (1 to 32 allowed)`,
  })
  await assert.rejects(connect(async () => []), /returned 0 addresses/)
  await assert.rejects(connect(async () => [{ address: '127.0.0.1', family: 6 }]), /not \{ address, family: 4 \| 6 \}/)
  await assert.rejects(connect(async () => { throw new Error('ENOTFOUND') }), { message: `MCP connect failed: cannot resolve ${NAME}: ENOTFOUND` })
  // A resolver that never answers: the connect timeout, and its signal is aborted.
  let signal
  await assert.rejects(
    connect((hostname, s) => {
      signal = s
      return new Promise(() => {})
    }, { callTimeoutMs: 300 }),
    { code: 'ERR_PRISM_MCP_CONNECT_TIMEOUT' },
  )
  await new Promise((resolve) => setTimeout(resolve, 50))
  assert.equal(signal.aborted, true)
})

test('createMcpTransport: the SDK transport resolves through the host too', async () => {
  let asked = 0
  const client = new Client({ name: 'host', version: '1.0.0' })
  await client.connect(createMcpTransport(transport(async () => {
    asked += 1
    return [{ address: '127.0.0.1', family: 4 }]
  })))
  try {
    assert.ok((await client.listTools()).tools.length > 0)
    assert.equal(asked, 1, 'resolved once, then pinned')
  } finally {
    await client.close()
  }
  const refused = new Client({ name: 'host', version: '1.0.0' })
  await assert.rejects(refused.connect(createMcpTransport(transport(async () => [{ address: '192.168.1.1', family: 4 }]))), /192\.168\.1\.1 is not public/)
})
