#!/usr/bin/env bash
# Installs the built harel into a scratch prefix, then configures, builds and
# runs tests/consumer against it with find_package(harel).
#   run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build="$1"; source="$2"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/tests/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/consumer" "$work/consumer.db" | grep -q "consumer ok"
echo "find_package(harel) consumer: ok"
