#!/bin/sh
# test_only_table.sh DISTCALC SRCDIR - --only SECTION.TABLE (docs/output.md).
#
# 1. Each experiment's table paths (the list its error for a path that is
#    no table gives) are the ones docs/output.md lists, and --help lists
#    them all.
# 2. Every one of them, as --format csv, is one plain CSV table: no '#'
#    line, a header row, every row with the header's column count (read
#    with Python's csv module, as pandas.read_csv(file) would take it);
#    JSON holds the header and that one table at its path.
# 3. By hand: strategies.variants on configs/systems.json is 3 rows (pure
#    DP, FSDP, configured), pure DP last and unranked (its 16 B/param x
#    6,738,415,616 = 107,814,649,856 B of states exceed 80 GiB =
#    85,899,345,920 B); sweep.rows of a 2-point sweep is 2 rows.
# 4. Errors: a value, an object, a typo (the nearest path suggested), a
#    path beside other sections, a sweep's other paths.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-only.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cal="--config $src/tests/inputs/dgx_h100_2x8.json --calibrate $src/tests/data/nccl-tests-h100-2x8-ib.txt"

# the table paths an experiment's error lists
paths() {
	"$bin" "$@" --only nosuch.table 2>&1 >/dev/null | sed -n 's/.*its tables: //p' | sed 's/, /\n/g'
}

# 2. one table, read back
check_table() { # NAME PATH ARGS...
	name=$1
	path=$2
	shift 2
	"$bin" "$@" --seed 7 --only "$path" --format csv >"$work/t.csv" 2>"$work/err" || { fail "$name $path: csv exits $?: $(cat "$work/err")"; return; }
	"$bin" "$@" --seed 7 --only "$path" --format json >"$work/t.json" 2>"$work/err" || { fail "$name $path: json exits $?"; return; }
	"$bin" "$@" --seed 7 --only "$path" >"$work/t.txt" 2>"$work/err" || { fail "$name $path: table exits $?"; return; }
	python3 - "$work/t.csv" "$work/t.json" "$path" "$name" <<'PY' || fails=$((fails + 1))
import csv, json, sys
raw = open(sys.argv[1], newline="").read()
report = json.load(open(sys.argv[2]))
path, name = sys.argv[3], sys.argv[4]
bad = []
rows = list(csv.reader(raw.splitlines()))
if not rows or not rows[0] or not all(rows[0]):
    bad.append("no header row")
elif any(line.startswith("#") for line in raw.splitlines()):
    bad.append("a '#' line")
else:
    for i, r in enumerate(rows[1:]):
        if len(r) != len(rows[0]):
            bad.append("row %d has %d cells, the header %d" % (i, len(r), len(rows[0])))
            break
if report.get("only") != path:
    bad.append("json only %r" % report.get("only"))
node, keys = report, path.split(".")
# JSON excerpts a long table unless --all, as it always does: the
# table's key and its "_omitted" count are all a level holds
for i, k in enumerate(keys[:-1]):
    node = node.get(k, {}) if isinstance(node, dict) else {}
    allowed = {keys[i + 1], keys[i + 1] + "_omitted"}
    if isinstance(node, dict) and not set(node) <= allowed:
        bad.append("json: %s holds more than the path: %s" % (k, sorted(node)))
omitted = isinstance(node, dict) and keys[-1] + "_omitted" in node
if isinstance(node, dict) and keys[-1] in node and isinstance(node[keys[-1]], list):
    if not omitted and len(node[keys[-1]]) != len(rows) - 1:
        bad.append("json %d rows, csv %d" % (len(node[keys[-1]]), len(rows) - 1))
else:
    # a table this run does not have (comm.ep with ep 1) is an empty array
    # at its path, as CSV is a bare header
    bad.append("json has no table at the path (csv: %d rows)" % (len(rows) - 1))
for b in bad:
    print("FAIL: %s %s: %s" % (name, path, b))
sys.exit(1 if bad else 0)
PY
}

: >"$work/all"
for exp in systems ring collectives whatif checkpoint loss search cal; do
	if [ "$exp" = cal ]; then
		# shellcheck disable=SC2086
		set -- --experiment collectives $cal
	else
		set -- --experiment "$exp"
	fi
	paths "$@" >"$work/paths"
	[ -s "$work/paths" ] || { fail "$exp: no table list in the error"; continue; }
	cat "$work/paths" >>"$work/all"
	# 1. the docs' row for the experiment
	if [ "$exp" = cal ]; then
		row=$(grep '^| any, with `--calibrate` |' "$src/docs/output.md")
		grep -v '^collectives\.' "$work/paths" >"$work/want"
	else
		row=$(grep "^| \`$exp\` |" "$src/docs/output.md")
		cp "$work/paths" "$work/want"
	fi
	printf '%s\n' "$row" | awk -F'|' '{ print $3 }' | tr -d '` ' | tr ',' '\n' >"$work/doc"
	cmp -s "$work/doc" "$work/want" || fail "$exp: docs/output.md lists $(tr '\n' ' ' <"$work/doc"), the tool $(tr '\n' ' ' <"$work/want")"
	while IFS= read -r p; do
		check_table "$exp" "$p" "$@"
	done <"$work/paths"
done
# --help lists every table path
"$bin" --help | sed -n '/^tables/,/^$/p' | grep '^  ' | tr ', ' '\n\n' | grep '\.' | sort -u >"$work/help"
sort -u "$work/all" >"$work/all.sorted"
echo sweep.rows >>"$work/all.sorted"
sort -u -o "$work/all.sorted" "$work/all.sorted"
cmp -s "$work/help" "$work/all.sorted" || fail "--help's tables: $(tr '\n' ' ' <"$work/help"); the experiments': $(tr '\n' ' ' <"$work/all.sorted")"

