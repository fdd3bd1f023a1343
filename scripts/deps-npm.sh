#!/usr/bin/env bash
# Installs the npm packages of the tests that drive polydbg with real npm clients (the DAP
# DebugClient), into folders ignored by git. Called by scripts/deps.sh; in CI a part that
# cannot be installed is a failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v npm >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    echo "deps: installing nodejs npm" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
  else
    echo "deps: npm is missing: the DAP client tests will fail" >&2
    [[ "${CI:-}" == "true" ]] && exit 1
    exit 0
  fi
fi

for dir in protocol/dap/testdata/client; do
  [[ -d "$root/$dir/node_modules" ]] && continue
  echo "deps: npm ci in $dir" >&2
  (cd "$root/$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
done
