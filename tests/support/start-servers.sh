#!/usr/bin/env bash
# Starts DynamoDB Local and moto_server once for a whole test run, on free
# loopback ports, and stops them again.
#
#   eval "$(tests/support/start-servers.sh start STATE_DIR)"   # exports HAREL_TEST_DYNAMODB_LOCAL, HAREL_TEST_MOTO
#   tests/support/start-servers.sh stop STATE_DIR
#
# STATE_DIR keeps the pid file (servers.pid) and the servers' logs. Only the
# export lines go to stdout; progress and errors go to stderr. A server that
# does not answer within 60 s fails the start (exit 1) after stopping the other.
set -euo pipefail

usage() { echo "usage: $0 start|stop STATE_DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
action=$1
state=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ddb_dir=${HAREL_DYNAMODB_LOCAL_DIR:-$root/.deps/dynamodb-local}
pidfile=$state/servers.pid

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

wait_listening() {  # port pid name
  for _ in $(seq 1 600); do
    if ! kill -0 "$2" 2>/dev/null; then echo "$3 exited during startup (see $state/$3.log)" >&2; return 1; fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "$3 did not listen on port $1 within 60 s (see $state/$3.log)" >&2
  return 1
}

stop() {
  [[ -f $pidfile ]] || return 0
  while read -r pid; do
    kill "$pid" 2>/dev/null || true
  done <"$pidfile"
  for _ in $(seq 1 50); do
    alive=0
    while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done <"$pidfile"
    [[ $alive -eq 0 ]] && break
    sleep 0.1
  done
  while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done <"$pidfile"
  rm -f "$pidfile"
}

case $action in
  start)
    mkdir -p "$state"
    stop  # a previous run's leftovers
    [[ -f $ddb_dir/DynamoDBLocal.jar ]] || { echo "DynamoDB Local not found in $ddb_dir (scripts/install-deps.sh --test)" >&2; exit 1; }
    command -v moto_server >/dev/null || { echo "moto_server not on PATH" >&2; exit 1; }
    ddb_port=$(free_port)
    # Run from STATE_DIR: DynamoDB Local writes a metadata file into its cwd.
    (cd "$state" && exec java -Djava.library.path="$ddb_dir/DynamoDBLocal_lib" -jar "$ddb_dir/DynamoDBLocal.jar" \
      -inMemory -port "$ddb_port") >"$state/dynamodb-local.log" 2>&1 &
    ddb_pid=$!
    echo "$ddb_pid" >>"$pidfile"
    moto_port=$(free_port)
    moto_server -H 127.0.0.1 -p "$moto_port" >"$state/moto.log" 2>&1 &
    moto_pid=$!
    echo "$moto_pid" >>"$pidfile"
    if ! wait_listening "$ddb_port" "$ddb_pid" dynamodb-local || ! wait_listening "$moto_port" "$moto_pid" moto; then
      stop
      exit 1
    fi
    echo "export HAREL_TEST_DYNAMODB_LOCAL=http://127.0.0.1:$ddb_port; export HAREL_TEST_MOTO=http://127.0.0.1:$moto_port"
    ;;
  stop)
    stop
    ;;
  *)
    usage
    ;;
esac
