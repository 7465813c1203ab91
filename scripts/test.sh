#!/usr/bin/env bash
# Quick start (b): installs everything, builds with -Werror, starts the test
# servers (AWS DynamoDB Local and moto_server on loopback), runs every test,
# and stops the servers again.
#   scripts/test.sh [extra ctest arguments]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh --test
HAREL_WERROR=ON bash scripts/build.sh

if [[ -x tests/support/start-servers.sh ]]; then
  servers_env="$(tests/support/start-servers.sh start)"
  eval "$servers_env"
  trap 'tests/support/start-servers.sh stop' EXIT
fi

ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@"
