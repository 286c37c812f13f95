#!/bin/sh
# test_csv.sh DISTCALC SRCDIR - the CSV sink read back with a real CSV
# reader (Python's csv module): for every shipped config, every block
# parses as RFC 4180, every scalar equals the JSON report's field at the
# same path (a number written as docs/output.md says: the shortest
# %.15g..%.17g text that reads back), every table has every row (no excerpt) with the JSON rows'
# values, and --only keeps only the sections asked for.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-csv.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
for cfg in "$src"/configs/*.json; do
	name=$(basename "$cfg" .json)
	"$bin" --config "$cfg" --seed 7 --all --format csv >"$work/$name.csv" 2>/dev/null || { echo "FAIL: $name: csv exits $?"; fails=$((fails + 1)); continue; }
	"$bin" --config "$cfg" --seed 7 --all --format json >"$work/$name.json" 2>/dev/null || { echo "FAIL: $name: json exits $?"; fails=$((fails + 1)); continue; }
	python3 - "$work/$name.csv" "$work/$name.json" "$name" <<'PY' || fails=$((fails + 1))
import csv, io, json, sys

csv_path, json_path, name = sys.argv[1:4]
raw = open(csv_path, newline="").read()
report = json.load(open(json_path))
bad = []

# docs/output.md, "Numbers in JSON and CSV": the shortest of %.15g,
# %.16g and %.17g that reads back, "0" for zero
def shortest(v):
    if v == 0:
        return "0"
    for p in (15, 16, 17):
        s = "%.*g" % (p, v)
        if float(s) == v:
            break
    return s

def same(text, value):
    if value is None:
        return text == ""
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, int):
        return text == str(value)
    if isinstance(value, float):
        return text == shortest(value)
    return text == value

# blocks: "# ..." lines start them
blocks, header, cur = [], {}, None
for line in raw.split("\r\n"):
    if line.startswith("# section: ") or line.startswith("# table: "):
        cur = [line, []]
        blocks.append(cur)
    elif line.startswith("# excerpt: "):
        cur.append(line)  # the ring's O(p^2) events beside other sections
    elif line.startswith("# "):
        k, _, v = line[2:].partition(": ")
        header[k] = json.loads(v)  # each a JSON value ("all": true)
    elif line == "":
        continue
    else:
        cur[1].append(line)
for k in ("distcalc_version", "experiment", "config", "seed", "all"):
    if header.get(k) != report[k]:
        bad.append("header %s: %r vs %r" % (k, header.get(k), report[k]))
if not raw.endswith("\r\n"):
    bad.append("no CRLF at the end")

def at(path):
    node = report
    for p in path:
        node = node[p]
    return node

seen_sections = []
for block in blocks:
    head, lines = block[0], block[1]
    rows = list(csv.reader(io.StringIO("\r\n".join(lines) + "\r\n")))
    if head.startswith("# section: "):
        sec = head[len("# section: "):]
        seen_sections.append(sec)
        if rows[0] != ["key", "value", "unit"]:
            bad.append(sec + ": header row " + repr(rows[0]))
        for key, value, unit in rows[1:]:
            want = at([sec] + key.split("."))
            if not same(value, want):
                bad.append("%s.%s: csv %r json %r" % (sec, key, value, want))
            if key.endswith("_bytes") and unit != "B":
                bad.append("%s.%s: unit %r" % (sec, key, unit))
            # a rate (tokens_per_s) is per second, not seconds
            if key.endswith("_s") and not key.endswith("_per_s") and unit != "s":
                bad.append("%s.%s: unit %r" % (sec, key, unit))
    else:
        path = head[len("# table: "):].split(".")
        want = at(path)
        if path == ["warnings"]:
            got = [r[0] for r in rows[1:]]
            if rows[0] != ["text"] or got != want:
                bad.append("warnings: %r vs %r" % (got, want))
            continue
        if len(block) > 2 and path[-1] + "_omitted" not in at(path[:-1]):
            bad.append("%s: csv excerpt, json whole" % ".".join(path))
        if len(rows) - 1 != len(want):
            bad.append("%s: %d rows, json %d" % (".".join(path), len(rows) - 1, len(want)))
            continue
        for r, w in zip(rows[1:], want):
            if isinstance(w, list):  # a process group: index, members
                if r[1] != " ".join(str(x) for x in w):
                    bad.append("%s: group %s" % (".".join(path), r[0]))
                continue
            if rows[0] != list(w.keys()):
                bad.append("%s: columns %r vs %r" % (".".join(path), rows[0], list(w.keys())))
                break
            for k, v in zip(rows[0], r):
                if not same(v, w[k]):
                    bad.append("%s.%s: csv %r json %r" % (".".join(path), k, v, w[k]))
want_sections = [k for k, v in report.items() if isinstance(v, dict)]
if seen_sections != want_sections:
    bad.append("sections %r vs %r" % (seen_sections, want_sections))
for b in bad[:10]:
    print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
PY
done
# the README's pandas one-liner, as written, against a stand-in for pandas
# (read_csv over the csv module, refusing a "#" line) so that the table is
# plain CSV
mkdir -p "$work/py/pandas"
cat >"$work/py/pandas/__init__.py" <<'PY'
import csv, io
def read_csv(f, comment=None):
    lines = f.read().splitlines()
    if comment is not None or any(l.startswith("#") for l in lines):
        raise SystemExit("stand-in read_csv: the table is not plain CSV (or comment= was needed)")
    rows = list(csv.reader(lines))
    if rows[0][:2] != ["rank", "strategy"] or len(rows) != 4 or any(len(r) != len(rows[0]) for r in rows):
        raise SystemExit("stand-in read_csv: not the variants table: %r" % rows[:1])
    return "\n".join(",".join(r) for r in rows)
PY
line=$(grep -F 'pandas as pd' "$src/README.md" | sed -e 's/^ *//' -e "s#^\./build/distcalc#\"$bin\"#")
case $line in "\"$bin\""*) ;; *) echo "FAIL: no pandas one-liner in README.md"; fails=$((fails + 1)); line=false ;; esac
out=$(cd "$src" && export PYTHONPATH="$work/py" && eval "$line" 2>/dev/null)
case $out in *configured,tp4*) ;; *) echo "FAIL: README pandas one-liner: $out"; fails=$((fails + 1)) ;; esac
# --only: the sections asked for, nothing else
out=$("$bin" --only strategies,batch --format csv 2>/dev/null)
secs=$(printf '%s\n' "$out" | grep '^# section: ' | tr -d '\r' | tr '\n' ' ')
[ "$secs" = "# section: batch # section: strategies " ] || { echo "FAIL: --only csv sections: $secs"; fails=$((fails + 1)); }
printf '%s\n' "$out" | grep -q '^# distcalc_version' || { echo "FAIL: --only csv lost its header comments"; fails=$((fails + 1)); }
printf '%s\n' "$out" | grep -q '^# table: warnings' && { echo "FAIL: --only csv keeps the warnings"; fails=$((fails + 1)); }
# the header comments are the JSON header's values: "all": true is "# all: true"
"$bin" --all --only batch --format csv 2>/dev/null | tr -d '\r' | grep -qx '# all: true' ||
	{ echo "FAIL: --all csv header: $("$bin" --all --only batch --format csv 2>/dev/null | grep '^# all')"; fails=$((fails + 1)); }
