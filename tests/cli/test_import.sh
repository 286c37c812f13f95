#!/bin/sh
# test_import.sh DISTCALC SRCDIR - the importers. Megatron-LM's own Llama-3
# and Mixtral example scripts, torchtitan's shipped llama3 8B and 70B train
# configs and a DeepSpeed ZeRO-3 config (tests/inputs/import/, sources in
# its README.md) import to the same plan as the distcalc configs written by
# hand from them: every field of the JSON report equal (--check). What an
# importer cannot map is an error naming it and its line; --emit-config
# prints a config that loads to the same plan.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-import.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
I=$src/tests/inputs/import
cd "$work" || exit 2

# same_plan NAME HAND BASE OPTION FILE [ARGS...]: the import's report equals the hand config's
same_plan() {
	name=$1 hand=$2 base=$3 opt=$4 file=$5
	shift 5
	"$bin" --config "$I/$hand" --format json --output "$name.json" 2>"$name.err" || {
		fail "$name: the hand-written config does not run: $(cat "$name.err")"
		return
	}
	# every field equal but the importer's warnings, which the import's
	# report lists and counts: each one it printed is there, and nothing
	# else moved. The plan's own warnings, which the hand config draws
	# too (NVIDIA's Llama-3-8B example is tight on the 80 GiB preset:
	# sec_memory.c), come after the importer's, compared by index
	own=$(grep -c '^distcalc: warning: ' "$name.err")
	"$bin" --config "$I/$base" "$opt" "$I/$file" "$@" --check "$name.json" >"$name.diff" 2>"$name.err"
	warned=$(grep -c '^distcalc: warning: ' "$name.err")
	listed=$(grep -c '^warnings\[[0-9]*\]: not in the expected report' "$name.diff")
	if [ "$warned" = "$own" ]; then
		grep -q ' 0 moved' "$name.err" || fail "$name: the import differs from $hand: $(head -5 "$name.diff")"
	else
		[ "$listed" = "$((warned - own))" ] || fail "$name: $warned warnings printed, $own the plan's, $listed more in the report"
		grep -q "^summary.warnings: expected $own, got $warned\( (change .*)\)\{0,1\}\$" "$name.diff" ||
			fail "$name: the summary does not count the import's $warned warnings: $(head -3 "$name.diff")"
		grep -q " $((warned + 1)) moved" "$name.err" ||
			fail "$name: the import differs from $hand: $(grep -v '^warnings\[' "$name.diff" | head -5)"
	fi
	# the emitted config is a config: it loads to the same plan
	"$bin" --config "$I/$base" "$opt" "$I/$file" "$@" --emit-config --output "$name.emitted.json" 2>/dev/null ||
		fail "$name: --emit-config: exit $?"
	"$bin" --config "$name.emitted.json" --check "$name.json" >/dev/null 2>&1 ||
		fail "$name: the emitted config differs from the import"
}
same_plan llama3 megatron_llama3_8b_hand.json h100_1x8.json --from-megatron megatron_train_llama3_8b_h100_fp8.sh
same_plan mixtral megatron_mixtral_8x7b_hand.json h100_4x8.json --from-megatron \
	megatron_train_mixtral_8x7b_distributed.sh --set model.vocab_size=32000
same_plan tt8b torchtitan_llama3_8b_hand.json a100_8x8.json --from-torchtitan torchtitan_llama3_8b.toml
same_plan tt70b torchtitan_llama3_70b_hand.json a100_8x8.json --from-torchtitan torchtitan_llama3_70b.toml
same_plan ds3 deepspeed_zero3_hand.json a100_2x8_gpt2.json --from-deepspeed deepspeed_ds_zero3_config.json

# the imports count the published totals: Llama-3-8B 8,030,261,248 and
# Mixtral-8x7B 46,702,792,704 (their Hugging Face model pages), Llama-3-70B
# 70,553,706,496 (80 layers of 855,654,400: q, o 8192^2 each, k, v
# 8192 x 1024 each, MLP 3 x 8192 x 28672, two norms; + 2 x 128256 x 8192
# untied embeddings + the final norm's 8192)
grep -q '"params_total": 8030261248,' llama3.json || fail "llama3 total"
grep -q '"params_total": 46702792704,' mixtral.json || fail "mixtral total"
grep -q '"params_total": 70553706496,' tt70b.json || fail "llama-3-70b total"

