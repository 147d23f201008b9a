// prism-native/mcp: MCP servers' tools as ordinary tool definitions, on a native (rmcp) client.
import type { ContentBlock, ErrorInfo, JsonObject, ToolDefinition, ToolEffectDeclaration, ToolExecutionContext, ToolResult } from '../../index.js'

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
/** MCP OAuth inside connectMcpTools is out of scope (setting it throws `McpUnsupportedCapabilityError`); bring an authenticated client to attachMcpToolBridge instead. */
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
/** The limit options of a bridge (every limit but the HTTP transport's `maxResponseBytes`). */
export interface McpClientLimitsInput {
  readonly maxListPages?: number
  readonly maxTools?: number
  readonly maxCursorBytes?: number
  readonly maxToolNameBytes?: number
  readonly maxToolDescriptionBytes?: number
  readonly maxToolSchemaBytes?: number
  readonly maxTotalToolSchemaBytes?: number
  readonly maxJsonDepth?: number
  readonly maxJsonProperties?: number
  readonly maxResultBytes?: number
  readonly callTimeoutMs?: number
  readonly listCacheTtlMs?: number
}

/**
 * What prism-native uses of a host's MCP client (the JS SDK's `Client` fits): raw `request()`
 * for `tools/list` and `tools/call` (results pass through unparsed and are checked by the
 * engine), `setNotificationHandler()` for `notifications/tools/list_changed` if present, and
 * `close()` when the bridge closes.
 */
export interface McpHostClient {
  request(
    request: { readonly method: string; readonly params?: Readonly<Record<string, unknown>> },
    resultSchema: any,
    options?: { readonly signal?: AbortSignal; readonly timeout?: number; readonly maxTotalTimeout?: number },
  ): Promise<unknown>
  setNotificationHandler?(notificationSchema: any, handler: (notification: any) => void | Promise<void>): void
  close?(): Promise<void>
}

/** The host's transport of that client: only `close()` is used (when the bridge closes). */
export interface McpHostTransport {
  close?(): Promise<void>
}

/** One remote tool as `tools/list` gave it (within every bound). */
export interface ListedMcpTool {
  readonly name: string
  readonly title?: string
  readonly description?: string
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown }
  readonly outputSchema?: { readonly type: 'object'; readonly [key: string]: unknown }
  readonly annotations?: Readonly<Record<string, unknown>>
  readonly _meta?: Readonly<Record<string, unknown>>
  readonly [key: string]: unknown
}

/** connectMcpTools' options without the transport: the host's client is already connected. */
export type AttachMcpToolBridgeOptions = Omit<ConnectMcpToolsOptions, 'transport'>

/**
 * The tools of the server behind the host's connected `client`, as ToolDefinitions, with the
 * names, limits, bounds, result mapping and errors of connectMcpTools. `close()` also closes
 * `client` and `transport` (best effort); `serverPid` is 0.
 */
export function attachMcpToolBridge(
  client: McpHostClient,
  transport: McpHostTransport | undefined,
  options: AttachMcpToolBridgeOptions,
): Promise<McpToolBridge>
/** Every tool of the server behind `client`, through raw `tools/list` pages within every bound. */
export function listAllMcpTools(client: McpHostClient, signal?: AbortSignal, input?: McpClientLimitsInput): Promise<ListedMcpTool[]>

export interface McpToolDefinitionContext {
  readonly namePrefix: string
  readonly serverId: string
  readonly callTimeoutMs: number
  readonly maxResultBytes: number
  readonly isClosed: () => boolean
  readonly callRemoteTool: (remoteName: string, args: JsonObject, context: ToolExecutionContext) => Promise<ToolResult>
  /** Default `{ kind: "external_mutation", idempotency: "unsupported" }`. */
  readonly effectForRemoteTool?: (remote: ListedMcpTool) => ToolEffectDeclaration
}
/** Remote tools as ToolDefinitions named `namePrefix + name`; a duplicate throws `McpToolNameCollisionError`. */
export function mapMcpToolsToDefinitions(remoteTools: readonly ListedMcpTool[], context: McpToolDefinitionContext): ToolDefinition[]

/**
 * Checks a transport configuration as connectMcpTools does and returns a frozen copy of it
 * (a description for connectMcpTools, not a JS SDK Transport). Throws `McpBridgeError`.
 */
export function createMcpTransport<T extends McpTransportConfig>(config: T): Readonly<T>

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
export const DEFAULT_MAX_LIST_PAGES: number
export const DEFAULT_MAX_TOOLS: number
export const DEFAULT_MAX_CURSOR_BYTES: number
export const DEFAULT_MAX_TOOL_NAME_BYTES: number
export const DEFAULT_MAX_TOOL_DESCRIPTION_BYTES: number
export const DEFAULT_MAX_TOOL_SCHEMA_BYTES: number
export const DEFAULT_MAX_TOTAL_TOOL_SCHEMA_BYTES: number
export const DEFAULT_MAX_JSON_DEPTH: number
export const DEFAULT_MAX_JSON_PROPERTIES: number
export const DEFAULT_MAX_HTTP_RESPONSE_BYTES: number
export const HARD_MAX_LIST_PAGES: number
export const HARD_MAX_TOOLS: number
export const HARD_MAX_CURSOR_BYTES: number
export const HARD_MAX_TOOL_NAME_BYTES: number
export const HARD_MAX_TOOL_DESCRIPTION_BYTES: number
export const HARD_MAX_TOOL_SCHEMA_BYTES: number
export const HARD_MAX_TOTAL_TOOL_SCHEMA_BYTES: number
export const HARD_MAX_JSON_DEPTH: number
export const HARD_MAX_JSON_PROPERTIES: number
export const HARD_MAX_RESULT_BYTES: number
export const HARD_CALL_TIMEOUT_MS: number
export const HARD_LIST_CACHE_TTL_MS: number
export const HARD_MAX_HTTP_RESPONSE_BYTES: number
