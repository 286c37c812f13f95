#!/bin/sh
# test_doc.sh DISTCALC SRCDIR - --format markdown and --format html.
#
# Markdown: every experiment's report parses as GitHub-flavoured tables:
# each table's header, delimiter row and every row have the same number of
# cells (pipes escaped inside a cell do not count), the delimiter row is
# dashes, and the summary's figures are the ones worked by hand in
# docs/formulas-systems.md (peak 37,884,542,976 B, 80 GiB, fits).
# HTML: one self-contained page (no script, nothing fetched: no src= or
# href= to anything, no url()), balanced tags, the summary before the
# chart, the chart inline. The browser render is test_plot_browser.sh's.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-doc.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sys=$src/configs/systems.json

for e in systems ring collectives whatif checkpoint loss search; do
	"$bin" --config "$sys" --experiment "$e" --format markdown >"$work/$e.md" 2>"$work/err" ||
		fail "$e: markdown exits $?: $(cat "$work/err")"
	"$bin" --config "$sys" --experiment "$e" --format html --output "$work/$e.html" 2>"$work/err" ||
		fail "$e: html exits $?: $(cat "$work/err")"
done
"$bin" --config "$src/configs/sweeps/gpus.json" --sweep cluster.num_nodes=1,2,4 --format markdown >"$work/sweep.md" \
	2>"$work/err" || fail "sweep: markdown exits $?: $(cat "$work/err")"
"$bin" --config "$sys" --format bogus >/dev/null 2>"$work/err"
[ $? = 2 ] || fail "--format bogus: not a usage error"
grep -q "'markdown' or 'html'" "$work/err" || fail "--format bogus: the error does not list markdown and html"

# the README's synopsis lists every option --help documents
"$bin" --help >"$work/help.txt" 2>&1
python3 - "$work/help.txt" "$src/README.md" <<'PY' || fails=$((fails + 1))
import re, sys
helptext = open(sys.argv[1]).read()
readme = open(sys.argv[2]).read()
start = readme.index("\n    distcalc [")
synopsis = readme[start:readme.index("\n\n", start)]
opts = sorted(set(re.findall(r"^\s+(?:-\w, )?(--[a-z-]+)", helptext, re.M)))
missing = [o for o in opts if o not in synopsis]
if len(opts) < 15 or missing:
    print(f"FAIL: README synopsis lacks {missing} (of {len(opts)} options in --help)")
    sys.exit(1)
PY

# --help says what the README says: every exit status the README's table
# lists, the options its row for 6 names (--check-min was missing), and
# every model family the README says distcalc reads (--model listed fewer)
python3 - "$work/help.txt" "$src/README.md" <<'PY' || fails=$((fails + 1))
import re, sys
helptext = open(sys.argv[1]).read()
readme = open(sys.argv[2]).read()
bad = []
status = helptext[helptext.index("\nexit status:\n"):]
status = status[:status.index("\n\n", 1)]
rows = dict(re.findall(r"^\| (\d) \| (.*) \|$", readme, re.M))
help_rows = dict(re.findall(r"^  (\d)  (.*(?:\n     .*)*)", status, re.M))
if sorted(rows) != sorted(help_rows) or len(rows) < 7:
    bad.append(f"exit codes: README {sorted(rows)}, --help {sorted(help_rows)}")
for opt in re.findall(r"--[a-z-]+", rows.get("6", "")):
    if opt not in help_rows.get("6", ""):
        bad.append(f"exit 6: --help does not name {opt}")
start = readme.index("distcalc\nreads ")
families = readme[start + len("distcalc\nreads "):readme.index(", with their", start)]
families = re.sub(r"\s*\([^)]*\)", "", " ".join(families.split()))
model = helptext[helptext.index("-m, --model"):helptext.index("\n      --from-megatron")]
model = " ".join(model.split())
for f in re.split(r", (?:and )?| and ", families):
    if not re.search(r"(?<![\w/-])" + re.escape(f) + r"(?![\w/-])", model):
        bad.append(f"--model: no family {f!r} (README: {families})")