# the Megatron script's warnings name the argument and its line
"$bin" --config "$I/h100_1x8.json" --from-megatron "$I/megatron_train_llama3_8b_h100_fp8.sh" --only model >/dev/null 2>err.txt
grep -q "overlap-param-gather" err.txt && fail "--overlap-param-gather is mapped now, yet warned: $(cat err.txt)"
grep -q "megatron_train_llama3_8b_h100_fp8.sh:120: '--sequence-parallel': off at tensor-model-parallel-size 1" err.txt ||
	fail "sequence-parallel warning: $(cat err.txt)"
# arguments inside a shell condition are taken, each with a warning naming
# its line and the block's (the script's FP8 arguments sit in an if)
grep -q "megatron_train_llama3_8b_h100_fp8.sh:108: '--fp8-format': inside the shell 'if' of line 106, taken as if the branch ran" err.txt ||
	fail "no warning for an argument inside an if: $(cat err.txt)"
grep -q "megatron_train_llama3_8b_h100_fp8.sh:111: '--fp8-param-gather': inside the shell 'if' of line 106" err.txt ||
	fail "no warning for the second argument inside an if: $(cat err.txt)"
grep -q "120: '--sequence-parallel': inside" err.txt && fail "an argument outside any if warned: $(cat err.txt)"
# Megatron-LM turns it off on the final arguments: a --set of tp 2 keeps
# the script's --sequence-parallel (a MoE model at tp > 1 needs it), with no
# warning; a --set of it wins
"$bin" --config "$I/a100_8x8.json" --from-megatron "$I/megatron_train_mixtral_8x7b_distributed.sh" --set parallel.tp=2 \
	--set parallel.ep=4 --set model.vocab_size=32000 --emit-config >sp.json 2>err.txt ||
	fail "--sequence-parallel at a --set tp 2: exit $?: $(cat err.txt)"
grep -q '"sequence_parallel": true' sp.json || fail "--sequence-parallel at a --set tp 2: not kept"
grep -q "off at tensor-model-parallel-size 1" err.txt && fail "--sequence-parallel at a --set tp 2: warned off"
"$bin" --config "$I/h100_1x8.json" --from-megatron "$I/megatron_train_llama3_8b_h100_fp8.sh" --set parallel.tp=2 \
	--set parallel.sequence_parallel=false --emit-config >sp.json 2>/dev/null
grep -q '"sequence_parallel": false' sp.json || fail "a --set sequence_parallel false over the script's: lost"
# --fp8-recipe is priced, never dropped: mxfp8 on the H100 is refused by
# the loader, with a note naming the script's line
sed 's/--fp8-format hybrid"/--fp8-format hybrid --fp8-recipe mxfp8"/' "$I/megatron_train_llama3_8b_h100_fp8.sh" >mx.sh
"$bin" --config "$I/h100_4x8.json" --from-megatron mx.sh --emit-config >/dev/null 2>err.txt
[ $? = 3 ] || fail "mxfp8 on an H100: exit $?"
grep -q "'precision.fp8_recipe': \"mxfp8\" needs the block-scaled FP8 GEMMs of Blackwell GPUs" err.txt ||
	fail "mxfp8 on an H100: $(cat err.txt)"
grep -q "note: 'precision.fp8_recipe' came from '--fp8-recipe' on line 108 of mx.sh" err.txt ||
	fail "mxfp8 on an H100, no line: $(cat err.txt)"
# --first-last-layers-bf16 (Megatron-Core's first_last_layers_bf16): 1 and 1
# by default (transformer_config.py:652-658), the counts where given; with
# the default delayed recipe the loader refuses it, as Megatron-Core does
sed 's/--fp8-format hybrid"/--fp8-format hybrid --fp8-recipe tensorwise --first-last-layers-bf16"/' \
	"$I/megatron_train_llama3_8b_h100_fp8.sh" >fl.sh
"$bin" --config "$I/h100_1x8.json" --from-megatron fl.sh --emit-config >fl.json 2>err.txt ||
	fail "--first-last-layers-bf16: exit $?: $(cat err.txt)"
grep -q '"bf16_first_layers": 1' fl.json && grep -q '"bf16_last_layers": 1' fl.json ||
	fail "--first-last-layers-bf16: not 1 and 1: $(cat fl.json)"
sed 's/--fp8-format hybrid"/--fp8-format hybrid --fp8-recipe tensorwise --first-last-layers-bf16 --num-layers-at-start-in-bf16 0 --num-layers-at-end-in-bf16 2"/' \
	"$I/megatron_train_llama3_8b_h100_fp8.sh" >fl2.sh
