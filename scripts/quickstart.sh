#!/usr/bin/env bash
# Quick start (a): installs what is needed, builds, and runs the main job on
# the embedded default store (sqlite:harel.db in the current directory).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
harelctl="$root/build/apps/harelctl/harelctl"
export HAREL_STORE="${HAREL_STORE:-sqlite:harel.db}"

"$harelctl" init
for i in 1 2 3; do
  if ! "$harelctl" show "order-$i" >/dev/null 2>&1; then
    "$harelctl" create "order-$i" --definition order --context "{\"sku\":\"A-$i\",\"qty\":$i}"
  fi
done
"$harelctl" list --all
