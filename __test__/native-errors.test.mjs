// Engine errors cross as errors carrying the engine's code and message (no string to parse),
// synchronously and as promise rejections, and `fromNative` gives each the reference's class.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import * as mcp from '../lib/mcp/index.mjs'
import { validateCodingLimit, createReadTool } from '../lib/coding-tools/agent.mjs'
import { createJsonSchemaArgumentValidator } from '../lib/validation/json-schema.mjs'

const require = createRequire(import.meta.url)
const native = require('../lib/native.js')
const { fromNative } = require('../lib/native-errors.js')

test('a synchronous engine error is a plain Error with the engine code and message', () => {
  let caught
  try {
    native.mcpAssertValidServerId('.bad')
  } catch (err) {
    caught = err
  }
  assert.equal(Object.getPrototypeOf(caught), Error.prototype)
  assert.equal(caught.code, 'ERR_PRISM_MCP_INVALID_SERVER_ID')
  assert.doesNotMatch(caught.message, /\|/)
  assert.match(caught.message, /^serverId must be a non-empty identifier/)
})

test('a rejected native promise keeps the engine code; fromNative gives the MCP class', async () => {
  const bridge = new native.NativeMcpBridge({ serverId: 's', transportType: 'stdio', command: '/nonexistent/prism-native-test' }, () => {}, () => {})
  const err = await bridge.connect().then(
    () => assert.fail('connect resolved'),
    (e) => e,
  )
  assert.equal(err.code, 'ERR_PRISM_MCP_CONNECT')
  assert.match(err.message, /^MCP connect failed: /)
  const mapped = fromNative(err)
  assert.ok(mapped instanceof mcp.McpBridgeError)
  assert.equal(mapped.code, 'ERR_PRISM_MCP_CONNECT')
  assert.equal(mapped.message, err.message)
  await bridge.close()
})

test('fromNative: the closed bridge, a bad server id, a validation limit, and values it leaves alone', () => {
  const plain = (code, message) => Object.assign(new Error(message), { code })
  const closed = fromNative(plain('ERR_PRISM_MCP_CLOSED', 'MCP bridge is closed'))
  assert.ok(closed instanceof mcp.McpBridgeClosedError)
  const id = fromNative(plain('ERR_PRISM_MCP_INVALID_SERVER_ID', 'bad id'))
  assert.equal(Object.getPrototypeOf(id), Error.prototype)
  assert.equal(id.code, 'ERR_PRISM_MCP_INVALID_SERVER_ID')
  const range = fromNative(plain('ERR_PRISM_VALIDATION_INVALID_LIMIT', 'maxErrors ...'))
  assert.ok(range instanceof RangeError)
  assert.equal(range.code, 'ERR_PRISM_VALIDATION_INVALID_LIMIT')
  // The facade's own errors, uncoded errors and non-errors pass through as they are.
  const own = new mcp.McpUnsupportedCapabilityError('no')
  assert.equal(fromNative(own), own)
  const uncoded = new Error('x')
  assert.equal(fromNative(uncoded), uncoded)
  const other = plain('ERR_SOMETHING_ELSE', 'y')
  assert.equal(fromNative(other), other)
  assert.equal(fromNative('text'), 'text')
})

test('validateCodingLimit reads its cap as a JavaScript comparison does (the reference\'s `value > hardCap`)', () => {
  assert.equal(validateCodingLimit('n', 5, '10', 1), 5)
  assert.equal(validateCodingLimit('n', 5, 10n, 1), 5)
  assert.throws(() => validateCodingLimit('n', 11, '10', 1), (e) => e.code === 'ERR_PRISM_CODING_INVALID_LIMIT')
  // A cap that is not a number compares false, so it bounds nothing.
  assert.equal(validateCodingLimit('n', 5, undefined, 1), 5)
  assert.equal(validateCodingLimit('n', 2 ** 40, 'abc', 1), 2 ** 40)
  assert.throws(() => validateCodingLimit('n', 0, undefined, 1), (e) => e.code === 'ERR_PRISM_CODING_INVALID_LIMIT')
})

test('limit errors: one wording per area, each with its code', () => {
  assert.throws(
    () => createJsonSchemaArgumentValidator({ maxErrors: 65 }),
    (e) => e instanceof RangeError && e.code === 'ERR_PRISM_VALIDATION_INVALID_LIMIT' && e.message === 'maxErrors must be a positive safe integer no greater than 64',
  )
  assert.throws(
    () => validateCodingLimit('maxThings', 0, 7, 1),
    (e) => e.code === 'ERR_PRISM_CODING_INVALID_LIMIT' && e.message === 'maxThings must be a positive safe integer at most 7',
  )
  assert.throws(
    () => createReadTool(process.cwd(), { maxLines: 100001 }),
    (e) => e.code === 'ERR_PRISM_CODING_INVALID_LIMIT' && e.message === 'maxLines must be a positive safe integer at most 100000',
  )
  // A host-supplied cap is printed as JavaScript prints it.
  assert.throws(() => native.checkLimit('coding', 'n', 2, 1.5, String(1.5)), { message: 'n must be a positive safe integer at most 1.5', code: 'ERR_PRISM_CODING_INVALID_LIMIT' })
  assert.throws(() => native.checkLimit('mcp', 'maxTools', 5001, 5000, '5000'), {
    message: 'maxTools must be a positive safe integer <= 5000',
    code: 'ERR_PRISM_MCP_INVALID_LIMIT',
  })
  assert.doesNotThrow(() => native.checkLimit('mcp', 'maxTools', 5000, 5000, '5000'))
})

test('coding failures carry ERR_PRISM_CODING_* codes on the native result', async () => {
  const r = await native.codingRead({ path: '/nonexistent/prism-native-test', displayPath: 'x', maxLines: 10, maxBytes: 100, maxScanBytes: 1000, maxImageBytes: 1000 })
  assert.equal(r.errorCode, 'ERR_PRISM_CODING_IO')
  assert.match(r.error, /^ENOENT: /)
  assert.deepEqual(native.codingImageTooLarge(2048, 1024), {
    message: 'Image file is 2.0KB, exceeds 1.0KB limit.',
    code: 'ERR_PRISM_CODING_IMAGE_TOO_LARGE',
  })
})

test('a value outside the facade-binding contract is ERR_PRISM_INTERNAL with the engine words, never a Node-API status', () => {
  const native = require('../binding.js')
  for (const [f, words] of [
    [() => new native.NativeCommandRules(['x'], ['x'], ['bogus'], [null], [false]), /^no rule action "bogus"$/],
    [() => new native.NativeApprovalPolicy(['/'], false, false, false, 'bogus', new native.NativeCommandRules([], [], [], [], []), true), /^no approval cache scope "bogus"$/],
  ]) {
    assert.throws(f, (e) => e.code === 'ERR_PRISM_INTERNAL' && words.test(e.message))
  }
})
