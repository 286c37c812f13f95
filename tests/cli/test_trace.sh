#!/bin/sh
# test_trace.sh DISTCALC SRCDIR - --trace read back with Python's json
# module: for every shipped config (on an A100 when the config names no
# GPU) the file is Chrome trace-event JSON, every event is named, the
# events of each track never overlap, each stage's compute track tiles
# [0, step] exactly (its events sum to the timeline's step time), the
# timeline's step is within 0.5% of the report's step.time_s (the closed
# form), and a failing --trace leaves no file behind.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-trace.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
for cfg in "$src"/configs/*.json; do
	name=$(basename "$cfg" .json)
	gpu=""
	grep -q '"gpu"' "$cfg" || gpu="--set cluster.gpu=a100-sxm4-80gb"
	# shellcheck disable=SC2086
	"$bin" --config "$cfg" $gpu --only step --format json --trace "$work/$name.trace.json" \
		>"$work/$name.json" 2>/dev/null || { echo "FAIL: $name: exits $?"; fails=$((fails + 1)); continue; }
	python3 - "$work/$name.trace.json" "$work/$name.json" "$name" <<'PY' || fails=$((fails + 1))
import json, sys
from collections import defaultdict

trace_path, report_path, name = sys.argv[1:4]
trace = json.load(open(trace_path))
report = json.load(open(report_path))
bad = []
step = trace["otherData"]["step_time_s"]
closed = report["step"]["time_s"]
if abs(step - closed) > 0.005 * closed:
    bad.append("timeline %.9g s vs closed form %.9g s: more than 0.5%% apart" % (step, closed))
if trace["otherData"]["step_time_closed_form_s"] != closed:
    bad.append("otherData.step_time_closed_form_s is not the report's step.time_s")
tracks = defaultdict(list)
names = set()
for e in trace["traceEvents"]:
    if e["ph"] == "M":
        if e["name"] in ("process_name", "thread_name"):
            names.add((e["name"], e["pid"], e.get("tid")))
        continue
    if e["ph"] != "X" or not e.get("name") or e["dur"] <= 0:
        bad.append("event without a name or a duration: %r" % e)
        continue
    tracks[(e["pid"], e["tid"])].append((e["ts"], e["dur"], e["name"]))
step_us = step * 1e6
tol = 1e-9 * step_us + 1e-6
for (pid, tid), evs in sorted(tracks.items()):
    if ("process_name", pid, None) not in names or ("thread_name", pid, tid) not in names:
        bad.append("pid %d tid %d has no name" % (pid, tid))
    evs.sort()
    for a, b in zip(evs, evs[1:]):
        if a[0] + a[1] > b[0] + tol:
            bad.append("pid %d tid %d: '%s' overlaps '%s'" % (pid, tid, a[2], b[2]))
            break
    if evs[0][0] < -tol or evs[-1][0] + evs[-1][1] > step_us + tol:
        bad.append("pid %d tid %d: events outside [0, step]" % (pid, tid))
    if tid == 0:
        total = sum(d for _, d, _ in evs)
        gaps = evs[0][0] + sum(max(0.0, b[0] - (a[0] + a[1])) for a, b in zip(evs, evs[1:]))
        end = evs[-1][0] + evs[-1][1]
        if abs(total - step_us) > 1e-6 * step_us or gaps > 1e-6 * step_us or abs(end - step_us) > tol:
            bad.append("stage %d: compute events sum to %.9g us, gaps %.3g us, end %.9g us; the step is %.9g us"
                       % (pid, total, gaps, end, step_us))
if not any(tid == 0 for _, tid in tracks):
    bad.append("no compute track")
for b in bad[:10]:
    print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
PY
done

# a trace that cannot be written leaves nothing and fails with exit 5
"$bin" --config "$src/configs/korthikanti-22b.json" --set cluster.gpu=a100-sxm4-80gb --only step \
	--trace "$work/no/such/dir/t.json" >/dev/null 2>"$work/err"
rc=$?
[ "$rc" -eq 5 ] || { echo "FAIL: unwritable --trace exits $rc, not 5"; fails=$((fails + 1)); }
# --trace onto the config it reads is refused
cp "$src/configs/korthikanti-22b.json" "$work/c.json"
"$bin" --config "$work/c.json" --trace "$work/c.json" >/dev/null 2>"$work/err"
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: --trace onto the config exits $rc, not 2"; fails=$((fails + 1)); }
cmp -s "$src/configs/korthikanti-22b.json" "$work/c.json" || { echo "FAIL: --trace overwrote its config"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "ok: trace files parse, tracks tile, timeline within 0.5% of the closed form"
exit "$fails"
