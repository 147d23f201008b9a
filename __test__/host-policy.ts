// A TypeScript host written against the public coding-security types (checked by tsc --strict).
import {
  createCodingApprovalPolicy,
  evaluateCommandRules,
  explainCommand,
  hasShellMetacharacters,
  isPathInside,
  isPathInsideReal,
  assertPathInsideRoots,
  createSandboxBashOperations,
  createBubblewrapSandbox,
  createLandlockSandbox,
  landlockAbiVersion,
  SandboxExecutionError,
  type CommandRule,
  type CodingApprovalRequest,
  type NativeSandboxAdapter,
  type SandboxAdapter,
  type BashOperations,
} from '../lib/coding-tools/security.js'
import { assertExecutionAllowed, type ExecutionPolicy, type ExecutionDecision } from '../index.js'

const rules: readonly CommandRule[] = [
  { pattern: /^git (status|diff)\b/, action: 'allow' },
  { pattern: 'git push', action: 'requireApproval', reason: 'pushing needs a person' },
]
const policy: ExecutionPolicy = createCodingApprovalPolicy({
  roots: ['/home/dev/project'],
  commandRules: rules,
  approvalCacheScope: 'run',
  approvalTimeoutMs: 10_000,
  denyMetacharacters: true,
  approve: async (request: CodingApprovalRequest) => request.action.kind === 'shell' && !request.signal?.aborted,
})

export async function host(): Promise<void> {
  const decision: ExecutionDecision = await policy.check({ kind: 'shell', operation: 'exec', command: 'git status' })
  const exclusive: boolean | undefined = decision.exclusive
  await assertExecutionAllowed(policy, { kind: 'read', operation: 'read', paths: ['a.txt'] })
  const verdict: 'allow' | 'deny' | 'requireApproval' = evaluateCommandRules('ls; rm -rf ~', rules, { denyMetacharacters: false }).action
  const explained = explainCommand('timeout 5 sudo x', { rules })
  const firstRule: string | undefined = explained.parts[0]?.rule?.pattern
  const meta: boolean = hasShellMetacharacters('a | b') && isPathInside('/a', '/a/b')
  const inside: boolean = (await isPathInsideReal('/a', '/a/b')) && (await assertPathInsideRoots(['/a'], '/a/b'))
  const adapter: NativeSandboxAdapter = landlockAbiVersion() >= 4 ? await createLandlockSandbox({ roots: ['/home/dev/project'] }) : await createBubblewrapSandbox({ roots: ['/home/dev/project'], network: false })
  const ops: BashOperations = createSandboxBashOperations(adapter)
  try {
    const { exitCode } = await ops.exec('make', '/home/dev/project', { onData: (b: Buffer) => void b.length, timeout: 60 })
    void exitCode
  } catch (e) {
    if (e instanceof SandboxExecutionError) void e.code
  }
  const hostAdapter: SandboxAdapter = {
    capabilities: { workspaceCoherent: true, filesystemIsolated: true, networkIsolated: true, processIsolated: true, privilegeIsolated: false, egressRestricted: true },
    exec: async ({ onData }) => {
      onData?.(Buffer.from('ok'))
      return { exitCode: 0 }
    },
  }
  const hostOps: BashOperations = createSandboxBashOperations(hostAdapter)
  void [exclusive, verdict, firstRule, meta, inside, adapter.capabilities.network, hostOps]
}
