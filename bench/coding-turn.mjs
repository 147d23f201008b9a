// One agent turn of 64 coding-tool calls through the whole stack a host runs:
// dispatchToolCallsInOrder (concurrency 64) → dispatchToolCall with a static permission policy,
// the JSON Schema argument validator and secret redaction → the coding tool. Two turns:
//   - reads: 64 reads of small files (4 KB each);
//   - mixed: 32 reads and 32 edits, each edit on a file of its own (so the turn's calls may
//     run together), each edit flipping one word back and forth from turn to turn.
// Side by side in one run: prism-native (its read and edit tools, validator, scheduler and
// dispatch), prism-native with the options bound by createToolDispatcher ("native turn": a
// turn's reads run in the engine, crossing together) and the reference's own stack (its coding-agent tools, Ajv adapter, scheduler and
// dispatch), when PRISM_REFERENCE_DIR names the reference's built checkout (the `ref/` folder of
// the reference-suite scratch dir). Each stack runs in its own child process, the stacks taking
// turns. Prints calls/s (median of the timed turns) and host CPU per call (user + system, all
// threads). With CODING_TURN_POLICY=1 every stack's tools also have its library's
// createCodingApprovalPolicy over the scratch folder as their execution policy (as a host that
// confines its agent), with an `approve` that approves every edit. Usage: node bench/coding-turn.mjs
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { median } from './_stats.mjs'
import { hostTurn } from './_turn.mjs'

const CALLS = 64
const WARM_TURNS = Number(process.env.CODING_TURN_WARM_TURNS ?? 50)
const ROUNDS = Number(process.env.CODING_TURN_ROUNDS ?? 3)
const TURNS_PER_ROUND = 40
const SECRET = 'sk-bench-secret-value'
const LINE = 'const value = compute(input) // a line of ordinary source text\n'
// Each stack's tools with its library's approval policy over the scratch folder.
const WITH_POLICY = process.env.CODING_TURN_POLICY === '1'

/** A scratch folder with `n` files of 4 KB, each with one word an edit flips. */
function scratch(n) {
  const dir = mkdtempSync(join(tmpdir(), 'prism-coding-turn-'))
  for (let i = 0; i < n; i++) writeFileSync(join(dir, `f${i}.js`), `// file ${i}\nlet flag = 'ping'\n${LINE.repeat(64)}`)
  return dir
}

/** The calls of turn `t` of `kind`: all reads, or reads and edits half and half. */
function turnCalls(kind, t) {
  return Array.from({ length: CALLS }, (_, i) => {
    const id = `t${t}c${i}`
    if (kind === 'reads' || i % 2 === 0) return { type: 'tool_call', id, name: 'read', arguments: { path: `f${i}.js` } }
    const [from, to] = t % 2 === 0 ? ['ping', 'pong'] : ['pong', 'ping']
    return { type: 'tool_call', id, name: 'edit', arguments: { path: `f${i}.js`, edits: [{ oldText: `'${from}'`, newText: `'${to}'` }] } }
  })
}

/**
 * A host's turn of `kind` over one library's stack and its coding tools (see _turn.mjs);
 * `bound`: the options bound by createToolDispatcher, whose reads run in the engine.
 */
function stackTurn(lib, tools, validate, kind, bound = false) {
  const run = hostTurn(lib, { tools, allow: ['tool:read:execute', 'tool:edit:execute'], validate, secrets: [SECRET], bound })
  let turn = 0
  return async () => {
    const history = await run(turnCalls(kind, turn++))
    const failed = history.find((m) => m.content?.[0]?.error || m.error || m.isError)
    if (failed) throw new Error(`a call failed: ${JSON.stringify(failed).slice(0, 300)}`)
  }
}

/**
 * The tools every stack gets: read and edit. The edit tool's effect declaration is left out:
 * the reference's dispatch would then want a verified identity and its durable-effect ledger,
 * a step of its runtime that prism-native does not replace (README, "Differences").
 */
