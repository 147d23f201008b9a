// prism-native/mcp: MCP servers' tools as ordinary tool definitions, on a native (rmcp) client.
import type { ContentBlock, ErrorInfo, JsonObject, ToolDefinition, ToolEffectDeclaration, ToolExecutionContext, ToolResult } from '../../index.js'

/** A server started as a child process, speaking MCP over its stdin/stdout. */
export interface McpStdioTransport {
  readonly type: 'stdio'
  /** The program to start (own process group; its whole tree ends with `close()`). */
  readonly command: string
  readonly args?: readonly string[]
  /** Added to the variables the server inherits (only `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`). */
  readonly env?: Readonly<Record<string, string>>
  /** The server's working directory; default the host's. */
  readonly cwd?: string
  /** Default `"inherit"`; `"pipe"`/`"overlapped"` keep the last 4 KiB for connect errors. */
  readonly stderr?: 'inherit' | 'pipe' | 'ignore' | 'overlapped'
}

export interface MediaHostAddress {
  readonly address: string
  readonly family: 4 | 6
}
/** A host's own DNS for the server's host name (`transport.resolveHostname`). */
export type MediaHostnameResolver = (hostname: string, signal: AbortSignal) => Promise<readonly MediaHostAddress[]>
/** OAuth limits (the reference's defaults and hard caps; out of range: `McpOAuthError` `ERR_PRISM_MCP_OAUTH_STATE`). */
export interface McpOAuthLimitsInput {
  readonly discoveryBytes?: number
  readonly discoveryCacheEntries?: number
  readonly discoveryCacheTtlMs?: number
  readonly tokenRecordBytes?: number
  readonly stateBytes?: number
  readonly handshakeTimeoutMs?: number
}
/** RFC 6749 tokens as persisted (the MCP SDK's `OAuthTokens`). */
export interface McpOAuthTokens {
  readonly access_token: string
  readonly token_type: string
  readonly expires_in?: number
  readonly scope?: string
  readonly refresh_token?: string
  readonly [field: string]: unknown
}
/** A client registration as persisted (the MCP SDK's `OAuthClientInformationMixed`). */
export interface McpOAuthClientInformation {
  readonly client_id: string
  readonly client_secret?: string
  readonly [field: string]: unknown
}
/** What discovery found, as persisted (the MCP SDK's `OAuthDiscoveryState`). */
export interface McpOAuthDiscoveryState {
  readonly authorizationServerUrl: string
  readonly resourceMetadataUrl?: string
  readonly resourceMetadata?: Record<string, unknown>
  readonly authorizationServerMetadata?: Record<string, unknown>
}
/** Host-chosen client registration: static credentials or RFC 7591 dynamic registration metadata. */
export type McpOAuthRegistrationStrategy =
  | { readonly kind: 'static'; readonly clientId: string; readonly clientSecret?: string }
  | {
      readonly kind: 'dcr'
      readonly clientMetadata: Record<string, unknown>
      /**
       * prism-native extension: a Client ID Metadata Document URL (https, with a path), used as
       * the client id without registering when the authorization server advertises
       * `client_id_metadata_document_supported`; otherwise the client registers as without it.
       */
      readonly clientMetadataUrl?: string | URL
    }
  | {
      /**
       * prism-native extension: the client credentials grant (no user, no redirect), the
       * client authenticating with `clientSecret` (as the server's methods allow) or, with
       * `privateKeyPem` (a PKCS#8 P-256 key), by an `ES256` `private_key_jwt` assertion.
       * Exactly one of the two.
       */
      readonly kind: 'client_credentials'
      readonly clientId: string
      readonly clientSecret?: string
      readonly privateKeyPem?: string
      readonly signingAlgorithm?: 'ES256'
    }
  | {
      /**
       * prism-native extension: cross-app access (SEP-990, Enterprise-Managed Authorization),
       * no user and no redirect. The user's ID token from the enterprise identity provider is
       * exchanged at `idpTokenEndpoint` (RFC 8693, for an ID-JAG whose audience is the MCP
       * server's authorization server and whose resource is the MCP server), then the ID-JAG
       * at the authorization server (RFC 7523 JWT bearer grant), the client authenticating with
       * `clientId` and `clientSecret` as the server's methods allow.
       */
      readonly kind: 'cross_app_access'
      readonly clientId: string
      readonly clientSecret?: string
      /** The identity provider's token endpoint (https; loopback http with `allowLoopbackHttp`). */
      readonly idpTokenEndpoint: string | URL
      /**
       * The user's ID token, or a function called at each flow for a current one (ID tokens
       * are short-lived). It is sent only to `idpTokenEndpoint`, never kept or shown.
       */
      readonly idToken: string | (() => string | Promise<string>)
      /** The client at the identity provider, when it has one (sent as `client_secret_post`). */
      readonly idpClientId?: string
      readonly idpClientSecret?: string
    }
