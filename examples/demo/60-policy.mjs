// The coding execution policy: a path escape through a symlink is denied, a command hiding a
// dangerous part is denied, and a shell command goes to the host's approval prompt.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { assertExecutionAllowed } from '../../index.mjs'
import { createCodingApprovalPolicy, explainCommand } from '../../lib/coding-tools/security.mjs'

export const title = 'Coding policy: a denied escape and an approval answered by the host'

export async function run() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-demo-policy-'))
  try {
    const root = path.join(base, 'project')
    fs.mkdirSync(root)
    fs.symlinkSync(os.homedir(), path.join(root, 'innocent-looking-dir'))

    const prompts = []
    const policy = createCodingApprovalPolicy({
      roots: [root],
      commandRules: [{ pattern: /^ls\b/, action: 'allow' }],
      // Opt in to reusing an answer within one session (the default, "none", asks every time).
      approvalCacheScope: 'session',
      // The host's prompt: here it approves anything that only lists files.
      approve: async ({ action }) => {
        const verdict = explainCommand(action.command ?? '', { rules: [{ pattern: /^ls\b/, action: 'allow' }] })
        const ok = verdict.parts.every((p) => p.argv[0] === 'ls')
        prompts.push(`${action.kind}: ${action.command} -> ${ok ? 'approved' : 'refused'}`)
        return ok
      },
    })
    const attempt = async (label, action) => {
      try {
        await assertExecutionAllowed(policy, action)
        console.log(`${label}: allowed`)
      } catch (e) {
        console.log(`${label}: ${e.name}: ${e.message}`)
      }
    }

    const escape = path.join(root, 'innocent-looking-dir', '.bashrc')
    await attempt('write through a symlink to $HOME', { kind: 'write', operation: 'write', paths: [escape] })
    await attempt('ls; rm -rf ~', { kind: 'shell', operation: 'exec', command: 'ls; rm -rf ~', paths: [root] })
    await attempt('ls > ../outside.txt', { kind: 'shell', operation: 'exec', command: 'ls > ../outside.txt', paths: [root], metadata: { cwd: root } })
    await attempt('ls -la (asks the host)', { kind: 'shell', operation: 'exec', command: 'ls -la', paths: [root], metadata: { sessionId: 'demo' } })
    await attempt('ls -la again (cached for the session)', { kind: 'shell', operation: 'exec', command: 'ls -la', paths: [root], metadata: { sessionId: 'demo' } })
    await attempt('make (asks the host)', { kind: 'shell', operation: 'exec', command: 'make', paths: [root] })
    console.log('host prompts:')
    for (const p of prompts) console.log(`  ${p}`)

    const e = explainCommand('timeout 5 sudo reboot', { rules: [{ pattern: /^timeout\b/, action: 'allow' }] })
    console.log(`explain "timeout 5 sudo reboot": ${e.action} (${e.reason})`)
    for (const p of e.parts) console.log(`  ${JSON.stringify(p.text)}: ${p.verdict}${p.rule ? ` by ${p.rule.pattern}` : ''}${p.defaultDeny ? ` by default rule ${p.defaultDeny}` : ''}`)
  } finally {
    fs.rmSync(base, { recursive: true, force: true })
  }
}
