'use strict'
// The MCP capability client over a host's client: attachMcpCapabilities (resources, prompts,
// and tools through the bridge) and createMcpCapabilityClient (the MCP SDK's Client answering
// the server's roots, sampling and elicitation requests through the host's callbacks). Every
// page, result, request and answer crosses to the engine (`native.NativeMcpCapabilities`),
// which bounds it and applies the rules; JS calls the client and the host's callbacks.
const native = require('../native.js')
const { say } = require('../engine-words.js')
const { McpBridgeError } = require('./errors.js')
const { toJsonText } = require('./json-text.js')
const { routeHostRequests } = require('./host-requests.js')
const { engineCall } = require('./native-call.js')
const { attachMcpToolBridge, RAW_RESULT } = require('./host-client.js')
const { connectNativeBridge } = require('./bridge.js')
const { fromNative } = require('../native-errors.js')
const { limitValue } = require('../limits.js')

function capabilityEngine(options) {
  if (options === null || typeof options !== 'object') throw new McpBridgeError(say('mcpOptions'))
  return engineCall(() => new native.NativeMcpCapabilities(limitValue(options.maxCapabilityBytes)))
}

/** `value` checked by the engine against the capability bounds, as plain JSON data. */
function bounded(engine, value, label) {
  const [text, fault] = toJsonText(value)
  return JSON.parse(engineCall(() => engine.bounded(label, text ?? undefined, fault ?? undefined)))
}

/** The capability object (resources, prompts) over a connected client; see index.d.ts. */
function capabilityMethods(engine, client, capabilities, request) {
  const [capsText] = toJsonText(capabilities)
  const requireCapability = (name) => engineCall(() => engine.require(capsText ?? '{}', name))
  const collect = async (kind) => {
    const listing = engine.beginListing(kind)
    requireCapability(kind === 'prompts' ? 'prompts' : 'resources')
    let cursor
    do {
      const [text, fault] = toJsonText(await request(listing.method, cursor === undefined ? undefined : { cursor }))
      cursor = engineCall(() => listing.addPage(text ?? undefined, fault ?? undefined)) ?? undefined
    } while (cursor !== undefined)
    return JSON.parse(listing.finish())
  }
  return {
    listResources: () => collect('resources'),
    /** Beyond the reference: the server's resource templates, under the same guards. */
    listResourceTemplates: () => collect('resourceTemplates'),
    async readResource(uri) {
      requireCapability('resources')
      return bounded(engine, await request('resources/read', { uri }), 'MCP resource result')
    },
    listPrompts: () => collect('prompts'),
    async getPrompt(name, args) {
      requireCapability('prompts')
      return bounded(engine, await request('prompts/get', { name, arguments: args }), 'MCP prompt result')
    },
  }
}

/**
 * The capability bridge over the host's connected client (the MCP SDK's `Client` or one with
 * its `request`, `getServerCapabilities` and `close`): tools through attachMcpToolBridge when
 * the server has them, resources and prompts page by page within `maxCapabilityBytes`.
 */
async function attachMcpCapabilities(client, transport, options) {
  const engine = capabilityEngine(options)
  const capabilities = client?.getServerCapabilities?.() ?? {}
  const tools = capabilities.tools ? await attachMcpToolBridge(client, transport, options) : undefined
  const request = (method, params) => client.request({ method, params }, RAW_RESULT)
  return {
    get tools() {
      return tools?.tools ?? []
    },
    ...(tools?.apps ? { apps: tools.apps } : {}),
    serverVersion: client.getServerVersion?.(),
    serverCapabilities: capabilities,
    refresh: () => tools?.refresh() ?? Promise.resolve(),
    close: async () => {
      if (tools) return tools.close()
      try {
        await client.close?.()
      } finally {
        await transport?.close?.()
      }
    },
    ...capabilityMethods(engine, client, capabilities, request),
  }
}

function loadSdk() {
  try {
    return {
      Client: require('@modelcontextprotocol/sdk/client/index.js').Client,
      types: require('@modelcontextprotocol/sdk/types.js'),
    }
  } catch {
    throw new McpBridgeError(say('mcpSdkMissing'))
  }
}

/**
 * The MCP SDK's `Client`, declaring the selected capabilities, whose roots, sampling and
 * elicitation requests are answered by the host's callbacks (with the request's `signal`)
 * and checked by the engine: every request and answer within `maxCapabilityBytes`, roots
 * `file:` only and at most 500, an accepted elicitation only with `humanInteraction: true`
 * (removed before the answer is sent).
 */
