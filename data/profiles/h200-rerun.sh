#!/bin/sh
# The probe run behind data/profiles/h200-*.json (second measurement, the
# probe's gradient-add flaws fixed): nine runs of tools/gpu-probe.py on one
# GPU, boost runs first, the sustained (heated) ones last, nvidia-smi dmon
# through them all. Run from the repository root; RESULTS is the folder the
# profiles, traces and logs go to.
RESULTS=${1:?usage: h200-rerun.sh RESULTS-FOLDER}
mkdir -p "$RESULTS" || exit 2
set -x
date -u
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.sm,temperature.gpu --format=csv
nvidia-smi dmon -s pc -o T > "$RESULTS/h200-dmon.txt" 2>&1 &
DM=$!
L8="configs/llama-3-8b.json --tp 1"
G7="data/profiles/configs/megatron-gpt-7b-tp2.json"
G32="data/profiles/configs/megatron-gpt-32b-tp8.json"
run() { # NAME KIND [probe options...]
    n=$1; k=$2; shift 2
    timeout 150 python3 tools/gpu-probe.py "$@" --output "$RESULTS/h200-$n-$k.json" \
        --layer-kernels "$RESULTS/h200-$n-$k-kernels.json"
}
run llama-3-8b-tp1 boost --config $L8
run megatron-gpt-7b-tp2 boost --config $G7
run megatron-gpt-32b-tp8 boost --config $G32
run llama-3-8b-tp1 compiled-boost --compile --config $L8
run megatron-gpt-7b-tp2 compiled-boost --compile --config $G7
run megatron-gpt-32b-tp8 compiled-boost --compile --config $G32
run llama-3-8b-tp1 sustained --sustain 10 --config $L8
run megatron-gpt-7b-tp2 sustained --sustain 10 --config $G7
run megatron-gpt-32b-tp8 sustained --sustain 10 --config $G32
kill $DM
nvidia-smi -q > "$RESULTS/h200-nvidia-smi-q.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())'
date -u