# a model.keys value holding '"', ',', '<' (a --model path): the same text
# in every format, as model.hf_config shows it (no backslash; CSV's value
# cell the text, not its JSON), and its origin is --model, as the keys the
# file fills
mpath="$work/m,o\"d<e>l.json"
cp "$src/configs/models/llama-3-8b.json" "$mpath"
for f in json csv table markdown html; do
	"$bin" --model "$mpath" --only model --format $f >"$work/quote.$f" 2>/dev/null || { echo "FAIL: quote: $f exits $?"; fails=$((fails + 1)); }
done
python3 - "$work" "$mpath" <<'PY' || fails=$((fails + 1))
import csv, html, io, json, sys
work, path = sys.argv[1:3]
bad = []
j = json.load(open(work + "/quote.json"))
row = [r for r in j["model"]["keys"] if r["key"] == "model.hf_config"][0]
for k in ("value", "text"):
    if row[k] != path:
        bad.append("json %s: %r" % (k, row[k]))
if row["origin"] != "--model":
    bad.append("json origin: %r" % row["origin"])
if j["model"]["hf_config"] != path:
    bad.append("json hf_config: %r" % j["model"]["hf_config"])
raw = open(work + "/quote.csv", newline="").read()
rows = list(csv.reader(io.StringIO(raw)))
keys = [r for r in rows if r and r[0] == "model.hf_config"]
if not keys or keys[0][1] != path or keys[0][2] != path or keys[0][4] != "--model":
    bad.append("csv keys row: %r" % (keys[:1],))
for f in ("table", "markdown"):
    t = open(work + "/quote." + f).read()
    if "\\" in t or t.count(path.replace("<", "&lt;") if f == "markdown" else path) < 2:
        bad.append("%s: the path is not shown twice as it is" % f)
t = html.unescape(open(work + "/quote.html").read())
if "\\" in t or t.count(path) < 2:
    bad.append("html: the path is not shown twice as it is")
for b in bad:
    print("FAIL: quote: " + b)
sys.exit(1 if bad else 0)
PY
[ "$fails" = 0 ] && echo "ok: csv reads back for every config" && exit 0
exit 1
