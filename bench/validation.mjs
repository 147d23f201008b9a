// JSON Schema validation: prism-native's public validator vs Ajv 8 (the reference's options
// `strict: true, allErrors: true`; strict off where a schema needs it) in one run, on the
// schemas of ../shared/data/bench-schemas/ (or $BENCH_SCHEMAS). Prints medians and ratios
// (native / Ajv: below 1 means faster).
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import Ajv from 'ajv'
import { createJsonSchemaArgumentValidator, createJsonSchemaToolArgumentValidator } from 'prism-native/validation/json-schema'

const here = dirname(fileURLToPath(import.meta.url))
const dataDir = process.env.BENCH_SCHEMAS ?? resolve(here, '..', '..', 'shared', 'data', 'bench-schemas')
if (!existsSync(join(dataDir, 'tools.json'))) {
  console.log(`validation bench skipped: no bench schemas at ${dataDir} (set BENCH_SCHEMAS)`)
  process.exit(0)
}
const tools = JSON.parse(readFileSync(join(dataDir, 'tools.json'), 'utf8'))
const ajvOptions = (strict) => ({ strict, allErrors: true, validateSchema: true, allowUnionTypes: true, addUsedSchema: false, logger: false })
const needsLoose = (tool) => tool.name === 'deploy_service' // format "email": see the data README

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const gc = () => globalThis.gc?.()

/** Median ns per call of `fn` over `rounds` rounds of `n` calls. */
function perCall(fn, n, rounds = 7) {
  for (let i = 0; i < Math.min(n, 2000); i++) fn()
  const samples = []
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint()
    for (let i = 0; i < n; i++) fn()
    samples.push(Number(process.hrtime.bigint() - t) / n)
  }
  return median(samples)
}

const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(2)} µs` : `${ns.toFixed(0)} ns`)
const row = (cells) => console.log(`| ${cells.join(' | ')} |`)

function childMany(side) {
  const many = JSON.parse(readFileSync(join(dataDir, 'many.json'), 'utf8'))
  gc()
  const rss0 = process.memoryUsage().rss
  const t = process.hrtime.bigint()
  let ok = 0
  if (side === 'native') {
    const v = createJsonSchemaArgumentValidator({ strict: false, maxCompiledSchemas: 1024 })
    for (const entry of many) ok += v.validate(entry.schema, entry.valid).ok ? 1 : 0
  } else {
    const ajv = new Ajv(ajvOptions(false))
    for (const entry of many) ok += ajv.compile(entry.schema)(entry.valid) ? 1 : 0
  }
  const ms = Number(process.hrtime.bigint() - t) / 1e6
  gc()
  const rss = process.memoryUsage().rss - rss0
  console.log(JSON.stringify({ ms, rss, ok, n: many.length }))
}

if (process.argv[2] === '--child') {
  childMany(process.argv[3])
  process.exit(0)
}

console.log(`Node ${process.version}, ${process.platform}-${process.arch}; medians; ratio = native / Ajv`)

// 1. Warm validation through the public validate(schema, value).
console.log('\nWarm validation (schema already compiled), per call')
row(['tool', 'instance', 'prism-native', 'Ajv 8', 'ratio'])
row(['---', '---', '---:', '---:', '---:'])
const warmRatios = []
for (const tool of tools) {
  const strict = !needsLoose(tool)
  const native = createJsonSchemaArgumentValidator({ strict })
  const ajvValidate = new Ajv(ajvOptions(strict)).compile(tool.schema)
  for (const kind of ['valid', 'invalid']) {
    const value = tool[kind]
    if (native.validate(tool.schema, value).ok !== (kind === 'valid')) throw new Error(`${tool.name}: unexpected ${kind} verdict`)
    const ours = perCall(() => native.validate(tool.schema, value), 20_000)
    const theirs = perCall(() => ajvValidate(value), 20_000)
    warmRatios.push(ours / theirs)
    row([tool.name, kind, fmt(ours), fmt(theirs), (ours / theirs).toFixed(2)])
  }
}

// 1b. The same through the ToolValidator dispatch calls (a refusal string, or undefined).
console.log('\nWarm ToolValidator (createJsonSchemaToolArgumentValidator), per call')
row(['tool', 'instance', 'prism-native', 'Ajv 8 + errorsText', 'ratio'])
row(['---', '---', '---:', '---:', '---:'])
for (const tool of tools) {
  const strict = !needsLoose(tool)
  const native = createJsonSchemaToolArgumentValidator({ strict })
  const ajvValidate = new Ajv(ajvOptions(strict)).compile(tool.schema)
  const named = { name: tool.name, parameters: tool.schema }
  // The reference adapter's shape: validate, then join `path: message` on failure.
  const ajvTool = (args) => (ajvValidate(args) ? undefined : ajvValidate.errors.map((e) => `${e.instancePath || e.schemaPath}: ${e.message}`).join('; '))
  for (const kind of ['valid', 'invalid']) {
    const value = tool[kind]
    if ((native(named, value) === undefined) !== (kind === 'valid')) throw new Error(`${tool.name}: unexpected ${kind} verdict`)
    const ours = perCall(() => native(named, value), 20_000)
    const theirs = perCall(() => ajvTool(value), 20_000)
    row([tool.name, kind, fmt(ours), fmt(theirs), (ours / theirs).toFixed(2)])
  }
}

// The floor of any design that crosses into Rust once per call.
const { NativeJsonSchemaValidator } = createRequire(import.meta.url)('../binding.js')
const engine = new NativeJsonSchemaValidator({})
const emptyId = engine.prepare('{}')
const small = tools[0].valid
const floorGetter = perCall(() => engine.cachedCount, 50_000)
const floorStringify = perCall(() => JSON.stringify(small), 50_000)
const floorCross = perCall(() => engine.validate(emptyId, '1'), 50_000)
const floorFull = perCall(() => engine.validate(emptyId, JSON.stringify(small)), 50_000)
console.log(`\nCrossing floor: empty native call ${fmt(floorGetter)}; JSON.stringify of read_file's instance ${fmt(floorStringify)}; validate("{}", "1") ${fmt(floorCross)}; stringify + validate against {} ${fmt(floorFull)}`)

