import type { ExecutionPolicy, JsonObject, ToolDefinition, ToolResult } from '../../index.js'

/** Default lines of one read page or shell tail: 2,000. */
export declare const DEFAULT_MAX_LINES: number
/** Hard cap of `maxLines`: 100,000. */
export declare const HARD_MAX_LINES: number
/** Default bytes of one read page or shell tail: 51,200 (50 KiB). */
export declare const DEFAULT_MAX_BYTES: number
/** Hard cap of `maxBytes`: 1 MiB. */
export declare const HARD_MAX_BYTES: number
/** Default largest image a read returns: 10,000,000 bytes. */
export declare const DEFAULT_MAX_IMAGE_BYTES: number
/** Hard cap of `maxImageBytes`: 32 MiB. */
export declare const HARD_MAX_IMAGE_BYTES: number
/** Default bytes a text read may scan: 64 MiB. */
export declare const DEFAULT_MAX_SCAN_BYTES: number
/** Hard cap of `maxScanBytes`: 1 GiB. */
export declare const HARD_MAX_SCAN_BYTES: number
/** Default write `maxInputBytes`: 8 MiB. */
export declare const DEFAULT_WRITE_MAX_INPUT_BYTES: number
/** Hard cap of write `maxInputBytes`: 64 MiB. */
export declare const HARD_WRITE_MAX_INPUT_BYTES: number
/** Default edit `maxFileBytes`: 8 MiB. */
export declare const DEFAULT_EDIT_MAX_FILE_BYTES: number
/** Hard cap of edit `maxFileBytes`: 64 MiB. */
export declare const HARD_EDIT_MAX_FILE_BYTES: number
/** Default edit `maxInputBytes`: 2 MiB. */
export declare const DEFAULT_EDIT_MAX_INPUT_BYTES: number
/** Hard cap of edit `maxInputBytes`: 16 MiB. */
export declare const HARD_EDIT_MAX_INPUT_BYTES: number
/** Default replacements per edit call: 100. */
export declare const DEFAULT_MAX_EDITS: number
/** Hard cap of `maxEdits`: 1,000. */
export declare const HARD_MAX_EDITS: number
/** Default shell timeout: 600 seconds. */
export declare const DEFAULT_SHELL_TIMEOUT_SECONDS: number
/** Hard cap of the shell timeout: 3,600 seconds. */
export declare const HARD_SHELL_TIMEOUT_SECONDS: number
/** Default shell `maxTotalOutputBytes`: 64 MiB. */
export declare const DEFAULT_MAX_TOTAL_OUTPUT_BYTES: number
/** Hard cap of `maxTotalOutputBytes`: 1 GiB. */
export declare const HARD_MAX_TOTAL_OUTPUT_BYTES: number

/** `<1024` → `"<b>B"`, below 1 MiB → `"<x.x>KB"`, otherwise `"<x.x>MB"`. */
export declare function formatSize(bytes: number): string
/** `p` resolved against `cwd` (Unicode spaces, leading `@`, `~`, `file://` URLs). */
export declare function resolveToCwd(p: string, cwd: string): string
/** `value`, or `fallback` when undefined; throws `"<name> must be a positive safe integer at most <hard>"`. */
export declare function validateCodingLimit(name: string, value: number | undefined, hard: number, fallback: number): number
/** Runs `fn` after every earlier call for the same real path has settled. */
export declare function withFileMutationQueue<T>(path: string, fn: () => Promise<T>): Promise<T>

export interface TruncationResult {
  readonly content?: string
  readonly truncated: boolean
  readonly truncatedBy: 'lines' | 'bytes' | null
  readonly totalLines: number
  readonly totalLinesKnown?: boolean
  readonly totalBytes: number
  readonly totalBytesKnown?: boolean
  readonly outputLines: number
  readonly outputBytes: number
  readonly lastLinePartial: boolean
  readonly firstLineExceedsLimit: boolean
  readonly maxLines: number
  readonly maxBytes: number
}

export interface TransformImageInput {
  readonly buffer: Buffer
  readonly mimeType: string
}
export type TransformImage = (input: TransformImageInput) => Promise<Buffer>

