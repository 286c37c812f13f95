#!/bin/sh
# test_check.sh DISTCALC SRCDIR - budget regression with --check.
#
# A JSON report written with --format json --output is accepted by --check
# unchanged (round trip); a moved field prints one line and exits 6; bad
# expected files and bad option combinations have their own codes.
set -u

bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cfg=$src/configs/systems.json

work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-check.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT HUP INT TERM
cd "$work" || exit 2

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() { # expect CODE CONTEXT -- runs the rest, compares the exit code
	want=$1; ctx=$2; shift 2
	"$@" >out.txt 2>err.txt
	rc=$?
	[ "$rc" = "$want" ] || fail "$ctx: exit $rc, expected $want; stderr: $(cat err.txt)"
}

# 1. round trip: write, then check the same config
expect 0 "write json" "$bin" --config "$cfg" --seed 7 --format json --output budget.json
expect 0 "round trip" "$bin" --config "$cfg" --seed 7 --check budget.json
[ -s out.txt ] && fail "round trip: stdout should be empty, got: $(cat out.txt)"
grep -q "check 'budget.json': [0-9]* fields compared, 0 moved" err.txt || fail "round trip: summary: $(cat err.txt)"

# 1b. the stored report is read into a buffer of its size: under a 256 MiB
# address-space limit a 17 KB budget still checks (a fixed 512 MiB buffer
# failed with "out of memory"). Skipped where the binary cannot start under
# the limit at all (a sanitizer build reserves terabytes of shadow memory).
if (ulimit -v 262144 && "$bin" --version) >/dev/null 2>&1; then
	(ulimit -v 262144 && exec "$bin" --config "$cfg" --seed 7 --check budget.json) >out.txt 2>err.txt ||
		fail "small budget under a 256 MiB limit: $(cat err.txt)"
else
	echo "skip: the binary does not start under a 256 MiB address-space limit"
fi

# 1c. a 21 MB budget (a 256-rank ring, every event: 1,045,270 fields, the
# network model's four beside the lab's included, and the header's "all")
# checks under a 256 MiB address-space limit: the new report is streamed
# against the stored tree, which is freed as it is matched (two parsed
# trees needed 312 MB of memory for it)
if (ulimit -v 262144 && "$bin" --version) >/dev/null 2>&1; then
	big="--experiment ring --set cluster.num_nodes=64 --set parallel.dp=64 --all"
	# shellcheck disable=SC2086
	"$bin" --config "$cfg" $big --format json --output big.json 2>/dev/null || fail "big budget: cannot write it"
	# shellcheck disable=SC2086
	(ulimit -v 262144 && exec "$bin" --config "$cfg" $big --check big.json) >out.txt 2>err.txt ||
		fail "a 21 MB budget under a 256 MiB limit: $(cat err.txt)"
	grep -q "1045271 fields compared, 0 moved" err.txt || fail "big budget: $(cat err.txt)"
	rm -f big.json
fi

# 2. a change that moves the budget: tp 4 -> 2 roughly doubles one rank's
# gradient. By hand (docs/formulas-systems.md, parameters per rank): a tp-2
# rank holds 32 x (202,375,168 / 2 + 8,192) + 2 x 32000 x 4096 / 2 + 4096 =
# 3,369,340,928 parameters, 6,738,681,856 bytes of gradient against the
# stored 3,369,607,168: +99.9842%.
expect 6 "moved budget" "$bin" --config "$cfg" --seed 7 --set parallel.tp=2 --set parallel.dp=4 --experiment ring \
	--check budget.json
grep -qx "ring.message_bytes: expected 3369607168, got 6738681856 (change +99.9842%)" out.txt ||
	fail "moved budget: no line for ring.message_bytes in: $(head -5 out.txt)"

# 3. a tampered byte count in the stored file is caught exactly (1 byte)
sed 's/"bytes_sent_per_rank": 5896812544/"bytes_sent_per_rank": 5896812545/' budget.json >tampered.json
cmp -s budget.json tampered.json && fail "tamper: sed did not change the file"
expect 6 "tampered bytes" "$bin" --config "$cfg" --seed 7 --check tampered.json
grep -qx "ring.bytes_sent_per_rank: expected 5896812545, got 5896812544 (change -1.69583e-08%; a count or byte field, compared exactly whatever --rtol)" out.txt ||
	fail "tampered bytes: got: $(cat out.txt)"

# 3b. a stored number that overflows a double (1e400 reads as inf) is a
# difference, never "inf > inf is false"
sed 's/"time_s": 0.1180762508[0-9]*/"time_s": 1e400/' budget.json >overflow.json
cmp -s budget.json overflow.json && fail "overflow: sed did not change the file"
expect 6 "overflowing number" "$bin" --config "$cfg" --seed 7 --check overflow.json
grep -q "^ring.time_s: the stored value 1e400 is not a plausible number (it reads as inf); got 0.1180762508[0-9]*$" out.txt ||
	fail "overflowing number: got: $(cat out.txt)"

# 4. floats use --rtol: the ring's time_s (0.11807625088 s) stored rounded
# to 0.118076 is a change of -2.1e-6, outside 1e-9 and inside 1e-5
sed 's/"time_s": 0.1180762508[0-9]*/"time_s": 0.118076/' budget.json >rounded.json
cmp -s budget.json rounded.json && fail "rtol: sed did not change the file"
expect 6 "rtol default" "$bin" --config "$cfg" --seed 7 --check rounded.json
expect 0 "rtol 1e-5" "$bin" --config "$cfg" --seed 7 --check rounded.json --rtol 1e-5

