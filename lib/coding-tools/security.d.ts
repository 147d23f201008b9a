import type { ExecutionAction, ExecutionPolicy } from '../../index.js'
import type { BashOperations } from './agent.js'

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
  /**
   * Asked when an action needs approval (`true` approves), with `approvalTimeoutMs` and the
   * action's signal. Default none: anything needing approval is denied (`"approval required"`).
   */
  readonly approve?: CodingApprovalFn
  /** Deny every kind but `read` (`"read-only mode"`). Default false. */
  readonly readOnly?: boolean
  /** Host rules for shell commands, matched per simple command (first match wins). Default `[]`. */
  readonly commandRules?: readonly CommandRule[]
  /** Default `"none"` (no answer is reused); `"session"` keys by `metadata.sessionId`, `"run"` by `metadata.runId`. */
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
/**
 * An `ExecutionPolicy` for the coding tools. `check(action)`, first deny wins: no roots, read-only
 * mode, a path outside the roots by realpath (`path outside trusted roots: <path>`), for `shell`
 * the command rules and redirection targets, then approval for `shell`, `write`, `edit`,
 * `delete`, `move` or a `requireApproval` verdict (without `approve`: `"approval required"`).
 * Allowed decisions are `{ allowed: true, exclusive: kind === "shell" }`. A synchronous throw
 * from `approve` rejects `check()`; a timeout, an abort or a rejection denies.
 */
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
/**
 * The verdict for a command line: per simple command the first matching host rule, else the
 * default deny rules; any part denied gives `deny`, any `requireApproval` part or unanalysable
 * syntax needs approval, allow rules covering every part (no file redirection) give `allow`;
 * otherwise a compound command (`denyMetacharacters`, default true) or a file redirection needs
 * approval; an allow rule that names only a program does not cover its options that write
 * outside the working directory, run code, discard work or set a setuid mode (they need
 * approval unless a rule names the form). A command past a cap of the analysis is denied, and so is one whose glob,
 * expansion or substitution (in a program name, a command string or an operand a rule
 * inspects) could become what a deny rule matches: a deny is never put to an approval.
 */
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
  /**
   * When the deny came through a word bash decides at run time (a glob, an expansion, a
   * substitution): that word's index in the command's words and its text as written.
   */
  readonly open?: { readonly index: number; readonly text: string }
  /**
   * An option of the program that does what an allow rule naming only the program does not
   * cover (see README, "Options as effects"): what it does and the option as written. With
   * `verdict` `requireApproval`, the allow rule in `rule` matched but did not name the form.
   */
  readonly effect?: { readonly effect: 'writes' | 'code' | 'destroys' | 'privilege'; readonly option: string }
}
export interface CommandExplanation extends CommandRuleEvaluation {
  readonly parts: readonly ExplainedPart[]
  readonly redirects: readonly { readonly op: string; readonly target: string | null; readonly write: boolean }[]
  readonly metacharacters: boolean
  /** Why the command could not be fully analysed (it then needs approval). */
  readonly unsupported?: string
  readonly defaultDeny?: string
}
/** The verdict of `evaluateCommandRules` plus each part's text, argv, verdict and matching rule, the redirections, and why analysis gave up. */
export function explainCommand(command: string, options?: { rules?: readonly CommandRule[]; commandRules?: readonly CommandRule[]; denyMetacharacters?: boolean }): CommandExplanation

/** The reference's raw-string test for shell metacharacters (no parsing). */
export function hasShellMetacharacters(command: string): boolean
/** Lexical containment. */
export function isPathInside(root: string, target: string): boolean
/** Realpath containment; any error gives false. */
export function isPathInsideReal(root: string, target: string): Promise<boolean>
/** Whether `target` is inside any root by realpath (a missing final component by its parent; a dangling link by its target); any error gives false. */
export function assertPathInsideRoots(roots: readonly string[], target: string): Promise<boolean>

/** The shell tool's execution seam (the same type as the coding tools' `BashOperations`). */
export type { BashOperations, BashExecOptions } from './agent.js'
/**
 * What a host's sandbox adapter attests it enforces (booleans a caller can require before it
 * routes commands through the adapter).
 */
