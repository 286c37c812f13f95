#!/bin/sh
# test_golden_check.sh DISTCALC SRCDIR - the golden JSON reports pass
# through distcalc's own budget regression.
#
# Every tests/cli/cases/golden_*_json case is run again with --check against
# its stored stdout (with the source path put back where the runner wrote
# @SRC@): each must compare clean and exit 0, so the goldens that pin every
# config in configs/ also pin them the way a user's CI would, through
# --check. One tampered byte count must then exit 6.
set -u
bin=$1
src=$(cd "$2" && pwd)
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cases=$src/tests/cli/cases
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-golden-check.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT HUP INT TERM

fails=0
count=0
for args in "$cases"/golden_*_json.args; do
	[ -f "$args" ] || continue
	name=$(basename "$args" .args)
	expected=$work/$name.json
	sed "s#@SRC@#$src#g" "$cases/$name.stdout" >"$expected"
	set --
	while IFS= read -r a; do
		set -- "$@" "$(printf '%s' "$a" | sed "s#@SRC@#$src#g")"
	done <"$args"
	count=$((count + 1))
	if ! (cd "$work" && "$bin" "$@" --check "$expected" >"$work/out" 2>"$work/err"); then
		echo "FAIL: $name does not pass --check against its golden:"
		head -5 "$work/out" "$work/err"
		fails=$((fails + 1))
	fi
done
[ "$count" -ge 3 ] || { echo "FAIL: only $count JSON goldens found"; exit 1; }

# one byte more in a stored byte count is caught
sed 's/"bytes_sent_per_rank": \([0-9]*\)/"bytes_sent_per_rank": \11/' "$work/golden_systems_json.json" >"$work/t.json"
if (cd "$work" && "$bin" --config "$src/configs/systems.json" --seed 7 --check t.json >/dev/null 2>&1); then
	echo "FAIL: a tampered golden passed --check"
	fails=$((fails + 1))
fi
[ "$fails" = 0 ] && echo "ok: $count JSON goldens pass --check" && exit 0
exit 1