"$bin" --config "$I/h100_1x8.json" --from-megatron fl2.sh --emit-config >fl2.json 2>err.txt ||
	fail "--num-layers-at-*-in-bf16: exit $?: $(cat err.txt)"
grep -q '"bf16_first_layers": 0' fl2.json && grep -q '"bf16_last_layers": 2' fl2.json ||
	fail "--num-layers-at-*-in-bf16: not 0 and 2: $(cat fl2.json)"
sed 's/--fp8-format hybrid"/--fp8-format hybrid --first-last-layers-bf16"/' \
	"$I/megatron_train_llama3_8b_h100_fp8.sh" >fl3.sh
"$bin" --config "$I/h100_1x8.json" --from-megatron fl3.sh --only summary >/dev/null 2>err.txt
[ $? = 3 ] || fail "--first-last-layers-bf16 under delayed scaling: exit $?"
grep -q "Delayed scaling does not support first / last layer in BF16" err.txt ||
	fail "--first-last-layers-bf16 under delayed scaling: $(cat err.txt)"
sed 's/--fp8-format hybrid"/--fp8-format hybrid --num-layers-at-end-in-bf16 2"/' \
	"$I/megatron_train_llama3_8b_h100_fp8.sh" >fl4.sh
"$bin" --config "$I/h100_1x8.json" --from-megatron fl4.sh --only summary >/dev/null 2>err.txt ||
	fail "--num-layers-at-end-in-bf16 alone: exit $?: $(cat err.txt)"
grep -q "'--num-layers-at-end-in-bf16': changes nothing without --first-last-layers-bf16" err.txt ||
	fail "--num-layers-at-end-in-bf16 alone: no warning: $(cat err.txt)"
# without --vocab-size (a tokenizer file), a note says what to give
"$bin" --config "$I/h100_4x8.json" --from-megatron "$I/megatron_train_mixtral_8x7b_distributed.sh" >/dev/null 2>err.txt
[ $? = 3 ] || fail "mixtral without a vocabulary: exit $?"
grep -q "give --set model.vocab_size=N" err.txt || fail "no vocabulary note: $(cat err.txt)"

# DeepSpeed: a key given twice is refused at its second line (Python's json
# refuses it too); all three of the batch must agree with the base
# config's 16 GPUs: 16 = 1 x 2 x 16 does not hold, DeepSpeed asserts it
sed 's/"stage":3,/"stage":3, "stage":1,/' "$I/deepspeed_ds_zero3_config.json" >dup.json
"$bin" --config "$I/a100_2x8_gpt2.json" --from-deepspeed dup.json --emit-config >/dev/null 2>err.txt
[ $? = 3 ] || fail "dup.json: exit $?"
grep -q "^dup.json:6: error: 'stage' given twice (first on line 6), which DeepSpeed refuses too" err.txt ||
	fail "duplicate DeepSpeed key: $(cat err.txt)"
printf '{\n"train_batch_size": 16,\n"train_micro_batch_size_per_gpu": 1,\n"gradient_accumulation_steps": 2\n}\n' >gas.json
"$bin" --config "$I/a100_2x8_gpt2.json" --from-deepspeed gas.json --emit-config >/dev/null 2>err.txt
[ $? = 3 ] || fail "gas.json: exit $?"
grep -q "'training.grad_accum_steps': 2 disagrees with training.global_batch_size: 16 = micro_batch_size 1 x dp 16 x 1 accumulation steps" err.txt ||
	fail "inconsistent DeepSpeed batch: $(cat err.txt)"
grep -q "note: 'training.grad_accum_steps' came from 'gradient_accumulation_steps' on line 4 of gas.json" err.txt ||
	fail "inconsistent DeepSpeed batch, no line: $(cat err.txt)"

# a value that breaks two rules is traced to its line once (a user
# trial's tp 3 on 16 GPUs of 32 heads: two errors, one note)
printf '%s\n' '--num-layers 2 --hidden-size 64 --num-attention-heads 32 --seq-length 128' \
	'--max-position-embeddings 128 --tensor-model-parallel-size 3 --micro-batch-size 1 --vocab-size 512' >tp3.txt
"$bin" --config "$I/a100_2x8_gpt2.json" --from-megatron tp3.txt --emit-config >/dev/null 2>err.txt
[ $? = 3 ] || fail "tp3.txt: exit $?"
[ "$(grep -c "error: 'parallel.tp'" err.txt)" = 2 ] || fail "tp3.txt: not two tp errors: $(cat err.txt)"
[ "$(grep -c "note: 'parallel.tp' came from '--tensor-model-parallel-size' on line 2 of tp3.txt" err.txt)" = 1 ] ||
	fail "tp3.txt: the note not once: $(cat err.txt)"

