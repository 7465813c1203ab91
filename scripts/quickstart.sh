#!/usr/bin/env bash
# Quick start (a): installs what is needed, builds, and runs the main job —
# `harelctl demo`, 200 order workflows end to end — on the embedded default
# store (sqlite:harel.db in the current directory; set HAREL_STORE to change).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
exec "$root/build/apps/harelctl/harelctl" demo "$@"
