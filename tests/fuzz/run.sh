#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang, ASan and UBSan, and runs each
# for a bounded time over a seed corpus made from configs/ and tests/inputs/.
# usage: tests/fuzz/run.sh [BUILD_DIR] [SECONDS_PER_HARNESS]
# A crash stops the run with a non-zero status and leaves crash-* files:
# turn each into a regression case under tests/inputs/.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
src=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v clang >/dev/null 2>&1 || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "fuzz: installing clang and libclang-rt-14-dev" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang libclang-rt-14-dev >&2 ||
      { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q clang libclang-rt-14-dev >&2; }
  else
    echo "fuzz: clang with libFuzzer is missing; run: sudo apt-get install clang libclang-rt-14-dev" >&2
    exit 1
  fi
fi

CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Debug \
  -DDISTCALC_FUZZ=ON -DDISTCALC_SANITIZE=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_loader fuzz_pipeline >/dev/null

for h in fuzz_loader fuzz_pipeline; do
  corpus="$build/corpus-$h"
  mkdir -p "$corpus"
  for f in "$src"/configs/*.json "$src"/configs/*/*.json "$src"/tests/inputs/*.json; do
    [ -f "$f" ] && cp "$f" "$corpus/"
  done
  # --set variations of the built-in default (0x02, then one override per
  # line) so the pipeline harness starts from accepted configs
  i=0
  while IFS= read -r sets; do
    i=$((i + 1))
    printf '\002%b' "$sets" >"$corpus/set-$i"
  done <"$src/tests/fuzz/sets.txt"
  echo "== $h: ${seconds}s"
  status=0
  ( cd "$build" && ASAN_OPTIONS=detect_leaks=1 "./$h" -max_total_time="$seconds" -max_len=8192 \
      -timeout=10 -rss_limit_mb=2048 -dict="$src/tests/fuzz/distcalc.dict" \
      -print_final_stats=1 "corpus-$h" ) >"$build/$h.log" 2>&1 || status=$?
  grep -E "stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Test unit written" "$build/$h.log" || true
  if [ "$status" != 0 ]; then
    tail -40 "$build/$h.log" >&2
    echo "fuzz: $h failed; see crash-* in $build" >&2
    exit 1
  fi
done
