#!/bin/sh
# test_bounds.sh DISTCALC SRCDIR - work and output stay bounded whatever
# the input asks (docs/reliability.md, "Bounded work"): a trace writes at
# most 16384 events a track and counts the rest in otherData, and a budget
# check of a large report finishes in bounded memory.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-bounds.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sys=$src/configs/systems.json

# 1. the trace's cap: 2 stages x 10000 microbatches put 20,000 forward and
# backward ops on each compute track, past the 16384 a track writes
"$bin" --config "$sys" --set parallel.pp=2 --set parallel.dp=1 --set training.grad_accum_steps=10000 \
	--trace "$work/t.json" --output "$work/r.txt" 2>"$work/err" || fail "trace exits $?: $(cat "$work/err")"
python3 - "$work/t.json" <<'PY' || fails=$((fails + 1))
import collections, json, sys
d = json.load(open(sys.argv[1]))
o = d["otherData"]
per = collections.Counter((e["pid"], e["tid"]) for e in d["traceEvents"] if e["ph"] == "X")
bad = []
if o.get("events_per_track_cap") != 16384 or o.get("events_cap") != 2**20:
    bad.append("caps %r, %r, want 16384 and 2^20" % (o.get("events_per_track_cap"), o.get("events_cap")))
if max(per.values()) > 16384:
    bad.append("a track holds %d events" % max(per.values()))
if per[(0, 0)] != 16384:
    bad.append("stage 0's compute track holds %d, want the cap 16384" % per[(0, 0)])
if not o.get("events_not_shown", 0) > 0:
    bad.append("no event counted as not shown")
for b in bad:
    print("FAIL: trace cap: " + b)
sys.exit(1 if bad else 0)
PY

# 2. a budget check streams the report: the ring's every event on 512
# ranks is an 81 MB JSON report, checked in a fraction of that memory
python3 - "$bin" "$sys" <<'PY' || fails=$((fails + 1))
import resource, subprocess, sys
bin, sys_cfg = sys.argv[1:3]
args = [bin, "--config", sys_cfg, "--experiment", "ring", "--all", "--set", "cluster.num_nodes=64",
        "--set", "cluster.gpus_per_node=8", "--set", "parallel.dp=128"]
# the check first: RUSAGE_CHILDREN is the largest child's so far
r = subprocess.run(args + ["--check-max", "ring.time_s=100", "--check-min", "ring.time_s=0"], capture_output=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
size = len(subprocess.run(args + ["--format", "json"], capture_output=True).stdout)
bad = []
if size < 64 << 20:
    bad.append("the report is only %d bytes" % size)
if r.returncode != 0:
    bad.append("the check exits %d: %s" % (r.returncode, r.stderr.decode()))
# the render alone peaks at a few MB; half the report is far above it and far below holding it
if rss > size // 2:
    bad.append("peak memory %d bytes for a %d-byte report" % (rss, size))
for b in bad:
    print("FAIL: streamed budgets: " + b)
sys.exit(1 if bad else 0)
PY

[ "$fails" = 0 ] && echo "ok: bounded"
exit $((fails != 0))
