#!/usr/bin/env node
// `npm install` hook: use a prebuilt binary when one loads (an optional
// `prism-native-<platform>` package or a binary built earlier); otherwise build the addon
// from source with cargo. A second `npm install` finds the binary and does not rebuild.
// Set PRISM_NATIVE_BUILD=1 to force a build from source.
'use strict'
const { spawnSync } = require('node:child_process')
const { copyFileSync, existsSync } = require('node:fs')
const path = require('node:path')

const root = path.join(__dirname, '..')

function platformTriple() {
  const { platform, arch } = process
  if (platform === 'linux') {
    const glibc = process.report?.getReport?.().header?.glibcVersionRuntime
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  if (platform === 'win32') return `win32-${arch}-msvc`
  return `${platform}-${arch}`
}

function loads() {
  try {
    require(path.join(root, 'binding.js'))
    return true
  } catch {
    return false
  }
}

function build() {
  const cargo = process.env.CARGO || 'cargo'
  console.log('prism-native: no prebuilt binary for this platform; building from source with cargo (a few minutes)')
  const res = spawnSync(cargo, ['build', '--release', '-p', 'prism-native'], { cwd: root, stdio: 'inherit' })
  if (res.error) {
    console.error(`prism-native: could not run cargo (${res.error.message}); install Rust from rustup.rs or use a platform with a prebuilt binary`)
    process.exit(1)
  }
  if (res.status !== 0) process.exit(res.status ?? 1)
  const lib = { win32: 'prism_native.dll', darwin: 'libprism_native.dylib' }[process.platform] ?? 'libprism_native.so'
  const targetDir = process.env.CARGO_TARGET_DIR || path.join(root, 'target')
  const built = path.join(targetDir, 'release', lib)
  if (!existsSync(built)) {
    console.error(`prism-native: cargo finished but ${built} is missing`)
    process.exit(1)
  }
  copyFileSync(built, path.join(root, `prism-native.${platformTriple()}.node`))
}

if (process.env.PRISM_NATIVE_BUILD === '1' || !loads()) {
  build()
  if (!loads()) {
    console.error('prism-native: the freshly built binary does not load')
    process.exit(1)
  }
}
