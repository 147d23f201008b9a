// The MCP part of scripts/smoke-platform.mjs over Streamable HTTP for the Windows build under
// Wine (scripts/ci-windows.sh): this Linux Node serves the fixture server-everything over
// HTTP, and the Windows Node runs the smoke test against it. Its output goes to a file: the
// Windows Node under Wine cannot write to a Unix pipe.
// Usage: node scripts/smoke-wine-http.mjs WINE64 NODE_EXE OUT_FILE   (from the checkout's root)
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEverythingHttp } from '../__test__/fixtures/mcp-helpers.mjs'

const [wine, nodeExe, outFile] = process.argv.slice(2)
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const server = await startEverythingHttp()
try {
  const fd = fs.openSync(outFile, 'w')
  const env = { ...process.env, PRISM_SMOKE_MCP_URL: server.url }
  const run = spawnSync(wine, [nodeExe, path.join(root, 'scripts', 'smoke-platform.mjs')], {
    stdio: ['ignore', fd, fd],
    env,
    cwd: root,
    timeout: 300_000,
  })
  fs.closeSync(fd)
  if (run.error) throw run.error
  process.exitCode = run.status ?? 1
} finally {
  await server.stop()
}
