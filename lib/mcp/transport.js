'use strict'
// createMcpTransport and createMcpOAuthTransport: the reference's factories of JS SDK
// transports (`@modelcontextprotocol/sdk`, which the host installs beside its SDK client). A
// configuration is checked by the engine exactly as connectMcpTools checks it; a Streamable HTTP
// transport's every request goes through the engine's fetch (pinned addresses, same origin, no
// redirects, `maxResponseBytes`), and with `auth` the engine's OAuth client gives its token.
const native = require('../native.js')
const { fromNative } = require('../native-errors.js')
const { say } = require('../engine-words.js')
const { McpBridgeError } = require('./errors.js')
const { nativeOptions } = require('./bridge.js')
const { createMcpClientAuth } = require('./oauth.js')
const { withOAuthBearer } = require('./oauth-fetch.js')
const { createNativeMcpFetch } = require('./sdk-fetch.js')

function loadSdkTransports() {
  try {
    return {
      StdioClientTransport: require('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport,
      StreamableHTTPClientTransport: require('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport,
    }
  } catch {
    throw new McpBridgeError(say('mcpSdkTransportMissing'))
  }
}

/**
 * `config` checked by the engine and flattened for it. The SDK transport resumes a session
 * itself (`sessionId`) and sends `requestInit`'s headers on each request, so neither goes to the
 * engine's fetch.
 */
function checked(config) {
  const flat = nativeOptions({ serverId: '', transport: config?.type === 'streamable-http' ? { ...config, sessionId: undefined } : config })
  try {
    native.mcpValidateTransport(flat)
  } catch (err) {
    throw fromNative(err)
  }
  return { ...flat, headers: undefined }
}

function httpTransport(sdk, config, fetch) {
  return new sdk.StreamableHTTPClientTransport(new URL(config.url), {
    requestInit: config.requestInit,
    sessionId: config.sessionId,
    fetch,
  })
}

/**
 * The SDK's transport for `config`, checked as connectMcpTools checks it: a
 * `StdioClientTransport`, or a `StreamableHTTPClientTransport` over the engine's fetch (with
 * `auth`: `createMcpOAuthTransport(config).transport`). Throws `McpBridgeError` with the
 * engine's message for a bad configuration, or when the SDK is not installed.
 */
function createMcpTransport(config) {
  const flat = checked(config)
  const sdk = loadSdkTransports()
  if (config.type === 'stdio') {
    return new sdk.StdioClientTransport({
      command: config.command,
      args: config.args ? [...config.args] : undefined,
      env: config.env ? { ...config.env } : undefined,
      cwd: config.cwd,
      stderr: config.stderr,
    })
  }
  if (config.auth !== undefined) return createMcpOAuthTransport(config).transport
  return httpTransport(sdk, config, createNativeMcpFetch(flat, config))
}

/**
 * A Streamable HTTP SDK transport with OAuth, and its auth client (`ensureAuthorized`,
 * `finishAuth`, `revoke`, `getTokens`; the engine's, over the host's `config.auth`).
 */
function createMcpOAuthTransport(config) {
  if (config?.auth === undefined || config.type !== 'streamable-http') throw new McpBridgeError(say('mcpOAuthTransportAuth'))
  const flat = checked(config)
  const sdk = loadSdkTransports()
  const auth = createMcpClientAuth(config.auth, { serverUrl: config.url, allowLoopbackHttp: config.allowLoopbackHttp === true })
  return { transport: httpTransport(sdk, config, withOAuthBearer(createNativeMcpFetch(flat, config), auth)), auth }
}

module.exports = { createMcpTransport, createMcpOAuthTransport }
