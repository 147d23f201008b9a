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

/** A host file backend for read (used instead of the native path when given). */
/** Options of one `ReadOperations.readText` page (the reference's `ReadTextOptions`). */
export interface ReadTextOptions {
  readonly offset: number
  readonly limit?: number
  readonly maxLines: number
  readonly maxBytes: number
  readonly maxScanBytes: number
  readonly signal?: AbortSignal
}
/** One text page from a backend (the reference's `ReadTextResult`). */
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
/** A host file backend for read (the reference's shape). */
export interface ReadOperations {
  readFile: (absolutePath: string, options: { maxBytes: number; signal?: AbortSignal }) => Promise<Buffer>
  readText: (absolutePath: string, options: ReadTextOptions) => Promise<ReadTextResult>
  access: (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<void>
  statFile: (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<{ size: number }>
  detectImageMimeType?: (absolutePath: string) => Promise<string | null | undefined>
}
export type DocumentReader = (input: { readonly path: string; readonly absolutePath: string; readonly signal?: AbortSignal }) => Promise<string | undefined> | string | undefined

export interface ReadToolOptions {
  readonly executionPolicy?: ExecutionPolicy
  /** Default `DEFAULT_MAX_IMAGE_BYTES` (10,000,000); hard cap 32 MiB. */
  readonly maxImageBytes?: number
  /** Default 64 MiB; hard cap 1 GiB. */
  readonly maxScanBytes?: number
  readonly transformImage?: TransformImage
  readonly operations?: ReadOperations
  /** Default 2,000; hard cap 100,000. */
  readonly maxLines?: number
  /** Default 51,200; hard cap 1 MiB. */
  readonly maxBytes?: number
  /** Paths read successfully are added here (for `requireReadBeforeWrite`). */
  readonly readPathSet?: Set<string>
  readonly documentReader?: DocumentReader
}

export interface FileChangedEvent {
  readonly type: 'file_changed'
  readonly path: string
  readonly op: 'write' | 'edit'
  readonly toolCallId: string
}

/** A host file backend for write. */
export interface WriteOperations {
  mkdir?(dir: string): Promise<void>
  writeFile(absolutePath: string, content: string): Promise<void>
  access?(absolutePath: string): Promise<void>
}
export interface WriteToolOptions {
  readonly executionPolicy?: ExecutionPolicy
  readonly operations?: WriteOperations
  /** Default 8 MiB; hard cap 64 MiB. */
  readonly maxInputBytes?: number
  readonly requireReadBeforeWrite?: boolean
  readonly readPathSet?: Set<string>
  readonly onEvent?: (event: FileChangedEvent) => void
}

/** A host file backend for edit. */
/** A host file backend for edit (the reference's shape): `statFile` is asked before `readFile`. */
export interface EditOperations {
  readFile: (absolutePath: string, options: { maxBytes: number; signal?: AbortSignal }) => Promise<Buffer>
  writeFile: (absolutePath: string, content: string, options?: { signal?: AbortSignal }) => Promise<void>
  access: (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<void>
  statFile: (absolutePath: string, options?: { signal?: AbortSignal }) => Promise<{ size: number }>
}
export interface EditToolOptions {
  readonly executionPolicy?: ExecutionPolicy
  readonly operations?: EditOperations
  /** Default 8 MiB; hard cap 64 MiB. */
  readonly maxFileBytes?: number
  /** Default 2 MiB; hard cap 16 MiB. */
  readonly maxInputBytes?: number
  /** Default 100; hard cap 1,000. */
  readonly maxEdits?: number
  readonly requireReadBeforeWrite?: boolean
  readonly readPathSet?: Set<string>
  readonly onEvent?: (event: FileChangedEvent) => void
}

export interface BashSpawnContext {
  readonly command: string
  readonly cwd: string
  readonly env: Record<string, string | undefined>
}
export type BashSpawnHook = (context: BashSpawnContext) => Partial<BashSpawnContext> | void | Promise<Partial<BashSpawnContext> | void>
/** A host process backend for shell (used instead of the native path when given). */
export interface BashOperations {
  exec(
    command: string,
    cwd: string,
    options: {
      readonly onData: (data: Buffer) => void
      readonly signal: AbortSignal
      readonly timeout: number
      readonly env: Record<string, string | undefined>
    },
  ): Promise<{ readonly exitCode: number | null }>
}
export interface ShellToolOptions {
  readonly executionPolicy?: ExecutionPolicy
  readonly operations?: BashOperations
  /** Joined before the command with a newline. */
  readonly commandPrefix?: string
  /** The shell binary; default `$SHELL` if it exists, else `/bin/bash`, else `sh`. */
  readonly shellPath?: string
  readonly spawnHook?: BashSpawnHook
  /** Only these environment variables reach the command (default: all of `process.env`). */
  readonly envAllowlist?: readonly string[]
  /** Default 2,000; hard cap 100,000. */
  readonly maxLines?: number
  /** Default 51,200; hard cap 1 MiB. */
  readonly maxBytes?: number
  /** Seconds; default 600, hard cap 3,600. */
  readonly timeout?: number
  /** Default 64 MiB; hard cap 1 GiB; at least `maxBytes`. */
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
export declare function createReadTool(cwd: string, options?: ReadToolOptions): CodingToolDefinition
export declare function createWriteTool(cwd: string, options?: WriteToolOptions): CodingToolDefinition
export declare function createEditTool(cwd: string, options?: EditToolOptions): CodingToolDefinition
export declare function createShellTool(cwd: string, options?: ShellToolOptions): CodingToolDefinition & { readonly exclusive: true }