function codingTools(m, dir, security) {
  // Edits ask `approve` (a host that approves every one); reads within the root do not.
  const options = WITH_POLICY ? { executionPolicy: security.createCodingApprovalPolicy({ roots: [dir], approve: async () => true }) } : {}
  const { effect, ...edit } = m.createEditTool(dir, options)
  return [m.createReadTool(dir, options), edit]
}

async function nativeStack(kind, dir, bound = false) {
  const lib = await import('prism-native')
  const agent = await import('prism-native/coding-tools/agent')
  const security = await import('prism-native/coding-tools/security')
  const { createJsonSchemaToolArgumentValidator } = await import('prism-native/validation/json-schema')
  return stackTurn(lib, codingTools(agent, dir, security), createJsonSchemaToolArgumentValidator(), kind, bound)
}

/** The same stack with the options bound by createToolDispatcher: the reads run in the engine. */
const nativeTurnStack = (kind, dir) => nativeStack(kind, dir, true)

async function referenceStack(kind, dir) {
  const root = process.env.PRISM_REFERENCE_DIR
  const at = (p) => import(pathToFileURL(join(root, p)).href)
  const lib = await at('dist/index.js')
  const agent = await at('packages/coding-agent/dist/index.js')
  const security = await at('packages/coding-security/dist/index.js')
  const { createJsonSchemaToolArgumentValidator } = await at('packages/tool-validator-json-schema/dist/index.js')
  return stackTurn(lib, codingTools(agent, dir, security), createJsonSchemaToolArgumentValidator(), kind)
}

const STACKS = { 'prism-native': nativeStack, 'prism-native, native turn': nativeTurnStack, reference: referenceStack }

// A child process measures one stack on one kind of turn. Prints {rate: [...], cpu: [...]}.
async function child(name, kind) {
  const dir = scratch(CALLS)
  try {
    const turn = await STACKS[name](kind, dir)
    for (let i = 0; i < WARM_TURNS; i++) await turn()
    const rate = []
    const cpu = []
    for (let i = 0; i < TURNS_PER_ROUND; i++) {
      const c0 = process.cpuUsage()
      const t0 = performance.now()
      await turn()
      const ms = performance.now() - t0
      const c = process.cpuUsage(c0)
      rate.push((CALLS / ms) * 1000)
      cpu.push((c.user + c.system) / CALLS)
    }
    process.stdout.write(JSON.stringify({ rate, cpu }))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function runChild(name, kind) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', name, kind], { encoding: 'utf8', env: process.env })
  if (r.status !== 0) throw new Error(`${name} ${kind} child failed: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

async function main() {
  const names = Object.keys(STACKS).filter((n) => n !== 'reference' || process.env.PRISM_REFERENCE_DIR)
  if (!process.env.PRISM_REFERENCE_DIR) console.warn('PRISM_REFERENCE_DIR not set: the reference stack is not measured')
  for (const kind of ['reads', 'mixed']) {
    const rate = new Map(names.map((n) => [n, []]))
    const cpu = new Map(names.map((n) => [n, []]))
    for (let r = 0; r < ROUNDS; r++) {
      // Rotate the order so that drift on a shared machine hits every stack alike.
      for (let k = 0; k < names.length; k++) {
        const name = names[(r + k) % names.length]
        const out = runChild(name, kind)
        rate.get(name).push(...out.rate)
        cpu.get(name).push(...out.cpu)
      }
    }
    const nativeRate = median(rate.get('prism-native'))
    console.log(`\n${kind === 'reads' ? '64 reads' : '32 reads and 32 edits'} per turn${WITH_POLICY ? ', with the approval policy' : ''}, ${ROUNDS} processes x ${TURNS_PER_ROUND} turns per stack, medians`)
    console.log('| stack | calls/s | host CPU per call (us, all threads) | prism-native rate / this |')
    console.log('|---|---|---|---|')
    for (const name of names) {
      const r = median(rate.get(name))
      console.log(`| ${name} | ${r.toFixed(0)} | ${median(cpu.get(name)).toFixed(1)} | ${(nativeRate / r).toFixed(2)} |`)
    }
  }
  console.log('target: a turn of 64 reads >= 3x the reference stack')
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4])
else await main()