// 2. Session cost: a fresh validator, one compile and 100 validations.
console.log('\nSession cost (fresh validator: compile + 100 validations)')
row(['tool', 'prism-native', 'Ajv 8', 'ratio'])
row(['---', '---:', '---:', '---:'])
const sessionRatios = []
const coldRatios = []
const coldRows = []
for (const tool of tools) {
  const strict = !needsLoose(tool)
  const ours = perCall(() => {
    const v = createJsonSchemaArgumentValidator({ strict })
    for (let i = 0; i < 100; i++) v.validate(tool.schema, tool.valid)
  }, 20, 5)
  const theirs = perCall(() => {
    const f = new Ajv(ajvOptions(strict)).compile(tool.schema)
    for (let i = 0; i < 100; i++) f(tool.valid)
  }, 5, 5)
  sessionRatios.push(ours / theirs)
  row([tool.name, fmt(ours), fmt(theirs), (ours / theirs).toFixed(3)])
  // 3. Cold compile: a fresh validator (or Ajv instance) compiles the schema once.
  const oursCold = perCall(() => createJsonSchemaArgumentValidator({ strict }).validate(tool.schema, tool.valid), 20, 5)
  const theirsCold = perCall(() => new Ajv(ajvOptions(strict)).compile(tool.schema), 5, 5)
  coldRatios.push(oursCold / theirsCold)
  coldRows.push([tool.name, fmt(oursCold), fmt(theirsCold), (oursCold / theirsCold).toFixed(3)])
}
console.log('\nCold compile (fresh validator or Ajv instance, first validation included on our side)')
row(['tool', 'prism-native', 'Ajv 8', 'ratio'])
row(['---', '---:', '---:', '---:'])
coldRows.forEach(row)

// 4. The 500 schemas of many.json, strict off, each side in its own process (for RSS).
const runChild = (side) => {
  const r = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', side], { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(r.stderr)
  return JSON.parse(r.stdout.trim().split('\n').pop())
}
const manyRuns = { native: [], ajv: [] }
for (let i = 0; i < 3; i++) for (const side of ['native', 'ajv']) manyRuns[side].push(runChild(side))
const m = (side, key) => median(manyRuns[side].map((r) => r[key]))
console.log('\nmany.json: 500 schemas compiled and each validated once (strict off), median of 3 processes')
row(['', 'prism-native', 'Ajv 8', 'ratio'])
row(['---', '---:', '---:', '---:'])
row(['time', `${m('native', 'ms').toFixed(0)} ms`, `${m('ajv', 'ms').toFixed(0)} ms`, (m('native', 'ms') / m('ajv', 'ms')).toFixed(3)])
row(['RSS growth', `${(m('native', 'rss') / 2 ** 20).toFixed(1)} MiB`, `${(m('ajv', 'rss') / 2 ** 20).toFixed(1)} MiB`, (m('native', 'rss') / m('ajv', 'rss')).toFixed(3)])
row(['valid instances accepted', String(manyRuns.native[0].ok), String(manyRuns.ajv[0].ok), ''])

const worst = (xs) => Math.max(...xs).toFixed(3)
console.log(`\nTargets: warm ≤ 1.0 (worst ${worst(warmRatios)}), session ≤ 0.1 (worst ${worst(sessionRatios)}), cold ≤ 0.05 (worst ${worst(coldRatios)}), many.json time ≤ 0.05 and RSS ≤ 0.5`)
