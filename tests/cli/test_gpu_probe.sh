#!/bin/sh
# test_gpu_probe.sh DISTCALC SRC - tools/gpu-probe.py --dry-run runs without
# a GPU or PyTorch and lists the layer's GEMMs at the config's shard: the
# 8B at tp 8 (configs/llama-3-8b.json), 8,192 tokens: q k v 8192 x 768 x
# 4096 ((32 + 2 x 8) x 128 / 8 = 768), fc1 8192 x 3584 x 4096 (2 x 14,336
# / 8), 2 x 8192 x 3584 x 4096 = 241 GFLOP; 12 GEMMs (4 linears x forward,
# input and weight gradient). A config without the shape is refused. A
# model.hf_config that is a catalogue name ("llama-3-8b", as distcalc reads
# it: configs/models/, or $DISTCALC_DATA_DIR/models/) gives the same plan
# as the path; a name the catalogue lacks is refused, naming it. The plan
# says the clocks it measures at: "boost" by default (short runs),
# "sustained" with --sustain SECONDS (back-to-back GEMMs that long first);
# a --sustain not above 0 is refused, naming it. --compile and
# --layer-kernels FILE add their lines and change no shape. The kernel
# trace's summary (summarize_kernels, no PyTorch needed), by hand: over 2
# runs, GEMMs at 0-80 and 100-180 us, a cuDNN attention kernel at 200-250
# and an element-wise one at 240-270 (overlapping it by 10), a CPU op
# ignored: span 270 us, busy 80 + 80 + 50 + 20 = 230, idle 40; per run
# 135, 115 and 20 us; GEMM 80, attention 25, other 15 us per run.
# distcalc compares a compiled run with the profile's compiled layer
# (layer.compiled_fwd_bwd_s, 0.004657572937011719 s in the H200's 7.1B
# profile), an eager one with its eager layer (0.005862614440917969 s),
# and a compiled run against a profile without a compiled layer not at all.
# A run at another tp than the profile's (the 8B at tp 2 with the tp-1
# profile) is warned that levels of another layer price it, naming the
# shapes; a run pricing SDPA as FlashAttention-2 by default, where the
# probe saw cuDNN's kernel run, is told to give cudnn; not when it gave
# the backend itself.
set -eu
dc=$1
src=$2
command -v python3 >/dev/null 2>&1 || exit 77
out=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b.json")
tmpd=$(mktemp -d "${TMPDIR:-/tmp}/probe-cat.XXXXXX")
trap 'rm -rf "$tmpd"' EXIT
sed 's|"models/llama-3-8b.json"|"llama-3-8b"|' "$src/configs/llama-3-8b.json" >"$tmpd/by-name.json"
grep -q '"hf_config": "llama-3-8b"' "$tmpd/by-name.json" || { echo "could not write the by-name config"; exit 1; }
by_name=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$tmpd/by-name.json")
[ "$by_name" = "$out" ] || { echo "the catalogue name planned otherwise: $by_name"; exit 1; }
mkdir "$tmpd/data" "$tmpd/data/models"
printf '{"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128}\n' \
	>"$tmpd/data/models/llama-3-8b.json"
env_out=$(DISTCALC_DATA_DIR="$tmpd/data" python3 "$src/tools/gpu-probe.py" --dry-run --config "$tmpd/by-name.json" --tp 2)
echo "$env_out" | grep -q "hidden 64, heads 4 / tp 2" || { echo "DISTCALC_DATA_DIR not read: $env_out"; exit 1; }
sed 's|"models/llama-3-8b.json"|"no-such-model"|' "$src/configs/llama-3-8b.json" >"$tmpd/unknown.json"
if err=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$tmpd/unknown.json" 2>&1); then
	echo "an unknown catalogue name was accepted"; exit 1
