// The official MCP conformance suite (`@modelcontextprotocol/conformance`, client mode) with
// the bridge as the client under test (fixtures/conformance-client.mjs; the capability
// client, fixtures/conformance-capability-client.mjs, for elicitation; the OAuth client,
// fixtures/conformance-auth-client.mjs, for the `auth/*` scenarios). Its CLI needs Node 22
// or newer: the Node running these tests when it is one, else PRISM_CONFORMANCE_NODE.
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { conformanceNode, optionalTest } from './fixtures/optional-tools.mjs'
import { underWine, WINE_NO_LOOPBACK_FETCH } from './fixtures/platform.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)
const CLI = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js')
const CLIENT = join(here, 'fixtures', 'conformance-client.mjs')
// The capability client (connectMcpCapabilities), answering elicitations.
const CAPABILITY_CLIENT = join(here, 'fixtures', 'conformance-capability-client.mjs')
// The OAuth client (connectMcpTools with transport.auth, finishAuth on the redirect).
const AUTH_CLIENT = join(here, 'fixtures', 'conformance-auth-client.mjs')
const { node, missing } = conformanceNode()

const scenarios = [
  ['initialize', CLIENT],
  ['tools_call', CLIENT],
  ['sse-retry', CLIENT],
  ['elicitation-sep1034-client-defaults', CAPABILITY_CLIENT],
  ...[
    'metadata-default',
    'metadata-var1',
    'metadata-var2',
    'metadata-var3',
    'basic-cimd',
    'scope-from-www-authenticate',
    'scope-from-scopes-supported',
    'scope-omitted-when-undefined',
    'scope-step-up',
    'scope-retry-limit',
    'token-endpoint-auth-basic',
    'token-endpoint-auth-post',
    'token-endpoint-auth-none',
    'pre-registration',
    '2025-03-26-oauth-metadata-backcompat',
    '2025-03-26-oauth-endpoint-fallback',
    'client-credentials-basic',
    'client-credentials-jwt',
    'cross-app-access-complete-flow',
    // Draft scenarios of the same release.
    'resource-mismatch',
    'offline-access-scope',
    'offline-access-not-supported',
  ].map((name) => [`auth/${name}`, AUTH_CLIENT]),
]
// The OAuth scenarios without a user (machine clients, and one refused before any redirect);
// in every other one the fixture plays the user's browser with Node's own fetch, which fails
// against a loopback server under Wine.
const WITHOUT_BROWSER = new Set([
  'auth/client-credentials-basic',
  'auth/client-credentials-jwt',
  'auth/cross-app-access-complete-flow',
  'auth/resource-mismatch',
])
for (const [scenario, client] of scenarios) {
  const name = `conformance client scenario ${scenario}: OVERALL PASSED`
  const browser = scenario.startsWith('auth/') && !WITHOUT_BROWSER.has(scenario)
  const wine = browser && underWine(`${WINE_NO_LOOPBACK_FETCH} (the fixture plays the user's browser with it)`)
  if (wine) {
    test(name, { skip: wine }, () => {})
    continue
  }
  optionalTest(name, missing, () => {
    const command = `${JSON.stringify(node)} ${JSON.stringify(client)}`
    const run = spawnSync(node, [CLI, 'client', '--command', command, '--scenario', scenario], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, NO_COLOR: '1' },
    })
    const output = `${run.stdout}\n${run.stderr}`
    assert.match(output, /OVERALL: PASSED/, output)
  })
}
