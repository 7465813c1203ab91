#!/usr/bin/env bash
# harel_bench end to end against DynamoDB Local: a short run of two workloads
# in every kind of mode over two rounds, then checks of what it wrote — every
# round of every mode ran without errors, and each row of the table is the
# median of its rounds, with "vs raw" the median of the per-round ratios.
#   smoke.sh HAREL_BENCH
set -euo pipefail
bench="$1"
if [[ -z "${HAREL_TEST_DYNAMODB_LOCAL:-}" ]]; then
  echo "HAREL_TEST_DYNAMODB_LOCAL is not set (tests/support/start-servers.sh): skipped"
  exit 77
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
"$bench" --endpoint "$HAREL_TEST_DYNAMODB_LOCAL" --ops 24 --rounds 2 --warmup 0 --workloads update,relay \
  --modes sync,async-4,raw-4,wire-4 --json "$work/out.json" > "$work/table.txt"
cat "$work/table.txt"
python3 - "$work/out.json" <<'PY'
import json, statistics, sys

out = json.load(open(sys.argv[1]))
runs, rows = out["runs"], out["results"]
assert out["rounds"] == 2, out["rounds"]
kinds = [(w, m) for w in ("update", "relay") for m in ("sync", "async-4", "raw-4", "wire-4")]
assert sorted((r["workload"], r["mode"], r["round"]) for r in runs) == sorted(
    (w, m, k) for w, m in kinds for k in (1, 2)), "one run per workload, mode and round"
assert [(r["workload"], r["mode"]) for r in rows] == kinds, "one row per workload and mode, in run order"
for run in runs:
    assert run["errors"] == 0, run
    assert run["ops"] == 24 and run["ops_per_s"] > 0 and run["cpu_us_per_op"] > 0, run

def rounds_of(workload, mode):
    return {r["round"]: r for r in runs if r["workload"] == workload and r["mode"] == mode}

for row in rows:
    mine = rounds_of(row["workload"], row["mode"])
    assert row["rounds"] == 2, row
    for figure in ("ops_per_s", "p50_us", "p99_us", "cpu_us_per_op", "user_us_per_op"):
        expected = statistics.median(r[figure] for r in mine.values())
        assert abs(row[figure] - expected) <= 1e-9 * expected, (row, figure, expected)
    if row["mode"] == "async-4":
        raw = rounds_of(row["workload"], "raw-4")
        expected = statistics.median(mine[k]["ops_per_s"] / raw[k]["ops_per_s"] for k in (1, 2))
        assert abs(row["share_of_raw"] - expected) <= 1e-9 * expected, (row, expected)
    else:
        assert "share_of_raw" not in row, row
print("harel_bench smoke: ok")
PY
grep -q "client CPU per store operation" "$work/table.txt"
