#!/usr/bin/env bash
# Installs the MCP inspector CLI (@modelcontextprotocol/inspector 2.x) and the Node 22 it
# needs (>= 22.19; Debian's Node is older) from npm into one folder, for the MCP front end's
# test alone (protocol/mcp, TestInspectorCLI). The `node` package on npm ships the binary.
# Prints nothing on success. Folder: $POLYDBG_MCP_TOOLS, or ~/.cache/polydbg/mcp-inspector.
set -euo pipefail

dir=${POLYDBG_MCP_TOOLS:-${HOME:-/root}/.cache/polydbg/mcp-inspector}
NODE_VERSION=${NODE_VERSION:-22}
INSPECTOR_VERSION=${INSPECTOR_VERSION:-2.12.0}

if [[ -x $dir/node_modules/.bin/node && -e $dir/node_modules/@modelcontextprotocol/inspector/package.json ]] &&
  grep -q "\"version\": \"$INSPECTOR_VERSION\"" "$dir/node_modules/@modelcontextprotocol/inspector/package.json"; then
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
npm install --no-audit --no-fund --silent "node@$NODE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null
"$dir/node_modules/.bin/node" --version >/dev/null
