#!/bin/sh
# test_input_limits.sh DISTCALC SRCDIR - inputs that were taken silently
# and gave a false or absurd answer (docs/reliability.md, "Inputs"):
#   1. two Hugging Face configs on one command line (--model and --set
#      model.hf_config) are a config error naming both, not the --model one
#      used under the --set's name;
#   2. offloaded states beyond cluster.host_memory: a warning naming both
#      figures, and summary.fits false with the host shortfall in bytes;
#   3. a --calibrate-compute profile whose layer ran faster than the GPU's
#      peak, or a thousand times slower than its GEMMs allow, is refused
#      naming 'layer.fwd_bwd_s';
#   4. loss.token_loss below 1e-6 nats is refused naming the key.
# Every figure asserted is worked out in the comments, not read back.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-limits.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect CODE TEXT ARGS...: the exit code, and TEXT on stderr
expect() {
	code=$1 text=$2
	shift 2
	"$bin" "$@" >out.txt 2>err.txt
	rc=$?
	[ "$rc" = "$code" ] || fail "$*: exit $rc, expected $code ($(cat err.txt))"
	[ -z "$text" ] || grep -qF -- "$text" err.txt || fail "$*: stderr lacks '$text': $(cat err.txt)"
}
models=$src/configs/models

# 1. --model and --set model.hf_config, in either order: exit 3, both named
for order in 1 2; do
	if [ $order = 1 ]; then
		set -- --model "$models/llama-3-8b.json" --set "model.hf_config=$models/qwen3-8b.json"
	else
		set -- --set "model.hf_config=$models/qwen3-8b.json" --model "$models/llama-3-8b.json"
	fi
	expect 3 "--set: error: 'model.hf_config': --model '$models/llama-3-8b.json' gives the model already; give one of --model and --set model.hf_config='$models/qwen3-8b.json', not both" \
		"$@" --only model
done
# either alone is the model it names: Llama-3-8B has 8,030,261,248 parameters
# (Meta's model card; docs/models.md counts them by hand)
"$bin" --model "$models/llama-3-8b.json" --only model --format json 2>/dev/null | grep -q '"params_total": 8030261248,' ||
	fail "--model llama-3-8b alone: params_total is not 8030261248"

# 2. the built-in default (Llama-2-7B, tp 4 on 2 x 4 A100s, no sharding) with
# the optimizer offloaded: each rank holds (P - R) / 4 + R parameters, P =
# 6,738,415,616 and R = 32 x 2 x 4096 + 4096 = 266,240 norm weights every tp
# rank keeps whole: 1,684,803,584. The host keeps master (4 B), Adam (8 B)
# and the FP32 gradient copy (4 B) of each: 16 x 1,684,803,584 =
# 26,956,857,344 B a rank, x 4 GPUs = 107,827,429,376 B a node (100.4 GiB);
# against 1 GiB = 1,073,741,824 B the node is 106,753,687,552 B short.
args="--set parallel.offload=optimizer --only summary --format json"
# shellcheck disable=SC2086
expect 0 "warning: 'cluster.host_memory': the offloaded states need 107827429376 bytes (100.4 GiB) of host memory per node (26956857344 bytes a rank x 4 GPUs), more than the 1073741824 bytes (1.0 GiB) given" \
	$args --set "cluster.host_memory=1 GiB"
grep -q '"fits": false,' out.txt || fail "host memory short: summary.fits is not false"
grep -q '"host_shortfall_bytes": 106753687552,' out.txt || fail "host memory short: host_shortfall_bytes is not 106753687552"
# the other warning: the default's 8 micro steps under training.framework
# custom, whose per-micro-step copies to the host the step does not price
grep -q "with 8 micro steps an offloading optimizer may copy" err.txt ||
	fail "host memory short: no warning on the unpriced per-micro-step copies"
grep -q '"warnings": 2' out.txt || fail "host memory short: summary.warnings is not 2"
# the same check as a budget CI can hold: exit 6
"$bin" --set parallel.offload=optimizer --set "cluster.host_memory=1 GiB" --check-max summary.host_shortfall_bytes=0 \
	>out.txt 2>/dev/null