# 5. a field present on one side only
sed 's/"seed": 7,/"seed": 7, "retired_field": 1,/' budget.json >extra.json
expect 6 "one side only" "$bin" --config "$cfg" --seed 7 --check extra.json
grep -qx "retired_field: expected 1, missing from the new report" out.txt || fail "one side only: $(cat out.txt)"

# 6. bad expected files and option combinations
expect 4 "missing expected" "$bin" --config "$cfg" --check nonexistent.json
printf 'not json' >bad.json
expect 4 "not a report" "$bin" --config "$cfg" --check bad.json
grep -qx "bad.json: error: not a distcalc JSON report (bad.json:1:1: expected a value: strings need double quotes; write one with --format json --output FILE)" err.txt ||
	fail "not a report: $(cat err.txt)"
# a config is JSON but not a report: one plain line, not a line per field
expect 4 "a config as the report" "$bin" --config "$cfg" --check "$cfg"
[ "$(wc -l <err.txt)" = 1 ] || fail "a config as the report: stderr: $(cat err.txt)"
grep -qx "$cfg: error: not a distcalc JSON report (no header field 'distcalc_version'; write one with --format json --output FILE)" err.txt ||
	fail "a config as the report: $(cat err.txt)"
[ -s out.txt ] && fail "a config as the report: stdout: $(head -3 out.txt)"
# junk after the report, and a key written twice
{ cat budget.json; printf 'junk'; } >junk.json
expect 4 "trailing junk" "$bin" --config "$cfg" --seed 7 --check junk.json
lines=$(wc -l <budget.json)
grep -qx "junk.json: error: not a distcalc JSON report (junk.json:$((lines + 1)):1: trailing data after the JSON object; write one with --format json --output FILE)" err.txt ||
	fail "trailing junk: $(cat err.txt)"
sed 's/"seed": 7,/"seed": 7, "experiment": "ring",/' budget.json >dup.json
expect 4 "duplicate key" "$bin" --config "$cfg" --seed 7 --check dup.json
grep -qx "dup.json: error: not a distcalc JSON report (duplicate key 'experiment'; write one with --format json --output FILE)" err.txt ||
	fail "duplicate key: $(cat err.txt)"
# a budget written with --only and --all that is no report is refused
# with its one line, not first told "it holds --only" (a CI trial)
"$bin" --config "$cfg" --seed 7 --only summary --all --format json --output onlydup.json 2>/dev/null ||
	fail "only dup: cannot write"
sed 's/"seed": 7,/"seed": 7, "seed": 8,/' onlydup.json >onlydup2.json
expect 4 "duplicate key under --only" "$bin" --config "$cfg" --seed 7 --check onlydup2.json
grep -qx "onlydup2.json: error: not a distcalc JSON report (duplicate key 'seed'; write one with --format json --output FILE)" err.txt &&
	[ "$(wc -l <err.txt)" = 1 ] || fail "duplicate key under --only: $(cat err.txt)"
expect 2 "check with output" "$bin" --config "$cfg" --check budget.json --output x.json
expect 2 "rtol without check" "$bin" --config "$cfg" --rtol 1e-3
expect 2 "bad rtol" "$bin" --config "$cfg" --check budget.json --rtol abc
[ -e x.json ] && fail "check with output: x.json was written"

# 7. a budget written with --only: --check alone compares its sections
"$bin" --config "$cfg" --seed 7 --only summary,memory --format json --output only.json 2>/dev/null ||
	fail "only: cannot write the budget"
grep -q '"only": "summary,memory"' only.json || fail "only: the budget does not record its sections"
expect 0 "only, applied again" "$bin" --config "$cfg" --seed 7 --check only.json
grep -q "it holds --only summary,memory; comparing those sections" err.txt || fail "only: $(cat err.txt)"
sed 's/"peak_bytes": \([0-9]*\)/"peak_bytes": \11/' only.json >only-moved.json
expect 6 "only, a moved peak" "$bin" --config "$cfg" --seed 7 --check only-moved.json
expect 6 "only, other sections asked for" "$bin" --config "$cfg" --seed 7 --only summary --check only.json
grep -qx 'only: expected "summary,memory", got "summary"' out.txt || fail "only mismatch: $(cat out.txt)"

# 8. --check-max: budgets on the report being produced. ring.message_bytes
# is one tp-4 rank's gradient, 3,369,607,168 bytes by hand (section 2);
# 3 GiB = 3 x 2^30 = 3,221,225,472 bytes is below it, 3.2 GB = 3.2e9 too.
expect 6 "budget exceeded" "$bin" --config "$cfg" --check-max ring.message_bytes=3GiB
[ "$(cat out.txt)" = "ring.message_bytes: 3369607168 exceeds the budget 3GiB (3221225472) by 4.61%" ] ||
	fail "budget exceeded: stdout: $(cat out.txt)"
