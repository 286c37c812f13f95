#!/bin/sh
# Prints distcalc's speed figures: in-process evaluations per second, then
# the process time of whole runs (default report, and 4096 ranks).
set -eu
build=${1:-build}
echo "== in-process"
"$build/bench_eval" configs/systems.json 1
echo "== whole process"
"$build/bench_process" "$build/distcalc" 50 --config configs/systems.json --seed 7
"$build/bench_process" "$build/distcalc" 20 --config configs/systems.json --seed 7 --format json
"$build/bench_process" "$build/distcalc" 10 --config configs/systems.json \
  --set cluster.num_nodes=1024 --set parallel.dp=1024 --format json
echo "== streaming every ring event (512 ranks: 523,264 events, ~81 MB of JSON)"
"$build/bench_process" "$build/distcalc" 3 --experiment ring --set cluster.num_nodes=128 \
  --set parallel.dp=128 --all --format json
echo "== rendering and memory"
"$build/bench_render" configs/systems.json "$build/distcalc"
if [ -x "$build/bench_topology" ]; then
  echo "== topology questions at 65,536 ranks"
  "$build/bench_topology"
fi
