#!/bin/sh
# regen_golden.sh [DISTCALC] - rewrite every golden CLI output in one go.
#
# Goldens are per section, so a change to one estimator rewrites the goldens
# of the sections that show it and no others. For each configs/NAME.json and
# each SECTION of the systems experiment (the list `distcalc --help` prints)
# it (re)writes tests/cli/cases/
#   golden_NAME_SECTION_table.args  --config @SRC@/configs/NAME.json --seed 7 --only SECTION
#   golden_NAME_SECTION_json.args   the same with --format json
# plus, for systems.json alone, the whole report (golden_systems_table and
# golden_systems_json: the header, the section order and the warnings), and
# their .stdout; then it refreshes the .stdout of every other golden_*.args
# case (hand-written args are kept). Goldens of configs that no longer exist
# are removed. Review the result with `git diff tests/cli/cases`
# before committing: a golden is only as good as the eye that checked it.
#
# DISTCALC defaults to build/distcalc; run from anywhere.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
cases=$here/cases
bin=${1:-$src/build/distcalc}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$bin" ] || { echo "regen_golden: no executable at $bin (pass the path to distcalc)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-regen.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM

# the args of the configs' goldens
sections=$("$bin" --help | awk '/^sections/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on { exit }')
[ -n "$sections" ] || { echo "regen_golden: no section list in --help" >&2; exit 2; }
printf -- '--config\n@SRC@/configs/systems.json\n--seed\n7\n' >"$cases/golden_systems_table.args"
printf -- '--config\n@SRC@/configs/systems.json\n--seed\n7\n--format\njson\n' >"$cases/golden_systems_json.args"
for cfg in "$src"/configs/*.json; do
	[ -f "$cfg" ] || continue
	name=$(basename "$cfg" .json)
	for sec in $sections; do
		printf -- '--config\n@SRC@/configs/%s.json\n--seed\n7\n--only\n%s\n' "$name" "$sec" \
			>"$cases/golden_${name}_${sec}_table.args"
		printf -- '--config\n@SRC@/configs/%s.json\n--seed\n7\n--only\n%s\n--format\njson\n' "$name" "$sec" \
			>"$cases/golden_${name}_${sec}_json.args"
	done
done
# drop goldens whose config is gone
for args in "$cases"/golden_*_table.args "$cases"/golden_*_json.args; do
	[ -f "$args" ] || continue
	cfg=$(sed -n 2p "$args")
	case $cfg in
	@SRC@/configs/*)
		if [ ! -f "$src/${cfg#@SRC@/}" ]; then
			base=${args%.args}
			rm -f "$base.args" "$base.stdout" "$base.code" "$base.stderr"
			echo "removed $(basename "$base")"
		fi
		;;
	esac
done

# run every golden case the way run_case.sh does and keep its stdout
status=0
for args in "$cases"/golden_*.args; do
	base=${args%.args}
	name=$(basename "$base")
	set --
	while IFS= read -r line || [ -n "$line" ]; do
		arg=
		rest=$line
		while :; do
			case $rest in
			*@SRC@*)
				arg=$arg${rest%%@SRC@*}../SRC
				rest=${rest#*@SRC@}
				;;
			*)
				arg=$arg$rest
				break
				;;
			esac
		done
		set -- "$@" "$arg"
	done <"$args"
	stdin=/dev/null
	[ -f "$base.stdin" ] && stdin=$base.stdin
	rm -rf "$work/run" && mkdir "$work/run"
	# as run_case.sh: inputs by a path of fixed length, ../SRC
	[ -L "$work/SRC" ] || ln -s "$src" "$work/SRC"
	code=0
	(cd "$work/run" && exec "$bin" "$@") <"$stdin" >"$work/out" 2>"$work/err" || code=$?
	expect=0
	[ -f "$base.code" ] && expect=$(cat "$base.code")
	if [ "$code" != "$expect" ]; then
		echo "regen_golden: $name exited $code, expected $expect:" >&2
		cat "$work/err" >&2
		status=1
		continue
	fi
	SRC=$src awk 'function sub_all(line, s,    out, i, n) {
		n = length(s); out = ""
		while (n > 0 && (i = index(line, s)) > 0) {
			out = out substr(line, 1, i - 1) "@SRC@"; line = substr(line, i + n)
		}
		return out line
	}
	{ print sub_all(sub_all($0, "../SRC"), ENVIRON["SRC"]) }' "$work/out" >"$base.stdout"
	echo "wrote $name.stdout"
done
exit $status