grep -qx "distcalc: check-max: 1 budget, 1 exceeded" err.txt || fail "budget exceeded: stderr: $(cat err.txt)"
expect 6 "budget in GB" "$bin" --config "$cfg" --check-max 'ring.message_bytes=3.2 GB'
expect 0 "budget met exactly" "$bin" --config "$cfg" --check-max ring.message_bytes=3369607168
[ -s out.txt ] && fail "budget met: stdout should be empty, got: $(cat out.txt)"
expect 0 "budget with units" "$bin" --config "$cfg" --check-max 'ring.message_bytes=3.5GB' --check-max ring.time_s=1s
expect 2 "budget on a missing path" "$bin" --config "$cfg" --check-max memory.per_rank.top_bytes=80GiB
grep -qx "distcalc: error: '--check-max': 'memory.per_rank.top_bytes': not a field of the report: 'memory.per_rank' has no 'top_bytes'" err.txt ||
	fail "budget on a missing path: $(cat err.txt)"
# the report holds the object or the value on the way: said as it is, not
# as a section or a conditional object the report lacks, and no
# suggestion that names no field (a CI trial's three)
expect 2 "budget below a value" "$bin" --config "$cfg" --check-max summary.peak_bytes.x=1
grep -qx "distcalc: error: '--check-max': 'summary.peak_bytes.x': not a field of the report: 'summary.peak_bytes' is a value, not an object or a table" err.txt ||
	fail "budget below a value: $(cat err.txt)"
expect 2 "budget in a present conditional object" "$bin" --config "$cfg" --check-max comm.dp.bogus=1
grep -qx "distcalc: error: '--check-max': 'comm.dp.bogus': not a field of the report: 'comm.dp' has no 'bogus'" err.txt ||
	fail "budget in a present conditional object: $(cat err.txt)"
expect 2 "budget past a table's rows" "$bin" --config "$cfg" --check-max 'comm.dp.collectives[9].time_s=1'
grep -qx "distcalc: error: '--check-max': 'comm.dp.collectives\[9\].time_s': not a field of the report: 'comm.dp.collectives' has no row \[9\]" err.txt ||
	fail "budget past a table's rows: $(cat err.txt)"
expect 2 "budget under an unknown section" "$bin" --config "$cfg" --check-max nope.x=1
grep -q "did you mean" err.txt && fail "budget under an unknown section suggests: $(cat err.txt)"
grep -q "it has no 'nope'" err.txt || fail "budget under an unknown section: $(cat err.txt)"
expect 2 "budget with a bad unit" "$bin" --config "$cfg" --check-max memory.per_rank.peak_bytes=80G
expect 2 "budget with output" "$bin" --config "$cfg" --check-max ring.time_s=1s --output x.json
# with --check: the stored report matches, the budget does not
expect 6 "check and budget" "$bin" --config "$cfg" --seed 7 --check budget.json --check-max ring.message_bytes=3GiB
[ "$(cat out.txt)" = "ring.message_bytes: 3369607168 exceeds the budget 3GiB (3221225472) by 4.61%" ] ||
	fail "check and budget: stdout: $(cat out.txt)"
grep -q "check 'budget.json': [0-9]* fields compared, 0 moved" err.txt || fail "check and budget: $(cat err.txt)"

# 9. --check-only: of all that tp 2 moves (section 2), only the fields asked for
expect 6 "check only" "$bin" --config "$cfg" --seed 7 --set parallel.tp=2 --set parallel.dp=4 --experiment ring \
	--check budget.json --check-only ring.message_bytes
[ "$(cat out.txt)" = "ring.message_bytes: expected 3369607168, got 6738681856 (change +99.9842%)" ] ||
	fail "check only: stdout: $(cat out.txt)"
grep -q "check 'budget.json': 1 field compared, 1 moved" err.txt || fail "check only: $(cat err.txt)"
expect 0 "check only, unmoved" "$bin" --config "$cfg" --seed 7 --check tampered.json --check-only memory,comm
expect 2 "check only, no such path" "$bin" --config "$cfg" --seed 7 --check budget.json --check-only ring.nope
grep -qx "distcalc: error: '--check-only': 'ring.nope' matches no field of either report" err.txt ||
	fail "check only, no such path: $(cat err.txt)"
expect 2 "check only without check" "$bin" --config "$cfg" --check-only ring

# 10. counts compare exactly whatever --rtol: the report types world_size as
# a whole count, so 8.000000001 stored is a move even at --rtol 0.01
expect 0 "counts: write" "$bin" --config "$cfg" --format json --output counts.json
sed 's/"world_size": 8,/"world_size": 8.000000001,/' counts.json >counts-frac.json
grep -q '"world_size": 8.000000001,' counts-frac.json || fail "counts: the edit did not take"
expect 6 "counts: a fractional world size" "$bin" --config "$cfg" --check counts-frac.json --rtol 0.01
grep -qx "topology.world_size: expected 8.000000001, got 8 (change -1.25e-08%; a count or byte field, compared exactly whatever --rtol)" out.txt ||
	fail "counts: stdout: $(cat out.txt)"
# a time is no count: the same relative change passes at that tolerance
sed 's/"step_time_s": \([0-9.]*\),/"step_time_s": \1000001,/' counts.json >counts-time.json
expect 0 "counts: a time within rtol" "$bin" --config "$cfg" --check counts-time.json --rtol 0.01

# 11. a warning naming the config is compared past the config's path, as
# "config" itself is not compared: ./configs/systems.json checks against a
# report written with configs/systems.json (and from another directory)
mkdir -p w/configs && cp "$cfg" w/configs/systems.json
(cd w && "$bin" --config configs/systems.json --set cluster.system=dgx-h100 --only summary --format json \
	--output ../warn.json 2>/dev/null) || fail "warnings: cannot write"
