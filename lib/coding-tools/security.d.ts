import type { ExecutionAction, ExecutionPolicy } from '../../index.js'

/** What the host's approval callback receives. */
export interface CodingApprovalRequest {
  readonly action: ExecutionAction
  /** `action.metadata.signal` when it is an AbortSignal. */
  readonly signal?: AbortSignal
}
/** The host's approval callback: `true` approves; anything else, a rejection, a timeout or an abort denies. */
export type CodingApprovalFn = (request: CodingApprovalRequest) => boolean | Promise<boolean>
export type ApprovalCacheScope = 'session' | 'run' | 'none'

export interface CodingApprovalPolicyOptions {
  /** Trusted roots; no roots denies everything (`"no trusted roots configured"`). */
  readonly roots: readonly string[]
  readonly approve?: CodingApprovalFn
  /** Deny every kind but `read` (`"read-only mode"`). Default false. */
  readonly readOnly?: boolean
  readonly commandRules?: readonly CommandRule[]
  /** Default `"session"` (keyed by `metadata.sessionId`); `"run"` uses `metadata.runId`. */
  readonly approvalCacheScope?: ApprovalCacheScope
  /** Default 30,000; `<= 0` waits without a timeout. */
  readonly approvalTimeoutMs?: number
  /** Default true: a command that is more than one plain simple command needs approval. */
  readonly denyMetacharacters?: boolean
  /**
   * Opt-in (Decision 4), default false: a shell command whose every part an allow rule covers,
   * with no redirection, runs without asking `approve`.
   */
  readonly allowRulesSkipApproval?: boolean
}
export function createCodingApprovalPolicy(options: CodingApprovalPolicyOptions): ExecutionPolicy

export type CommandRuleAction = 'allow' | 'deny' | 'requireApproval'
export interface CommandRule {
  /** A string matches a command prefix on word boundaries; a RegExp is tested against each simple command's text. */
  readonly pattern: RegExp | string
  readonly action: CommandRuleAction
  readonly reason?: string
}
export interface CommandRuleEvaluation {
  readonly action: CommandRuleAction
  readonly reason?: string
}
export function evaluateCommandRules(command: string, rules: readonly CommandRule[] | undefined, options?: { denyMetacharacters?: boolean }): CommandRuleEvaluation

/** One simple command of an explained command line and what decided it. */
export interface ExplainedPart {
  readonly text: string
  readonly argv: readonly string[]
  /** Found inside another command (a wrapper, `sh -c`, `eval`, `find -exec`). */
  readonly derived: boolean
  readonly verdict: CommandRuleAction | 'unmatched'
  readonly rule?: { readonly index: number; readonly pattern: string; readonly action: CommandRuleAction; readonly reason?: string }
  /** The id of the default deny rule it matched (`sudo`, `rm-recursive-wide`, ...). */
  readonly defaultDeny?: string
}
export interface CommandExplanation extends CommandRuleEvaluation {
  readonly parts: readonly ExplainedPart[]
  readonly redirects: readonly { readonly op: string; readonly target: string | null; readonly write: boolean }[]
  readonly metacharacters: boolean
  /** Why the command could not be fully analysed (it then needs approval). */
  readonly unsupported?: string
  readonly defaultDeny?: string
}
export function explainCommand(command: string, options?: { rules?: readonly CommandRule[]; commandRules?: readonly CommandRule[]; denyMetacharacters?: boolean }): CommandExplanation

export function hasShellMetacharacters(command: string): boolean
/** Lexical containment. */
export function isPathInside(root: string, target: string): boolean
/** Realpath containment; any error gives false. */
export function isPathInsideReal(root: string, target: string): Promise<boolean>
export function assertPathInsideRoots(roots: readonly string[], target: string): Promise<boolean>

/** The shell tool's execution seam. */
export interface BashOperations {
  exec(
    command: string,
    cwd: string,
    options: { onData: (data: Buffer) => void; signal?: AbortSignal; timeout?: number; env?: NodeJS.ProcessEnv },
  ): Promise<{ exitCode: number | null }>
}
/** What a sandbox backend actually enforces. */
export interface SandboxCapabilities {
  readonly backend: string
  /** Whether the sandbox may reach the network. */
  readonly network: boolean
  readonly filesystem?: {
    readonly readOnlyRoot: boolean
    readonly writablePaths: readonly string[]
    readonly privateTmp: boolean
    /** Whether mode, owner, time and xattr changes are denied outside `writablePaths` (false under Landlock). */
    readonly metadataChangesConfined?: boolean
    /** System-call families still allowed on files outside `writablePaths` (e.g. `"chmod"` under Landlock). */
    readonly unconfinedOutsideRoots?: readonly string[]
  }
  readonly processes?: { readonly ownProcessGroup: boolean; readonly dieWithParent: boolean; readonly shellDiesWithParent?: boolean; readonly pidNamespace: boolean; readonly signalsScoped?: boolean }
  readonly [key: string]: unknown
}
export interface SandboxExecRequest {
  readonly command: string
  readonly cwd: string
  readonly env?: NodeJS.ProcessEnv
  readonly onData?: (data: Buffer) => void
  readonly signal?: AbortSignal
  /** Seconds. */
  readonly timeout?: number
}
export interface SandboxAdapter {
  exec(request: SandboxExecRequest): Promise<{ exitCode: number | null }>
  readonly capabilities?: Readonly<SandboxCapabilities>
}
export function createSandboxBashOperations(adapter: SandboxAdapter): BashOperations & { readonly capabilities?: Readonly<SandboxCapabilities> }
export class SandboxExecutionError extends Error {
  readonly code: 'ERR_PRISM_SANDBOX_EXECUTION'
  constructor(message: string, options?: ErrorOptions)
}

export interface SandboxBackendOptions {
  /** Writable project roots (at least one). */
  readonly roots: readonly string[]
  /** Default false: no network. */
  readonly network?: boolean
  /** Default `/bin/sh`. */
  readonly shellPath?: string
}
/** Probes bubblewrap; rejects with SandboxExecutionError when the host cannot provide it. */
export function createBubblewrapSandbox(options: SandboxBackendOptions & { readonly bwrapPath?: string }): Promise<SandboxAdapter & { readonly capabilities: Readonly<SandboxCapabilities> }>
/** Rejects with SandboxExecutionError when the kernel's Landlock cannot enforce the request. */
export function createLandlockSandbox(options: SandboxBackendOptions): Promise<SandboxAdapter & { readonly capabilities: Readonly<SandboxCapabilities> }>
/** The kernel's Landlock ABI (0 without Landlock). */
export function landlockAbiVersion(): number
