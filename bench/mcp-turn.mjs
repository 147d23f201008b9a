// One agent turn of 64 concurrent MCP `echo` calls against server-everything over stdio, each
// call through the whole stack a host runs: dispatchToolCallsInOrder (concurrency 64) →
// dispatchToolCall with a static permission policy, the JSON Schema argument validator and
// secret redaction → the MCP bridge tool. Side by side in one run:
//   - prism-native (its connectMcpTools on rmcp, its validator, scheduler and dispatch);
//   - the same with the options bound by createToolDispatcher ("native turn"): each call is
//     planned in JS and runs in the engine (schema check and MCP call), a turn's calls
//     started in one crossing;
//   - the reference's own stack (its connectMcpTools on the JS SDK, its Ajv adapter, its
//     scheduler and dispatch), when PRISM_REFERENCE_DIR names the reference's built checkout
//     (the `ref/` folder of the reference-suite scratch dir);
//   - the bridges alone: prism-native's tool `execute` and the official SDK client's
//     `callTool`, 64 at once, no gates;
//   - a bare line-protocol client written here (JSON-RPC lines straight to the server's stdin,
//     no validation, no gates): the server's own ceiling on this machine.
// Each stack runs in its own child process, the stacks taking turns. Prints calls/s (median of
// the timed turns), host CPU per call (user + system of the child, all threads, from
// process.cpuUsage) and the server's CPU per call (all its threads, from /proc on Linux) for
// each. With MCP_TURN_EMIT=1 each stack's dispatch also has an `emit` callback (a host that
// records its events): the native turn then takes the gated path, the events delivered at their
// gates. Usage: node bench/mcp-turn.mjs
import { spawn, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { median } from './_stats.mjs'
import { hostTurn } from './_turn.mjs'

const require = createRequire(import.meta.url)
const SERVER = join(dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist', 'index.js')
const STDIO = { type: 'stdio', command: process.execPath, args: [SERVER, 'stdio'], stderr: 'ignore' }
const CALLS = 64
// Turns before timing, in every stack alike: the server's own JIT needs a few thousand calls
// (its first 50 turns run at about half its later rate). MCP_TURN_WARM_TURNS overrides it.
const WARM_TURNS = Number(process.env.MCP_TURN_WARM_TURNS ?? 200)
const ROUNDS = Number(process.env.MCP_TURN_ROUNDS ?? 3)
const TURNS_PER_ROUND = 40
const SECRET = 'sk-bench-secret-value'
// MCP_TURN_EMIT=1: every stack's dispatch has this `emit`, as a host that records its events.
const EMIT = process.env.MCP_TURN_EMIT === '1' ? (event) => void event.type : undefined

const turnCalls = (turn) =>
  Array.from({ length: CALLS }, (_, i) => ({ type: 'tool_call', id: `t${turn}c${i}`, name: 'mcp:everything:echo', arguments: { message: `m${i}` } }))

/** A host's turn over one library's stack and bridge (see _turn.mjs). */
function stackTurn(lib, bridge, validate, bound = false) {
  const run = hostTurn(lib, { tools: bridge.tools, allow: ['tool:mcp:everything:echo:execute'], validate, secrets: [SECRET], bound, emit: EMIT })
  let turn = 0
  return async () => {
    const history = await run(turnCalls(turn++))
    const first = history[0].content[0]
    if (first.error) throw new Error(`echo failed: ${first.error.message}`)
  }
}

async function nativeStack() {
  const lib = await import('prism-native')
  const { connectMcpTools } = await import('prism-native/mcp')
  const { createJsonSchemaToolArgumentValidator } = await import('prism-native/validation/json-schema')
  const bridge = await connectMcpTools({ serverId: 'everything', transport: STDIO })
  return { name: 'prism-native', turn: stackTurn(lib, bridge, createJsonSchemaToolArgumentValidator()), close: () => bridge.close() }
}

/** The same turn with the options bound by createToolDispatcher: the calls run natively. */
async function nativeTurn() {
  const lib = await import('prism-native')
  const { connectMcpTools } = await import('prism-native/mcp')
  const { createJsonSchemaToolArgumentValidator } = await import('prism-native/validation/json-schema')
  const bridge = await connectMcpTools({ serverId: 'everything', transport: STDIO })
  return { name: 'prism-native native turn', turn: stackTurn(lib, bridge, createJsonSchemaToolArgumentValidator(), true), close: () => bridge.close() }
}

/** The bridge's tool alone, 64 `execute` calls at once: what the stack above adds is the rest. */
async function nativeBridgeOnly() {
  const { connectMcpTools } = await import('prism-native/mcp')
  const bridge = await connectMcpTools({ serverId: 'everything', transport: STDIO })
  const echo = bridge.tools.find((t) => t.name === 'mcp:everything:echo')
  let n = 0
  return {
    name: 'prism-native bridge only',
    turn: async () => {
      const out = await Promise.all(Array.from({ length: CALLS }, (_, i) => echo.execute({ message: `m${i}` }, { sessionId: 's', runId: 'r', toolCallId: `b${n++}` })))
      if (out.some((r) => r.error)) throw new Error('bridge echo failed')
    },
    close: () => bridge.close(),
  }
}

/** The official SDK client alone, 64 `callTool` at once: the peer of the bridge above. */
async function sdkClientOnly() {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(new StdioClientTransport(STDIO))
  await client.listTools()
  return {
    name: 'SDK client only',
    turn: async () => {
      const out = await Promise.all(Array.from({ length: CALLS }, (_, i) => client.callTool({ name: 'echo', arguments: { message: `m${i}` } })))
      if (out.some((r) => r.isError)) throw new Error('sdk echo failed')
    },
    close: () => client.close(),
  }
}

async function referenceStack(dir) {
  const at = (p) => import(pathToFileURL(join(dir, p)).href)
  const lib = await at('dist/index.js')
  const { connectMcpTools } = await at('packages/mcp/dist/index.js')
  const { createJsonSchemaToolArgumentValidator } = await at('packages/tool-validator-json-schema/dist/index.js')
  const bridge = await connectMcpTools({ serverId: 'everything', transport: STDIO })
  return { name: 'reference', turn: stackTurn(lib, bridge, createJsonSchemaToolArgumentValidator()), close: () => bridge.close() }
}

/** The ceiling: JSON-RPC lines written and read directly, ids matched, nothing else. */
async function bareClient() {
  const child = spawn(STDIO.command, STDIO.args, { stdio: ['pipe', 'pipe', 'ignore'] })
  const waiting = new Map()
  let nextId = 1
  let buffered = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk) => {
    buffered += chunk
    let nl
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      if (!line.trim()) continue
      const msg = JSON.parse(line)
      const done = waiting.get(msg.id)
      if (done) {
        waiting.delete(msg.id)
        done(msg)
      }
    }
  })
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++
      waiting.set(id, resolve)
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bare', version: '1' } })
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
  await request('tools/list', {})
  return {
    name: 'bare line protocol',
    turn: async () => {
      const out = await Promise.all(Array.from({ length: CALLS }, (_, i) => request('tools/call', { name: 'echo', arguments: { message: `m${i}` } })))
      if (out.some((m) => !m.result)) throw new Error('bare echo failed')
    },
    close: async () => {
      child.stdin.end()
      child.kill('SIGTERM')
    },
  }
}

