#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang into build-fuzz/ — the
# library instrumented with ASan + UBSan — and runs each for a fixed budget,
# starting from its kept seed corpus fuzz/corpus/<target>.
#   scripts/fuzz.sh [target...]          (default: every target)
#   HAREL_FUZZ_SECONDS=20                seconds per target
#   FUZZ_BUILD_DIR, FUZZ_CXX             build dir (build-fuzz), compiler (clang++-14)
# New inputs the fuzzer finds go to build-fuzz/corpus/<target>, never into the
# kept corpus; a crash leaves its input in build-fuzz/artifacts/ and the
# script fails, printing the fuzzer's report.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${FUZZ_BUILD_DIR:-$root/build-fuzz}"
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=true  # share the cache across checkouts
seconds="${HAREL_FUZZ_SECONDS:-20}"
targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=(codec_fuzz attribute_value_fuzz cursor_fuzz response_fuzz)

# -fsanitize=function is left out: clang 14 cannot emit it for coroutines
# ("Cannot represent a difference across sections"), and the library has many.
sanitize="-fsanitize=address,undefined -fno-sanitize=function -fno-sanitize-recover=undefined"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++-14}" \
  -DCMAKE_CXX_FLAGS="-O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $sanitize" \
  -DCMAKE_EXE_LINKER_FLAGS="$sanitize" \
  -DHAREL_FUZZ=ON -DHAREL_BUILD_TESTS=OFF -DHAREL_BUILD_TOOLS=OFF -DHAREL_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target "${targets[@]}"

mkdir -p "$build/artifacts"
failed=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t"
  echo "fuzzing $t for ${seconds}s" >&2
  if ! "$build/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t-" "$build/corpus/$t" "$root/fuzz/corpus/$t" >"$build/$t.log" 2>&1; then
    echo "FAILED: $t (input in $build/artifacts/, log $build/$t.log)" >&2
    tail -n 60 "$build/$t.log" >&2
    failed=1
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$build/$t.log" | tr '\n' ' ' >&2
    echo >&2
  fi
done
exit "$failed"
