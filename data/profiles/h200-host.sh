#!/bin/sh
# The sixth H200 run (data/profiles/h200-megatron-gpt-1.7b-*-host-*): is a
# host-bound layer's time the same at another shape of the same block?
# The Megatron-LM README 1.7B layer at tp 1, micro batch 1 (its busy time
# says whether this VM's host holds it back), then the same block at tp 2,
# at sequence 2048 and at micro batch 2, each with --layer-kernels (the GPU
# busy time), boost clocks, nvidia-smi dmon through them. Run from the
# repository root; RESULTS is the folder the profiles, traces and logs go to.
RESULTS=${1:?usage: h200-host.sh RESULTS-FOLDER}
mkdir -p "$RESULTS" || exit 2
set -x
date -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.sm,temperature.gpu --format=csv
nproc
grep -m1 "model name" /proc/cpuinfo
nvidia-smi dmon -s pc -o T > "$RESULTS/h200-host-dmon.txt" 2>&1 &
DM=$!
run() { # NAME [probe options...]
    n=$1; shift
    timeout 120 python3 tools/gpu-probe.py "$@" --output "$RESULTS/h200-$n-host-boost.json" \
        --layer-kernels "$RESULTS/h200-$n-host-boost-kernels.json"
}
c=data/profiles/configs
run megatron-gpt-1.7b-tp1 --config $c/megatron-gpt-1.7b-tp1.json
run megatron-gpt-1.7b-tp2 --config $c/megatron-gpt-1.7b-tp1.json --tp 2
run megatron-gpt-1.7b-tp1-s2048 --config $c/megatron-gpt-1.7b-tp1-s2048.json
run megatron-gpt-1.7b-tp1-mb2 --config $c/megatron-gpt-1.7b-tp1-mb2.json
run megatron-gpt-1.7b-tp1-again --config $c/megatron-gpt-1.7b-tp1.json
kill $DM
date -u
