#!/bin/sh
# run_case.sh DISTCALC SRCDIR NAME - run one CLI case, tests/cli/cases/NAME.*
#
#   NAME.args    one argument per line; the token @SRC@ becomes ../SRC, a
#                link to SRCDIR beside the run directory, so a case can name
#                configs/ and tests/inputs/ files by a path whose length does
#                not depend on where the checkout is (a table wraps a long
#                path, and the wrap must not move with the checkout)
#   NAME.code    expected exit status (default 0)
#   NAME.stdout  exact expected stdout; when absent, stdout must be empty for
#                a non-zero status (and is not checked for status 0)
#   NAME.stderr  exact expected stderr (not checked when absent)
#   NAME.stdin   fed to standard input (default: /dev/null)
#
# In the actual stdout and stderr, ../SRC (and SRCDIR itself, should the
# tool ever print a resolved path) is written back as @SRC@ before the
# comparison, so expected files name inputs as @SRC@/tests/inputs/x.json.
#
# The command runs in an empty temporary directory, so a relative --output
# lands there; a failing case (non-zero status) must leave it empty.
set -u

bin=$1
src=$2
name=$3
case_dir=$src/tests/cli/cases
base=$case_dir/$name

[ -f "$base.args" ] || { echo "run_case: no such case: $base.args" >&2; exit 2; }
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac

work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-case.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT HUP INT TERM
mkdir "$work/run"
ln -s "$src" "$work/SRC" || exit 2

# Build "$@" from the args file, one argument per line (blank lines are
# empty arguments; a missing final newline is fine).
set --
while IFS= read -r line || [ -n "$line" ]; do
	# replace every @SRC@ (sed would need escaping of SRCDIR)
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
done <"$base.args"

stdin=/dev/null
[ -f "$base.stdin" ] && stdin=$base.stdin
expect_code=0
[ -f "$base.code" ] && expect_code=$(cat "$base.code")

(cd "$work/run" && exec "$bin" "$@") <"$stdin" >"$work/stdout.raw" 2>"$work/stderr.raw"
code=$?

# ../SRC and SRCDIR -> @SRC@, literally (awk index, not a regex)
unsrc() {
	SRC=$src awk 'function sub_all(line, s,    out, i, n) {
		n = length(s); out = ""
		while (n > 0 && (i = index(line, s)) > 0) {
			out = out substr(line, 1, i - 1) "@SRC@"; line = substr(line, i + n)
		}
		return out line
	}
	{ print sub_all(sub_all($0, "../SRC"), ENVIRON["SRC"]) }' "$1" >"$2"
	# awk adds a final newline; keep the file's own ending
	if [ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" != '\n' ]; then
		printf '%s' "$(cat "$2")" >"$2.tmp" && mv "$2.tmp" "$2"
	fi
}
unsrc "$work/stdout.raw" "$work/stdout"
unsrc "$work/stderr.raw" "$work/stderr"

fail=0
say() { printf 'FAIL %s: %s\n' "$name" "$*"; fail=1; }

if [ "$code" != "$expect_code" ]; then
	say "exit status $code, expected $expect_code"
	echo "--- stderr:"
	cat "$work/stderr"
fi
if [ -f "$base.stdout" ]; then
	if ! cmp -s "$base.stdout" "$work/stdout"; then
		say "stdout differs from $name.stdout (- expected, + actual)"
		diff -u "$base.stdout" "$work/stdout" | head -60
	fi
elif [ "$expect_code" != 0 ] && [ -s "$work/stdout" ]; then
	say "stdout must be empty on error, got:"
	head -20 "$work/stdout"
fi
if [ -f "$base.stderr" ] && ! cmp -s "$base.stderr" "$work/stderr"; then
	say "stderr differs from $name.stderr (- expected, + actual)"
	diff -u "$base.stderr" "$work/stderr" | head -60
fi
if [ "$expect_code" != 0 ]; then
	left=$(ls -A "$work/run")
	if [ -n "$left" ]; then
		say "files left behind after an error: $left"
	fi
fi
[ "$fail" = 0 ] && echo "ok $name"
exit "$fail"