grep -q '"configs/systems.json: ' warn.json || fail "warnings: the stored report names no config in a warning"
expect 0 "warnings: another spelling of the config" "$bin" --config "$cfg" --set cluster.system=dgx-h100 --check warn.json
grep -q "0 moved" err.txt || fail "warnings: $(cat err.txt)"
# the rest of the warning is still compared
expect 6 "warnings: another warning" "$bin" --config "$cfg" --set cluster.system=dgx-h100 \
	--set cluster.intra_node.latency=6us --check warn.json

# 11b. the other fields that hold a path as typed (a CI trial: every
# search budget failed when checked from another directory): the search's
# winner command with its config, --calibrate-compute's profile, and an
# importer's warnings, which open with the framework file and a line
k22=$src/configs/korthikanti-22b.json
mkdir -p w/configs w/data && cp "$k22" w/configs/k22.json
(cd w && "$bin" --config configs/k22.json --experiment search --format json --output ../search.json 2>/dev/null) ||
	fail "search command: cannot write"
grep -q '"command": "distcalc --config configs/k22.json --set ' search.json || fail "search command: no command"
expect 0 "search command: another spelling" "$bin" --config "$k22" --experiment search --check search.json
grep -q " 0 moved" err.txt || fail "search command: $(cat err.txt)"
# the rest of the command is still compared
expect 6 "search command: another layout" "$bin" --config "$k22" --experiment search \
	--set search.objective=memory --check search.json
grep -q "^search.command: expected " out.txt || fail "search command moved: $(cat out.txt)"
prof=$src/data/profiles/h200-llama-3-8b-tp1-ends-sustained.json
cp "$prof" w/data/p.json
set -- --set cluster.gpu=h200-sxm-141gb --unset cluster.gpu_memory --set parallel.tp=1 --set parallel.dp=16 \
	--set training.framework=torchtitan --set parallel.sharding=fsdp --set precision.preset=fsdp2 \
	--set training.attention_backend=cudnn
(cd w && "$bin" --config "$src/configs/llama-3-8b.json" "$@" --calibrate-compute data/p.json --format json \
	--output ../profile.json 2>/dev/null) || fail "profile: cannot write"
grep -q '"compute_profile": "data/p.json"' profile.json || fail "profile: not named as given"
expect 0 "profile: another spelling" "$bin" --config "$src/configs/llama-3-8b.json" "$@" --calibrate-compute "$prof" \
	--check profile.json
grep -q " 0 moved" err.txt || fail "profile: $(cat err.txt)"
# a warning that opens with the profile's name, quoted (measured on
# another layer: micro batch 4 against the profile's), compared past it
prof2=$src/data/profiles/h200-megatron-gpt-1.7b-tp1-ends-boost.json
cp "$prof2" w/data/p2.json
set -- --config "$src/data/profiles/configs/megatron-gpt-1.7b-tp1.json" --set training.framework=megatron \
	--set training.micro_batch_size=4
(cd w && "$bin" "$@" --calibrate-compute data/p2.json --format json --output ../profwarn.json 2>/dev/null) ||
	fail "profile warning: cannot write"
grep -q "\"'data/p2.json': " profwarn.json || fail "profile warning: none stored"
expect 0 "profile warning: another spelling" "$bin" "$@" --calibrate-compute "$prof2" --check profwarn.json
grep -q " 0 moved" err.txt || fail "profile warning: $(cat err.txt)"
set --
imp=$src/tests/inputs/import
mkdir -p w/imp && cp "$imp/megatron_train_llama3_8b_h100_fp8.sh" w/imp/m.sh
(cd w && "$bin" --config "$imp/h100_1x8.json" --from-megatron imp/m.sh --format json --output ../import.json 2>/dev/null) ||
	fail "import: cannot write"
grep -q '"imp/m.sh:[0-9]*: ' import.json || fail "import: no warning opens with the file and a line"
expect 0 "import: another spelling" "$bin" --config "$imp/h100_1x8.json" \
	--from-megatron "$imp/megatron_train_llama3_8b_h100_fp8.sh" --check import.json
grep -q " 0 moved" err.txt || fail "import: $(cat err.txt)"

# 11c. every file option of the search's command is cut with its file, not
# only --config's (a CI trial: a search budget pinned with a catalogue name,
# a log or a framework script named another way moved search.command; and
# search.calibrate[].log, sweep.calibrate[].log compared as strings)
sys=$src/configs/systems.json
expect 0 "search: --model a catalogue name" "$bin" --config "$sys" --model gpt2 --set model.seq_length=1024 \
	--experiment search --format json --output model.json
grep -q -- '--model gpt2 ' model.json || fail "search: the command has no --model gpt2"
expect 0 "search: --model its file" "$bin" --config "$sys" --model "$src/configs/models/gpt2.json" \
	--set model.seq_length=1024 --experiment search --check model.json
grep -q " 0 moved" err.txt || fail "search --model: $(cat err.txt)"
# a --set of a key naming a file: its value cut, the key kept
expect 0 "search: --set model.hf_config a name" "$bin" --config "$sys" --set model.hf_config=gpt2 \
	--set model.seq_length=1024 --experiment search --format json --output hf.json
expect 0 "search: --set model.hf_config its file" "$bin" --config "$sys" \
	--set "model.hf_config=$src/configs/models/gpt2.json" --set model.seq_length=1024 --experiment search --check hf.json
