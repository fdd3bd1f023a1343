#!/usr/bin/env bash
# Installs the MCP inspector CLI (@modelcontextprotocol/inspector 2.x), the MCP conformance
# suite (@modelcontextprotocol/conformance) and the Node 22 they need (>= 22.19; Debian's Node
# is older) from npm into one folder, for the MCP front end's tests alone (protocol/mcp:
# TestInspectorCLI, TestConformanceSuite). The `node` package on npm ships the binary.
# Prints nothing on success. Folder: $POLYDBG_MCP_TOOLS, or ~/.cache/polydbg/mcp-inspector.
set -euo pipefail

dir=${POLYDBG_MCP_TOOLS:-${HOME:-/root}/.cache/polydbg/mcp-inspector}
NODE_VERSION=${NODE_VERSION:-22}
INSPECTOR_VERSION=${INSPECTOR_VERSION:-2.12.0}
CONFORMANCE_VERSION=${CONFORMANCE_VERSION:-0.1.16}

if [[ -x $dir/node_modules/.bin/node && -e $dir/node_modules/@modelcontextprotocol/inspector/package.json ]] &&
  grep -q "\"version\": \"$INSPECTOR_VERSION\"" "$dir/node_modules/@modelcontextprotocol/inspector/package.json" &&
  grep -q "\"version\": \"$CONFORMANCE_VERSION\"" "$dir/node_modules/@modelcontextprotocol/conformance/package.json" 2>/dev/null; then
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "mcp-inspector: npm is missing (Debian package npm)" >&2
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends npm >/dev/null
  else
    exit 1
  fi
fi
mkdir -p "$dir"
cd "$dir"
[[ -f package.json ]] || echo '{"name":"polydbg-mcp-inspector","private":true}' >package.json
npm install --no-audit --no-fund --silent "node@$NODE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" \
  "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" >/dev/null
"$dir/node_modules/.bin/node" --version >/dev/null