fi
echo "$err" | grep -q "no model 'no-such-model' in the catalogue" || { echo "unknown name: $err"; exit 1; }
echo "$out" | grep -q "q k v forward *8192 x *768 x *4096" || { echo "no q k v row: $out"; exit 1; }
echo "$out" | grep -q "fc1 forward *8192 x *3584 x *4096  241 GFLOP" || { echo "no fc1 row: $out"; exit 1; }
[ "$(echo "$out" | grep -c ' GFLOP$')" -eq 12 ] || { echo "not 12 GEMMs: $out"; exit 1; }
echo "$out" | grep -q "heads 4 (kv 1), seq 8192" || { echo "attention shape: $out"; exit 1; }
echo "$out" | grep -q "^clocks: boost: 5 warm-up and 20 timed runs each" || { echo "no boost clocks line: $out"; exit 1; }
sus=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b.json" --sustain 60)
echo "$sus" | grep -q "^clocks: sustained: 60 s of back-to-back 8192^3 BF16 GEMMs first, and 1 s again before each kernel" ||
	{ echo "no sustained clocks line: $sus"; exit 1; }
[ "$(echo "$sus" | grep -v '^clocks:')" = "$(echo "$out" | grep -v '^clocks:')" ] || { echo "--sustain changed the shapes"; exit 1; }
if err=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b.json" --sustain 0 2>&1); then
	echo "--sustain 0 was accepted"; exit 1
fi
echo "$err" | grep -q "\-\-sustain: expected seconds above 0" || { echo "--sustain 0: $err"; exit 1; }
more=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b.json" --compile --layer-kernels k.json)
echo "$more" | grep -q "^that layer again through torch.compile" || { echo "no --compile line: $more"; exit 1; }
echo "$more" | grep -q "kind, written to k.json$" || { echo "no --layer-kernels line: $more"; exit 1; }
[ "$(echo "$more" | grep -v '^that layer again' | grep -v '^profile:')" = "$(echo "$out" | grep -v '^profile:')" ] ||
	{ echo "--compile or --layer-kernels changed the plan"; exit 1; }
echo "$more" | grep -q "^profile: would be written to gpu-profile.json (and the trace to k.json)$" || { echo "no profile line: $more"; exit 1; }
# a compiled config is told to add --compile; a tp below 1 is refused
sed 's|"micro_batch_size": 1,|"micro_batch_size": 1, "compile": true,|' "$tmpd/by-name.json" >"$tmpd/compiled.json"
grep -q '"compile": true' "$tmpd/compiled.json" || { echo "could not write the compiled config"; exit 1; }
python3 "$src/tools/gpu-probe.py" --dry-run --config "$tmpd/compiled.json" | grep -q "^note: the config sets training.compile; .*add --compile" ||
	{ echo "no --compile note"; exit 1; }
# what keeps distcalc from comparing the layer is said before a GPU is used:
# a LayerNorm GPT with biases (every feature, as distcalc names them; GPT-2's
# LayerNorm from its Hugging Face config), a mixture of experts (from its
# Hugging Face config), a framework other than torchtitan (only when nothing
# else is in the way), and with no training.attention_backend that the kernel
# is read at run time; a config distcalc compares as it is gets no note
notes=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/korthikanti-22b.json" | grep "^note:")
echo "$notes" | grep -q "^note: the probe's layer is torchtitan's Llama block; this model's is not (model.norm is \"layernorm\", model.qkv_bias is true, model.out_bias is true, model.mlp_bias is true, model.dropout is true, model.position_embeddings is not 0)" ||
	{ echo "no Llama-block note: $notes"; exit 1; }
if echo "$notes" | grep -q "training.framework"; then echo "a framework note where the model is in the way: $notes"; exit 1; fi
notes=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/gpt2.json" | grep "^note:")
echo "$notes" | grep -q "this model's is not (GPT-2's LayerNorm, biases, dropout and learned positions, from model.hf_config)" ||
	{ echo "no GPT-2 note: $notes"; exit 1; }
notes=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b.json" | grep "^note:")
echo "$notes" | grep -q "^note: distcalc compares the layer only under training.framework \"torchtitan\" .* this config's is \"custom\": if the run is torchtitan's" ||
	{ echo "no framework note: $notes"; exit 1; }
notes=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/mixtral-8x7b-ep.json" --tp 1 | grep "^note:")
echo "$notes" | grep -q "^note: the config's model is a mixture of experts or latent attention" ||
	{ echo "no MoE note: $notes"; exit 1; }
