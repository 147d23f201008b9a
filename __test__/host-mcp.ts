// A host of prism-native/mcp written against its public signatures (type-checked only).
import { createToolRegistry, dispatchToolCall, type ToolResult } from '../index.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  attachMcpToolBridge,
  connectMcpTools,
  createMcpTransport,
  listAllMcpTools,
  mapMcpToolsToDefinitions,
  HARD_MAX_TOOLS,
  defaultMcpNamePrefix,
  formatMcpToolName,
  assertValidServerId,
  mapMcpContentToBlocks,
  summarizeMcpContent,
  boundedMcpErrorMessage,
  mcpCallError,
  estimateUtf8Bytes,
  McpBridgeError,
  McpToolNameCollisionError,
  McpBridgeClosedError,
  McpUnsupportedCapabilityError,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_RESULT_BYTES,
  DEFAULT_LIST_CACHE_TTL_MS,
  MCP_LIMITS,
  type ConnectMcpToolsOptions,
  type McpToolBridge,
  type McpOAuthRegistrationStrategy,
} from '../lib/mcp/index.js'

export async function host(signal: AbortSignal): Promise<ToolResult> {
  assertValidServerId('files')
  const options: ConnectMcpToolsOptions = {
    serverId: 'files',
    transport: { type: 'stdio', command: 'node', args: ['server.js'], env: { A: '1' }, cwd: '.', stderr: 'pipe' },
    namePrefix: defaultMcpNamePrefix('files'),
    callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
    maxResultBytes: DEFAULT_MAX_RESULT_BYTES,
    listCacheTtlMs: DEFAULT_LIST_CACHE_TTL_MS,
    maxTools: MCP_LIMITS.maxTools.hard,
    effect: ({ remoteName }) => (remoteName === 'read' ? { kind: 'none', idempotency: 'none' } : undefined),
    autoRefresh: { debounceMs: 50 },
    signal,
  }
  const bridge: McpToolBridge = await connectMcpTools(options)
  const remote = await connectMcpTools({
    serverId: 'remote',
    transport: {
      type: 'streamable-http',
      url: 'https://mcp.example.com/mcp',
      allowedOrigins: ['https://mcp.example.com'],
      maxResponseBytes: 1024 * 1024,
      requestInit: { headers: { authorization: 'Bearer x' } },
    },
  })
  const registry = createToolRegistry()
  for (const tool of [...bridge.tools, ...remote.tools]) registry.register(tool)
  await bridge.refresh()
  const name = formatMcpToolName('mcp:files:', 'read')
  const result = await dispatchToolCall({
    call: { type: 'tool_call', id: '1', name, arguments: { path: 'a' } },
    registry,
    context: { sessionId: 's', runId: 'r', toolCallId: '1', signal },
  })
  const mapped = mapMcpContentToBlocks([{ type: 'text', text: 'x' }], { maxResultBytes: 10 })
  const n: number = mapped.bytesUsed + estimateUtf8Bytes(summarizeMcpContent([], 10))
  const message: string = boundedMcpErrorMessage(new Error('e'), n)
  const info = mcpCallError(message)
  if (info.code !== 'ERR_PRISM_MCP_TOOL') throw new McpBridgeError('unexpected')
  try {
    await bridge.close()
  } catch (err) {
    if (err instanceof McpToolNameCollisionError) console.log(err.prefixedName, err.remoteName)
    if (err instanceof McpBridgeClosedError || err instanceof McpUnsupportedCapabilityError) console.log(err.code)
  }
  await remote.close()
  return result
}

// A host that already holds a JS SDK client hands it over (its own OAuth, its own transport).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  HARD_CALL_TIMEOUT_MS,
  type AttachMcpToolBridgeOptions,
  type ListedMcpTool,
  type McpClientLimitsInput,
} from '../lib/mcp/index.js'

export async function hostWithOwnClient(client: Client, transport: Transport, signal: AbortSignal): Promise<ToolResult[]> {
  const limits: McpClientLimitsInput = { maxTools: HARD_MAX_TOOLS, callTimeoutMs: HARD_CALL_TIMEOUT_MS }
  const listed: ListedMcpTool[] = await listAllMcpTools(client, signal, limits)
  const options: AttachMcpToolBridgeOptions = { serverId: 'remote', ...limits, effect: () => ({ kind: 'none', idempotency: 'none' }) }
  const bridge: McpToolBridge = await attachMcpToolBridge(client, transport, options)
  const defs = mapMcpToolsToDefinitions(listed, {
    namePrefix: 'x:',
    serverId: 'remote',
    callTimeoutMs: 1000,
    maxResultBytes: 1000,
    isClosed: () => false,
    callRemoteTool: async (remoteName, _args, context) => ({ toolCallId: context.toolCallId, name: `x:${remoteName}` }),
  })
  // The reference's factory: an SDK transport a host's own client connects with.
  const sdkTransport = createMcpTransport({ type: 'streamable-http', url: 'https://mcp.example.com/mcp', allowedOrigins: ['https://mcp.example.com'] })
  await new Client({ name: 'host', version: '1.0.0' }).connect(sdkTransport)
  const url: string = sdkTransport.sessionId ?? 'https://mcp.example.com/mcp'
  const results: ToolResult[] = []
  for (const tool of [...bridge.tools, ...defs]) {
    results.push(await tool.execute({ url }, { sessionId: 's', runId: 'r', toolCallId: '1', signal }))
  }
  await bridge.close()
  return results
}

// The reference's registration strategies, and this package's extensions (a Client ID Metadata
// Document URL on `dcr`; the client credentials grant with a secret or a signing key; cross-app
// access with an ID token or a function for a current one).
export const strategies: McpOAuthRegistrationStrategy[] = [
  { kind: 'static', clientId: 'my-agent' },
  { kind: 'dcr', clientMetadata: { client_name: 'agent' } },
  { kind: 'dcr', clientMetadata: { client_name: 'agent' }, clientMetadataUrl: 'https://agent.example/client.json' },
  { kind: 'client_credentials', clientId: 'svc', clientSecret: 'secret' },
  { kind: 'client_credentials', clientId: 'svc', privateKeyPem: '-----BEGIN PRIVATE KEY-----', signingAlgorithm: 'ES256' },
  { kind: 'cross_app_access', clientId: 'agent', clientSecret: 'secret', idpTokenEndpoint: 'https://idp.example/token', idToken: 'eyJ...' },
  {
    kind: 'cross_app_access',
    clientId: 'agent',
    clientSecret: 'secret',
    idpTokenEndpoint: new URL('https://idp.example/oauth2/token'),
    idpClientId: 'agent-at-idp',
    idToken: async () => 'eyJ...',
  },
]