# refused by name and line
printf '%s\n' '#!/bin/sh' 'TP=8' 'torchrun pretrain_gpt.py \' '  --num-layers 2 --hidden-size 64 \' \
	'  --tensor-model-parallel-size $TP --frobnicate 3 \' '  --num-attention-heads $HEADS' >bad.sh
"$bin" --from-megatron bad.sh >/dev/null 2>err.txt
[ $? = 3 ] || fail "bad.sh: exit $?"
grep -q "^bad.sh:5: error: '--frobnicate': not an argument distcalc maps" err.txt || fail "unknown argument: $(cat err.txt)"
grep -q "^bad.sh:6: error: '--num-attention-heads': cannot tell the value of '\$HEADS'" err.txt || fail "unresolved: $(cat err.txt)"
# arithmetic: the '$' the '(' cut off is named for what it starts
printf 'torchrun pretrain_gpt.py --global-batch-size $((4*8)) --position-embedding-type rope\n' >arith.sh
"$bin" --from-megatron arith.sh --emit-config >/dev/null 2>err.txt
grep -q "^arith.sh:1: error: '--global-batch-size': cannot tell the value of '\$' (a command substitution or arithmetic, \$(...) or \$((...))) without running the script" err.txt ||
	fail "arithmetic: $(cat err.txt)"
printf '%s\n' '--num-layers 2' '--num-layers 4' >twice.txt
"$bin" --from-megatron twice.txt >/dev/null 2>err.txt
grep -q "^twice.txt:2: error: '--num-layers': '4' here but '2' on line 1" err.txt || fail "conflict: $(cat err.txt)"
printf '[model]\nname = "llama3"\nflavor = "8B"\n\n[training]\nseq_len = { a = 1 }\n' >inline.toml
"$bin" --from-torchtitan inline.toml >/dev/null 2>err.txt
[ $? = 3 ] || fail "inline table: exit $?"
grep -q "^inline.toml:6: error: inline tables are not part of the TOML distcalc reads" err.txt || fail "inline: $(cat err.txt)"
printf '[model]\nname = "llama3"\nflavor = "8B"\n[parallelism]\ntensor_parallel_degree = 2\nfancy_degree = 4\n' >unknown.toml
"$bin" --from-torchtitan unknown.toml >/dev/null 2>err.txt
grep -q "^unknown.toml:6: error: \[parallelism\] fancy_degree: not a torchtitan setting distcalc maps" err.txt ||
	fail "unknown torchtitan key: $(cat err.txt)"
printf '[model]\nname = "llama3"\nflavor = "1B"\n' >flavor.toml
"$bin" --from-torchtitan flavor.toml >/dev/null 2>err.txt
[ $? = 3 ] || fail "unknown flavor: exit $?"
grep -q 'flavor "1B" (line 3) has no catalogue entry' err.txt || fail "flavor: $(cat err.txt)"
# torchtitan's MX converter (converters = ["mx"]): distcalc's mxfp8, which
# the loader refuses off Blackwell, as the converter asserts sm100
# (torchtitan components/quantization/mx.py:49-52 at 08b8b244f)
printf '[model]\nname = "llama3"\nflavor = "8B"\nhf_assets_path = "./assets/hf/Llama-3.1-8B"\nconverters = ["mx"]\n[activation_checkpoint]\nmode = "none"\n[mx]\nrecipe_name = "mxfp8_cublas"\n' >mx.toml
"$bin" --config "$I/h100_1x8.json" --from-torchtitan mx.toml --only model >/dev/null 2>err.txt
[ $? = 3 ] || fail "mx on H100: exit $?"
grep -q "^mx.toml (as imported): error: 'precision.fp8_recipe': \"mxfp8\" needs the block-scaled FP8 GEMMs of Blackwell GPUs, but 'cluster.gpu' is \"h100-sxm5-80gb\"" err.txt ||
	fail "mx on H100: $(cat err.txt)"
grep -q "'precision.fp8_recipe' came from '\[mx\] recipe_name' on line 9 of mx.toml" err.txt || fail "mx note: $(cat err.txt)"
"$bin" --config "$I/h100_1x8.json" --set cluster.system=dgx-b200 --from-torchtitan mx.toml --emit-config >mx.json 2>err.txt ||
	fail "mx on B200: exit $?: $(cat err.txt)"