/** CPU time (ns) of every thread of this process's children (the server), from /proc; NaN
 * where /proc does not say. Read outside the host's CPU window. */
function serverCpuNs() {
  try {
    let total = 0
    for (const tid of readdirSync('/proc/self/task')) {
      const kids = readFileSync(`/proc/self/task/${tid}/children`, 'utf8').split(' ').filter(Boolean)
      for (const pid of kids) {
        for (const t of readdirSync(`/proc/${pid}/task`)) total += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0])
      }
    }
    return total
  } catch {
    return Number.NaN
  }
}

async function timeTurns(client, turns, samples, cpu, serverCpu) {
  for (let i = 0; i < turns; i++) {
    const s0 = serverCpuNs()
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await client.turn()
    const ms = performance.now() - t0
    const c = process.cpuUsage(c0)
    const s = serverCpuNs() - s0
    samples.push((CALLS / ms) * 1000)
    cpu.push((c.user + c.system) / CALLS)
    serverCpu.push(s / 1000 / CALLS)
  }
}

const STACKS = {
  'prism-native': nativeStack,
  'prism-native native turn': nativeTurn,
  'prism-native bridge only': nativeBridgeOnly,
  'SDK client only': sdkClientOnly,
  reference: () => referenceStack(process.env.PRISM_REFERENCE_DIR),
  'bare line protocol': bareClient,
}

// A child process measures one stack: a host runs one stack, so its garbage, threads and
// server do not disturb the others' turns. Prints {rate: [...], cpu: [...], server: [...]}.
async function child(name) {
  const s = await STACKS[name]()
  const rate = []
  const cpu = []
  const server = []
  for (let i = 0; i < WARM_TURNS; i++) await s.turn()
  await timeTurns(s, TURNS_PER_ROUND, rate, cpu, server)
  await s.close()
  process.stdout.write(JSON.stringify({ rate, cpu, server }))
}

function runChild(name) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', name], { encoding: 'utf8', env: process.env })
  if (r.status !== 0) throw new Error(`${name} child failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

async function main() {
  const names = Object.keys(STACKS).filter((n) => n !== 'reference' || process.env.PRISM_REFERENCE_DIR)
  if (!process.env.PRISM_REFERENCE_DIR) console.warn('PRISM_REFERENCE_DIR not set: the reference stack is not measured')
  const rate = new Map(names.map((n) => [n, []]))
  const cpu = new Map(names.map((n) => [n, []]))
  const server = new Map(names.map((n) => [n, []]))
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order so that drift on a shared machine hits every stack alike.
    for (let k = 0; k < names.length; k++) {
      const name = names[(r + k) % names.length]
      const out = runChild(name)
      rate.get(name).push(...out.rate)
      cpu.get(name).push(...out.cpu)
      server.get(name).push(...out.server)
    }
  }
  const nativeRate = median(rate.get('prism-native'))
  console.log(`\n64 concurrent MCP echo calls per turn, ${ROUNDS} processes x ${TURNS_PER_ROUND} turns per stack, medians`)
  console.log("| stack | calls/s | host CPU per call (us, all threads) | the server's CPU per call (us) | prism-native rate / this |")
  console.log('|---|---|---|---|---|')
  for (const name of names) {
    const r = median(rate.get(name))
    const sv = median(server.get(name))
    console.log(`| ${name} | ${r.toFixed(0)} | ${median(cpu.get(name)).toFixed(1)} | ${Number.isFinite(sv) ? sv.toFixed(1) : 'n/a'} | ${(nativeRate / r).toFixed(2)} |`)
  }
  const bridgeVsSdk = median(rate.get('prism-native bridge only')) / median(rate.get('SDK client only'))
  console.log(`bridge alone / SDK client alone: ${bridgeVsSdk.toFixed(2)}x`)
  console.log('targets: >= 1.8x the reference stack, CPU per call <= 1/3 of the reference, >= 85% of the bare ceiling; the bridge alone >= 1.2x the SDK client')
}

if (process.argv[2] === '--child') await child(process.argv[3])
else await main()
