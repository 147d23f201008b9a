// A TypeScript host written against the public coding-tools types; `tsc --noEmit --strict`
// checks that hosts compile unchanged.
import {
  createEditTool,
  createReadTool,
  createShellTool,
  createWriteTool,
  createReadPathSet,
  formatSize,
  withFileMutationQueue,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_IMAGE_BYTES,
  DEFAULT_MAX_LINES,
  type BashOperations,
  type ReadToolOptions,
  type ShellToolOptions,
  type TruncationResult,
} from 'prism-native/coding-tools/agent'
import type { ExecutionPolicy, ToolDefinition, ToolResult } from 'prism-native'

const policy: ExecutionPolicy = {
  check: async (action) => (action.kind === 'shell' && action.command?.includes('rm') ? { allowed: false, reason: 'no rm' } : { allowed: true }),
}
const readPathSet = createReadPathSet()
const readOptions: ReadToolOptions = {
  executionPolicy: policy,
  maxImageBytes: DEFAULT_MAX_IMAGE_BYTES,
  maxLines: DEFAULT_MAX_LINES,
  maxBytes: DEFAULT_MAX_BYTES,
  readPathSet,
  transformImage: async ({ buffer }) => buffer,
}
const ops: BashOperations = {
  exec: async (_command, _cwd, { onData }) => {
    onData(Buffer.from('hi'))
    return { exitCode: 0 }
  },
}
const shellOptions: ShellToolOptions = { executionPolicy: policy, timeout: 30, envAllowlist: ['PATH'], operations: ops }

const tools: ToolDefinition[] = [
  createReadTool('/tmp', readOptions),
  createWriteTool('/tmp', { executionPolicy: policy, requireReadBeforeWrite: true, readPathSet, onEvent: (e) => void (e.type === 'file_changed' && e.path) }),
  createEditTool('/tmp', { maxEdits: 10 }),
  createShellTool('/tmp', shellOptions),
]
const exclusive: true = createShellTool('/tmp').exclusive

export async function run(): Promise<string> {
  const result: ToolResult = await tools[0].execute({ path: 'x.txt' }, { sessionId: 's', runId: 'r', toolCallId: 'c' })
  const truncation = result.metadata?.truncation as TruncationResult | undefined
  const n: number = await withFileMutationQueue('/tmp/x', async () => 1)
  return `${formatSize(n)} ${truncation?.truncatedBy ?? ''} ${exclusive}`
}
