#!/usr/bin/env bash
# Quick start (b): installs everything, builds with -Werror, starts the test
# servers (AWS DynamoDB Local and moto_server on loopback), runs every test,
# and stops the servers again; then the AddressSanitizer + UBSan build runs
# the unit and contract tests, and each libFuzzer target runs for a short
# fixed budget from its kept corpus.
#   scripts/test.sh [extra ctest arguments]
#   Longer runs: HAREL_FAULT_COMMITS=10000 HAREL_CRASH_KILLS=100 HAREL_FUZZ_SECONDS=120 scripts/test.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh --test
HAREL_WERROR=ON bash scripts/build.sh

# One DynamoDB Local and one moto_server for the whole run (each test gets
# its own table prefix); stopped on exit, whatever happens.
state="$(mktemp -d)"
trap 'tests/support/start-servers.sh stop "$state"; rm -rf "$state"' EXIT
eval "$(tests/support/start-servers.sh start "$state")"

ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@"

bash scripts/sanitize.sh
HAREL_FUZZ_SECONDS="${HAREL_FUZZ_SECONDS:-10}" bash scripts/fuzz.sh
