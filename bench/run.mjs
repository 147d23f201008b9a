// `npm run bench`: runs every benchmark in this folder in turn (or those named on the command
// line: `npm run bench -- dispatch validation`). Each prints its own side-by-side table. Then
// bench/ratios.svg is redrawn from the ratios written up in BENCHMARKS.md (bench/chart.mjs).
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeChart } from './chart.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'chart.mjs' && !f.startsWith('_'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.mjs$/, '')))
  .sort()
let failed = 0
for (const f of files) {
  console.log(`\n### ${f}`)
  const r = spawnSync(process.execPath, ['--expose-gc', join(here, f)], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
const chart = writeChart()
console.log(`\nredrew ${chart.file} from BENCHMARKS.md (${chart.rows} ratios)`)
process.exit(failed === 0 ? 0 : 1)
