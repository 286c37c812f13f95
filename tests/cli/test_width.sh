#!/bin/sh
# test_width.sh DISTCALC SRCDIR - every table of every experiment, on every
# shipped config and a sweep, is within 100 columns at the default width:
# wider tables split into panels, long text and labels wrap at spaces.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-width.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
runs=0
for cfg in "$src"/configs/*.json "$src"/configs/sweeps/*.json; do
	for e in systems ring collectives whatif checkpoint loss search; do
		"$bin" --config "$cfg" --experiment "$e" >"$work/out" 2>/dev/null
		[ -s "$work/out" ] || continue
		runs=$((runs + 1))
		over=$(awk 'length($0) > 100 { n++ } END { print n + 0 }' "$work/out")
		if [ "$over" != 0 ]; then
			echo "FAIL: $(basename "$cfg") --experiment $e: $over lines over 100 columns, e.g.:"
			awk 'length($0) > 100' "$work/out" | head -2
			fails=$((fails + 1))
		fi
	done
done
"$bin" --config "$src/configs/sweeps/gpus.json" --sweep cluster.num_nodes=1,2,4 --sweep parallel.tp=2,4 >"$work/out" 2>/dev/null
runs=$((runs + 1))
awk 'length($0) > 100 { n++ } END { exit n > 0 }' "$work/out" || { echo "FAIL: the sweep's table is over 100 columns"; fails=$((fails + 1)); }
[ "$runs" -ge 50 ] || { echo "FAIL: only $runs reports ran"; fails=$((fails + 1)); }
[ "$fails" = 0 ] && echo "ok: width ($runs reports)"
exit $((fails > 0))
