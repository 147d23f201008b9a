#!/usr/bin/env bash
# The package under Bun and Deno, which load Node-API addons, on this Linux x64 machine:
# - scripts/smoke-platform.mjs under each (every entry point of package.json "exports" by its
#   package name, dispatch with validation, a parallel turn, the shell policy, the coding
#   tools under the approval policy, an MCP call over stdio);
# - every suite file under `bun test`, one process per file (node:test's own default is no
#   timeout; bun's 5 s would cut tests that wait on a connect or a timeout by design);
# - every suite file under `deno test -A --no-check` (--no-check: with the package imported
#   from a path, Deno resolves the .d.ts files' `import type ... from '../../index.js'` to the
#   CommonJS file rather than index.d.ts; the types are checked by `npm run test:types`).
# Runtime-specific needs of the tests live in __test__/fixtures/runtime.mjs; a test that cannot
# run under a runtime skips with its reason.
#
# Needs: npm, and the addon built for linux-x64-gnu (prism-native.linux-x64-gnu.node).
# Bun and Deno come from the npm registry and are cached under ~/.cache/prism-native.
# Usage: scripts/ci-runtimes.sh [bun|deno]...   (default: both; from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${HOME}/.cache/prism-native"
BUN_VERSION="1.4.4"
DENO_VERSION="2.9.6"
BUN="${CACHE}/bun/node_modules/@oven/bun-linux-x64/bin/bun"
DENO="${CACHE}/deno/node_modules/@deno/linux-x64-glibc/deno"
# Generous per-test bound for `bun test` (a hang still ends the run).
BUN_TEST_TIMEOUT_MS=120000
export NO_COLOR=1

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "ci-runtimes: Linux x64 only (the npm packages installed here are the linux-x64 builds)" >&2
  exit 2
fi
if [ ! -f prism-native.linux-x64-gnu.node ]; then
  echo "ci-runtimes: build the addon first (cargo build --release -p prism-native, then copy target/release/libprism_native.so to prism-native.linux-x64-gnu.node)" >&2
  exit 2
fi

# npm install of one runtime package into its cache prefix, unless that version is there.
install_runtime() {
  local prefix=$1 package=$2 version=$3 binary=$4
  if [ -x "$binary" ] && "$binary" --version 2>/dev/null | grep -q "$version"; then
    return
  fi
  npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error "${package}@${version}"
  chmod +x "$binary"
}

failed=()

smoke() {
  local name=$1
  shift
  echo "--- smoke under ${name}"
  "$@" scripts/smoke-platform.mjs || failed+=("smoke under ${name}")
}

# Runs one suite file per process; prints one summary line per file and the failing output.
suites() {
  local name=$1
  shift
  local f log
  log=$(mktemp)
  echo "--- suites under ${name}"
  for f in __test__/*.test.mjs; do
    if "$@" "$f" >"$log" 2>&1; then
      echo "ok   ${f} $(summary "$name" "$log")"
    else
      echo "FAIL ${f} $(summary "$name" "$log")"
      cat "$log"
      failed+=("${f} under ${name}")
    fi
    grep -E '^\(skip\)|\.\.\. ignored' "$log" | sed 's/^/       skipped: /' || true
  done
  rm -f "$log"
}

summary() {
  case $1 in
    bun) grep -E '^ *[0-9]+ (pass|fail|skip)$' "$2" | tr -s ' \n' ' ' ;;
    deno) grep -E '^(ok|FAILED) \|' "$2" | tail -1 ;;
  esac
}

run_bun() {
  install_runtime "${CACHE}/bun" @oven/bun-linux-x64 "$BUN_VERSION" "$BUN"
  smoke "bun $("$BUN" --version)" "$BUN"
  suites bun "$BUN" test --timeout "$BUN_TEST_TIMEOUT_MS"
}

run_deno() {
  install_runtime "${CACHE}/deno" @deno/linux-x64-glibc "$DENO_VERSION" "$DENO"
  smoke "deno ${DENO_VERSION}" "$DENO" run -A
  suites deno "$DENO" test -A --no-check
}

for runtime in "${@:-bun deno}"; do
  for r in $runtime; do
    case $r in
      bun) run_bun ;;
      deno) run_deno ;;
      *) echo "ci-runtimes: unknown runtime ${r} (bun or deno)" >&2; exit 2 ;;
    esac
  done
done

if [ ${#failed[@]} -gt 0 ]; then
  printf 'ci-runtimes: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "ci-runtimes: all green"
