#!/bin/sh
# Prints distcalc's speed figures, one per line as `name: value unit`, each
# the median of several runs: in-process costs (plan and estimators alone,
# whole reports, rendering alone, topology questions), then the process
# time and peak memory of whole runs. Figures only: nothing passes or fails.
set -eu
build=${1:-build}
"$build/bench_eval" 1 configs/systems.json configs/korthikanti-1t.json
"$build/bench_report" 1 configs/systems.json
"$build/bench_render" configs/systems.json "$build/distcalc"
"$build/bench_topology"
"$build/bench_process" "systems.json table" "$build/distcalc" 51 --config configs/systems.json --seed 7
"$build/bench_process" "systems.json json" "$build/distcalc" 21 --config configs/systems.json --seed 7 --format json
"$build/bench_process" "4096 ranks json" "$build/distcalc" 11 --config configs/systems.json \
  --set cluster.num_nodes=1024 --set parallel.dp=1024 --format json
# the ring lab over 512 ranks: 523,264 events, ~81 MB of JSON
"$build/bench_process" "512-rank ring events json" "$build/distcalc" 3 --experiment ring \
  --set cluster.num_nodes=128 --set parallel.dp=128 --all --format json
# a 100-point sweep (docs/sweeps.md): in process, and as a whole run
"$build/bench_sweep" 1 configs/systems.json
"$build/bench_process" "sweep 100 points table" "$build/distcalc" 21 --config configs/systems.json \
  --sweep training.grad_accum_steps=1,2,3,4,5,6,7,8,9,10 --sweep training.micro_batch_size=1,2,3,4,5,6,7,8,9,10
# the layout search (docs/search.md): GPT-3 13B on 64 GPUs, GPT-3 175B on 1024
"$build/bench_search" gpt3-13b tests/inputs/search/gpt3-13b-64.json
"$build/bench_search" gpt3-175b tests/inputs/search/gpt3-175b-1024.json 3
# a search whose every step is simulated op by op (uneven interleaved chunks,
# pp 8, v 4, m up to 8,192: docs/search.md, "the op loop itself")
"$build/bench_search" deepseek-v3-bridge configs/deepseek-v3-bridge-h100.json 3
