#!/usr/bin/env bash
# Installs what the benchmarks need beyond the tests' parts (scripts/deps.sh): C Lua 5.4,
# the reference peer of the Kite VM (bench/clua_test.go).
set -euo pipefail
exec "$(dirname "$0")/../scripts/deps.sh" "lua5.4:lua5.4"
