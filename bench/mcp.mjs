// MCP bridge: prism-native (rmcp, in Rust) vs the official @modelcontextprotocol/sdk client,
// both against the same stdio server, side by side in one run: server-everything (TypeScript
// SDK), then, when the official Python SDK is installed (PRISM_MCP_PYTHON, else python3), a
// server written with it (__test__/fixtures/python-mcp-server.py).
// Usage: npm run bench -- mcp   (internal: node bench/mcp.mjs --child <client> <what>;
// MCP_BENCH_SERVER=python picks the Python server)
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))
const EVERYTHING = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js')
const PYTHON = process.env.PRISM_MCP_PYTHON || 'python3'
const PYTHON_SERVER = join(here, '..', '__test__', 'fixtures', 'python-mcp-server.py')
// Each server: how to start it, how many tools it lists, and its echo-like tool.
const SERVERS = {
  everything: { name: 'server-everything', stdio: { command: process.execPath, args: [EVERYTHING, 'stdio'] }, tools: 13, tool: 'echo', args: (message) => ({ message }) },
  python: { name: 'the Python SDK server', stdio: { command: PYTHON, args: [PYTHON_SERVER, 'stdio'] }, tools: 4, tool: 'shout', args: (text) => ({ text }) },
}
const SERVER = SERVERS[process.env.MCP_BENCH_SERVER ?? 'everything']
const STDIO = { ...SERVER.stdio, stderr: 'ignore' }
// Warm-up turns of 64 calls per client before the throughput is timed (MCP_BENCH_WARM_TURNS).
// MCP_BENCH_PROTOCOL pins the bridge's protocol revision (default: negotiated).
const PROTOCOL = process.env.MCP_BENCH_PROTOCOL || undefined
const WARM_TURNS = Number(process.env.MCP_BENCH_WARM_TURNS ?? 200)

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
async function waitGone(pid) {
  while (pid && alive(pid)) await new Promise((r) => setTimeout(r, 1))
}

async function loadNative() {
  const { connectMcpTools } = await import('../lib/mcp/index.mjs')
  return {
    async connect() {
      const bridge = await connectMcpTools({ serverId: 'bench', transport: { type: 'stdio', ...STDIO }, protocolVersion: PROTOCOL })
      const echo = bridge.tools.find((t) => t.name === `mcp:bench:${SERVER.tool}`)
      let n = 0
      return {
        count: bridge.tools.length,
        pid: bridge.serverPid,
        echo: (message) => echo.execute(SERVER.args(message), { sessionId: 's', runId: 'r', toolCallId: `c${n++}` }),
        close: () => bridge.close(),
      }
    },
  }
}

async function loadSdk() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  return {
    async connect() {
      const client = new Client({ name: 'bench', version: '1.0.0' })
      const transport = new StdioClientTransport(STDIO)
      await client.connect(transport)
      const { tools } = await client.listTools()
      return {
        count: tools.length,
        pid: transport.pid,
        echo: (message) => client.callTool({ name: SERVER.tool, arguments: SERVER.args(message) }),
        close: () => client.close(),
      }
    },
  }
}

const LOADERS = { native: loadNative, sdk: loadSdk }

// Child modes run in a fresh process so that import cost and RSS are the client's own.
async function child(client, what) {
  const t0 = performance.now()
  const api = await LOADERS[client]()
  const session = await api.connect()
  const ready = performance.now() - t0
  if (what === 'rss') {
    for (let i = 0; i < 200; i++) await session.echo('rss')
    await Promise.all(Array.from({ length: 64 }, () => session.echo('rss')))
    globalThis.gc?.()
    const rss = process.memoryUsage().rss
    await session.close()
    process.stdout.write(JSON.stringify({ rss }))
    return
  }
  await session.close()
  await waitGone(session.pid)
  process.stdout.write(JSON.stringify({ ready }))
}

