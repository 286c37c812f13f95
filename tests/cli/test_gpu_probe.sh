#!/bin/sh
# test_gpu_probe.sh DISTCALC SRC - tools/gpu-probe.py --dry-run runs without
# a GPU or PyTorch and lists the layer's GEMMs at the config's shard: the
# 8B at tp 8 (configs/llama-3-8b.json), 8,192 tokens: q k v 8192 x 768 x
# 4096 ((32 + 2 x 8) x 128 / 8 = 768), fc1 8192 x 3584 x 4096 (2 x 14,336
# / 8), 2 x 8192 x 3584 x 4096 = 241 GFLOP; 12 GEMMs (4 linears x forward,
# input and weight gradient). A config without the shape is refused.
set -eu
src=$2
command -v python3 >/dev/null 2>&1 || exit 77
out=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b.json")
echo "$out" | grep -q "q k v forward *8192 x *768 x *4096" || { echo "no q k v row: $out"; exit 1; }
echo "$out" | grep -q "fc1 forward *8192 x *3584 x *4096  241 GFLOP" || { echo "no fc1 row: $out"; exit 1; }
[ "$(echo "$out" | grep -c ' GFLOP$')" -eq 12 ] || { echo "not 12 GEMMs: $out"; exit 1; }
echo "$out" | grep -q "heads 4 (kv 1), seq 8192" || { echo "attention shape: $out"; exit 1; }
tmp=$(mktemp "${TMPDIR:-/tmp}/probe.XXXXXX")
trap 'rm -f "$tmp"' EXIT
echo '{"model": {"hidden_size": 64}}' > "$tmp"
if python3 "$src/tools/gpu-probe.py" --dry-run --config "$tmp" 2>/dev/null; then
	echo "a config without num_attention_heads was accepted"; exit 1
fi
exit 0
