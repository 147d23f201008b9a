// A coding agent's read → edit → shell sequence in a temporary workspace, with an execution
// policy that denies one command before anything runs.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createEditTool, createReadTool, createShellTool, createWriteTool } from 'prism-native/coding-tools/agent'

export const title = 'Coding tools: read, edit and shell with hard bounds'

export async function run() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-demo-coding-'))
  try {
    const policy = {
      check: (action) => {
        const denied = action.kind === 'shell' && /\brm\b/.test(action.command ?? '')
        console.log(`  policy: ${action.kind}/${action.operation} ${action.command ?? action.paths?.[0]} → ${denied ? 'deny' : 'allow'}`)
        return denied ? { allowed: false, reason: 'rm is not allowed in this workspace' } : { allowed: true }
      },
    }
    const readPathSet = new Set()
    const ctx = { sessionId: 'demo', runId: 'run-1', toolCallId: 'call' }
    const write = createWriteTool(dir, { executionPolicy: policy })
    const read = createReadTool(dir, { executionPolicy: policy, readPathSet, maxLines: 5 })
    const edit = createEditTool(dir, { executionPolicy: policy, requireReadBeforeWrite: true, readPathSet })
    const shell = createShellTool(dir, { executionPolicy: policy, maxLines: 3, timeout: 10 })
    const show = (label, r) => console.log(`${label}${r.error ? ' (error)' : ''}:\n    ${r.content[0].text.replace(/\n/g, '\n    ')}`)

    show('write src/app.js', await write.execute({ path: 'src/app.js', content: Array.from({ length: 8 }, (_, i) => `const v${i + 1} = ${i + 1}`).join('\n') + '\n' }, ctx))
    show('edit before reading', await edit.execute({ path: 'src/app.js', edits: [{ oldText: 'const v2 = 2', newText: 'const v2 = 20' }] }, ctx))
    show('read (5-line pages)', await read.execute({ path: 'src/app.js' }, ctx))
    const edited = await edit.execute({ path: 'src/app.js', edits: [{ oldText: 'const v2 = 2', newText: 'const v2 = 20' }, { oldText: 'const v7 = 7', newText: 'const v7 = 70' }] }, ctx)
    show('edit two lines', edited)
    console.log(`    first changed line: ${edited.metadata.firstChangedLine}`)
    const tail = await shell.execute({ command: 'seq 1 6' }, ctx)
    show('shell (tail of 3 lines; full output spilled to a 0600 file)', tail)
    if (tail.metadata.fullOutputPath) fs.rmSync(tail.metadata.fullOutputPath, { force: true })
    show('shell exit code', await shell.execute({ command: 'echo failing; exit 3' }, ctx))
    show('shell denied', await shell.execute({ command: 'rm -rf src' }, ctx))
    const t0 = Date.now()
    show('shell timeout (1 s)', await shell.execute({ command: 'sleep 30', timeout: 1 }, ctx))
    console.log(`    returned after ${Date.now() - t0} ms; src still exists: ${fs.existsSync(path.join(dir, 'src'))}`)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
