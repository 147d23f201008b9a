// prism-native/mcp: MCP servers' tools as ordinary tool definitions, on a native (rmcp) client.
import type { ContentBlock, ErrorInfo, ToolDefinition, ToolEffectDeclaration } from '../../index.js'

/** A server started as a child process, speaking MCP over its stdin/stdout. */
export interface McpStdioTransport {
  readonly type: 'stdio'
  readonly command: string
  readonly args?: readonly string[]
  /** Laid over the host's environment. */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** Default `"inherit"`; `"pipe"`/`"overlapped"` keep the last 4 KiB for connect errors. */
  readonly stderr?: 'inherit' | 'pipe' | 'ignore' | 'overlapped'
}

/** Not supported natively (pass nothing): DNS is resolved and pinned by the bridge. */
export type MediaHostnameResolver = (hostname: string) => Promise<readonly string[]> | readonly string[]
/** MCP OAuth is out of scope: setting it throws `McpUnsupportedCapabilityError`. */
export type McpClientAuthOptions = Readonly<Record<string, unknown>>

/** A Streamable HTTP server. */
export interface McpStreamableHttpTransport {
  readonly type: 'streamable-http'
  readonly url: string
  /** Exact origins the URL may have (1 to 64). */
  readonly allowedOrigins: readonly string[]
  /** Plaintext `http` (and loopback addresses) only when true. Default false. */
  readonly allowLoopbackHttp?: boolean
  /** Bytes of one response or SSE event. Default 16 MiB, hard 64 MiB. */
  readonly maxResponseBytes?: number
  /** Only `headers` is used. */
  readonly requestInit?: RequestInit
  /** Not supported (throws `McpUnsupportedCapabilityError`). */
  readonly sessionId?: string
  /** Not supported (throws `McpUnsupportedCapabilityError`). */
  readonly resolveHostname?: MediaHostnameResolver
  /** Not supported (throws `McpUnsupportedCapabilityError`). */
  readonly auth?: McpClientAuthOptions
}

export type McpTransportConfig = McpStdioTransport | McpStreamableHttpTransport

export type McpToolEffectPolicy = (input: { serverId: string; remoteName: string }) => ToolEffectDeclaration | undefined

export interface ConnectMcpToolsOptions {
  readonly serverId: string
  readonly transport: McpTransportConfig
  /** Default `mcp:<serverId>:`; used verbatim. */
  readonly namePrefix?: string
  readonly effect?: McpToolEffectPolicy
  /** MCP Apps are out of scope: `true` throws "MCP Apps extension was not negotiated". */
  readonly mcpApps?: boolean
  /** Default 30,000, hard 24 h. */
  readonly listCacheTtlMs?: number
  /** Per call and for the connect handshake. Default 60,000, hard 30 min. */
  readonly callTimeoutMs?: number
  /** Default 10,000,000, hard 16 MiB. */
  readonly maxResultBytes?: number
  /** Default 20, hard 100. */
  readonly maxListPages?: number
  /** Default 500, hard 5,000. */
  readonly maxTools?: number
  /** Default 4 KiB, hard 16 KiB. */
  readonly maxCursorBytes?: number
  /** Default 256, hard 1,024. */
  readonly maxToolNameBytes?: number
  /** Default 16 KiB, hard 64 KiB. */
  readonly maxToolDescriptionBytes?: number
  /** Default 256 KiB, hard 1 MiB. */
  readonly maxToolSchemaBytes?: number
  /** Default 4 MiB, hard 16 MiB. */
  readonly maxTotalToolSchemaBytes?: number
  /** Default 64, hard 128. */
  readonly maxJsonDepth?: number
  /** Default 10,000, hard 100,000. */
  readonly maxJsonProperties?: number
  /** Aborting during connect closes the bridge and rethrows the reason. */
  readonly signal?: AbortSignal
  /** Refresh the catalogue after `list_changed` (debounced, default 100 ms). Default off. */
  readonly autoRefresh?: boolean | { readonly debounceMs?: number }
}

/** Not provided natively (MCP Apps are out of scope). */
export type McpAppsBridge = never

export interface McpToolBridge {
  /** Throws `McpBridgeClosedError` once closed. */
  readonly tools: readonly ToolDefinition[]
  readonly apps?: McpAppsBridge
  /** Forced, atomic (a failure keeps the previous array object), coalesced. */
  refresh(): Promise<void>
  /** Idempotent; ends the session and a stdio server's whole process group. */
  close(): Promise<void>
  /** The stdio server's process id (its process group id); 0 for HTTP. */
  readonly serverPid: number
}

export function connectMcpTools(options: ConnectMcpToolsOptions): Promise<McpToolBridge>
/** Out of scope for the native client (it takes JS SDK objects): always throws `McpUnsupportedCapabilityError`. */
export function attachMcpToolBridge(client: unknown, transport: unknown, options: Omit<ConnectMcpToolsOptions, 'transport'>): Promise<McpToolBridge>
/** Out of scope for the native client (it takes a JS SDK client): always throws `McpUnsupportedCapabilityError`. */
export function listAllMcpTools(client: unknown, signal?: AbortSignal, input?: unknown): Promise<unknown[]>

export function defaultMcpNamePrefix(serverId: string): string
export function formatMcpToolName(prefix: string, remoteName: string): string
export function assertValidServerId(serverId: string): void
export function mapMcpContentToBlocks(
  content: readonly unknown[],
  options: { readonly maxResultBytes: number },
): { content: ContentBlock[]; truncated: boolean; bytesUsed: number }
export function summarizeMcpContent(content: readonly unknown[], maxBytes?: number): string
export function boundedMcpErrorMessage(error: unknown, maxBytes: number): string
export function mcpCallError(message: string, code?: string): ErrorInfo
export function estimateUtf8Bytes(value: string): number

export class McpBridgeError extends Error {}
export class McpToolNameCollisionError extends McpBridgeError {
  constructor(prefixedName: string, remoteName: string)
  readonly prefixedName: string
  readonly remoteName: string
}
export class McpBridgeClosedError extends McpBridgeError {
  constructor(message?: string)
  readonly code: 'ERR_PRISM_MCP_CLOSED'
}
export class McpUnsupportedCapabilityError extends Error {
  constructor(message: string)
  readonly code: 'ERR_PRISM_MCP_UNSUPPORTED_CAPABILITY'
}

export interface McpLimitBounds {
  readonly default: number
  readonly hard: number
}
/** Every limit by option name (including `maxResponseBytes`). */
export const MCP_LIMITS: Readonly<Record<string, McpLimitBounds>>
export const DEFAULT_CALL_TIMEOUT_MS: number
export const DEFAULT_MAX_RESULT_BYTES: number
export const DEFAULT_LIST_CACHE_TTL_MS: number