/** Persistence seam for OAuth session material (back it with an encrypted or keychain store). */
export interface McpClientAuthState {
  loadTokens(): Promise<McpOAuthTokens | undefined>
  saveTokens(tokens: McpOAuthTokens): Promise<void>
  loadDiscovery(): Promise<McpOAuthDiscoveryState | undefined>
  saveDiscovery(state: McpOAuthDiscoveryState): Promise<void>
  loadClientInformation(): Promise<McpOAuthClientInformation | undefined>
  saveClientInformation(info: McpOAuthClientInformation): Promise<void>
  loadCodeVerifier(): Promise<string | undefined>
  saveCodeVerifier(verifier: string): Promise<void>
  clear(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void>
}
/** The reference's OAuth options for a Streamable HTTP server. */
export interface McpClientAuthOptions {
  readonly state: McpClientAuthState
  readonly strategy: McpOAuthRegistrationStrategy
  /** Scopes requested when neither the server's challenge nor its metadata names any. */
  readonly scopes?: readonly string[]
  /** Where the authorization code comes back. */
  readonly redirectUri?: string | URL
  /** Called with the authorization URL when the user must authorize. */
  readonly onRedirectRequired?: (authorizationUrl: URL) => void | Promise<void>
  readonly limits?: McpOAuthLimitsInput
  /** The reference's test seam; not used (every request goes through the engine's pinned client). */
  readonly fetch?: typeof fetch
  readonly now?: () => number
}
/** An OAuth client for one MCP server. */
export interface McpClientAuth {
  /** Discovery, then tokens (exchanged or refreshed), or the start of an authorization. */
  ensureAuthorized(options?: { readonly scope?: string; readonly resourceMetadataUrl?: URL }): Promise<'AUTHORIZED' | 'REDIRECT'>
  /** Completes the authorization code round trip after `onRedirectRequired`. */
  finishAuth(authorizationCode: string): Promise<void>
  /** RFC 7009 revocation (when the server has a revocation endpoint), then local invalidation. */
  revoke(): Promise<void>
  getTokens(): Promise<McpOAuthTokens | undefined>
}
/**
 * The OAuth client for `context.serverUrl`: discovery (RFC 9728, RFC 8414 / OpenID), PKCE S256,
 * static or dynamic (RFC 7591) clients, refresh, revocation, natively under the bridge's HTTP
 * rules (`allowLoopbackHttp` is the transport's opt-in).
 */
export function createMcpClientAuth(
  options: McpClientAuthOptions,
  context: { readonly serverUrl: string | URL; readonly allowLoopbackHttp?: boolean; readonly fetch?: typeof fetch },
): McpClientAuth
/**
 * The reference's OAuth discovery fetch, as a stand-in: passed as `createMcpClientAuth`'s
 * `context.fetch`, it carries the transport's `allowLoopbackHttp` (the engine makes every OAuth
 * request itself); called as a fetch, it rejects with `McpUnsupportedCapabilityError`.
 */
export function createMcpOAuthFetch(config: McpStreamableHttpTransport): typeof fetch
/** An MCP OAuth failure with the reference's code. */
export class McpOAuthError extends Error {
  constructor(code: string, message: string, options?: { readonly cause?: unknown })
  readonly code:
    | 'ERR_PRISM_MCP_OAUTH_DISCOVERY'
    | 'ERR_PRISM_MCP_OAUTH_ORIGIN'
    | 'ERR_PRISM_MCP_OAUTH_AUDIENCE'
    | 'ERR_PRISM_MCP_OAUTH_SSRF'
    | 'ERR_PRISM_MCP_OAUTH_STATE'
    | 'ERR_PRISM_MCP_OAUTH_TOKEN_STORE'
    | (string & {})
}

/** A Streamable HTTP server. */
export interface McpStreamableHttpTransport {
  readonly type: 'streamable-http'
  readonly url: string
  /** Exact origins the URL may have (1 to 64). */
  readonly allowedOrigins: readonly string[]
  /** Plaintext `http` (and loopback addresses) only when true. Default false. */
  readonly allowLoopbackHttp?: boolean
  /** Bytes of one Streamable HTTP response body or SSE event. Default 16 MiB, hard 64 MiB. */
  readonly maxResponseBytes?: number
  /** Only `headers` is used. */
  readonly requestInit?: RequestInit
  /**
   * Resumes a session: `createMcpTransport` (the SDK's transport resumes it); not supported by
   * the native connects (throws `McpUnsupportedCapabilityError`).
   */
  readonly sessionId?: string
  /**
   * The host's DNS: asked once for the server's host name (with an AbortSignal ended at the
   * connect timeout); its 1 to 32 answers are checked as DNS answers are, and pinned.
   */
  readonly resolveHostname?: MediaHostnameResolver
  /**
   * OAuth: the stored access token goes on every request to the server; on a 401, or a 403
   * `insufficient_scope`, the flow runs once (refresh, or `onRedirectRequired` and a rejection
   * with `McpOAuthError` `ERR_PRISM_MCP_OAUTH_STATE`) and the request is sent again.
   */
  readonly auth?: McpClientAuthOptions
}

export type McpTransportConfig = McpStdioTransport | McpStreamableHttpTransport

export interface McpToolEffectPolicyInput {
  readonly serverId: string
  readonly remoteName: string
}
export type McpToolEffectPolicy = (input: McpToolEffectPolicyInput) => ToolEffectDeclaration | undefined

export interface ConnectMcpToolsOptions {
  /** Required; `/^[A-Za-z0-9][A-Za-z0-9._-]*$/`, else `Error`. Names the tools `mcp:<serverId>:<name>`. */
  readonly serverId: string
  /** Required: stdio or Streamable HTTP. A bad one throws `ERR_PRISM_MCP_INVALID_TRANSPORT`. */
  readonly transport: McpTransportConfig
  /** Default `mcp:<serverId>:`; used verbatim. A duplicate prefixed name throws `McpToolNameCollisionError`. */
  readonly namePrefix?: string
  /**
   * Each tool's effect declaration; default `{ kind: "external_mutation", idempotency:
   * "unsupported" }`. An invalid declaration throws `McpBridgeError`.
   */
  readonly effect?: McpToolEffectPolicy
  /**
   * MCP Apps: declare the `io.modelcontextprotocol/ui` extension in `initialize`; the server
   * must acknowledge it, else the connect rejects with "MCP Apps extension was not negotiated"
   * (after closing the session). The bridge then has `apps`, and `tools` only the tools the
   * model may see.
   */
  readonly mcpApps?: boolean
  /**
   * Milliseconds a listed catalogue is reused before `tools/list` runs again. Default 30 s, hard
   * 24 h.
   */
  readonly listCacheTtlMs?: number
  /**
   * Milliseconds one `tools/call` (and the connect handshake) may take. Default 1 min, hard 30 min.
   */
  readonly callTimeoutMs?: number
  /**
   * Milliseconds a `tools/call` may take in all while the server reports progress: each
   * `notifications/progress` for the call restarts its `callTimeoutMs` clock, up to this. Default
   * 10 min, hard 24 h.
   */
  readonly maxTotalTimeoutMs?: number
  /**
   * JSON bytes of one whole `tools/call` result; also the budget of the mapped content. Default
   * 10,000,000, hard 16 MiB.
   */
  readonly maxResultBytes?: number
  /**
   * How many `tools/list` pages one listing may fetch (a server that pages forever is cut off).
   * Default 20, hard 100.
   */
  readonly maxListPages?: number
  /** How many tools one listing may hold in total. Default 500, hard 5,000. */
  readonly maxTools?: number
  /** UTF-8 bytes of one pagination cursor. Default 4 KiB, hard 16 KiB. */
  readonly maxCursorBytes?: number
  /** UTF-8 bytes of one remote tool name. Default 256, hard 1 KiB. */
  readonly maxToolNameBytes?: number
  /**
   * UTF-8 bytes of one remote tool description (it ends up in the model's context). Default 16 KiB,
   * hard 64 KiB.
   */
  readonly maxToolDescriptionBytes?: number
  /** JSON bytes of one tool's input plus output schema. Default 256 KiB, hard 1 MiB. */
  readonly maxToolSchemaBytes?: number
  /** JSON bytes of every schema of one listing together. Default 4 MiB, hard 16 MiB. */
  readonly maxTotalToolSchemaBytes?: number
  /** Nesting depth of a schema or a call result (the root is depth 1). Default 64, hard 128. */
  readonly maxJsonDepth?: number
  /** Array items plus object keys of a schema or a call result. Default 10,000, hard 100,000. */
  readonly maxJsonProperties?: number
  /** Aborting during connect closes the bridge and rethrows the reason. */
  readonly signal?: AbortSignal
  /** Refresh the catalogue after `list_changed` (debounced, default 100 ms). Default off. */
  readonly autoRefresh?: boolean | { readonly debounceMs?: number }
  /**
   * The one MCP protocol revision to speak. Default: negotiate (`server/discover` for
   * 2026-07-28 first, then `initialize` offering 2025-11-25 when the probe gets anything but a
   * valid discover result, or no answer within 2 s). A revision with `initialize` pins the
   * legacy handshake; `"2026-07-28"` pins discovery (a server without it fails to connect).
   * Any other value throws `ERR_PRISM_MCP_INVALID_TRANSPORT` before anything starts.
   */
  readonly protocolVersion?: McpProtocolRevision
}
/** The MCP protocol revisions the bridge speaks, newest first. */
export type McpProtocolRevision = '2026-07-28' | '2025-11-25' | '2025-06-18' | '2025-03-26' | '2024-11-05'

export interface McpUiResourceMetadata {
  readonly csp?: Readonly<{
    readonly connectDomains?: readonly string[]
    readonly resourceDomains?: readonly string[]
    readonly frameDomains?: readonly string[]
    readonly baseUriDomains?: readonly string[]
  }>
  readonly permissions?: Readonly<{ readonly camera?: true; readonly microphone?: true; readonly geolocation?: true; readonly clipboardWrite?: true }>
  readonly domain?: string
  readonly prefersBorder?: boolean
}
export interface McpAppTool {
  readonly name: string
  readonly prismName: string
  readonly description?: string
  readonly inputSchema: JsonObject
  readonly resourceUri?: string
  readonly visibility: readonly ('model' | 'app')[]
}
export interface McpAppResource {
  readonly uri: string
  readonly name: string
  readonly description?: string
  readonly mimeType: 'text/html;profile=mcp-app'
  readonly html: string
  readonly ui?: McpUiResourceMetadata
}
/**
 * The MCP Apps side of a bridge (`mcpApps: true`, on the native session of `connectMcpTools`
 * or `connectMcpCapabilities`, or over a host's client through `attachMcpToolBridge` or
 * `attachMcpCapabilities`): every tool with its app metadata, the declared `ui://` HTML
 * resources, and calls for the app.
 */
export interface McpAppsBridge {
  readonly serverId: string
  readonly negotiated: true
  readonly tools: readonly McpAppTool[]
  listResources(): Promise<readonly Omit<McpAppResource, 'html'>[]>
  readResource(uri: string): Promise<McpAppResource>
  callTool(name: string, args: JsonObject, context: ToolExecutionContext): Promise<ToolResult>
}

export interface McpToolBridge {
  /** Throws `McpBridgeClosedError` once closed. */
  readonly tools: readonly ToolDefinition[]
  /** Present only when `mcpApps: true` negotiated the MCP Apps extension. */
  readonly apps?: McpAppsBridge
  /** Forced, atomic (a failure keeps the previous array object), coalesced. */
  refresh(): Promise<void>
  /** Idempotent; ends the session and a stdio server's whole process group. */
  close(): Promise<void>
  /** prism-native extension: the stdio server's process id (its process group id); 0 for HTTP. */
  readonly serverPid?: number
  /** prism-native extension: the protocol revision negotiated with the server (see `protocolVersion`). */
  readonly protocolVersion?: McpProtocolRevision
}

/** The options of `attachMcpToolBridge`: those of `connectMcpTools` without the transport. */
export type AttachMcpToolBridgeOptions = Omit<ConnectMcpToolsOptions, 'transport'>

/** A tool as an MCP server lists it (`tools/list`); other fields of the listing pass through. */
export interface McpListedTool {
  name: string
  title?: string
  description?: string
  inputSchema: { type: 'object'; properties?: Record<string, object>; required?: string[]; [key: string]: unknown }
}
/**
 * The part of a connected JS SDK `Client` (`@modelcontextprotocol/sdk`) the bridge uses: it sends
 * the requests; prism-native names, bounds, pages and maps.
 */
export interface McpSdkClient {
  request(request: { method: string; params?: Record<string, unknown> }, resultSchema: never, options?: object): Promise<unknown>
}
/** What `attachMcpToolBridge` also uses of the client: `list_changed` notifications and `close()`. */
export interface McpSdkBridgeClient extends McpSdkClient {
  setNotificationHandler(notificationSchema: never, handler: (notification: never) => void | Promise<void>): void
  close(): Promise<void>
}
/** A JS SDK transport (`Transport` of `@modelcontextprotocol/sdk`), as `createMcpTransport` returns it. */
export interface McpSdkTransport {
  start(): Promise<void>
  send(message: never, options?: never): Promise<void>
  close(): Promise<void>
  readonly sessionId?: string
}
/** Per-call bounds of `listAllMcpTools` (defaults and hard caps as for `connectMcpTools`). */
export interface McpClientLimitsInput {
  /**
   * How many `tools/list` pages one listing may fetch (a server that pages forever is cut off).
   * Default 20, hard 100.
   */
  readonly maxListPages?: number
  /** How many tools one listing may hold in total. Default 500, hard 5,000. */
  readonly maxTools?: number
  /** UTF-8 bytes of one pagination cursor. Default 4 KiB, hard 16 KiB. */
  readonly maxCursorBytes?: number
  /** UTF-8 bytes of one remote tool name. Default 256, hard 1 KiB. */
  readonly maxToolNameBytes?: number
  /**
   * UTF-8 bytes of one remote tool description (it ends up in the model's context). Default 16 KiB,
   * hard 64 KiB.
   */
  readonly maxToolDescriptionBytes?: number
  /** JSON bytes of one tool's input plus output schema. Default 256 KiB, hard 1 MiB. */
  readonly maxToolSchemaBytes?: number
  /** JSON bytes of every schema of one listing together. Default 4 MiB, hard 16 MiB. */
  readonly maxTotalToolSchemaBytes?: number
  /** Nesting depth of a schema or a call result (the root is depth 1). Default 64, hard 128. */
  readonly maxJsonDepth?: number
  /** Array items plus object keys of a schema or a call result. Default 10,000, hard 100,000. */
  readonly maxJsonProperties?: number
  /**
   * JSON bytes of one whole `tools/call` result; also the budget of the mapped content. Default
   * 10,000,000, hard 16 MiB.
   */
  readonly maxResultBytes?: number
  /**
   * Milliseconds one `tools/call` (and the connect handshake) may take. Default 1 min, hard 30 min.
   */
  readonly callTimeoutMs?: number
  /**
   * Milliseconds a listed catalogue is reused before `tools/list` runs again. Default 30 s, hard
   * 24 h.
   */
  readonly listCacheTtlMs?: number
}
/** What `mapMcpToolsToDefinitions` needs to turn listed tools into definitions. */
export interface McpToolMappingContext {
  readonly namePrefix: string
  readonly serverId: string
  readonly callTimeoutMs: number
  readonly maxResultBytes: number
  readonly isClosed: () => boolean
  readonly callRemoteTool: (remoteName: string, args: JsonObject, ctx: ToolExecutionContext) => Promise<ToolResult>
  readonly effectForRemoteTool?: (remote: McpListedTool) => ToolEffectDeclaration
}

/**
 * Connects a server (stdio or Streamable HTTP) with the native client, lists its tools and
 * resolves to `{ tools, refresh(), close(), serverPid, protocolVersion }`; the tools are
 * `ToolDefinition`s named `<namePrefix><remote name>`. Rejects with `McpBridgeError` (a limit
 * out of range: `"<name> must be a positive safe integer <= <hard>"`; connect failures with
 * `code` `ERR_PRISM_MCP_CONNECT`, `ERR_PRISM_MCP_CONNECT_TIMEOUT`, `ERR_PRISM_MCP_NOT_PUBLIC`,
 * ...; with `mcpApps`, "MCP Apps extension was not negotiated" unless the server acknowledged
 * it), `McpOAuthError` when `transport.auth` cannot authorize, `McpUnsupportedCapabilityError`
 * for `sessionId`, or a TypeError (`ERR_INVALID_ARG_TYPE`) for a
 * wrong-typed option. Aborting `signal` during
 * connect closes the bridge and rejects with its reason.
 */
export function connectMcpTools(options: ConnectMcpToolsOptions): Promise<McpToolBridge>
/** A bridge over a host's own connected JS SDK client (the client does the I/O). */
export function attachMcpToolBridge(
  client: McpSdkBridgeClient,
  transport: { close(): Promise<void> },
  options: AttachMcpToolBridgeOptions,
): Promise<McpToolBridge>
/** Every tool the client's server lists, page by page, within the listing bounds. */
export function listAllMcpTools(client: McpSdkClient, signal?: AbortSignal, input?: McpClientLimitsInput): Promise<McpListedTool[]>
/** Tool definitions for listed tools; throws `McpToolNameCollisionError` on a duplicate prefixed name. */
export function mapMcpToolsToDefinitions(remoteTools: readonly McpListedTool[], context: McpToolMappingContext): ToolDefinition[]
/**
 * The JS SDK's transport for `config` (`@modelcontextprotocol/sdk`, installed by the host),
 * checked as connectMcpTools checks it: a `StdioClientTransport`, or a
 * `StreamableHTTPClientTransport` whose every request goes through the engine (same origin,
 * pinned public addresses, no redirects, `maxResponseBytes`); with `auth`,
 * `createMcpOAuthTransport(config).transport`. Throws `McpBridgeError`.
 */
export function createMcpTransport(config: McpTransportConfig): McpSdkTransport
/**
 * A Streamable HTTP SDK transport with OAuth (the engine's OAuth client over `config.auth`
 * gives each request its bearer and authorizes again on a 401 or a scope challenge) and that
 * auth client, to finish an authorization (`finishAuth`) or revoke. Throws `McpBridgeError`
 * without `auth`.
 */
export function createMcpOAuthTransport(config: McpStreamableHttpTransport): { readonly transport: McpSdkTransport; readonly auth: McpClientAuth }
/** The names the host-client bridge's own declarations used; the same types. */
export type ListedMcpTool = McpListedTool
export type McpHostClient = McpSdkBridgeClient
export type McpToolDefinitionContext = McpToolMappingContext

/** `mcp:<serverId>:`, after `assertValidServerId`. */
export function defaultMcpNamePrefix(serverId: string): string
/** `prefix + remoteName` (no separator added). */
export function formatMcpToolName(prefix: string, remoteName: string): string
/** Throws `Error` unless `serverId` matches `/^[A-Za-z0-9][A-Za-z0-9._-]*$/`. */
export function assertValidServerId(serverId: string): void
/**
 * MCP content blocks as prism blocks within `maxResultBytes` (text cut on a UTF-8 boundary,
 * images kept only if they fit, unknown types skipped). Options that are not an object, or
 * without `maxResultBytes`, throw a TypeError (`ERR_INVALID_ARG_TYPE`); a `maxResultBytes` out of
 * range throws `McpBridgeError`.
 */
export function mapMcpContentToBlocks(
  content: readonly unknown[] | undefined,
  options: { readonly maxResultBytes: number },
): { content: ContentBlock[]; truncated: boolean; bytesUsed: number }
/** A plain-text summary of `content`, at most `maxBytes` UTF-8 bytes (default 8 KiB). */
export function summarizeMcpContent(content: readonly unknown[] | undefined, maxBytes?: number): string
/** The message of `error` (any thrown value), at most `maxBytes` UTF-8 bytes. */
export function boundedMcpErrorMessage(error: unknown, maxBytes: number): string
/** `{ name: "McpToolError", message, code }`; `code` defaults to `ERR_PRISM_MCP_TOOL`. */
export function mcpCallError(message: string, code?: string): ErrorInfo
/** UTF-8 bytes of `value`. */
export function estimateUtf8Bytes(value: string): number

/** A bridge failure (bad option, connect or listing failure); native ones carry an `ERR_PRISM_MCP_*` `code`. */
export class McpBridgeError extends Error {
  constructor(message: string, options?: { cause?: unknown })
}
/** Two remote tools map to the same prefixed name. */
export class McpToolNameCollisionError extends McpBridgeError {
  constructor(prefixedName: string, remoteName: string)
  readonly prefixedName: string
  readonly remoteName: string
}
/** Any use of a closed bridge (`tools`, `execute`, `refresh`). */
export class McpBridgeClosedError extends McpBridgeError {
  constructor(message?: string)
  readonly code: 'ERR_PRISM_MCP_CLOSED'
}
/** A capability the server did not declare (message `Unsupported MCP capability: <name>`), or an option this bridge does not support. */
export class McpUnsupportedCapabilityError extends Error {
  constructor(capability: string)
  readonly code: 'ERR_PRISM_MCP_UNSUPPORTED_CAPABILITY'
  readonly capability: string
}

/** An MCP root the host approves (`file:` URIs only). */
export interface McpRoot {
  readonly uri: string
  readonly name?: string
}
/** A server's `sampling/createMessage` request, for the host's callback. */
export interface PrismMcpSamplingRequest {
  readonly params: unknown
  readonly signal: AbortSignal
}
/** A server's `elicitation/create` request, for the host's callback. */
export interface PrismMcpElicitationRequest {
  readonly params: unknown
  readonly signal: AbortSignal
}
/** The host's elicitation answer; an `accept` fails closed without `humanInteraction: true`, which is removed before the answer is sent. */
export interface PrismMcpElicitationResult extends Readonly<Record<string, unknown>> {
  readonly action: 'accept' | 'decline' | 'cancel'
  readonly humanInteraction?: true
}
/** The options of the capability client: those of `connectMcpTools`, and the host's callbacks. */
export interface ConnectMcpCapabilitiesOptions extends ConnectMcpToolsOptions {
  /** Answers `roots/list`: at most 500 roots, `file:` URIs only. Declares `roots` when set. */
  readonly roots?: () => readonly McpRoot[] | Promise<readonly McpRoot[]>
  /** Answers `sampling/createMessage`. Declares `sampling` when set. */
  readonly sampling?: (request: PrismMcpSamplingRequest) => unknown | Promise<unknown>
  /** Answers `elicitation/create` (form and URL modes). Declares `elicitation` when set. */
  readonly elicitation?: (request: PrismMcpElicitationRequest) => unknown | Promise<unknown>
  /** Bytes of any one capability request or answer, page, read or prompt (default 1 MiB, at most 8 MiB); depth 64 and 10 000 properties apply too. */
  readonly maxCapabilityBytes?: number
  /** prism-native extension (`connectMcpCapabilities` only): the params of each `notifications/resources/updated` within `maxCapabilityBytes` (one past it is dropped). */
  readonly onResourceUpdated?: (params: { readonly uri: string } & Readonly<Record<string, unknown>>) => void
}
/** A server's tools, resources and prompts. */
export interface McpCapabilityBridge extends McpToolBridge {
  readonly serverVersion?: Readonly<{ name: string; version: string }>
  readonly serverCapabilities: Readonly<Record<string, unknown>>
  /** Every resource, page by page (at most 20 pages and 500 items, no repeated cursor); `McpUnsupportedCapabilityError` without `resources`. */
  listResources(): Promise<readonly unknown[]>
  /** prism-native extension: every resource template, under the same guards. */
  listResourceTemplates(): Promise<readonly unknown[]>
  readResource(uri: string): Promise<unknown>
  /** Every prompt, under the same guards; `McpUnsupportedCapabilityError` without `prompts`. */
  listPrompts(): Promise<readonly unknown[]>
  getPrompt(name: string, args?: Readonly<Record<string, string>>): Promise<unknown>
}
/** A JS SDK `Client` (`@modelcontextprotocol/sdk`), as `createMcpCapabilityClient` returns it. */
export interface McpSdkCapabilityClient extends McpSdkBridgeClient {
  connect(transport: McpSdkTransport | object, options?: object): Promise<void>
  getServerCapabilities(): Record<string, unknown> | undefined
  getServerVersion(): { name: string; version: string } | undefined
}
/**
 * Connects a server on the engine's own session (stdio or Streamable HTTP) as a capability
 * client: its tools (when it has them) as `connectMcpTools` gives them, its resources,
 * resource templates and prompts, and its roots, sampling and elicitation requests answered by
 * the callbacks (each with a `signal` aborted when the server cancels or the session closes).
 * With `mcpApps`, a server with tools must acknowledge the MCP Apps extension, and the bridge
 * then has `apps`.
 */
export function connectMcpCapabilities(options: ConnectMcpCapabilitiesOptions): Promise<NativeMcpCapabilityBridge>
/** What `connectMcpCapabilities` resolves to. */
export interface NativeMcpCapabilityBridge extends McpCapabilityBridge {
  /** prism-native extension: `resources/subscribe` (the server must declare `resources.subscribe`); updates go to `onResourceUpdated`. */
  subscribeResource(uri: string): Promise<unknown>
  /** prism-native extension: `resources/unsubscribe`. */
  unsubscribeResource(uri: string): Promise<unknown>
}
/** The capability bridge over the host's connected client (tools, resources, prompts). */
export function attachMcpCapabilities(
  client: McpSdkCapabilityClient | McpSdkBridgeClient,
  transport: McpSdkTransport | { close(): Promise<void> } | undefined,
  options: AttachMcpToolBridgeOptions & { readonly maxCapabilityBytes?: number },
): Promise<McpCapabilityBridge>
/** The MCP SDK's `Client` (the host's `@modelcontextprotocol/sdk`) declaring the selected capabilities and answering roots, sampling and elicitation through the callbacks, every request and answer checked by the engine. */
export function createMcpCapabilityClient(options: ConnectMcpCapabilitiesOptions): McpSdkCapabilityClient

/** A pending decision of kind `elicitation` (the shape of `@arnilo/prism`'s `PendingDecision`). */
export interface McpElicitationPendingDecision {
  readonly approvalId: string
  readonly kind: 'elicitation'
  readonly scope: { readonly toolName?: string }
  readonly reason: string
  readonly elicitationSchema: JsonObject
}
/** A run decision (the shape of `@arnilo/prism`'s `RunDecision`). */
export interface McpRunDecision {
  readonly approvalId: string
  readonly outcome: 'allow_once' | 'allow_for_run' | 'reject_once' | 'reject_for_run' | (string & {})
  readonly elicitation?: JsonObject
}
/** Options of `mcpElicitationDecision`. */
export interface McpElicitationDecisionOptions {
  /** The tool whose call raised the elicitation. */
  readonly toolName?: string
}
/** An elicitation's untrusted params as a pending decision; `McpBridgeError` when malformed or oversized. */
export function mcpElicitationDecision(approvalId: string, params: unknown, options?: McpElicitationDecisionOptions): McpElicitationPendingDecision
/** A run decision as the elicitation result; an accepting one needs the payload and `humanInteraction: true`. */
export function mcpElicitationResultFromDecision(decision: McpRunDecision, options?: { readonly humanInteraction?: boolean }): PrismMcpElicitationResult
/** Bytes of an elicitation's message as a decision's reason (2,048). */
export const MAX_MCP_ELICITATION_MESSAGE_BYTES: number
/** Bytes of an elicitation's requested schema as a decision's schema (16 KiB). */
export const MAX_MCP_ELICITATION_SCHEMA_BYTES: number

export interface McpLimitBounds {
  readonly default: number
  readonly hard: number
}
/** Every limit by option name (including `maxResponseBytes`). */
export const MCP_LIMITS: Readonly<Record<string, McpLimitBounds>>
/** `callTimeoutMs` when unset: 1 min. */
export const DEFAULT_CALL_TIMEOUT_MS: number
/** `maxTotalTimeoutMs` when unset (10 min). */
export const DEFAULT_MAX_TOTAL_TIMEOUT_MS: number
/** `maxResultBytes` when unset: 10,000,000. */
export const DEFAULT_MAX_RESULT_BYTES: number
/** `listCacheTtlMs` when unset: 30 s. */
export const DEFAULT_LIST_CACHE_TTL_MS: number
/** `maxListPages` when unset: 20. */
export const DEFAULT_MAX_LIST_PAGES: number
/** `maxTools` when unset: 500. */
export const DEFAULT_MAX_TOOLS: number
/** `maxCursorBytes` when unset: 4 KiB. */
export const DEFAULT_MAX_CURSOR_BYTES: number
/** `maxToolNameBytes` when unset: 256. */
export const DEFAULT_MAX_TOOL_NAME_BYTES: number
/** `maxToolDescriptionBytes` when unset: 16 KiB. */
export const DEFAULT_MAX_TOOL_DESCRIPTION_BYTES: number
/** `maxToolSchemaBytes` when unset: 256 KiB. */
export const DEFAULT_MAX_TOOL_SCHEMA_BYTES: number
/** `maxTotalToolSchemaBytes` when unset: 4 MiB. */
export const DEFAULT_MAX_TOTAL_TOOL_SCHEMA_BYTES: number
/** `maxJsonDepth` when unset: 64. */
export const DEFAULT_MAX_JSON_DEPTH: number
/** `maxJsonProperties` when unset: 10,000. */
export const DEFAULT_MAX_JSON_PROPERTIES: number
/** Streamable HTTP `maxResponseBytes` when unset: 16 MiB. */
export const DEFAULT_MAX_HTTP_RESPONSE_BYTES: number
/** The largest `maxListPages`: 100. */
export const HARD_MAX_LIST_PAGES: number
/** The largest `maxTools`: 5,000. */
export const HARD_MAX_TOOLS: number
/** The largest `maxCursorBytes`: 16 KiB. */
export const HARD_MAX_CURSOR_BYTES: number
/** The largest `maxToolNameBytes`: 1 KiB. */
export const HARD_MAX_TOOL_NAME_BYTES: number
/** The largest `maxToolDescriptionBytes`: 64 KiB. */
export const HARD_MAX_TOOL_DESCRIPTION_BYTES: number
/** The largest `maxToolSchemaBytes`: 1 MiB. */
export const HARD_MAX_TOOL_SCHEMA_BYTES: number
/** The largest `maxTotalToolSchemaBytes`: 16 MiB. */
export const HARD_MAX_TOTAL_TOOL_SCHEMA_BYTES: number
/** The largest `maxJsonDepth`: 128. */
export const HARD_MAX_JSON_DEPTH: number
/** The largest `maxJsonProperties`: 100,000. */
export const HARD_MAX_JSON_PROPERTIES: number
/** The largest `maxResultBytes`: 16 MiB. */
export const HARD_MAX_RESULT_BYTES: number
/** The largest `callTimeoutMs`: 30 min. */
export const HARD_CALL_TIMEOUT_MS: number
/** The largest `maxTotalTimeoutMs` (24 h). */
export const HARD_MAX_TOTAL_TIMEOUT_MS: number
/** The largest `listCacheTtlMs`: 24 h. */
export const HARD_LIST_CACHE_TTL_MS: number
/** The largest Streamable HTTP `maxResponseBytes`: 64 MiB. */
export const HARD_MAX_HTTP_RESPONSE_BYTES: number
/** The default `maxCapabilityBytes` (1 MiB). */
export const DEFAULT_MAX_CAPABILITY_BYTES: number
/** Items of one resources or prompts listing (500). */
export const DEFAULT_MAX_CAPABILITY_ITEMS: number
/** Pages of one resources or prompts listing (20). */
export const DEFAULT_MAX_CAPABILITY_PAGES: number
/** The reference's default for an MCP server's sessions (32); unchecked here (tools only). */
export const DEFAULT_MAX_SESSIONS: number
/** The largest `maxCapabilityBytes` (8 MiB). */
export const HARD_MAX_CAPABILITY_BYTES: number
/** The reference's largest capability listing in items (5,000); unchecked here (tools only). */
export const HARD_MAX_CAPABILITY_ITEMS: number
/** The reference's largest capability listing in pages (100); unchecked here (tools only). */
export const HARD_MAX_CAPABILITY_PAGES: number
/** The reference's most sessions of an MCP server (512); unchecked here (tools only). */
export const HARD_MAX_SESSIONS: number