export interface SandboxCapabilities {
  /** The sandbox sees the workspace at the same paths and contents as the host. */
  readonly workspaceCoherent: boolean
  readonly filesystemIsolated: boolean
  readonly networkIsolated: boolean
  readonly processIsolated: boolean
  readonly privilegeIsolated: boolean
  /** Network egress, if any, goes through a controlled path. */
  readonly egressRestricted: boolean
}
/** What a native sandbox backend (`createBubblewrapSandbox`, `createLandlockSandbox`) reports it enforces. */
export interface NativeSandboxCapabilities {
  readonly backend: string
  /** Whether the sandbox may reach the network. */
  readonly network: boolean
  readonly filesystem?: {
    /** Nothing outside `writablePaths` can change in any way: contents and metadata (false under Landlock, which cannot deny metadata changes). */
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
/** A command run by file and arguments (no shell) inside a disposable sandbox. */
export interface SandboxExecFileRequest {
  readonly file: string
  readonly args: readonly string[]
  readonly cwd?: string
  readonly env?: Readonly<Record<string, string>>
  readonly onData?: (data: Buffer) => void
  readonly signal?: AbortSignal
  readonly timeout?: number
}
export type SandboxStatusState = 'running' | 'stopped' | 'removed' | 'failed'
export interface SandboxExportMetadata {
  readonly sha256: string
  readonly entryCount: number
  readonly byteCount: number
  readonly format: 'tar'
}
export interface SandboxStatus {
  readonly id: string
  readonly state: SandboxStatusState
  readonly image: string
  readonly startedAt: number
  readonly lastActivityAt: number
  readonly commandCount: number
  readonly importIdentity?: SandboxExportMetadata
  readonly lastExportIdentity?: SandboxExportMetadata
}
export interface SandboxCloseOptions {
  readonly export?: (stream: import('node:stream').Readable, metadata: SandboxExportMetadata) => Promise<void>
  readonly signal?: AbortSignal
}
export interface SandboxProcessHandle {
  write(data: Uint8Array): Promise<void>
  signal(name: string): Promise<void>
  kill(): Promise<void>
  release(): Promise<void>
  wait(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<{ exitCode: number | null }>
}
/**
 * A host's container-style sandbox with a lifecycle (prism-native provides none; a host's own
 * implementation works as a `SandboxAdapter` for `createSandboxBashOperations`).
 */
export interface DisposableSandbox extends SandboxAdapter {
  readonly id: string
  readonly importIdentity?: SandboxExportMetadata
  readonly lastExportIdentity?: SandboxExportMetadata
  execFile(request: SandboxExecFileRequest): Promise<{ exitCode: number | null }>
  status(): Promise<SandboxStatus>
  stop(options?: { graceMs?: number; signal?: AbortSignal }): Promise<void>
  kill(options?: { signal?: AbortSignal }): Promise<void>
  close(options?: SandboxCloseOptions): Promise<SandboxExportMetadata | undefined>
  startProcess?(request: SandboxExecFileRequest): Promise<SandboxProcessHandle>
}
/** A native sandbox backend: an adapter whose `capabilities` describe the native enforcement. */
export interface NativeSandboxAdapter {
  exec(request: SandboxExecRequest): Promise<{ exitCode: number | null }>
  readonly capabilities: Readonly<NativeSandboxCapabilities>
}
/** Shell operations that run every command through `adapter.exec`; it carries the adapter's `capabilities`. */
export function createSandboxBashOperations(adapter: SandboxAdapter | NativeSandboxAdapter): BashOperations
/** A sandbox that cannot be created or a command it could not run; `code` `ERR_PRISM_SANDBOX_EXECUTION`. */
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
export function createBubblewrapSandbox(options: SandboxBackendOptions & { readonly bwrapPath?: string }): Promise<NativeSandboxAdapter>
/** Rejects with SandboxExecutionError when the kernel's Landlock cannot enforce the request. */
export function createLandlockSandbox(options: SandboxBackendOptions): Promise<NativeSandboxAdapter>
/** The kernel's Landlock ABI (0 without Landlock). */
export function landlockAbiVersion(): number