notes=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b-torchtitan.json" | grep "^note:")
echo "$notes" | grep -q "^note: which kernel SDPA runs is read when the probe runs" || { echo "no backend note: $notes"; exit 1; }
notes=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/data/profiles/configs/megatron-gpt-7b-tp2.json" | { grep "^note:" || true; })
[ -z "$notes" ] || { echo "a comparable config got notes: $notes"; exit 1; }
# after a run, the backend its SDPA kernel stands for, when the config prices another
abs=$(cd "$src" && pwd)
bn=$(cd "$src/tools" && PYTHONDONTWRITEBYTECODE=1 python3 -c '
import importlib.util, sys
spec = importlib.util.spec_from_file_location("probe", "gpu-probe.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
print(m.backend_note(sys.argv[1], "sdpa-cudnn")); print(m.backend_note(sys.argv[2], "sdpa-cudnn"))' \
	"$abs/configs/llama-3-8b.json" "$abs/data/profiles/configs/megatron-gpt-7b-tp2.json")
echo "$bn" | head -1 | grep -q "training.attention_backend \"cudnn\", and the config prices \"sdpa\"; .*--set training.attention_backend=cudnn$" ||
	{ echo "no backend note after a run: $bn"; exit 1; }
[ "$(echo "$bn" | tail -1)" = None ] || { echo "a backend note where the config agrees: $bn"; exit 1; }
if err=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b.json" --tp 0 2>&1); then
	echo "--tp 0 was accepted"; exit 1
fi
echo "$err" | grep -q "\-\-tp: expected a whole number of at least 1, got 0" || { echo "--tp 0: $err"; exit 1; }
sum=$(cd "$src/tools" && PYTHONDONTWRITEBYTECODE=1 python3 -c '
import importlib.util, json
spec = importlib.util.spec_from_file_location("probe", "gpu-probe.py")
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
ev = [{"cat": "kernel", "name": "nvjet_sm90_tst_256x128", "ts": 0, "dur": 80},
      {"cat": "kernel", "name": "nvjet_sm90_tst_256x128", "ts": 100, "dur": 80},
      {"cat": "kernel", "name": "cudnn_generated_fort_native_sdpa_sm90_flash_fprop", "ts": 200, "dur": 50},
      {"cat": "kernel", "name": "vectorized_elementwise_kernel", "ts": 240, "dur": 30},
      {"cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 500}]
r = m.summarize_kernels(ev, 2)
k = r["kinds_s"]
print("%.1f %.1f %.1f %.1f %.1f %.1f %d" % (r["span_s"] * 1e6, r["busy_s"] * 1e6, r["idle_s"] * 1e6,
      k["gemm"] * 1e6, k["attention"] * 1e6, k["other"] * 1e6, len(r["kernels"])))
print(m.summarize_kernels([{"cat": "cpu_op", "ts": 0, "dur": 1}], 1))')
[ "$sum" = "135.0 115.0 20.0 80.0 25.0 15.0 3
None" ] || { echo "kernel summary: $sum"; exit 1; }
h200() {
	"$dc" --config "$src/data/profiles/configs/megatron-gpt-7b-tp2.json" --set training.framework=torchtitan \
		--set parallel.sharding=fsdp --set training.attention_backend=cudnn --set "training.compile=$1" \
		--calibrate-compute "$src/data/profiles/$2" --only step --format json
}
j=$(h200 true h200-megatron-gpt-7b-tp2-compiled-boost.json)
echo "$j" | grep -q '"profile_layer_measured_s": 0.004657572937011719,' || { echo "compiled layer: $j"; exit 1; }
echo "$j" | grep -q "the probe's compiled layer (training.compile)" || { echo "compiled predicted_at: $j"; exit 1; }
j=$(h200 false h200-megatron-gpt-7b-tp2-compiled-boost.json)
echo "$j" | grep -q '"profile_layer_measured_s": 0.005862614440917969,' || { echo "eager layer: $j"; exit 1; }
j=$(h200 true h200-megatron-gpt-7b-tp2-boost.json)
echo "$j" | grep -q 'no compiled layer (layer.compiled_fwd_bwd_s: gpu-probe.py --compile)' || { echo "no compiled layer: $j"; exit 1; }
tp2() {
	"$dc" --config "$src/configs/llama-3-8b.json" --set cluster.gpu=h200-sxm-141gb --unset cluster.gpu_memory \
		--set parallel.tp=2 --set parallel.dp=8 --set training.framework=torchtitan --set parallel.sharding=fsdp \
		--calibrate-compute "$src/data/profiles/h200-llama-3-8b-tp1-sustained.json" --only step "$@" 2>&1 >/dev/null
}
w=$(tp2)
echo "$w" | grep -q "its levels were measured on another layer than this run's (tp 1, this run's 2; sequence parallelism off (the probe's norms see every token), this run's on) and price this run all the same" ||
	{ echo "no other-shape warning: $w"; exit 1; }
echo "$w" | grep -q "SDPA run cuDNN's kernel on this GPU (layer.attention_backend), and this run prices training.attention_backend \"sdpa\" by default; .*--set training.attention_backend=cudnn" ||
	{ echo "no backend warning: $w"; exit 1; }
w=$(tp2 --set training.attention_backend=sdpa)
if echo "$w" | grep -q "by default"; then echo "backend warning though the run gave it: $w"; exit 1; fi
# Megatron's derived cuDNN is Transformer Engine's, not SDPA's: a profile
# whose SDPA ran FlashAttention-2 says nothing about it
sed 's|"attention_backend": "sdpa-cudnn"|"attention_backend": "sdpa-flash"|' \
	"$src/data/profiles/h200-llama-3-8b-tp1-sustained.json" >"$tmpd/flash.json"
w=$("$dc" --config "$src/configs/llama-3-8b.json" --set cluster.gpu=h200-sxm-141gb --unset cluster.gpu_memory \
	--set parallel.tp=2 --set parallel.dp=8 --set training.framework=megatron --calibrate-compute "$tmpd/flash.json" \
	--only step 2>&1 >/dev/null)
if echo "$w" | grep -q "by default"; then echo "backend warning under megatron: $w"; exit 1; fi
# a MoE model priced from a dense layer's profile is warned too
w=$("$dc" --config "$src/configs/mixtral-8x7b-ep.json" --set cluster.gpu=h200-sxm-141gb --unset cluster.gpu_memory \
	--calibrate-compute "$src/data/profiles/h200-llama-3-8b-tp1-sustained.json" --only step 2>&1 >/dev/null)
echo "$w" | grep -q "its levels were measured on a dense layer and price this run's (mixture-of-experts" ||
	{ echo "no dense-layer warning: $w"; exit 1; }
# the layer's GPU busy time (layer.gpu_busy_s, from --layer-kernels): shown
# beside the measured layer; a layer the GPU was busy for under 0.85 of is
# said to have waited for its host, and the model's time is held against
# the busy time. The fourth H200 run's 1.7B layer was GPU-bound (3.409 of
# 3.503 ms); the second run's, given its own trace's busy time, was not
# (3.276 of 4.566 ms: 28% waiting)
b17() {
	"$dc" --config "$src/data/profiles/configs/megatron-gpt-1.7b-tp1.json" --calibrate-compute "$1" --only step 2>&1
}
o=$(b17 "$src/data/profiles/h200-megatron-gpt-1.7b-tp1-busy-compiled-boost.json")
echo "$o" | grep -q "probe's layer: GPU busy in its kernels  *3.409 ms" || { echo "no busy line: $o"; exit 1; }
if echo "$o" | grep -q "waited for the host"; then echo "a GPU-bound layer said to wait: $o"; exit 1; fi
python3 - "$src/data/profiles/h200-megatron-gpt-1.7b-tp1-compiled-boost.json" \
	"$src/data/profiles/h200-megatron-gpt-1.7b-tp1-compiled-boost-kernels.json" "$tmpd/host.json" <<'PY'
import json, sys
p, k = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
p["layer"]["gpu_busy_s"] = k["busy_s"]
json.dump(p, open(sys.argv[3], "w"))
PY
o=$(b17 "$tmpd/host.json")
echo "$o" | grep -q "the probe's layer kept the GPU busy 3.276 ms of its 4.566 ms: for 28% of it the GPU waited for the host to launch its kernels" ||
	{ echo "no host-bound warning: $o"; exit 1; }
if echo "$o" | grep -q "measured in isolation may not hold"; then echo "the host wait blamed on the levels: $o"; exit 1; fi
# --ends: the head at tp 1 over the config's vocabulary (the 8B's 128,256
# from its Hugging Face config), one layer's parameters by hand: q 4096 x
# 4096, k and v 1024 x 4096 each, o 4096 x 4096, w1 and w3 14,336 x 4096,
# w2 4096 x 14,336, two norms of 4096: 218,112,000 in 9 tensors; at tp 8
# no head (the loss runs across the tp ranks) and an eighth of the
# matrices, 27,271,168 (the norms whole); a config without a vocabulary
# is refused at tp 1, naming model.vocab_size; the dry run without
# --ends says nothing of them
e=$(python3 "$src/tools/gpu-probe.py" --dry-run --ends --config "$src/configs/llama-3-8b.json" --tp 1)
echo "$e" | grep -q "the head: final RMSNorm, the output projection 4096 -> 128256 and cross entropy in FP32 (cross_entropy(logits.float())), forward and forward + backward over 8192 tokens" ||
	{ echo "no head line: $e"; exit 1; }
echo "$e" | grep -q "one AdamW step over 218112000 FP32 parameters (9 tensors" || { echo "no optimizer line: $e"; exit 1; }
e=$(python3 "$src/tools/gpu-probe.py" --dry-run --ends --config "$src/configs/llama-3-8b.json")
echo "$e" | grep -q "the head: not measured at tp 8" || { echo "a tp-8 head: $e"; exit 1; }
echo "$e" | grep -q "one AdamW step over 27271168 FP32 parameters" || { echo "tp-8 optimizer: $e"; exit 1; }
echo "$e" | grep -q "note: distcalc compares the optimizer step only with the probe's FP32 states and no master copy (precision.preset \"fsdp2\", torchtitan's); this config's precision (\"course\") is not" ||
	{ echo "no states note: $e"; exit 1; }
e=$(python3 "$src/tools/gpu-probe.py" --dry-run --ends --config "$src/data/profiles/configs/megatron-gpt-1.7b-tp1.json")
echo "$e" | grep -q "one AdamW step over 50335744 FP32 parameters" || { echo "1.7B dry run: $e"; exit 1; }
if echo "$e" | grep -q "FP32 states"; then
	echo "a states note for an fsdp2 config"; exit 1
fi
e=$(python3 "$src/tools/gpu-probe.py" --dry-run --config "$src/configs/llama-3-8b.json")
echo "$e" | grep -q "one layer forward + backward" || { echo "8B dry run: $e"; exit 1; }
if echo "$e" | grep -q "AdamW"; then
	echo "the optimizer planned without --ends"; exit 1
fi
novocab=$tmpd/no-vocab.json
echo '{"model": {"hidden_size": 64, "num_attention_heads": 4, "seq_length": 128}}' > "$novocab"
if err=$(python3 "$src/tools/gpu-probe.py" --dry-run --ends --config "$novocab" 2>&1); then
	echo "--ends without a vocabulary was accepted"; exit 1
fi
echo "$err" | grep -q "the head needs model.vocab_size" || { echo "no vocabulary: $err"; exit 1; }
for v in 0 1000.5 '"abc"' true; do
	echo "{\"model\": {\"hidden_size\": 64, \"num_attention_heads\": 4, \"seq_length\": 128, \"vocab_size\": $v}}" > "$novocab"
	if err=$(python3 "$src/tools/gpu-probe.py" --dry-run --ends --config "$novocab" 2>&1); then
		echo "vocab_size $v was accepted"; exit 1
	fi
	echo "$err" | grep -q "model.vocab_size .*: expected a whole number of at least 1" || { echo "vocab_size $v: $err"; exit 1; }
done
# the fifth lease's 1.7B layer waited for its host (3.304 of 4.765 ms
# busy): the search prices each layer of that block at no less than 4.765
# ms, and says so
o=$("$dc" --config "$src/data/profiles/configs/megatron-gpt-1.7b-tp1.json" --set precision.preset=fsdp2 \
	--set training.global_batch_size=32 --experiment search \
	--calibrate-compute "$src/data/profiles/h200-megatron-gpt-1.7b-tp1-ends-boost.json" 2>&1 >/dev/null)
echo "$o" | grep -q "the probe's layer waited for its host, which took 4.765 ms to issue it: every layout the search tried priced each of its layers at no less than that" ||
	{ echo "no host floor in the search: $o"; exit 1; }
tmp=$tmpd/no-heads.json
echo '{"model": {"hidden_size": 64}}' > "$tmp"
if python3 "$src/tools/gpu-probe.py" --dry-run --config "$tmp" 2>/dev/null; then
	echo "a config without num_attention_heads was accepted"; exit 1
fi
exit 0
