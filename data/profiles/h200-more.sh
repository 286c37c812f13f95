#!/bin/sh
# The second H200 run (data/profiles/h200-megatron-gpt-{1.7b-tp1,16b-tp4}-*):
# two more Megatron-LM README shapes, a boost run with --compile (the eager
# and the compiled layer) and a --sustain 10 one each, nvidia-smi dmon
# through them; with MB4=1, only the 1.7B at micro batch 4 (the third run,
# h200-megatron-gpt-1.7b-tp1-mb4-compiled-boost*, h200-more-mb4-*); with
# BUSY=1, only the 1.7B at micro batch 1 again, its profile now with the
# layer's GPU busy time (the fourth run, h200-megatron-gpt-1.7b-tp1-busy-*,
# h200-more-busy-*). Run from the repository root; RESULTS is the folder the
# profiles, traces and logs go to.
RESULTS=${1:?usage: h200-more.sh RESULTS-FOLDER}
mkdir -p "$RESULTS" || exit 2
set -x
date -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.sm,temperature.gpu --format=csv
nvidia-smi dmon -s pc -o T > "$RESULTS/h200-more${MB4:+-mb4}${BUSY:+-busy}-dmon.txt" 2>&1 &
DM=$!
run() { # NAME KIND [probe options...]
    n=$1; k=$2; shift 2
    timeout 150 python3 tools/gpu-probe.py "$@" --output "$RESULTS/h200-$n-$k.json" \
        --layer-kernels "$RESULTS/h200-$n-$k-kernels.json"
}
if [ "${BUSY:-0}" = 1 ]; then
    run megatron-gpt-1.7b-tp1-busy compiled-boost --compile --config data/profiles/configs/megatron-gpt-1.7b-tp1.json
    kill $DM
    date -u
    exit 0
fi
if [ "${MB4:-0}" = 1 ]; then
    run megatron-gpt-1.7b-tp1-mb4 compiled-boost --compile --config data/profiles/configs/megatron-gpt-1.7b-tp1-mb4.json
    kill $DM
    date -u
    exit 0
fi
for n in megatron-gpt-1.7b-tp1 megatron-gpt-16b-tp4; do
    run $n compiled-boost --compile --config data/profiles/configs/$n.json
done
for n in megatron-gpt-1.7b-tp1 megatron-gpt-16b-tp4; do
    run $n sustained --sustain 10 --config data/profiles/configs/$n.json
done
kill $DM
date -u