grep -q '"fp8_recipe": "mxfp8"' mx.json && grep -q '"compute": "fp8"' mx.json || fail "mx not mapped: $(cat mx.json)"
printf '{\n  "train_micro_batch_size_per_gpu": "auto",\n  "zero_optimization": {"stage": 3, "stage3_magic": 1}\n}\n' >auto.json
"$bin" --from-deepspeed auto.json >/dev/null 2>err.txt
[ $? = 3 ] || fail "deepspeed auto: exit $?"
grep -q "^auto.json:2: error: 'train_micro_batch_size_per_gpu': \"auto\" is filled in by the Hugging Face Trainer" err.txt ||
	fail "auto: $(cat err.txt)"
grep -q "^auto.json:3: error: 'stage3_magic': not a zero_optimization key" err.txt || fail "unknown zero key: $(cat err.txt)"

# --set and --unset apply on top of the import, in order, and --emit-config shows them
"$bin" --config "$I/h100_1x8.json" --from-megatron "$I/megatron_train_llama3_8b_h100_fp8.sh" --unset overlap.dp \
	--set parallel.tp=2 --unset parallel.tp --set 'cluster.inter_node.bandwidth=200 GB/s' --emit-config >e.json 2>err.txt ||
	fail "--unset with an import: exit $?: $(cat err.txt)"
grep -q '"dp": true' e.json && fail "--unset overlap.dp left it in: $(cat e.json)"
# the script's framework and its --overlap-param-gather (line 128) reach the config
grep -q '"framework": "megatron"' e.json || fail "no training.framework megatron: $(cat e.json)"
grep -q '"param_gather": true' e.json || fail "--overlap-param-gather not mapped: $(cat e.json)"
# a framework the user gives replaces the importer's
"$bin" --config "$I/h100_1x8.json" --from-megatron "$I/megatron_train_llama3_8b_h100_fp8.sh" \
	--set training.framework=custom --set overlap.param_gather=false --emit-config >e2.json 2>err.txt ||
	fail "--set training.framework over an import: exit $?: $(cat err.txt)"
grep -q '"framework": "custom"' e2.json || fail "--set training.framework lost: $(cat e2.json)"
# DeepSpeed's ZeRO-3 reduce_bucket_size (line 7) is warned: ZeRO-3 runs as FSDP
"$bin" --config "$I/a100_2x8_gpt2.json" --from-deepspeed "$I/deepspeed_ds_zero3_config.json" --only model >/dev/null 2>err.txt
grep -q "deepspeed_ds_zero3_config.json:7: 'reduce_bucket_size': not priced at ZeRO stage 3, which distcalc prices as FSDP" err.txt ||
	fail "reduce_bucket_size warning: $(cat err.txt)"
# a DeepSpeed config names no model: --model gives it, and replaces nothing
"$bin" --config "$I/a100_2x8_gpt2.json" --from-deepspeed "$I/deepspeed_ds_zero3_config.json" \
	--model "$src/configs/models/gpt2.json" --only model >/dev/null 2>err.txt ||
	fail "deepspeed with --model: exit $?: $(cat err.txt)"
grep -q "replaces the model" err.txt && fail "deepspeed with --model: $(grep 'replaces the model' err.txt)"
grep -q '"tp"' e.json && fail "--set then --unset parallel.tp left it in"
grep -q '"bandwidth": "200 GB/s"' e.json || fail "a --set of a cluster key is not in the emitted config"
grep -q "nothing to remove" err.txt && fail "an --unset the import applied warned again: $(cat err.txt)"

# usage
"$bin" --emit-config >/dev/null 2>err.txt
[ $? = 2 ] || fail "--emit-config alone: exit $?"
"$bin" --from-megatron a --from-deepspeed b >/dev/null 2>err.txt
[ $? = 2 ] && grep -q "one import at a time" err.txt || fail "two imports: $(cat err.txt)"
"$bin" --from-megatron a --from-megatron a >/dev/null 2>err.txt
[ $? = 2 ] && grep -q "'--from-megatron': given twice; give one file" err.txt || fail "an import twice: $(cat err.txt)"
"$bin" --from-deepspeed nowhere.json >/dev/null 2>err.txt
[ $? = 4 ] || fail "missing file: exit $?"

[ "$fails" = 0 ] && echo "ok: the importers" && exit 0
exit 1