for b in bad:
    print("FAIL: " + b)
sys.exit(1 if bad else 0)
PY

python3 - "$work" <<'PY' || fails=$((fails + 1))
import glob, re, sys
from html.parser import HTMLParser
work = sys.argv[1]
bad = []

def cells(line):
    """The cells of a GitHub table row: split at pipes not escaped."""
    body = line.strip()
    if not (body.startswith("|") and body.endswith("|")):
        return None
    parts = re.split(r"(?<!\\)\|", body[1:-1])
    return [p.strip() for p in parts]

for path in sorted(glob.glob(work + "/*.md")):
    lines = open(path).read().split("\n")
    tables, i = 0, 0
    while i < len(lines):
        if lines[i].startswith("|"):
            head = cells(lines[i])
            delim = cells(lines[i + 1]) if i + 1 < len(lines) else None
            if head is None or delim is None or not all(re.fullmatch(r"-{3,}:?", c) for c in delim):
                bad.append(f"{path}:{i + 1}: a table without a delimiter row")
                break
            if len(delim) != len(head):
                bad.append(f"{path}:{i + 2}: delimiter has {len(delim)} cells, header {len(head)}")
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                row = cells(lines[i])
                if row is None or len(row) != len(head):
                    bad.append(f"{path}:{i + 1}: {0 if row is None else len(row)} cells, header {len(head)}")
                i += 1
            tables += 1
            if i < len(lines) and lines[i] != "":
                bad.append(f"{path}:{i + 1}: no blank line after a table")
        else:
            i += 1
    if tables < 2:
        bad.append(f"{path}: {tables} tables")
    print(f"{path.split('/')[-1]}: {tables} tables")

md = open(work + "/systems.md").read()
for want in ("## Summary", "| fits in GPU memory (every rank) | yes |",
             "| peak memory of the most loaded rank | 35.283 GiB (37,884,542,976 B) |",
             "| GPU memory | 80.000 GiB (85,899,345,920 B) |"):
    if want not in md:
        bad.append(f"systems.md: no '{want}'")

class Check(HTMLParser):
    VOID = {"meta", "br", "img", "hr", "input", "link", "circle", "line", "rect", "polyline", "path"}
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.order, self.text = [], [], [], []
    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.errors.append("a <script>")
        for k, v in attrs:
            if k in ("src", "href") or (v and "url(" in v):
                self.errors.append(f"<{tag} {k}={v}>: fetches something")
        if tag == "h2":
            self.order.append("h2")
        if tag == "svg":
            self.order.append("svg")
        if tag not in self.VOID:
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href"):
                self.errors.append(f"<{tag} {k}>: fetches something")
    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
        else:
            self.stack.pop()
    def handle_data(self, data):
        self.text.append(data)

for path in sorted(glob.glob(work + "/*.html")):
    page = open(path).read()
    c = Check()
    c.feed(page)
    name = path.split("/")[-1]
    if not page.startswith("<!DOCTYPE html>"):
        bad.append(f"{name}: no doctype")
    for e in c.errors[:5]:
        bad.append(f"{name}: {e}")
    if c.stack:
        bad.append(f"{name}: unclosed {c.stack}")
    if "url(" in page.split("<style>")[1].split("</style>")[0]:
        bad.append(f"{name}: the style fetches something")
    if "<svg" not in page:
        bad.append(f"{name}: no inline chart")
page = open(work + "/systems.html").read()
if page.index("Summary") > page.index("<svg"):
    bad.append("systems.html: the summary is not before the chart")
if "fits in GPU memory (every rank)</td><td>yes</td>" not in page:
    bad.append("systems.html: the fit verdict is not in the summary")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ "$fails" = 0 ] && echo "ok: doc"
exit $((fails > 0))