[ $? = 6 ] || fail "host memory short: --check-max summary.host_shortfall_bytes=0 did not exit 6"
# 128 GiB = 137,438,953,472 B holds the 107,827,429,376: fits, short by 0, no warning
# shellcheck disable=SC2086
expect 0 "" $args --set "cluster.host_memory=128 GiB"
grep -q '"fits": true,' out.txt || fail "host memory enough: summary.fits is not true"
grep -q '"host_shortfall_bytes": 0,' out.txt || fail "host memory enough: host_shortfall_bytes is not 0"
grep -q "host_memory" err.txt && fail "host memory enough: warned: $(cat err.txt)"
# without cluster.host_memory the summary is as it was: no host field
"$bin" --set parallel.offload=optimizer --only summary --format json 2>/dev/null | grep -q host_shortfall &&
	fail "no cluster.host_memory: the summary shows host_shortfall_bytes"

# 3. the sample profile's layer (Llama-3-8B's shape, tp 1, 1 x 8192 tokens)
# has GEMMs of h (a + 2 kv) d + a d h + 3 h ffn = 4096 (48 x 128) + 32 x 128
# x 4096 + 3 x 4096 x 14336 = 218,103,808 weights, so 2 x 8192 x 218,103,808
# FLOPs forward and three times that, 10,720,238,960,640, forward and
# backward. At the H100's 989e12 FLOP/s that takes 0.0108394 s at least: a
# layer time of 0.0108 s beat the peak (1.0037 of it), 0.0109 s did not
# (0.9945); 10.8 s is 0.001004 of the peak, 10.9 s 0.000994, below 0.001.
h100=$src/tests/inputs/dgx_h100_2x8.json
for t in 1e-300 0.0108 0.0109 10.8 10.9; do
	sed "s/\"fwd_bwd_s\": 0.044555177/\"fwd_bwd_s\": $t/" "$src/tests/data/gpu-profile-sample-synthetic.json" >p.json
	grep -q "\"fwd_bwd_s\": $t" p.json || fail "could not make the profile with fwd_bwd_s $t"
	case $t in
	0.0109 | 10.8) expect 0 "" --config "$h100" --calibrate-compute p.json --only step ;;
	*) expect 3 "p.json: error: 'layer.fwd_bwd_s': $t s for the layer's 1.072e+13 GEMM FLOPs is" \
		--config "$h100" --calibrate-compute p.json --only step ;;
	esac
done
grep -qF "not at least 0.001 and below 1: was the profile taken on another GPU?" err.txt ||
	fail "fwd_bwd_s 10.9: the reason is not given: $(cat err.txt)"

# 4. loss.token_loss: below 1e-6 refused naming the key (a subnormal loss
# once zeroed the experiment's relative errors); at 1e-6 the relative errors
# are the default's, as relative errors of sums that scale with the loss
expect 3 "--set: error: 'loss.token_loss': must be at least 1e-06, got 4.94066e-324" \
	--experiment loss --set loss.token_loss=4.9e-324
expect 3 "--set: error: 'loss.token_loss': must be at least 1e-06, got 9.9e-07" \
	--experiment loss --set loss.token_loss=9.9e-7
rel() {
	"$bin" --experiment loss "$@" --format json 2>/dev/null | sed -n 's/^ *"rank_rel_error": \([^,]*\),$/\1/p' | head -n 1
}
a=$(rel)
b=$(rel --set loss.token_loss=1e-6)
[ -n "$a" ] && [ -n "$b" ] || fail "loss: no rank_rel_error printed"
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != 0 && d <= 1e-9 * (a < 0 ? -a : a)) }' ||
	fail "loss: rank_rel_error at token_loss 1e-6 ($b) is not the default's ($a)"

[ "$fails" = 0 ] && echo "ok: every limit refused or warned with its key"
exit $((fails != 0))
