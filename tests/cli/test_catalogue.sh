#!/bin/sh
# test_catalogue.sh DISTCALC SRCDIR - the model catalogue: --model NAME finds
# <data>/models/NAME.json from any working directory, $DISTCALC_DATA_DIR
# overrides the data directory, --list-models prints each model's total,
# model.hf_config takes a name too, and --model without --config picks a tp
# the model's heads admit.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-catalogue.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$work" || exit 2

# --list-models: the totals are the published ones, not the code's:
# Llama-3-8B 8,030,261,248 and Mistral-7B-v0.1 7,241,732,096 (the counts
# the Hugging Face model pages show for their safetensors), and GPT-2 by
# hand (Radford et al. 2019's 124M; h = 768): a layer is c_attn 768 x 2304
# + 2304, c_proj 768 x 768 + 768, two LayerNorms 2 x 1536, c_fc
# 768 x 3072 + 3072, c_proj 3072 x 768 + 768 = 7,087,872; 12 layers
# 85,054,464, + wte 50257 x 768 = 38,597,376 (tied head), + wpe
# 1024 x 768 = 786,432, + ln_f 1536 = 124,439,808
DISTCALC_DATA_DIR= "$bin" --list-models >list.txt 2>err.txt || fail "--list-models: exit $?: $(cat err.txt)"
grep -Eq '^llama-3-8b +llama +8030261248 ' list.txt || fail "llama-3-8b row: $(grep llama-3-8b list.txt)"
grep -Eq '^mistral-7b-v0.1 +mistral +7241732096 ' list.txt || fail "mistral row: $(grep mistral list.txt)"
grep -Eq '^gpt2 +gpt2 +124439808 ' list.txt || fail "gpt2 row: $(grep gpt2 list.txt)"
[ -s err.txt ] && fail "--list-models wrote to stderr: $(cat err.txt)"
# sorted by name, one row per file
n=$(ls "$src/configs/models" | grep -c '\.json$')
[ "$(tail -n +3 list.txt | wc -l)" -eq "$n" ] || fail "not one row per file of configs/models"
tail -n +3 list.txt | cut -d' ' -f1 | LC_ALL=C sort -c 2>/dev/null || fail "rows not sorted by name"

# --model NAME from another directory is --model FILE
DISTCALC_DATA_DIR="$src/configs" "$bin" --model llama-3-8b --format json --output name.json 2>/dev/null ||
	fail "--model llama-3-8b: exit $?"
"$bin" --model "$src/configs/models/llama-3-8b.json" --check name.json >diff.txt 2>/dev/null ||
	fail "--model NAME differs from --model FILE: $(cat diff.txt)"

# the override: a folder holding models/ with one copied model
mkdir -p data/models
cp "$src/configs/models/gpt2.json" data/models/tiny.json
DISTCALC_DATA_DIR="$work/data" "$bin" --list-models >l2.txt 2>&1 || fail "override --list-models: exit $?"
[ "$(tail -n +3 l2.txt | wc -l)" -eq 1 ] && grep -Eq '^tiny +gpt2 +124439808 ' l2.txt || fail "override list: $(cat l2.txt)"
DISTCALC_DATA_DIR="$work/data" "$bin" --config "$src/configs/gpt2.json" --model tiny --only model >/dev/null 2>err.txt ||
	fail "override --model tiny: exit $?: $(cat err.txt)"
DISTCALC_DATA_DIR="$work/data" "$bin" --model llama-3-8b >/dev/null 2>err.txt
[ $? = 4 ] || fail "a name missing from the overridden catalogue: exit $?"
grep -q "no model 'llama-3-8b' in the catalogue" err.txt && grep -q 'known: tiny' err.txt ||
	fail "missing name: $(cat err.txt)"
# a name missing from the catalogue in a config's model.hf_config names
# that config, as a missing path does ("named by ... in FILE"), and a
# --set the option
printf '{"model": {"hf_config": "tiy"}}' >named.json
DISTCALC_DATA_DIR="$work/data" "$bin" --config named.json >out.txt 2>err.txt
[ $? = 4 ] || fail "a config's missing catalogue name: exit $?"
grep -q "^distcalc: error: 'model.hf_config' in named.json: no model 'tiy' in the catalogue" err.txt ||
	fail "the config file unnamed: $(cat err.txt)"
