#!/bin/sh
# The fifth H200 run (data/profiles/h200-*-ends-*): the probe's --ends, the
# head and loss and the optimizer step, besides each layer: Llama-3-8B at
# tp 1 (boost and --sustain 10) and the Megatron-LM README 1.7B at tp 1
# (boost), nvidia-smi dmon through them. Run from the repository root;
# RESULTS is the folder the profiles, traces and logs go to.
RESULTS=${1:?usage: h200-ends.sh RESULTS-FOLDER}
mkdir -p "$RESULTS" || exit 2
set -x
date -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.sm,temperature.gpu --format=csv
nvidia-smi dmon -s pc -o T > "$RESULTS/h200-ends-dmon.txt" 2>&1 &
DM=$!
run() { # NAME KIND [probe options...]
    n=$1; k=$2; shift 2
    timeout 170 python3 tools/gpu-probe.py --ends "$@" --output "$RESULTS/h200-$n-ends-$k.json" \
        --layer-kernels "$RESULTS/h200-$n-ends-$k-kernels.json"
}
run llama-3-8b-tp1 boost --config configs/llama-3-8b.json --tp 1
run megatron-gpt-1.7b-tp1 boost --config data/profiles/configs/megatron-gpt-1.7b-tp1.json
run llama-3-8b-tp1 sustained --sustain 10 --config configs/llama-3-8b.json --tp 1
kill $DM
date -u