function createMcpCapabilityClient(options) {
  const engine = capabilityEngine(options)
  const { Client, types } = loadSdk()
  const init = native.mcpCapabilityClientInit(options.mcpApps === true, !!options.roots, !!options.sampling, !!options.elicitation)
  const client = new Client({ name: init.name, version: init.version }, { capabilities: JSON.parse(init.capabilitiesJson) })
  if (options.roots) {
    client.setRequestHandler(types.ListRootsRequestSchema, async () => {
      const [text, fault] = toJsonText(await options.roots())
      return JSON.parse(engineCall(() => engine.rootsAnswer(text ?? undefined, fault ?? undefined)))
    })
  }
  if (options.sampling) {
    client.setRequestHandler(types.CreateMessageRequestSchema, async (request, extra) => {
      const params = bounded(engine, request.params, 'MCP sampling request')
      return bounded(engine, await options.sampling({ params, signal: extra.signal }), 'MCP sampling result')
    })
  }
  if (options.elicitation) {
    client.setRequestHandler(types.ElicitRequestSchema, async (request, extra) => {
      const params = bounded(engine, request.params, 'MCP elicitation request')
      const [text, fault] = toJsonText(await options.elicitation({ params, signal: extra.signal }))
      return JSON.parse(engineCall(() => engine.elicitationAnswer(JSON.stringify(params), text ?? undefined, fault ?? undefined)))
    })
  }
  return client
}

/**
 * The server's own requests from the native session to the host's callbacks: each gets an
 * AbortSignal, aborted when the engine stops waiting (`abort`: the server cancelled the
 * request, or the session closed). The answer goes back to the engine, which checks it; the
 * native bridge is reached weakly, so that a bridge its host dropped can be collected.
 */
function serverRequestRouter(options) {
  const handlers = {}
  if (typeof options.roots === 'function') handlers.roots = () => options.roots()
  for (const kind of ['sampling', 'elicitation']) {
    if (typeof options[kind] === 'function') handlers[kind] = (paramsJson, signal) => options[kind]({ params: JSON.parse(paramsJson), signal })
  }
  const requests = routeHostRequests(handlers)
  const route = (request) => {
    const [, kind, paramsJson] = request
    if (kind === 'resourceUpdated') {
      // A notification: nothing goes back, and what the callback throws stays here.
      Promise.resolve()
        .then(() => options.onResourceUpdated(JSON.parse(paramsJson)))
        .catch(() => {})
      return
    }
    requests.route(request)
  }
  return { route, bind: (nativeBridge) => requests.bind(nativeBridge, 'answerServerRequest') }
}

/**
 * The capability bridge on the engine's own session (stdio or Streamable HTTP): tools through
 * the native bridge when the server has them; resources, resource templates and prompts
 * listed, read and got by the engine within `maxCapabilityBytes` and the listing guards; the
 * server's roots, sampling and elicitation requests answered by the host's callbacks.
 */
async function connectMcpCapabilities(options) {
  const engine = capabilityEngine(options)
  const router = serverRequestRouter(options)
  const { bridge, nativeBridge } = await connectNativeBridge(options, {
    capabilities: [
      ...['roots', 'sampling', 'elicitation'].filter((name) => typeof options[name] === 'function'),
      ...(typeof options.onResourceUpdated === 'function' ? ['resourceUpdated'] : []),
    ],
    maxCapabilityBytes: engine.maxBytes,
    onServerRequest: router.route,
    bind: router.bind,
    listTools: (nb) => !!JSON.parse(nb.serverCapabilities).tools,
  })
  const serverCapabilities = JSON.parse(nativeBridge.serverCapabilities)
  // As over a host's client: MCP Apps ride on the tools, so a server without tools has none.
  const apps = serverCapabilities.tools ? bridge.apps : undefined
  const version = nativeBridge.serverVersion
  const native = async (call) => {
    try {
      return JSON.parse(await call())
    } catch (err) {
      throw fromNative(err)
    }
  }
  return {
    get tools() {
      return bridge.tools
    },
    ...(apps ? { apps } : {}),
    serverVersion: version == null ? undefined : JSON.parse(version),
    serverCapabilities,
    refresh: () => (serverCapabilities.tools ? bridge.refresh() : Promise.resolve()),
    close: bridge.close,
    get serverPid() {
      return bridge.serverPid
    },
    get protocolVersion() {
      return bridge.protocolVersion
    },
    listResources: () => native(() => nativeBridge.listCapability('resources')),
    /** Beyond the reference: the server's resource templates, under the same guards. */
    listResourceTemplates: () => native(() => nativeBridge.listCapability('resourceTemplates')),
    readResource: (uri) => native(() => nativeBridge.capabilityRequest('resources/read', JSON.stringify({ uri }))),
    listPrompts: () => native(() => nativeBridge.listCapability('prompts')),
    getPrompt: (name, args) => native(() => nativeBridge.capabilityRequest('prompts/get', JSON.stringify({ name, arguments: args }))),
    /** Beyond the reference: `notifications/resources/updated` for `uri` go to `onResourceUpdated`. */
    subscribeResource: (uri) => native(() => nativeBridge.capabilityRequest('resources/subscribe', JSON.stringify({ uri }))),
    unsubscribeResource: (uri) => native(() => nativeBridge.capabilityRequest('resources/unsubscribe', JSON.stringify({ uri }))),
  }
}

module.exports = { attachMcpCapabilities, connectMcpCapabilities, createMcpCapabilityClient, capabilityMethods, capabilityEngine }
