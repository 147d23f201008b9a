// `npm run conformance:json-schema`: runs the official JSON-Schema-Test-Suite (draft7,
// draft2019-09, draft2020-12; required and optional; formats counted apart) through the engine
// with strict mode off, remotes preloaded in memory from the suite's `remotes/` folder (nothing
// is fetched). Prints pass counts per draft and fails on any regression below the counts
// recorded in `conformance-json-schema.counts.json` (`--record` rewrites them; `--verbose`
// lists failing tests).
//
// The suite is looked up at `../shared/data/json-schema-test-suite/` beside the repository, or
// at $JSON_SCHEMA_TEST_SUITE.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'

const here = dirname(fileURLToPath(import.meta.url))
const root = resolve(here, '..')
const { NativeJsonSchemaSuite } = createRequire(import.meta.url)('../binding.js')
const suiteDir = process.env.JSON_SCHEMA_TEST_SUITE ?? resolve(root, '..', 'shared', 'data', 'json-schema-test-suite')
const countsFile = join(here, 'conformance-json-schema.counts.json')
const record = process.argv.includes('--record')
const verbose = process.argv.includes('--verbose')

if (!existsSync(join(suiteDir, 'tests'))) {
  const message = `JSON-Schema-Test-Suite not found at ${suiteDir} (set JSON_SCHEMA_TEST_SUITE to its folder)`
  if (process.env.CI) {
    console.error(`conformance: ${message}`)
    process.exit(1)
  }
  console.log(`conformance: skipped: ${message}`)
  process.exit(0)
}

function filesUnder(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : [path]
  })
}

const remotesDir = join(suiteDir, 'remotes')
const remotes = filesUnder(remotesDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => [`http://localhost:1234/${relative(remotesDir, f).split('\\').join('/')}`, readFileSync(f, 'utf8')])
const suite = new NativeJsonSchemaSuite(remotes)

const DRAFTS = { draft7: '7', 'draft2019-09': '2019-09', 'draft2020-12': '2020-12' }
const results = {}
for (const [folder, draft] of Object.entries(DRAFTS)) {
  const counts = { required: { pass: 0, total: 0 }, optional: { pass: 0, total: 0 }, format: { pass: 0, total: 0 } }
  const dir = join(suiteDir, 'tests', folder)
  for (const file of filesUnder(dir).filter((f) => f.endsWith('.json'))) {
    const rel = relative(dir, file)
    const group = rel.startsWith(join('optional', 'format')) ? 'format' : rel.startsWith('optional') ? 'optional' : 'required'
    for (const testCase of JSON.parse(readFileSync(file, 'utf8'))) {
      const verdicts = suite.check(JSON.stringify(testCase.schema), draft, group === 'format', testCase.tests.map((t) => JSON.stringify(t.data)))
      testCase.tests.forEach((t, i) => {
        counts[group].total++
        const passed = verdicts != null && verdicts[i] === t.valid
        if (passed) counts[group].pass++
        else if (verbose) console.log(`FAIL ${folder}/${rel}: ${testCase.description} / ${t.description}${verdicts == null ? ' (schema did not compile)' : ''}`)
      })
    }
  }
  results[folder] = counts
}

const recorded = existsSync(countsFile) ? JSON.parse(readFileSync(countsFile, 'utf8')) : {}
let regressions = 0
console.log('draft          group     passed / total')
for (const [folder, counts] of Object.entries(results)) {
  for (const [group, { pass, total }] of Object.entries(counts)) {
    const before = recorded[folder]?.[group]?.pass
    const note = before === undefined ? '' : pass < before ? `  REGRESSION (recorded ${before})` : pass > before ? `  (recorded ${before}: run with --record)` : ''
    if (before !== undefined && pass < before) regressions++
    console.log(`${folder.padEnd(14)} ${group.padEnd(9)} ${String(pass).padStart(6)} / ${total}${note}`)
  }
}
if (record) {
  writeFileSync(countsFile, `${JSON.stringify(results, null, 2)}\n`)
  console.log(`recorded in ${relative(root, countsFile)}`)
}
process.exit(regressions === 0 ? 0 : 1)
