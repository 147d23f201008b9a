'use strict'
// MCP Apps over a host's client (`mcpApps: true`): the engine judges the listing's app tools,
// the `ui://` HTML resources and their metadata (`native.NativeMcpHostClient`'s app methods);
// JS holds the current app tools and makes the client's requests.
const { McpBridgeClosedError } = require('./errors.js')
const { formatMcpToolName } = require('./helpers.js')
const { toJsonText } = require('./json-text.js')
const { engineCall } = require('./native-call.js')

/** A result that arrives as JSON text already (from the native session): crosses as is. */
class JsonText {
  constructor(text) {
    this.text = text
  }
}

/** `[text, fault]` of a request's result, as `toJsonText`. */
const textOf = (value) => (value instanceof JsonText ? [value.text, null] : toJsonText(value))

/** Fails with the engine's message unless the server acknowledged the MCP Apps extension. */
function assertAppsNegotiated(engine, client) {
  const [text] = toJsonText(typeof client?.getServerCapabilities === 'function' ? (client.getServerCapabilities() ?? {}) : {})
  engineCall(() => engine.appsNegotiated(text ?? '{}'))
}

/**
 * The app side of one bridge: `accept(listed)` records the listing's app tools and returns
 * the model-visible ones; `facade` is `bridge.apps`. `request(method, params)` is the raw,
 * bounded-by-time request of the host's client; `callTool(remoteName, name, args, context)`
 * the bridge's call. `request` may resolve to a `JsonText` (a result that is JSON text already).
 */
function createApps({ serverId, engine, prefix, isClosed, request, callTool }) {
  let tools = []
  let toolsText = '[]'
  const assertOpen = () => {
    if (isClosed()) throw new McpBridgeClosedError()
  }

  function accept(listed) {
    const apps = JSON.parse(engineCall(() => engine.appTools(JSON.stringify(listed))))
    const visible = listed.filter((_, i) => apps[i].modelVisible)
    tools = apps.map(({ name, description, inputSchema, resourceUri, visibility }) => ({
      name,
      prismName: formatMcpToolName(prefix, name),
      ...(description === undefined ? {} : { description }),
      inputSchema,
      ...(resourceUri === undefined ? {} : { resourceUri }),
      visibility,
    }))
    toolsText = JSON.stringify(tools)
    return visible
  }

  async function listResources() {
    assertOpen()
    const listing = engine.beginAppResources()
    let cursor
    do {
      const [text, fault] = textOf(await request('resources/list', cursor === undefined ? undefined : { cursor }))
      cursor = engineCall(() => listing.addPage(text ?? undefined, fault ?? undefined)) ?? undefined
    } while (cursor !== undefined)
    return JSON.parse(listing.finish())
  }

  async function readResource(uri) {
    assertOpen()
    const index = engineCall(() => engine.appReadable(toolsText, String(uri)))
    const tool = tools[index]
    const [text, fault] = textOf(await request('resources/read', { uri }))
    const result = engineCall(() => engine.appReadResult(text ?? undefined, fault ?? undefined))
    const listed = await listResources()
    return JSON.parse(engineCall(() => engine.appResource(String(uri), JSON.stringify(tool), result, JSON.stringify(listed))))
  }

  const facade = {
    serverId,
    negotiated: true,
    get tools() {
      assertOpen()
      return tools
    },
    listResources,
    readResource,
    /** Throws synchronously for a tool no app may call, as the reference. */
    callTool(name, args, context) {
      assertOpen()
      engineCall(() => engine.appCallable(toolsText, String(name)))
      return callTool(name, formatMcpToolName(prefix, name), args, context)
    },
  }
  return { accept, facade }
}

module.exports = { assertAppsNegotiated, createApps, JsonText }