/** What `ReadOperations.readText` is asked for: one page of lines starting at `offset` (1-based). */
export interface ReadTextOptions {
  /** The first line of the page (1-based). */
  readonly offset: number
  /** Lines wanted; absent: up to `maxLines`. */
  readonly limit?: number
  /** The page's line cap; a page over it is an error. */
  readonly maxLines: number
  /** The page's byte cap (each kept line with its LF); a page over it is an error. */
  readonly maxBytes: number
  /** Stop scanning after this many bytes. */
  readonly maxScanBytes: number
  /** Aborted when the call is. */
  readonly signal?: AbortSignal
}
/** One page of text, as `ReadOperations.readText` returns it. */
export interface ReadTextResult {
  readonly content: string
  readonly startLine: number
  readonly outputLines: number
  readonly hasMore: boolean
  readonly nextOffset?: number
  readonly truncatedBy: 'lines' | 'bytes' | null
  readonly firstLineExceedsLimit: boolean
  readonly scannedBytes: number
  readonly totalLines?: number
  readonly totalBytes?: number
}
/** Extracts text from binary documents (PDF, office files) for read. */
export interface DocumentReader {
  /** Largest input the reader accepts. */
  readonly maxInputBytes: number
  /** Largest text it returns. */
  readonly maxTextBytes: number
  /** Resolves to `null` when the file is not a document it handles. */
  extract(input: { readonly buffer: Buffer; readonly path: string; readonly signal?: AbortSignal }): Promise<DocumentReaderResult | null>
}
export interface DocumentReaderResult {
  readonly text: string
  readonly format: string
  readonly pages: number
  readonly truncatedBy: 'pages' | 'bytes' | null
}
/** A host file backend for read (the reference's shape). */
export interface ReadOperations {
  /** The whole file, at most `maxBytes` (a larger file is an error). */
  readFile: (absolutePath: string, options: { maxBytes: number; signal?: AbortSignal }) => Promise<Buffer>
  /** One page of text lines. */
  readText: (absolutePath: string, options: ReadTextOptions) => Promise<ReadTextResult>
  access: (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<void>
  statFile: (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<{ size: number }>
  /** The file's image type (`image/png`, ...); null or undefined when it is not a supported image. */
  detectImageMimeType?: (absolutePath: string) => Promise<string | null | undefined>
}
/** Paths the session has read, for `requireReadBeforeWrite` (`createReadPathSet`). */
export interface ReadPathSet {
  has(path: string): boolean
  add(path: string): void
  list(): readonly string[]
  clear(): void
}
/** An empty read-path set. */
export declare function createReadPathSet(): ReadPathSet
export interface ReadBeforeWriteOptions {
  /**
   * Refuse to write or edit a path not in `readPathSet` unless the call passes `force: true`
   * (`Refusing write to <path>: not read in this session. Read first or pass force=true.`). Default false.
   */
  requireReadBeforeWrite?: boolean
  /** The paths read so far (any `{ has, add }`; share it with the read tool). */
  readPathSet?: ReadPathSet
}
/** The image type read and the model accept (`image/png`, `image/jpeg`, ...) from the magic bytes; null otherwise. */
export declare function detectSupportedImageMimeType(buffer: Buffer): string | null
/** The same for the first bytes of a file; null when it cannot be read. */
export declare function detectSupportedImageMimeTypeFromFile(filePath: string): Promise<string | null>

export interface ReadToolOptions {
  /** Asked before any side effect; a denial is an error result and nothing is read. Default none (allowed). */
  readonly executionPolicy?: ExecutionPolicy
  /** Bytes of one image a read returns. Default 10,000,000, hard 32 MiB. */
  readonly maxImageBytes?: number
  /** Bytes a text read may scan to reach its page. Default 64 MiB, hard 1 GiB. */
  readonly maxScanBytes?: number
  /** Applied to an image before it is returned; its output is bounded by `maxImageBytes` again. */
  readonly transformImage?: TransformImage
  /** A host backend instead of the native file work (the page logic and limits still run in the engine). */
  readonly operations?: ReadOperations
  /** Lines of text one read page or one shell tail shows. Default 2,000, hard 100,000. */
  readonly maxLines?: number
  /** Bytes of text one read page or one shell tail shows. Default 50 KiB, hard 1 MiB. */
  readonly maxBytes?: number
  /** Paths read successfully are added here (for `requireReadBeforeWrite`). */
  readonly readPathSet?: ReadPathSet
  /** Asked for files that are not images, before the text page (`extract` resolving to null falls through). */
  readonly documentReader?: DocumentReader
}

export type FileChangeOp = 'write' | 'edit' | 'delete' | 'move'
/** Emitted by write and edit after a file changed. */
export interface FileChangedEvent {
  readonly type: 'file_changed'
  readonly path: string
  readonly op: FileChangeOp
  readonly toolCallId?: string
}
/** Events of the reference's coding lifecycle; write and edit here emit `file_changed`. */
export type CodingLifecycleEvent =
  | {
      readonly type: 'process_started' | 'process_exited' | 'process_killed' | 'process_released' | 'process_expired' | 'process_unknown'
      readonly sessionId: string
      readonly processId: string
      readonly owner: string
      readonly exitCode?: number | null
      readonly at: string
    }
  | FileChangedEvent
  | { readonly type: 'worktree_changed'; readonly action: 'add' | 'remove'; readonly path: string; readonly toolCallId?: string }
  | {
      readonly type: 'permission_denied'
      readonly reason: string
      readonly toolName: string
      readonly toolCallId?: string
      readonly approvalId?: string
    }
  | { readonly type: 'configuration_changed'; readonly keys: readonly string[] }
  | {
      readonly type: 'plan_changed'
      readonly planPath: string
      readonly todos: readonly { readonly id: string; readonly text: string; readonly done: boolean }[]
    }
  | { readonly type: 'plan_removed'; readonly planPath: string }

/** A host file backend for write. */
export interface WriteOperations {
  writeFile: (absolutePath: string, content: string, options?: { maxBytes: number; signal?: AbortSignal }) => Promise<void>
  mkdir: (dir: string, options?: { signal?: AbortSignal }) => Promise<void>
}
export interface WriteToolOptions extends ReadBeforeWriteOptions {
  /** Asked before any side effect (after the input bound); a denial creates nothing. Default none (allowed). */
  readonly executionPolicy?: ExecutionPolicy
  /** A host backend instead of the native atomic write. */
  readonly operations?: WriteOperations
  /** UTF-8 bytes of one write's content. Default 8 MiB, hard 64 MiB. */
  readonly maxInputBytes?: number
  /** Gets `{ type: "file_changed", path, op, toolCallId }` after a write. */
  readonly onEvent?: (event: CodingLifecycleEvent) => void
}

/** A host file backend for edit; `statFile` bounds the size before any read. */
export interface EditOperations {
  readFile: (absolutePath: string, options: { maxBytes: number; signal?: AbortSignal }) => Promise<Buffer>
  writeFile: (absolutePath: string, content: string, options?: { signal?: AbortSignal }) => Promise<void>
  access: (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<void>
  statFile: (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<{ size: number }>
}
export interface EditToolOptions extends ReadBeforeWriteOptions {
  /** Asked before any side effect; a denial changes nothing. Default none (allowed). */
  readonly executionPolicy?: ExecutionPolicy
  /** A host backend instead of the native file work (matching and diffs still run in the engine). */
  readonly operations?: EditOperations
  /** Size of a file an edit may open. Default 8 MiB, hard 64 MiB. */
  readonly maxFileBytes?: number
  /** UTF-8 bytes of one edit's replacements together. Default 2 MiB, hard 16 MiB. */
  readonly maxInputBytes?: number
  /** Replacements in one edit call. Default 100, hard 1,000. */
  readonly maxEdits?: number
  /** Gets `{ type: "file_changed", path, op, toolCallId }` after an edit. */
  readonly onEvent?: (event: CodingLifecycleEvent) => void
}

export interface BashSpawnContext {
  command: string
  cwd: string
  env: NodeJS.ProcessEnv
}
/** Rewrites the command, directory or environment before the shell starts. */
export type BashSpawnHook = (context: BashSpawnContext) => BashSpawnContext
export interface BashExecOptions {
  /** Receives stdout and stderr chunks as they arrive. */
  onData: (data: Buffer) => void
  /** Aborted when the call is; the backend must end the command's whole process group. */
  signal?: AbortSignal
  /** Seconds. */
  timeout?: number
  /** The command's environment (`process.env` or only the `envAllowlist` names). */
  env?: NodeJS.ProcessEnv
}
/** A host process backend for shell (used instead of the native path when given). */
export interface BashOperations {
  exec: (command: string, cwd: string, options: BashExecOptions) => Promise<{ exitCode: number | null }>
}
export interface ShellToolOptions {
  /** Asked with `{ kind: "shell", command }` before anything is spawned; a denial spawns nothing. Default none (allowed). */
  readonly executionPolicy?: ExecutionPolicy
  /** A host process backend (a sandbox's) instead of the native spawn. */
  readonly operations?: BashOperations
  /** Joined before the command with a newline. */
  readonly commandPrefix?: string
  /** The shell binary; default `$SHELL` if it exists, else `/bin/bash`, else `sh`. */
  readonly shellPath?: string
  /** Rewrites `{ command, cwd, env }` before the policy is asked; a non-string `cwd` is an error result. */
  readonly spawnHook?: BashSpawnHook
  /** Only these environment variables reach the command (default: all of `process.env`). */
  readonly envAllowlist?: readonly string[]
  /** Lines of text one read page or one shell tail shows. Default 2,000, hard 100,000. */
  readonly maxLines?: number
  /** Bytes of text one read page or one shell tail shows. Default 50 KiB, hard 1 MiB. */
  readonly maxBytes?: number
  /** Seconds a shell command may run. Default 600, hard 3,600. */
  readonly timeout?: number
  /**
   * Bytes of output a shell command may produce before it is killed; at least `maxBytes`. Default
   * 64 MiB, hard 1 GiB.
   */
  readonly maxTotalOutputBytes?: number
  /** Spill file prefix, `/^[A-Za-z0-9._-]+$/`; default `"prism-shell"`. */
  readonly tempFilePrefix?: string
}

export interface CodingToolDefinition extends ToolDefinition {
  readonly parameters: JsonObject
  execute(args: JsonObject, context: Parameters<ToolDefinition['execute']>[1]): Promise<ToolResult>
}

/** The image MIME type of a file whose first bytes are `buffer` (magic bytes only), or null. */
export declare function detectSupportedImageMimeType(buffer: Buffer | Uint8Array): string | null
/** The image MIME type of the file at `filePath` from its first 4,100 bytes, or null. */
export declare function detectSupportedImageMimeTypeFromFile(filePath: string): Promise<string | null>
/**
 * The `read` tool: a page of a text file (`path`, `offset`, `limit`, `findText`, `findMode`)
 * streamed without holding the file, or an image. Never throws: failures are error results. A
 * limit that is not a positive safe integer within its hard cap throws at construction
 * (`"<name> must be a positive safe integer at most <hard>"`, `ERR_PRISM_CODING_INVALID_LIMIT`).
 */
export declare function createReadTool(cwd: string, options?: ReadToolOptions): CodingToolDefinition
/**
 * The `write` tool: `mkdir -p` and an atomic write (`path`, `content`, `force`), serialised per
 * real path. Never throws: failures are error results. A bad limit throws at construction.
 */
export declare function createWriteTool(cwd: string, options?: WriteToolOptions): CodingToolDefinition
/**
 * The `edit` tool: exact (else whitespace-tolerant) replacements of `edits: [{oldText, newText}]`,
 * written atomically with a diff in `metadata`. Never throws: failures are error results. A bad
 * limit throws at construction.
 */
export declare function createEditTool(cwd: string, options?: EditToolOptions): CodingToolDefinition
/**
 * The `shell` tool (exclusive: its turn runs one call at a time): `command` in its own process
 * group, killed whole on timeout or abort; a tail of the output, the rest in a 0600 file. Never
 * throws: failures are error results. A bad limit throws at construction, a `maxTotalOutputBytes`
 * below `maxBytes` or a bad `tempFilePrefix` too (`ERR_PRISM_CODING_INVALID_OPTION`), and a
 * non-string `cwd` a TypeError (`ERR_INVALID_ARG_TYPE`).
 */
export declare function createShellTool(cwd: string, options?: ShellToolOptions): CodingToolDefinition & { readonly exclusive: true }
