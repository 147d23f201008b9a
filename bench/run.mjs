// `npm run bench`: runs every benchmark in this folder in turn (or those named on the command
// line: `npm run bench -- dispatch validation`). Each prints its own side-by-side table.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && !f.startsWith('_'))
  .filter((f) => wanted.length === 0 || wanted.includes(f.replace(/\.mjs$/, '')))
  .sort()
let failed = 0
for (const f of files) {
  console.log(`\n### ${f}`)
  const r = spawnSync(process.execPath, ['--expose-gc', join(here, f)], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
