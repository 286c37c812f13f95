#!/bin/sh
# test_output_guard.sh DISTCALC SRCDIR - no output (--output, --trace,
# --plot) ever replaces a file the run reads, wherever that file was named:
# on the command line or by a config key (cluster.topology_file,
# model.hf_config, from the file or from --set), by any name of it (./x, a
# hard link, a symbolic link): each is refused with exit 2 before anything
# is written, and the input keeps its bytes. Two outputs that are one file
# are refused too. Copies in a temporary directory, so a regression
# overwrites nothing of the tree.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-guard.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$work" || exit 1
cp "$src/tests/data/topo-dgx-h100-like.txt" t.txt
cp "$src/configs/models/llama-3-8b.json" m.json
cp "$src/tests/inputs/topology_h100.json" c.json
sed 's|"../data/topo-dgx-h100-like.txt"|"t.txt"|' c.json >cfg.json
printf '{"model": {"hf_config": "m.json", "seq_length": 4096}, "cluster": {"system": "dgx-h100", "num_nodes": 1}, "parallel": {"tp": 8}}\n' >hf.json
ln m.json hard.json
ln -s t.txt sym.txt
sum_t=$(cksum <t.txt)
sum_m=$(cksum <m.json)

# refused EXPECTED_TEXT ARGS...: exit 2, the text on stderr, both inputs intact
refused() {
	want=$1
	shift
	"$bin" "$@" >out 2>err
	rc=$?
	[ "$rc" = 2 ] || fail "$*: exit $rc, want 2 ($(cat err))"
	grep -qF -- "$want" err || fail "$*: stderr lacks '$want': $(cat err)"
	[ "$(cksum <t.txt)" = "$sum_t" ] || fail "$*: t.txt was overwritten"
	[ "$(cksum <m.json)" = "$sum_m" ] || fail "$*: m.json was overwritten"
	cp "$src/tests/data/topo-dgx-h100-like.txt" t.txt
	cp "$src/configs/models/llama-3-8b.json" m.json
}

# 1. cluster.topology_file from --set, each output option
for opt in --output --trace --plot; do
	refused "'$opt': 't.txt' is the file 't.txt' the config names ('cluster.topology_file'); refusing to overwrite an input" \
		--config c.json --set cluster.topology_file=t.txt $opt t.txt
done
# 2. named in the config file itself, reached by another name
refused "'--output': './t.txt' is the file" --config cfg.json --output ./t.txt
refused "'--plot': 'sym.txt' is the file" --config cfg.json --plot sym.txt
# 3. model.hf_config, from --set and from the file, by a hard link
refused "('model.hf_config'); refusing to overwrite an input" --set model.hf_config=m.json --output m.json
refused "('model.hf_config'); refusing to overwrite an input" --config hf.json --trace hard.json
# 4. two outputs that are one file
: >o.json
ln o.json o2.json
refused "'--plot': 'o2.json' is the '--output' file 'o.json' too" --output o.json --plot o2.json
# 5. a sweep checks its base config's files too
refused "('cluster.topology_file'); refusing to overwrite an input" --config cfg.json --sweep parallel.tp=4,8 --plot t.txt
# 6. --emit-config writes the imported config only after the same check:
# a framework file imported over a config whose topology file is the output
refused "'--output': 't.txt' is the file 't.txt' the config names ('cluster.topology_file'); refusing to overwrite an input" \
	--config "$src/tests/inputs/import/h100_1x8.json" --from-megatron "$src/tests/inputs/import/megatron_train_llama3_8b_h100_fp8.sh" \
	--emit-config --set cluster.topology_file=t.txt --output t.txt

# 7. the --calibrate-compute profile, each output option, by name and by a
# hard link (it was the one command-line input missing from the guard)
cp "$src/tests/data/gpu-profile-sample-synthetic.json" prof.json
ln prof.json prof-hard.json
sum_p=$(cksum <prof.json)
for opt in --output --trace --plot; do
	refused "'$opt': 'prof.json' is the '--calibrate-compute' file 'prof.json'; refusing to overwrite an input" \
		--config "$src/tests/inputs/dgx_h100_2x8.json" --calibrate-compute prof.json $opt prof.json
done
refused "'--output': 'prof-hard.json' is the '--calibrate-compute' file 'prof.json'" \
	--config "$src/tests/inputs/dgx_h100_2x8.json" --calibrate-compute prof.json --output prof-hard.json
[ "$(cksum <prof.json)" = "$sum_p" ] || fail "the --calibrate-compute profile was overwritten"
# 8. every file a --sweep value names is an input of the points taking it,
# named with the first such point (from 0, the first axis slowest) and its
# key=value: a topology file (point 1 of two), a Hugging Face config (the
# second axis's second value is point 1 of 2 x 2), through a hard link
cp t.txt t2.txt
refused "'--output': 't2.txt' is the file 't2.txt' sweep point 1 reads ('cluster.topology_file=t2.txt'); refusing to overwrite an input" \
	--config c.json --sweep cluster.topology_file=t.txt,t2.txt --output t2.txt
refused "'--plot': 'm.json' is the file 'm.json' sweep point 0 reads ('model.hf_config=m.json')" \
	--sweep model.hf_config=m.json --plot m.json
refused "'--output': 'hard.json' is the file 'm.json' sweep point 1 reads ('model.hf_config=m.json')" \
	--sweep training.micro_batch_size=1,2 --sweep model.hf_config=llama-3-8b,m.json --output hard.json
refused "'--plot': 't.txt' is the file 't.txt' sweep point 2 reads ('cluster.topology_file=t.txt')" \
	--config c.json --sweep cluster.topology_file=t2.txt,t.txt --sweep training.micro_batch_size=1,2 --plot t.txt

# an output that is no input is written as before
"$bin" --config cfg.json --only summary --output r.txt 2>err || fail "a plain --output exits $?: $(cat err)"
[ -s r.txt ] || fail "a plain --output wrote nothing"

[ "$fails" = 0 ] && echo "ok: every output onto an input refused"
exit $((fails != 0))
