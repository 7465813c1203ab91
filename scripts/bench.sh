#!/usr/bin/env bash
# The DynamoDB benchmark, from a fresh clone: installs the dependencies
# (with DynamoDB Local), builds an optimized harel_bench into build-bench/
# (library and benchmark only), and runs it against a DynamoDB Local it
# starts itself. Extra arguments go to harel_bench, e.g.
#   scripts/bench.sh --ops 500 --workloads load,update --json results.json
#   scripts/bench.sh --endpoint http://127.0.0.1:8000
# With --micro first, it runs harel_microbench instead (the client's parts
# alone, no server); further arguments go to Google Benchmark.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

bash "$root/scripts/install-deps.sh" --test
BUILD_DIR="${BUILD_DIR:-$root/build-bench}" CMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
  bash "$root/scripts/build.sh" -DHAREL_BUILD_TESTS=OFF -DHAREL_BUILD_TOOLS=OFF
program=harel_bench
if [[ "${1:-}" == "--micro" ]]; then
  program=harel_microbench
  shift
fi
exec "${BUILD_DIR:-$root/build-bench}/bench/$program" "$@"