grep -q " 0 moved" err.txt || fail "search --set model.hf_config: $(cat err.txt)"
# the built-in default is configs/systems.json
expect 0 "search: configs/systems.json" "$bin" --config "$sys" --experiment search \
	--format json --output default.json
expect 0 "search: the built-in default" "$bin" --experiment search --check default.json
grep -q " 0 moved" err.txt || fail "search built-in default: $(cat err.txt)"
dgx=$src/tests/inputs/dgx_h100_2x8.json
log=$src/tests/data/nccl-tests-h100-2x8-ib.txt
cp "$log" w/data/log.txt
(cd w && "$bin" --config "$dgx" --calibrate data/log.txt --experiment search --format json --output ../cal.json \
	2>/dev/null) || fail "search --calibrate: cannot write"
grep -q '"log": "data/log.txt"' cal.json || fail "search --calibrate: the log not named as given"
expect 0 "search: --calibrate from another directory" "$bin" --config "$dgx" --calibrate "$log" \
	--experiment search --check cal.json
grep -q " 0 moved" err.txt || fail "search --calibrate: $(cat err.txt)"
# a warning that opens with the log as given is compared past it (a
# review: 4 GPUs a node against the log's 8 ranks a host warns so)
cp "$log" w/data/
(cd w && "$bin" --config "$dgx" --set cluster.gpus_per_node=4 --set parallel.dp=auto \
	--calibrate "data/$(basename "$log")" --format json --output ../calwarn.json 2>/dev/null) ||
	fail "calibrate warning: cannot write"
grep -q "\"data/$(basename "$log"): '--calibrate': the log ran 8 ranks per host" calwarn.json ||
	fail "calibrate warning: none stored"
expect 0 "a --calibrate warning from another directory" "$bin" --config "$dgx" --set cluster.gpus_per_node=4 \
	--set parallel.dp=auto --calibrate "$log" --check calwarn.json
grep -q " 0 moved" err.txt || fail "calibrate warning: $(cat err.txt)"
(cd w && "$bin" --config "$dgx" --calibrate data/log.txt --sweep training.grad_accum_steps=1,2 --format json \
	--output ../calsweep.json 2>/dev/null) || fail "sweep --calibrate: cannot write"
expect 0 "sweep: --calibrate from another directory" "$bin" --config "$dgx" --calibrate "$log" \
	--sweep training.grad_accum_steps=1,2 --check calsweep.json
grep -q " 0 moved" err.txt || fail "sweep --calibrate: $(cat err.txt)"
(cd w && "$bin" --config "$imp/h100_1x8.json" --from-megatron imp/m.sh --experiment search --format json \
	--output ../impsearch.json 2>/dev/null) || fail "search import: cannot write"
expect 0 "search: --from-megatron another spelling" "$bin" --config "$imp/h100_1x8.json" \
	--from-megatron "$imp/megatron_train_llama3_8b_h100_fp8.sh" --experiment search --check impsearch.json
grep -q " 0 moved" err.txt || fail "search import: $(cat err.txt)"
# what stays of the command is compared: another --set moves it, and a
# log's contents move the fit's fields
expect 6 "search: another --set" "$bin" --config "$sys" --model gpt2 --set model.seq_length=1024 \
	--set training.micro_batch_size=1 --experiment search --check model.json
grep -q "^search.command: expected " out.txt || fail "search --set: $(cat out.txt)"
expect 6 "search: another log" "$bin" --config "$dgx" --calibrate "$src/tests/data/nccl-tests-h100-4x8-ib.txt" \
	--experiment search --check cal.json

# 12. a report written with --all records it, and --check without --all
# shows every row again (it compared an excerpt with every row: 280 moved)
expect 0 "all: write" "$bin" --config "$cfg" --set cluster.num_nodes=16 --set parallel.dp=auto --all --format json \
	--output all.json
grep -q '^  "all": true,$' all.json || fail "all: the header does not record --all"
expect 0 "all: check without --all" "$bin" --config "$cfg" --set cluster.num_nodes=16 --set parallel.dp=auto \
	--check all.json
grep -q "it holds every row (--all); comparing every row" err.txt || fail "all: no note: $(cat err.txt)"
grep -q " 0 moved" err.txt || fail "all: $(cat err.txt)"
expect 0 "all: an excerpt has no all" "$bin" --config "$cfg" --set cluster.num_nodes=16 --set parallel.dp=auto \
	--format json --output excerpt.json
grep -q '"all"' excerpt.json && fail "all: an excerpt says all"

# 12b. a section --only leaves out is said so: step.time_s under --only
# memory is no "seed.time_s" (seed is a number at the root, no section;
# a trial saw that suggestion), while a typo of a section present is
expect 2 "section left out" "$bin" --config "$cfg" --only memory --check-max 'step.time_s=4'
grep -qx "distcalc: error: '--check-max': 'step.time_s': not in the report: it has no 'step' (a section --only leaves out, the command's or the one a --check file holds, or not one of this experiment's; a sweep's figures are under sweep.rows\[i\])" err.txt ||
	fail "section left out: $(cat err.txt)"
expect 2 "section typo" "$bin" --config "$cfg" --check-max 'stpe.time_s=4'
grep -qx "distcalc: error: '--check-max': 'stpe.time_s': not a field of the report; did you mean 'step.time_s'?" err.txt ||
	fail "section typo: $(cat err.txt)"

