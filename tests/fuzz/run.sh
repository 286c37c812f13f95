#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/fuzz_*.c) with clang, ASan and
# UBSan, the library instrumented for coverage too, at -g -O1 (as LLVM's
# docs/LibFuzzer.rst builds its examples; asserts stay on: a Debug build
# type), and runs each for a
# bounded time over a seed corpus: tests/fuzz/seeds/<harness>/ plus what
# the tree holds for it (configs/, tests/inputs/, tests/cli/cases/).
# usage: tests/fuzz/run.sh [BUILD_DIR] [SECONDS_PER_HARNESS]
#   SECONDS_PER_HARNESS: default $DC_FUZZ_SECONDS, else 60 (.ci/run passes
#   DC_FUZZ_SECONDS). The whole run is capped at DC_FUZZ_TOTAL_SECONDS
#   (default 1800): with N harnesses each gets at most that / N, so a large
#   per-harness figure never makes .ci/run overrun.
# Prints, per harness, the runs, exec/s and coverage (cov: the library's and
# the harness's edges hit; ft: features) of libFuzzer's final stats.
# A crash, a leak or an input slower than -timeout stops that harness and
# leaves crash-*, leak-* or timeout-* files in BUILD_DIR (turn each into a
# regression case under tests/inputs/); the other harnesses still run, and
# the script exits non-zero at the end, naming every harness that failed.
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-${DC_FUZZ_SECONDS:-60}}
total=${DC_FUZZ_TOTAL_SECONDS:-1800}
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

harnesses=()
for f in "$src"/tests/fuzz/fuzz_*.c; do
  harnesses+=("$(basename "$f" .c)")
done
n=${#harnesses[@]}
if [ "$seconds" -gt $((total / n)) ]; then
  seconds=$((total / n))
  echo "fuzz: ${seconds}s per harness (DC_FUZZ_TOTAL_SECONDS=$total over $n harnesses)"
fi

CC=clang cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
  -DDISTCALC_FUZZ=ON -DDISTCALC_SANITIZE=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${harnesses[@]}" >/dev/null

# copy FILE... into the corpus directory $1 (missing globs are skipped)
seed() {
  local dir=$1
  shift
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$dir/"
  done
  return 0
}

# the corpus of harness $1 in directory $2
corpus() {
  local h=$1 dir=$2 i=0
  seed "$dir" "$src"/tests/fuzz/seeds/"${h#fuzz_}"/*
  case $h in
  fuzz_loader | fuzz_pipeline)
    seed "$dir" "$src"/configs/*.json "$src"/tests/inputs/*.json
    [ "$h" = fuzz_loader ] && seed "$dir" "$src"/configs/*/*.json
    # --set variations of the built-in default (0x02, then one override
    # per line) so the pipeline harness starts from accepted configs
    while IFS= read -r sets; do
      i=$((i + 1))
      printf '\002%b' "$sets" >"$dir/set-$i"
    done <"$src/tests/fuzz/sets.txt"
    ;;
  fuzz_options)
    # every CLI case's arguments, one per line there, NUL-separated here
    for f in "$src"/tests/cli/cases/*.args; do
      sed "s|@SRC@|$src|g" "$f" | tr '\n' '\0' >"$dir/$(basename "$f")"
    done
    ;;
  fuzz_hf)
    seed "$dir" "$src"/configs/models/*.json "$src"/tests/inputs/hf_*.json
    ;;
  fuzz_import_toml)
    seed "$dir" "$src"/tests/inputs/import/*.toml
    ;;
  fuzz_import_megatron)
    seed "$dir" "$src"/tests/inputs/import/*.sh
    ;;
  fuzz_textlogs)
    seed "$dir" "$src"/tests/data/*.txt
    ;;
  fuzz_check)
    # stored reports: the JSON goldens, whole and per section
    seed "$dir" "$src"/tests/cli/cases/golden_*json*.stdout
    ;;
  esac
}

max_len() {
  case $1 in
  fuzz_options) echo 4096 ;;
  *) echo 65536 ;; # configs and reports over 8 KiB too
  esac
}

summary=()
failed=()
for h in "${harnesses[@]}"; do
  dir="$build/corpus-$h"
  mkdir -p "$dir"
  corpus "$h" "$dir"
  echo "== $h: ${seconds}s, $(find "$dir" -type f | wc -l) inputs in the corpus"
  status=0
  dict=()
  [ "$h" != fuzz_options ] && dict=(-dict="$src/tests/fuzz/distcalc.dict")
  # -timeout=15: every input must finish within a second in a release
  # build; the largest bounded work (a schedule simulated whole within 2 x
  # 2^18 model chunks: ZB-H1 at pp 120, m 4,369, 524,280 chunks, takes
  # 0.23 s released and 4.2 s here) runs about eighteen times slower under
  # ASan, UBSan and coverage (at 16 x 2^18, until stop 66, m 20,000 took
  # 51 s here and CI's fuzzer hit it: docs/reliability.md, "Bounded work")
  ( cd "$build" && ASAN_OPTIONS=detect_leaks=1 "./$h" -max_total_time="$seconds" -max_len="$(max_len "$h")" \
      -timeout=15 -rss_limit_mb=2048 "${dict[@]}" -print_final_stats=1 "corpus-$h" ) >"$build/$h.log" 2>&1 ||
    status=$?
  grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss|ERROR|SUMMARY|Test unit written" \
    "$build/$h.log" || true
  done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE[[:space:]]" "$build/$h.log" | tail -1 || true)
  [ -n "$done_line" ] && echo "$done_line"
  summary+=("$h: $(echo "$done_line" | sed -E 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+cov: ([0-9]+) ft: ([0-9]+).*exec\/s: ([0-9]+).*/runs \1, cov \2, ft \3, exec\/s \4/')")
  if [ "$status" != 0 ]; then
    # the others still run: one harness's crash or timeout must not hide
    # what the rest would find
    tail -40 "$build/$h.log" >&2
    echo "fuzz: $h failed; see crash-*, leak-* or timeout-* in $build" >&2
    failed+=("$h")
  fi
done
echo "== fuzz summary (${seconds}s each)"
printf '%s\n' "${summary[@]}"
if [ "${#failed[@]}" != 0 ]; then
  echo "fuzz: ${#failed[@]} of $n harnesses failed: ${failed[*]}" >&2
  exit 1
fi
