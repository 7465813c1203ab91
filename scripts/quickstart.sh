#!/usr/bin/env bash
# Quick start (a): installs what is needed, builds, and runs the main job —
# `harelctl demo`, 200 order workflows end to end — on the embedded default
# store (sqlite:harel.db in the current directory; set HAREL_STORE to change).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

bash "$root/scripts/install-deps.sh"
# Only the library and harelctl, in a build tree of their own (the test build is scripts/test.sh's).
BUILD_DIR="$root/build-quickstart" bash "$root/scripts/build.sh" -DHAREL_BUILD_TESTS=OFF -DHAREL_BUILD_BENCH=OFF
exec "$root/build-quickstart/apps/harelctl/harelctl" demo "$@"