# 13. a budget through a table's row is that row or an error: the excerpt of
# 64 ranks shows ranks 0-15 and 48-63, so position 20 is rank 52
expect 2 "row budget: left out" "$bin" --config "$cfg" --set cluster.num_nodes=16 --set parallel.dp=auto \
	--check-max 'topology.ranks[20].rank=20'
grep -qx "distcalc: error: '--check-max': 'topology.ranks\[20\].rank': the report shows an excerpt of that table (32 rows left out), so the row is not at its index; add --all to check any row" err.txt ||
	fail "row budget: left out: $(cat err.txt)"
expect 0 "row budget: in the head" "$bin" --config "$cfg" --set cluster.num_nodes=16 --set parallel.dp=auto \
	--check-max 'topology.ranks[15].rank=15'
expect 0 "row budget: --all" "$bin" --config "$cfg" --set cluster.num_nodes=16 --set parallel.dp=auto --all \
	--check-max 'topology.ranks[20].rank=20'
expect 6 "row budget: --all, the row's own value" "$bin" --config "$cfg" --set cluster.num_nodes=16 \
	--set parallel.dp=auto --all --check-max 'topology.ranks[20].rank=19'
[ "$(cat out.txt)" = "topology.ranks[20].rank: 20 exceeds the budget 19 by 5.26%" ] || fail "row budget: $(cat out.txt)"

# a process group's member: the 530B's pp groups of 35 print 32 members
# (24 left out over the 8 groups), so member 20 of group 0 (rank 160) is
# not at position 20 (rank 184 is)
k530=$src/configs/korthikanti-530b.json
expect 2 "member budget: left out" "$bin" --config "$k530" --check-max 'groups.pp[0][20]=1'
grep -q "'groups.pp\[0\]\[20\]': the report shows an excerpt of that table (24 members left out), so the member is not at its index; add --all" err.txt ||
	fail "member budget: left out: $(cat err.txt)"
expect 0 "member budget: in the head" "$bin" --config "$k530" --check-max 'groups.pp[0][15]=120'
expect 0 "member budget: --all" "$bin" --config "$k530" --all --check-max 'groups.pp[0][20]=160'
expect 6 "member budget: --all, the member's own value" "$bin" --config "$k530" --all --check-max 'groups.pp[0][20]=159'

# 14. budget numbers: a plain number that reads like a slip of the unit
# warns; one out of range is an error saying so, not "missing unit"
expect 0 "budget: 500 plain seconds" "$bin" --config "$cfg" --check-max summary.comm_time_s=500
grep -qx "distcalc: warning: '--check-max': 'summary.comm_time_s': 500 is in seconds (a plain number is seconds); if you meant 500 ms, write '500 ms'" err.txt ||
	fail "budget: 500 plain seconds: $(cat err.txt)"
expect 0 "budget: 3 plain seconds" "$bin" --config "$cfg" --check-max summary.step_time_s=3
grep -q warning err.txt && fail "budget: 3 s warned: $(cat err.txt)"
expect 6 "budget: 80 plain bytes" "$bin" --config "$cfg" --check-max summary.peak_bytes=80
grep -q "80 is in bytes (a plain number is bytes); if you meant 80 GiB, write '80GiB'" err.txt ||
	fail "budget: 80 plain bytes: $(cat err.txt)"
# the unit's note waits for the path to be a field: a path that is none
# says only that (a CI trial: "1 is in bytes" before "no 'Summary'"), and
# a name in another case gets its field
expect 2 "budget: a plain number on no field" "$bin" --config "$cfg" --check-max Summary.peak_bytes=1
grep -qx "distcalc: error: '--check-max': 'Summary.peak_bytes': not a field of the report; did you mean 'summary.peak_bytes'?" err.txt &&
	[ "$(wc -l <err.txt)" = 1 ] || fail "budget: a plain number on no field: $(cat err.txt)"
# a sweep row's column is its whole path; a null figure says why it is one
expect 2 "budget: a sweep column not shown" "$bin" --config "$src/configs/sweeps/gpus.json" \
	--sweep cluster.num_nodes=1,2 --check-max 'sweep.rows[1].step.hfu=1'
grep -q "^distcalc: error: '--check-max': 'sweep.rows\[1\].step.hfu': not a field of the report: 'sweep.rows\[1\]' has no column 'step.hfu' (--sweep-metrics chooses the columns)$" err.txt ||
	fail "budget: a sweep column not shown: $(cat err.txt)"
expect 2 "budget: a null figure" "$bin" --config "$src/configs/gpt2.json" --check-max summary.step_time_s=1s
grep -qx "distcalc: error: '--check-max': 'summary.step_time_s': not a number in the report, it holds null: a figure this run does not give (where its section has a 'missing', that says why: step.missing for the step's figures)" err.txt ||
	fail "budget: a null figure: $(cat err.txt)"
expect 2 "budget: 1e400" "$bin" --config "$cfg" --check-max summary.peak_bytes=1e400
grep -q "'1e400' is out of range: it is too large for a number" err.txt || fail "budget: 1e400: $(cat err.txt)"
expect 2 "budget: 1e-400" "$bin" --config "$cfg" --check-max summary.comm_time_s=1e-400
grep -q "'1e-400' is out of range: it rounds to 0" err.txt || fail "budget: 1e-400: $(cat err.txt)"
expect 2 "budget: 2^53 + 1 bytes" "$bin" --config "$cfg" --check-max summary.peak_bytes=9007199254740993
grep -q "is 2^53 bytes or more" err.txt || fail "budget: 2^53 + 1: $(cat err.txt)"

