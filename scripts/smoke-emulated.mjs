// Runs scripts/smoke-platform.mjs with a binary for another CPU under qemu-user, from the
// host: starts server-everything over Streamable HTTP here (the emulated process cannot start
// a stdio server, see smoke-platform.mjs), runs the emulated node against a scratch copy of
// the package holding that binary, and exits with its status.
// Usage: node scripts/smoke-emulated.mjs <qemu> <sysroot> <emulated node> <package dir>
import { spawnSync } from 'node:child_process'
import { startEverythingHttp } from '../__test__/fixtures/mcp-helpers.mjs'

const [qemu, sysroot, node, dir] = process.argv.slice(2)
if (!dir) {
  console.error('usage: node scripts/smoke-emulated.mjs <qemu> <sysroot> <emulated node> <package dir>')
  process.exit(2)
}
const server = await startEverythingHttp()
try {
  const run = spawnSync(qemu, ['-L', sysroot, node, `${dir}/scripts/smoke-platform.mjs`], {
    stdio: 'inherit',
    env: { ...process.env, PRISM_SMOKE_MCP_URL: server.url },
    timeout: 300_000,
  })
  if (run.error) throw run.error
  process.exitCode = run.status ?? 1
} finally {
  await server.stop()
}
