#!/usr/bin/env bash
# Installs the real parts the tests use (DESIGN.md, "Real parts"). Runs as root on a fresh
# machine; elsewhere it only reports what is missing. In CI a part that cannot be installed
# is a failure, never a silent skip.
set -euo pipefail

# command-or-file : Debian package (arguments of the same form replace the list: bench/setup.sh)
parts=(
  "g++:g++"
  "gdbserver:gdbserver"
  "gdb:gdb"
  "gdb-multiarch:gdb-multiarch"
  "qemu-system-arm:qemu-system-arm"
  "arm-none-eabi-gcc:gcc-arm-none-eabi"
  "/usr/lib/arm-none-eabi/newlib:libnewlib-arm-none-eabi"
  "protoc:protobuf-compiler"
  "tmux:tmux"
  "/usr/lib/python3/dist-packages/grpc:python3-grpcio"
  "/usr/lib/python3/dist-packages/grpc_tools:python3-grpc-tools"
  "chromium:chromium"
  "/usr/share/doc/libc6-dbg:libc6-dbg"
  "dwz:dwz"
)

if [[ $# -gt 0 ]]; then
  parts=("$@")
else
  # npm packages of the client tests (DAP's DebugClient)
  "$(dirname "$0")/deps-npm.sh"
fi

missing=()
for p in "${parts[@]}"; do
  what=${p%%:*} pkg=${p##*:}
  if [[ $what == /* ]]; then [[ -e $what ]] && continue
  else command -v "$what" >/dev/null 2>&1 && continue; fi
  missing+=("$pkg")
done

# The MCP inspector CLI and the Node 22 it needs, from npm (protocol/mcp's test).
"$(dirname "$0")/mcp-inspector.sh" || { echo "deps: could not install the MCP inspector" >&2; [[ "${CI:-}" != "true" ]] || exit 1; }

[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  echo "deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi

echo "deps: missing Debian packages: ${missing[*]}" >&2
if [[ "${CI:-}" == "true" ]]; then exit 1; fi
echo "deps: tests that need them will fail; install them with apt-get" >&2