[ -s out.txt ] && fail "a refused config wrote to stdout: $(cat out.txt)"
DISTCALC_DATA_DIR="$work/data" "$bin" --config named.json --set model.hf_config=tiz >/dev/null 2>err.txt
grep -q "^distcalc: error: 'model.hf_config' from the command line: no model 'tiz' in the catalogue" err.txt ||
	fail "the --set unnamed: $(cat err.txt)"
# a slip of one letter is named: the catalogue's nearest within 2 edits
DISTCALC_DATA_DIR="$work/data" "$bin" --model tiy >/dev/null 2>err.txt
[ $? = 4 ] || fail "a slip of a catalogue name: exit $?"
grep -q "no model 'tiy' in the catalogue .*; did you mean 'tiny'? known: tiny" err.txt || fail "slip: $(cat err.txt)"
DISTCALC_DATA_DIR="$work/data" "$bin" --model llama-3-8b >/dev/null 2>err.txt
grep -q "did you mean" err.txt && fail "a name 3 or more edits away is not suggested: $(cat err.txt)"
DISTCALC_DATA_DIR="$work/nowhere" "$bin" --list-models >/dev/null 2>err.txt
[ $? = 4 ] || fail "a data directory without models/: exit $?"
grep -q "DISTCALC_DATA_DIR" err.txt || fail "no data directory: $(cat err.txt)"

# a config names a catalogue model by name
sed 's|"hf_config": "models/llama-3-8b.json"|"hf_config": "llama-3-8b"|' "$src/configs/llama-3-8b-torchtitan.json" >byname.json
grep -q '"hf_config": "llama-3-8b"' byname.json || fail "the test could not plant the name"
DISTCALC_DATA_DIR="$src/configs" "$bin" --config byname.json --format json --output a.json 2>/dev/null || fail "hf_config by name: exit $?"
"$bin" --config "$src/configs/llama-3-8b-torchtitan.json" --format json --output b.json 2>/dev/null
grep -v '"config"\|"hf_config"' a.json >a2.json
grep -v '"config"\|"hf_config"' b.json >b2.json
cmp -s a2.json b2.json || fail "hf_config by name differs from the path"

# --model alone: Gemma-2B has 8 query heads and 1 KV head, so the built-in
# tp 4 cannot be; tp 1 on the built-in 2 x 4 GPUs leaves dp 8
"$bin" --model gemma-2b --format json --only model,memory --output g.json 2>err.txt || fail "gemma-2b alone: exit $?: $(cat err.txt)"
grep -q "using tp 1 and dp 8 (choose with --set parallel.tp=N" err.txt || fail "no layout warning: $(cat err.txt)"
# and says what dp does to the work: the built-in micro batch 1 x 8
# accumulation steps a replica, 2 replicas (16 sequences) become 8 (64);
# the command it gives keeps 16, with no such note
grep -q "the global batch follows dp, 64 sequences a step where the built-in layout ran 16 (keep it with --set training.global_batch_size=16 --unset training.grad_accum_steps)" err.txt ||
	fail "no batch note: $(cat err.txt)"
"$bin" --model gemma-2b --set training.global_batch_size=16 --unset training.grad_accum_steps --only model >/dev/null 2>err.txt ||
	fail "gemma-2b with the batch kept: exit $?: $(cat err.txt)"
grep -q "global batch follows" err.txt && fail "batch note with the batch given: $(cat err.txt)"
# Mixtral (32 query, 8 KV heads) keeps the built-in tp 4 without a word
"$bin" --model mixtral-8x7b-v0.1 --only model >/dev/null 2>err.txt || fail "mixtral alone: exit $?"
grep -q "using tp" err.txt && fail "mixtral's tp 4 was replaced: $(cat err.txt)"
# an explicit tp is the user's: no choice made, the error stands
"$bin" --model gemma-2b --set parallel.tp=4 >/dev/null 2>err.txt
[ $? = 3 ] || fail "gemma-2b at --set tp 4: exit $?"
grep -q "'parallel.tp': must divide model.num_kv_heads (1), got 4" err.txt || fail "tp 4 error: $(cat err.txt)"

[ "$fails" = 0 ] && echo "ok: the catalogue" && exit 0
exit 1
