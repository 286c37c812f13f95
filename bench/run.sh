#!/bin/sh
# Prints distcalc's speed figures, one a line as `name: value unit`, each
# the median of several runs: in-process evaluation, rendering, topology
# questions, then whole processes. Figures only: nothing passes or fails.
set -eu
build=${1:-build}
"$build/bench_eval" configs/systems.json 1
"$build/bench_render" configs/systems.json "$build/distcalc"
"$build/bench_topology"
"$build/bench_process" "process systems.json table" "$build/distcalc" 21 --config configs/systems.json --seed 7
"$build/bench_process" "process systems.json json" "$build/distcalc" 21 --config configs/systems.json --seed 7 --format json
"$build/bench_process" "process 4096 ranks json" "$build/distcalc" 11 --config configs/systems.json \
  --set cluster.num_nodes=1024 --set parallel.dp=1024 --format json
"$build/bench_process" "process ring 512 ranks all events json" "$build/distcalc" 3 --experiment ring \
  --set cluster.num_nodes=128 --set parallel.dp=128 --all --format json
