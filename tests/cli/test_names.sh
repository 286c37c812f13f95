#!/bin/sh
# test_names.sh DISTCALC SRCDIR - file names with control bytes and bytes
# that are not UTF-8 never reach the terminal raw: error lines escape them
# (\x1b, \n, \xff), JSON stays valid UTF-8, the table escapes them too.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-names.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
esc=$(printf '\033')
nl='
'
bad="$work/a${esc}b${nl}c$(printf '\377').json"
printf '{"model": {' >"$bad"
"$bin" --config "$bad" >/dev/null 2>"$work/err"
[ $? = 3 ] || fail "syntax error: exit $?"
grep -q "$esc" "$work/err" && fail "a raw ESC reached stderr"
grep -qF 'a\x1bb\nc\xff.json:1:11: error:' "$work/err" || fail "escaped name: $(cat "$work/err")"
[ "$(wc -l <"$work/err")" -eq 3 ] || fail "the newline in the name made extra lines: $(cat "$work/err")"
cp "$src/configs/systems.json" "$bad"
"$bin" --config "$bad" --only batch --format json >"$work/out.json" 2>/dev/null || fail "json: exit $?"
python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$work/out.json" ||
	fail "the JSON report is not valid UTF-8 JSON"
"$bin" --config "$bad" >"$work/out.txt" 2>&1 || fail "table: exit $?"
grep -q "$esc" "$work/out.txt" && fail "a raw ESC reached the table"
# a stored string with ESC and a newline: --check prints one escaped line
"$bin" --config "$src/configs/systems.json" --only model --format json --output "$work/g.json" 2>/dev/null
sed 's/"family": "custom"/"family": "cu\\u001bst\\nom"/' "$work/g.json" >"$work/g2.json"
grep -q 'u001b' "$work/g2.json" || fail "the test could not plant the string"
"$bin" --config "$src/configs/systems.json" --check "$work/g2.json" >"$work/diff.txt" 2>/dev/null
[ $? = 6 ] || fail "check: exit $?"
grep -q "$esc" "$work/diff.txt" && fail "a raw ESC reached the check output"
[ "$(wc -l <"$work/diff.txt")" -eq 1 ] || fail "check: not one line: $(cat "$work/diff.txt")"
grep -qF 'cu\x1bst\nom' "$work/diff.txt" || fail "check: not escaped: $(cat "$work/diff.txt")"
[ "$fails" = 0 ] && echo "ok: names are escaped" && exit 0
exit 1