# 3. by hand
"$bin" --config "$src/configs/systems.json" --only strategies.variants --format csv >"$work/v.csv" 2>/dev/null || fail "variants exit $?"
python3 - "$work/v.csv" <<'PY' || fails=$((fails + 1))
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = []
if [r["strategy"] for r in rows][-1:] != ["pure_dp"] or len(rows) != 3:
    bad.append("rows %r" % [r["strategy"] for r in rows])
dp = rows[-1]
if dp["fits"] != "false" or dp["rank"] != "" or int(dp["peak_bytes"]) <= 107814649856:
    bad.append("pure_dp %r" % dp)
if 107814649856 <= 85899345920:
    bad.append("the hand figures")
if [r["rank"] for r in rows[:2]] != ["1", "2"]:
    bad.append("ranks %r" % [r["rank"] for r in rows])
for b in bad:
    print("FAIL: strategies.variants:", b)
sys.exit(1 if bad else 0)
PY
"$bin" --config "$src/configs/sweeps/gpus.json" --sweep cluster.num_nodes=1,2 --only sweep.rows --format csv >"$work/s.csv" 2>"$work/err" || fail "sweep.rows exits $?: $(cat "$work/err")"
python3 - "$work/s.csv" <<'PY' || fails=$((fails + 1))
import csv, sys
raw = open(sys.argv[1], newline="").read()
rows = list(csv.reader(raw.splitlines()))
bad = []
if rows[0][:3] != ["point", "cluster.num_nodes", "status"] or len(rows) != 3:
    bad.append("rows %r" % rows)
if any(len(r) != len(rows[0]) for r in rows) or "#" in raw:
    bad.append("not a plain table")
for b in bad:
    print("FAIL: sweep.rows:", b)
sys.exit(1 if bad else 0)
PY
"$bin" --config "$src/configs/sweeps/gpus.json" --sweep cluster.num_nodes=1,2 --only sweep.rows --format json >"$work/s.json" 2>/dev/null || fail "sweep.rows json exits $?"
grep -q '"only": "sweep.rows"' "$work/s.json" || fail "sweep.rows json: no only"

# 4. errors: exit 2, the reason, the nearest path
err() { # WANT ARGS...
	want=$1
	shift
	"$bin" "$@" >"$work/out" 2>"$work/err"
	code=$?
	[ "$code" = 2 ] || fail "$*: exit $code, want 2"
	[ -s "$work/out" ] && fail "$*: printed a report"
	grep -qF -- "$want" "$work/err" || fail "$*: stderr $(cat "$work/err"), want $want"
}
# 5. a table this run has not (the default config's ep is 1, so no expert
# collectives): every format says it is empty, none leaves the path out
set -- --config "$src/configs/systems.json" --only comm.ep.collectives
"$bin" "$@" --format json >"$work/e.json" 2>"$work/err" || fail "empty table: json exits $?: $(cat "$work/err")"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["comm"] == {"ep": {"collectives": []}} else 1)' \
	"$work/e.json" || fail "empty table: json comm is $(tr -d '\n ' <"$work/e.json")"
"$bin" "$@" --format csv >"$work/e.csv" 2>"$work/err" || fail "empty table: csv exits $?"
[ "$(wc -l <"$work/e.csv")" = 1 ] && head -1 "$work/e.csv" | grep -q '^kind,what,phase,' || fail "empty table: csv $(cat "$work/e.csv")"
"$bin" "$@" >"$work/e.txt" 2>"$work/err" || fail "empty table: table exits $?"
grep -q '^  Expert parallel' "$work/e.txt" && grep -q '^    Collectives$' "$work/e.txt" &&
	grep -q '^      (none in this run)$' "$work/e.txt" || fail "empty table: table format $(cat "$work/e.txt")"
"$bin" "$@" --format markdown >"$work/e.md" 2>"$work/err" || fail "empty table: markdown exits $?"
grep -q '^#### Collectives$' "$work/e.md" && grep -q '(none in this run)' "$work/e.md" || fail "empty table: markdown $(tail -5 "$work/e.md")"
"$bin" "$@" --format html >"$work/e.html" 2>"$work/err" || fail "empty table: html exits $?"
grep -q '<h4>Collectives</h4>' "$work/e.html" && grep -q '(none in this run)' "$work/e.html" || fail "empty table: html $(tail -5 "$work/e.html")"

err "'--only': 'strategies.note' is not a table of experiment 'systems'; its tables: model.keys" --only strategies.note
err "'--only': 'memory.per_rank' is not a table of experiment 'systems'" --only memory.per_rank
err "did you mean 'strategies.variants'?" --only strategies.variant
err "did you mean 'memory.per_rank.phases'?" --only memory.per_rank.phase
err "'--only': 'strategy.variants' is not a table of experiment 'systems'; did you mean 'strategies.variants'?" --only strategy.variants
err "give 'strategies.variants' by itself, without other sections" --only memory,strategies.variants
err "its tables: search.calibrate, search.best, search.pareto" --experiment search --only search.rows
err "a sweep's report has the section 'sweep' and the table 'sweep.rows', not 'memory'" --sweep cluster.num_nodes=2 --only memory
[ "$fails" = 0 ] || exit 1
echo "ok"