# 15. the files a report names are where the tool ran, not budgets: a budget
# pinned with one spelling of the config (absolute) checks with another
# (through a symlinked folder), and one whose model comes from the
# catalogue checks against another copy of the catalogue (another checkout,
# an install), the model's warning naming its file included; a model of
# another shape still moves its fields
ln -s "$src/configs" linked
expect 0 "files: pin" "$bin" --config "$src/configs/llama-3-8b.json" --format json --output files.json
grep -q "\"hf_config\": \"$src/configs/models/llama-3-8b.json\"" files.json || fail "files: stored path: $(grep hf_config files.json)"
expect 0 "files: another spelling" "$bin" --config linked/llama-3-8b.json --check files.json
grep -q " 0 moved" err.txt || fail "files: another spelling: $(cat out.txt)"
mkdir -p data1/models data2/models
cp "$src/configs/models/gpt-oss-20b.json" "$src/configs/models/llama-3-8b.json" data1/models/
cp data1/models/* data2/models/
set -- --config "$src/configs/llama-3-8b.json" --set model.hf_config=gpt-oss-20b
DISTCALC_DATA_DIR=$work/data1 "$bin" "$@" --format json --output cat.json 2>/dev/null || fail "files: catalogue: cannot write"
grep -q "\"$work/data1/models/gpt-oss-20b.json: 'quantization_config'" cat.json || fail "files: no warning names the model's file"
expect 0 "files: another catalogue" env DISTCALC_DATA_DIR=$work/data2 "$bin" "$@" --check cat.json
grep -q " 0 moved" err.txt || fail "files: another catalogue: $(cat out.txt)"
expect 6 "files: another model" env DISTCALC_DATA_DIR=$work/data2 "$bin" "$@" --set model.hf_config=llama-3-8b --check cat.json
grep -q "^model.params_total: " out.txt || fail "files: another model: $(cat out.txt)"
grep -q "^model.hf_config\|^model.keys\[0\]" out.txt && fail "files: another model: the path compared: $(cat out.txt)"

# 16. whole numbers above 2^53 = 9007199254740992, where a double stops
# holding every integer, are compared as the digits the report writes.
# A ring of 8 PiB = 2^53 bytes over 8 ranks sends 2 x 7/8 x 2^53 =
# 15762598695796736 bytes a rank: the report checks against itself (it
# failed as "not a plausible number", "expected X, got X")
set -- --config "$cfg" --experiment ring --set 'collective.message_size=8 PiB'
expect 0 "above 2^53: write" "$bin" "$@" --format json --output big53.json
grep -q '"bytes_sent_per_rank": 15762598695796736,' big53.json || fail "above 2^53: $(grep bytes_sent big53.json)"
expect 0 "above 2^53: round trip" "$bin" "$@" --check big53.json
grep -q " 0 moved" err.txt || fail "above 2^53: round trip: $(cat out.txt err.txt)"
# one byte more in the stored file is a difference, as it is below 2^53
sed 's/"bytes_sent_per_rank": 15762598695796736,/"bytes_sent_per_rank": 15762598695796737,/' big53.json >big53t.json
expect 6 "above 2^53: one byte" "$bin" "$@" --check big53t.json
grep -qx "ring.bytes_sent_per_rank: expected 15762598695796737, got 15762598695796736" out.txt ||
	fail "above 2^53: one byte: $(cat out.txt)"
# seeds: 2^53 + 1 against 2^53 and 2^64 - 1 against 2^64 - 2 differ (as
# doubles each pair is one number); a seed is a name, not a quantity: a
# changed value, no percentage; the header's says which --seed to give
# (a CI trial's). The header's seed and loss.seed both
for pair in "9007199254740993 9007199254740992" "18446744073709551615 18446744073709551614" "5 6"; do
	# shellcheck disable=SC2086
	set -- $pair
	expect 0 "seed $1: write" "$bin" --config "$cfg" --experiment loss --seed "$1" --format json --output seed.json
	expect 6 "seed $1 against $2" "$bin" --config "$cfg" --experiment loss --seed "$2" --check seed.json --check-only seed,loss.seed
	[ "$(cat out.txt)" = "seed: expected $1, got $2 (the stored report ran with --seed $1: give it)
loss.seed: expected $1, got $2" ] || fail "seed $1 against $2: $(cat out.txt)"
	expect 0 "seed $1 against itself" "$bin" --config "$cfg" --experiment loss --seed "$1" --check seed.json
done
# the same through the streamed comparison (a stored report above 1 MiB:
# a 64-rank ring, every event)
set -- --config "$cfg" --experiment ring --set cluster.num_nodes=16 --set parallel.dp=auto --all
expect 0 "streamed seed: write" "$bin" "$@" --seed 18446744073709551615 --format json --output seedbig.json
[ "$(wc -c <seedbig.json)" -gt 1048576 ] || fail "streamed seed: the report is not above 1 MiB"
expect 6 "streamed seed" "$bin" "$@" --seed 18446744073709551614 --check seedbig.json
[ "$(cat out.txt)" = "seed: expected 18446744073709551615, got 18446744073709551614 (the stored report ran with --seed 18446744073709551615: give it)" ] ||
	fail "streamed seed: $(cat out.txt)"
expect 0 "streamed seed: itself" "$bin" "$@" --seed 18446744073709551615 --check seedbig.json

# a stored report of another experiment says which to give, as the seed
# does (a CI trial checked a search budget as a systems run)
expect 0 "experiment: write" "$bin" --config "$cfg" --experiment ring --format json --output ring.json
expect 6 "experiment: another" "$bin" --config "$cfg" --check ring.json
grep -q '^experiment: expected "ring", got "systems" (the stored report ran --experiment ring: give it)$' out.txt ||
	fail "experiment: no hint: $(head -2 out.txt)"
expect 0 "experiment: given" "$bin" --config "$cfg" --experiment ring --check ring.json

# a table in rank order compared by index: where another strategy holds a
# rank, its row's name line says so, once a table (a trial read
# "+2066% peak_bytes" as a regression of one row). systems.json ranks
# fsdp, configured, pure_dp; micro batch 8 with no accumulation puts
# pure_dp second
expect 0 "ranked: write" "$bin" --config "$cfg" --format json --output ranked.json
expect 6 "ranked: reordered" "$bin" --config "$cfg" --set training.micro_batch_size=8 \
	--set training.grad_accum_steps=1 --check ranked.json
grep -q '^strategies.variants\[1\].strategy: expected "configured", got "pure_dp" \[strategies.variants lists its rows in rank order, compared by index: another strategy holds this rank now' out.txt ||
	fail "ranked: no note on the reordered row: $(grep strategy out.txt)"
[ "$(grep -c 'lists its rows in rank order' out.txt)" = 1 ] || fail "ranked: the note is not said once: $(grep -c 'rank order' out.txt)"
expect 6 "ranked: same order" "$bin" --config "$cfg" --set training.micro_batch_size=2 --check ranked.json
grep -q 'rank order' out.txt && fail "ranked: a note where no row changed rank: $(grep 'rank order' out.txt)"

# 17. standard input: --check - reads the stored report from it (a pipe or
# a file), --config - the config; the output guard sees the file behind it
expect 0 "check from standard input" sh -c '"$1" --config "$2" --seed 7 --check - <budget.json' sh "$bin" "$cfg"
grep -q "check '-': [0-9]* fields compared, 0 moved" err.txt || fail "--check -: $(cat err.txt)"
expect 0 "check through a pipe" sh -c 'cat budget.json | "$1" --config "$2" --seed 7 --check -' sh "$bin" "$cfg"
expect 0 "config from standard input" sh -c '"$1" --config - --seed 7 --check budget.json <"$2"' sh "$bin" "$cfg"
grep -q "0 moved" err.txt || fail "--config -: $(cat err.txt)"
cp "$cfg" plan.json
expect 2 "--output onto the config on standard input" sh -c '"$1" --config - --output plan.json <plan.json' sh "$bin"
grep -q "'--output': 'plan.json' is the '--config' file '-'; refusing to overwrite an input" err.txt ||
	fail "guard on standard input: $(cat err.txt)"
cmp -s plan.json "$cfg" || fail "guard on standard input: the config was replaced"

# 18. --jobs past the online CPUs runs one thread a CPU, says so in a note,
# and gives the same report (1000 threads on a few CPUs made a search 40
# times slower than 4)
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 0)
search_cfg=$src/configs/korthikanti-22b.json
if [ "$cpus" -ge 1 ] 2>/dev/null && [ "$cpus" -lt 1024 ]; then
	expect 0 "search --jobs 1" "$bin" --config "$search_cfg" --experiment search --format json
	mv out.txt jobs1.json
	expect 0 "search --jobs 1024" "$bin" --config "$search_cfg" --experiment search --format json --jobs 1024
	cmp -s out.txt jobs1.json || fail "--jobs 1024 changed the report"
	grep -q "^distcalc: note: '--jobs 1024': this machine has $cpus online CPUs*; the search runs at most $cpus threads* " err.txt ||
		fail "--jobs 1024: no note of the cap to $cpus: $(cat err.txt)"
	# the search itself runs no more threads than its (recompute, tp, cp,
	# pp) tuples: at most the CPUs, and more than one where there are two
	ran=$(sed -n 's/.*priced layouts\/s on \([0-9]*\) threads*$/\1/p' err.txt)
	{ [ -n "$ran" ] && [ "$ran" -le "$cpus" ]; } || fail "--jobs 1024: '$ran' threads, not at most $cpus: $(cat err.txt)"
	expect 0 "search --jobs $cpus" "$bin" --config "$search_cfg" --experiment search --format json --jobs "$cpus"
	grep -q "note: '--jobs" err.txt && fail "--jobs $cpus: a note where nothing was capped: $(cat err.txt)"
else
	echo "skip: --jobs cap (online CPUs: '$cpus')"
fi

# --check-max's keys that come and go (src/cli/check.c conditional_keys)
# each have a row in docs/output.md's table of what a report leaves out, a
# key or its prefix in backquotes: the two lists stay alike
keys=$(awk '/conditional_keys\[\] = \{/,/^\};/' "$src/src/cli/check.c" | grep -o '^	{"[a-z0-9_.]*"' |
	sed 's/^	{"//; s/"$//')
[ -n "$keys" ] || fail "conditional keys: none read from src/cli/check.c"
for k in $keys; do
	grep -q "\`$k" "$src/docs/output.md" || fail "conditional key $k: not in docs/output.md"
done

if [ "$fails" = 0 ]; then
	echo "ok: --check"
	exit 0
fi
exit 1
