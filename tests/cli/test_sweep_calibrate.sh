#!/bin/sh
# test_sweep_calibrate.sh DISTCALC SRCDIR - --sweep with --calibrate and
# --calibrate-compute (docs/sweeps.md): each point is calibrated exactly as
# the single run it stands for (its values given as --set), so its figures
# are that run's to the last digit; a log or profile that a single run
# refuses ends the sweep the same way before any point runs; a point the
# profile cannot apply to is a row that says why. (The sweep once ran every
# point uncalibrated and never read the files.)
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
case $src in /*) ;; *) src=$(pwd)/$src ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-swcal.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cfg=$src/tests/inputs/dgx_h100_2x8.json
log=$src/tests/data/nccl-tests-h100-2x8-ib.txt
prof=$src/tests/data/gpu-profile-sample-synthetic.json

# the step time of a single run, as JSON prints it (the step section's
# first "time_s")
single() {
	"$bin" --config "$cfg" "$@" --only step --format json 2>/dev/null |
		sed -n 's/^    "time_s": \([^,]*\),$/\1/p' | head -n 1
}
# the step time of sweep point $1, as the sweep's CSV prints it
point() {
	p=$1
	shift
	"$bin" --config "$cfg" "$@" --sweep training.micro_batch_size=1,2 --sweep-metrics step.time_s \
		--format csv 2>/dev/null | awk -F, -v p="$p" '$1 == p && $3 == "ok" { print $4 }'
}

for cal in "--calibrate $log" "--calibrate-compute $prof" "--calibrate $log --calibrate-compute $prof"; do
	for mb in 1 2; do
		# shellcheck disable=SC2086
		want=$(single $cal --set training.micro_batch_size=$mb)
		# shellcheck disable=SC2086
		got=$(point $((mb - 1)) $cal)
		plain=$(single --set training.micro_batch_size=$mb)
		[ -n "$want" ] || fail "$cal: micro batch $mb: the single run printed no step time"
		[ "$got" = "$want" ] || fail "$cal: sweep point micro batch $mb: step.time_s '$got', the single run's '$want'"
		# calibrated, not the plain model
		[ "$want" != "$plain" ] || fail "$cal: micro batch $mb: the calibrated step equals the uncalibrated one ($plain)"
	done
done

# the report names the files every point applied (sweep.calibrate,
# sweep.compute_profile), and names none when there are none
"$bin" --config "$cfg" --calibrate "$log" --calibrate-compute "$prof" --sweep training.micro_batch_size=1,2 \
	--format json >named.json 2>/dev/null || fail "named sweep: exit $?"
python3 - named.json "$log" "$prof" <<'PY' || fail "sweep.calibrate or sweep.compute_profile does not name the files"
import json, sys
s = json.load(open(sys.argv[1]))["sweep"]
assert s["calibrate"] == [{"log": sys.argv[2]}], s["calibrate"]
assert s["compute_profile"] == sys.argv[3], s["compute_profile"]
PY
"$bin" --config "$cfg" --sweep training.micro_batch_size=1,2 --format json >plain.json 2>/dev/null ||
	fail "plain sweep: exit $?"
grep -q '"calibrate"\|"compute_profile"' plain.json && fail "a sweep without files names one"

# a log or profile a single run refuses: the same exit and message, no row
printf 'not a log\n' >bad.txt
printf '{\n' >bad.json
for bad in "--calibrate bad.txt 4" "--calibrate-compute bad.json 3"; do
	set -- $bad
	"$bin" --config "$cfg" "$1" "$2" --only step >/dev/null 2>want.err
	"$bin" --config "$cfg" "$1" "$2" --sweep training.micro_batch_size=1,2 >out.txt 2>got.err
	rc=$?
	[ "$rc" = "$3" ] || fail "$1 $2 in a sweep: exit $rc, expected $3 (as a single run)"
	cmp -s want.err got.err || fail "$1 $2 in a sweep: stderr '$(cat got.err)', a single run's '$(cat want.err)'"
	[ -s out.txt ] && fail "$1 $2 in a sweep: printed rows"
done

# a point whose config the profile cannot apply to (it gives the level the
# profile measures): the row says why, as the single run does; no point ran
"$bin" --config "$cfg" --calibrate-compute "$prof" --sweep cluster.matmul_efficiency=0.5,0.6 --format csv \
	>out.txt 2>err.txt
rc=$?
[ "$rc" = 3 ] || fail "a point the profile cannot apply to: exit $rc, expected 3"
grep -q "^0,0.5,invalid,.*the config gives cluster.matmul_efficiency" out.txt ||
	fail "a point the profile cannot apply to: row 0 does not say why: $(cat out.txt)"

[ "$fails" = 0 ] && echo "ok: every sweep point calibrated as its single run"
exit $((fails != 0))