function runChild(client, what) {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', client, what], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${client} ${what} child failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

async function main() {
  const ROUNDS = Number(process.env.MCP_BENCH_ROUNDS ?? 5)
  const rows = {}
  const put = (name, client, v) => ((rows[name] ??= {})[client] = v)

  // one-time host cost: a fresh process, import + connect + list
  const cold = { native: [], sdk: [] }
  for (let i = 0; i < ROUNDS; i++) for (const c of ['native', 'sdk']) cold[c].push(runChild(c, 'cold').ready)
  for (const c of ['native', 'sdk']) put('connect + list incl. client load (ms)', c, median(cold[c]))

  const apis = { native: await loadNative(), sdk: await loadSdk() }
  const warm = { native: [], sdk: [] }
  const close = { native: [], sdk: [] }
  for (let i = 0; i < ROUNDS; i++) {
    for (const c of ['native', 'sdk']) {
      let t = performance.now()
      const s = await apis[c].connect()
      warm[c].push(performance.now() - t)
      if (s.count !== SERVER.tools) throw new Error(`${c} listed ${s.count} tools`)
      t = performance.now()
      await s.close()
      await waitGone(s.pid)
      close[c].push(performance.now() - t)
    }
  }
  for (const c of ['native', 'sdk']) {
    put('connect + list (ms)', c, median(warm[c]))
    put('close incl. process tree end (ms)', c, median(close[c]))
  }

  for (const c of ['native', 'sdk']) {
    const s = await apis[c].connect()
    for (let i = 0; i < 50; i++) await s.echo('warm')
    const lat = []
    for (let i = 0; i < 500; i++) {
      const t = performance.now()
      const r = await s.echo('hello')
      lat.push(performance.now() - t)
      if (!r.content) throw new Error('bad echo')
    }
    put('sequential echo latency, median (ms)', c, median(lat))
    await s.close()
    await waitGone(s.pid)
  }

  // Throughput: both clients connected at once, each warmed with WARM_TURNS turns (the
  // server's own JIT needs a few thousand calls: its first 50 turns run at about half its
  // later rate), then their turns alternate (60 each), so a busy moment of the machine slows
  // both alike.
  const sessions = { native: await apis.native.connect(), sdk: await apis.sdk.connect() }
  const turn = (s) => Promise.all(Array.from({ length: 64 }, (_, i) => s.echo(`m${i}`)))
  for (const c of ['native', 'sdk']) for (let i = 0; i < WARM_TURNS; i++) await turn(sessions[c])
  const tput = { native: [], sdk: [] }
  for (let round = 0; round < 60; round++) {
    for (const c of ['native', 'sdk']) {
      const t = performance.now()
      await turn(sessions[c])
      tput[c].push((64 / (performance.now() - t)) * 1000)
    }
  }
  for (const c of ['native', 'sdk']) {
    put('64 concurrent echo calls, throughput (calls/s)', c, median(tput[c]))
    await sessions[c].close()
    await waitGone(sessions[c].pid)
  }

  const rss = { native: [], sdk: [] }
  for (let i = 0; i < 3; i++) for (const c of ['native', 'sdk']) rss[c].push(runChild(c, 'rss').rss / 1024 / 1024)
  for (const c of ['native', 'sdk']) put('host RSS after connect + 264 calls (MiB)', c, median(rss[c]))

  console.log(`MCP bridge vs @modelcontextprotocol/sdk, ${SERVER.name} over stdio, ${ROUNDS} rounds, medians`)
  console.log('| measure | prism-native | sdk | ratio (native/sdk) |')
  console.log('|---|---|---|---|')
  for (const [name, v] of Object.entries(rows)) {
    console.log(`| ${name} | ${v.native.toFixed(name.includes('latency') ? 3 : 1)} | ${v.sdk.toFixed(name.includes('latency') ? 3 : 1)} | ${(v.native / v.sdk).toFixed(2)}× |`)
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4])
else {
  await main()
  if (SERVER === SERVERS.everything) {
    const probe = spawnSync(PYTHON, ['-c', 'import mcp.server.mcpserver'])
    if (probe.status === 0) {
      console.log('')
      spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { stdio: 'inherit', env: { ...process.env, MCP_BENCH_SERVER: 'python' } })
    } else console.log('\n(the Python SDK server is skipped: pip install mcp==2.3.0 and set PRISM_MCP_PYTHON)')
  }
}
