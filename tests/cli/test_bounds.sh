#!/bin/sh
# test_bounds.sh DISTCALC SRCDIR - work and output stay bounded whatever
# the input asks (docs/reliability.md, "Bounded work"): a trace shows 16
# stages and 32 microbatches whatever pp and the accumulation, the rest
# summarised, and a budget check or a --check of a large report finishes
# in bounded memory.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
# GNU time reports the peak of the process it starts alone (its %M), not
# counting the pages of a Python parent a forked child starts with; without
# it (package time, scripts/deps.sh installs it as root) the child's peak
# comes from getrusage and includes those pages, under a looser bound
[ -x /usr/bin/time ] || echo "note: no /usr/bin/time; the --check peak is measured with getrusage (bound 32 MiB)"
# an AddressSanitizer build's resident set is its shadow memory and
# quarantine, not the program's: the peak bound of part 3 is skipped there
DC_SANITIZED=0
grep -q __asan_init "$bin" 2>/dev/null && DC_SANITIZED=1 && echo "note: a sanitizer build; the --check peak bound is skipped"
export DC_SANITIZED
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-bounds.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sys=$src/configs/systems.json

# 1. the trace is bounded by what it shows, not by pp x accumulation: pp
# 256 with 10^6 microbatches (2.56 x 10^8 model chunks, 8 GB of timeline
# before the bound) shows 16 stages (0-7, 248-255), each up to its
# backward of microbatch 32, and one summary span for the rest of each:
# under 1F1B stage s runs 255 - s warm-up forwards, then 32 forward-
# backward pairs and the forward of microbatch 287 - s before that
# backward, so it shows (255 - s) + 65 ops and summarises
# 2 x 10^6 - (255 - s) - 65. Work and memory are bounded by counts, not
# by time: the file under 8 MiB, fewer than 2^15 events, 288 microbatches
# simulated (32 + 256), peak memory under 256 MiB.
python3 - "$bin" "$sys" "$work/t.json" <<'PY' || fails=$((fails + 1))
import collections, json, resource, subprocess, sys, os
bin, sys_cfg, out = sys.argv[1:4]
r = subprocess.run([bin, "--config", sys_cfg, "--set", "parallel.pp=256", "--set", "parallel.dp=1",
                    "--set", "cluster.num_nodes=256", "--set", "model.num_layers=256",
                    "--set", "training.grad_accum_steps=1000000", "--only", "summary", "--trace", out],
                   capture_output=True)
bad = []
if r.returncode != 0:
    print("FAIL: trace bound: exits %d: %s" % (r.returncode, r.stderr.decode()))
    sys.exit(1)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
size = os.path.getsize(out)
d = json.load(open(out))
o = d["otherData"]
if size >= 8 << 20:
    bad.append("the trace is %d bytes, not under 8 MiB" % size)
if len(d["traceEvents"]) >= 1 << 15:
    bad.append("%d events, not under 2^15" % len(d["traceEvents"]))
if rss >= 256 << 20:
    bad.append("peak memory %d bytes, not under 256 MiB" % rss)
caps = o.get("caps", {})
if caps != {"stages": 16, "microbatches": 32, "simulated_chunks": 2**18, "events_per_track": 16384, "events": 2**20}:
    bad.append("caps %r" % caps)
if o.get("microbatches_simulated") != 288 or o.get("step_from_closed_form") is not True:
    bad.append("simulated %r microbatches, closed form %r" % (o.get("microbatches_simulated"), o.get("step_from_closed_form")))
hid = dict(o.get("stages_not_shown", {}))
cls = hid.pop("classes", [])
if hid != {"count": 240, "first": 8, "last": 247, "ranks": 960}:
    bad.append("stages not shown %r" % hid)
# the hidden stages' classes cover 8..247 with every one of their 960 ranks
if not cls or cls[0]["stage_first"] != 8 or cls[-1]["stage_last"] != 247 or \
        any(a["stage_last"] + 1 != b["stage_first"] for a, b in zip(cls, cls[1:])) or \
        sum(c["ranks"] for c in cls) != 960 or any(c["compute_s"] <= 0 or c["step_s"] != o["step_time_s"] for c in cls):
    bad.append("hidden classes %r" % cls)
summ = {e["pid"]: e for e in d["traceEvents"] if e.get("cat") == "summary"}
want = list(range(8)) + list(range(248, 256))
if sorted(summ) != want:
    bad.append("summaries on stages %r" % sorted(summ))
for s in summ:
    ops = 2 * 10**6 - (255 - s) - 65
    if summ[s]["args"]["ops"] != ops:
        bad.append("stage %d summarises %d ops, want %d" % (s, summ[s]["args"]["ops"], ops))
if o.get("summarised_ops") != sum(2 * 10**6 - (255 - s) - 65 for s in want):
    bad.append("summarised_ops %r" % o.get("summarised_ops"))
for b in bad:
    print("FAIL: trace bound: " + b)
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

# 3. --check against a stored report streams both: the ring's every event
# on 256 ranks is a 21 MB report; held as a tree it took 185 MB, streamed
# a few MB. Checked against itself (0 moved), then against a copy with one
# event's time changed (exit 6, that one line)
ring="--config $sys --experiment ring --all --set cluster.num_nodes=32 --set cluster.gpus_per_node=8 --set parallel.dp=64"
# shellcheck disable=SC2086
"$bin" $ring --format json --output "$work/ring.json" 2>"$work/err" || fail "ring report exits $?: $(cat "$work/err")"
python3 - "$bin" "$work" $ring <<'PY' || fails=$((fails + 1))
import json, os, subprocess, sys
bin, work, ring = sys.argv[1], sys.argv[2], sys.argv[3:]
size = os.path.getsize(work + "/ring.json")
# the child's own peak, from GNU time started alone (RUSAGE_CHILDREN would
# count the Python pages the forked child holds before its exec, ~14 MB)
gnu_time = os.access("/usr/bin/time", os.X_OK)
if gnu_time:
    r = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", work + "/rss", bin] + ring + ["--check", work + "/ring.json"],
                       capture_output=True)
    rss = int(open(work + "/rss").read().split()[-1]) * 1024
else:
    import resource
    r = subprocess.run([bin] + ring + ["--check", work + "/ring.json"], capture_output=True)
    # ru_maxrss is in KiB on Linux: the largest child waited for, this one
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
limit = (16 if gnu_time else 32) << 20
bad = []
if size < 16 << 20:
    bad.append("the report is only %d bytes" % size)
if r.returncode != 0 or b"0 moved" not in r.stderr or r.stdout:
    bad.append("checked against itself: exit %d, %r" % (r.returncode, r.stderr.decode()))
# a tree of the stored report was about 9 times its size (185 MB);
# streamed, the windows, the channel and the renderer's buffer: 3.5 MB
# (/usr/bin/time): 16 MiB is far above that and far below the tree
if rss > limit and os.environ.get("DC_SANITIZED") != "1":
    bad.append("peak memory %d bytes checking a %d-byte report" % (rss, size))
d = json.load(open(work + "/ring.json"))
ev = d["ring"]["events"][100]
key = [k for k in ev if k.endswith("_s")][0]
ev[key] = ev[key] * 2 + 1
open(work + "/moved.json", "w").write(json.dumps(d, indent=2))
r = subprocess.run([bin] + ring + ["--check", work + "/moved.json"], capture_output=True)
lines = r.stdout.decode().splitlines()
if r.returncode != 6 or len(lines) != 1 or not lines[0].startswith("ring.events[100].%s: expected " % key):
    bad.append("one moved event: exit %d, %r" % (r.returncode, lines[:3]))
# the stored report is read as strictly as a small one: a header key twice,
# a file cut short
text = open(work + "/ring.json").read()
for name, body, want in [("dup", text.replace('"experiment"', '"experiment": "x", "experiment"', 1),
                          "duplicate key 'experiment'"),
                         ("cut", text[: len(text) // 2], "not JSON near byte")]:
    open(work + "/" + name + ".json", "w").write(body)
    r = subprocess.run([bin] + ring + ["--check", work + "/" + name + ".json"], capture_output=True)
    if r.returncode != 4 or want not in r.stderr.decode() or r.stdout:
        bad.append("%s: exit %d, %r" % (name, r.returncode, r.stderr.decode()[:300]))
for b in bad:
    print("FAIL: streamed check: " + b)
sys.exit(1 if bad else 0)
PY

# 4. the step of DualPipe and DualPipeV is bounded whatever the
# accumulation (docs/step-model.md, "DualPipe past the bound"): above 2^18
# chunks (2pp x grad_accum_steps) a prefix is simulated and every rank's
# end moved on by its steady state's cycle. Whole, 2^24 microbatches on pp
# 2 took 4.7 GB; bounded, the prefix of 2^18 / 4 = 65536 microbatches (and
# under 840 pairs more) holds about 20 MB. The most this config takes, by
# hand: a DualPipe rank holds two stages of 16 layers, each run by m / 2
# microbatches, a DualPipeV rank two chunks of 8, each run by m, so either
# makes 2 AllReduces a layer each way, 64 m a step, of 4096 x 4096 x 2 B
# on tp 4, 2 x 3/4 x 33,554,432 = 50,331,648 B each, and pipeline sends of
# 33,554,432 B, m a step (DualPipe, m / 2 each way) or 2m (DualPipeV):
# 3,254,779,904 and 3,288,334,336 B a microbatch. The model's ends
# (src/axis/tp.c ends_calls) on the tp group: the embedding's AllReduce
# forward and the head's input gradient's backward, 50,331,648 B each, and
# the loss's 3 AllReduces of 4 x 4096 = 16,384 B (sending 24,576); a
# DualPipe rank holds both ends, each for m / 2 microbatches, a DualPipeV
# rank 0 both for m: + 50,368,512 and + 100,737,024 B a microbatch,
# 3,305,148,416 and 3,389,071,360. (2^64 - 1) over those is 5581215046
# (DualPipe, even) and 5443008456 (DualPipeV); the next count each takes
# overflows the step's communication bytes (exit 3). Each run alone under its own python3 parent, its peak from getrusage
# (RUSAGE_CHILDREN: the one child) under 64 MiB; work, not wall-clock. The
# step grows by the steady state's time a microbatch: 2^24 microbatches take
# 16 times 2^20's less the fixed warm-up, cool-down and optimizer (under 1%
# of 2^20's), so between 15.8 and 16 times.
for run in dualpipe:5581215046:5581215048 dualpipev:5443008456:5443008457; do
	sched=${run%%:*}
	most=${run#*:}
	over=${most#*:}
	most=${most%:*}
	for m in 1048576 16777216 "$most" "$over"; do
		python3 - "$bin" "$sys" "$sched" "$m" "$work/step-$sched-$m" "$over" <<'PY' || fails=$((fails + 1))
import json, math, os, resource, subprocess, sys
bin, sys_cfg, sched, m, out, over = sys.argv[1:7]
r = subprocess.run([bin, "--config", sys_cfg, "--set", "parallel.pipeline_schedule=" + sched,
                    "--set", "parallel.pp=2", "--set", "parallel.dp=1", "--set", "training.grad_accum_steps=" + m,
                    "--only", "step", "--format", "json"], capture_output=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
bad = []
if m == over:
    if r.returncode != 3 or b"overflow 64 bits" not in r.stderr:
        bad.append("exit %d, %r" % (r.returncode, r.stderr.decode()[:300]))
elif r.returncode != 0:
    bad.append("exit %d: %s" % (r.returncode, r.stderr.decode()[:300]))
else:
    t = json.loads(r.stdout)["step"]["time_s"]
    if not (t > 0 and math.isfinite(t)):
        bad.append("step time %r" % t)
    open(out, "w").write(repr(t))
# an AddressSanitizer build adds its shadow memory and quarantine (about
# 50 MB here): 256 MiB there, still far below the whole schedule's 4.7 GB
limit = (256 if os.environ.get("DC_SANITIZED") == "1" else 64) << 20
if rss >= limit:
    bad.append("peak memory %d bytes, not under %d MiB" % (rss, limit >> 20))
for b in bad:
    print("FAIL: %s step at %s microbatches: %s" % (sched, m, b))
sys.exit(1 if bad else 0)
PY
	done
	python3 - "$work/step-$sched-1048576" "$work/step-$sched-16777216" "$sched" <<'PY' || fails=$((fails + 1))
import sys
try:
    a, b = (float(open(f).read()) for f in sys.argv[1:3])
except (OSError, ValueError):
    print("FAIL: %s: no step times to compare" % sys.argv[3])
    sys.exit(1)
if not 15.8 <= b / a <= 16:
    print("FAIL: %s: 2^24 microbatches take %r s, %.6f times 2^20's %r s" % (sys.argv[3], b, b / a, a))
    sys.exit(1)
PY
done

# a steady phase that has not settled in the prefix (the course model's
# DualPipeV on pp 16: a long transient) takes the max-plus power of its
# steady pair, (2pp + 1)^3 log t: exit 0 at 2^24 under 64 MiB
python3 - "$bin" "$sys" <<'PY' || fails=$((fails + 1))
import os, resource, subprocess, sys
bin, sys_cfg = sys.argv[1:3]
r = subprocess.run([bin, "--config", sys_cfg, "--set", "parallel.pipeline_schedule=dualpipev",
                    "--set", "parallel.pp=16", "--set", "parallel.dp=1", "--set", "cluster.num_nodes=16",
                    "--set", "training.grad_accum_steps=16777216", "--only", "step"], capture_output=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
bad = []
if r.returncode != 0:
    bad.append("exit %d, %r" % (r.returncode, r.stderr.decode()[:300]))
limit = (256 if os.environ.get("DC_SANITIZED") == "1" else 64) << 20
if rss >= limit:
    bad.append("peak memory %d bytes, not under %d MiB" % (rss, limit >> 20))
for b in bad:
    print("FAIL: dualpipev pp 16 at 2^24: " + b)
sys.exit(1 if bad else 0)
PY

# 5. the step of interleaved chunks of unequal cost is bounded whatever the
# accumulation (docs/step-model.md, "Uneven interleaved chunks past the
# bound"): above 2^18 chunks (pp x v x grad_accum_steps) a prefix of 24
# microbatches (pp 4, v 2: stage 0's 10 warm-up forwards and 4 x 8 + 4
# steady pairs, over v, to a multiple of pp) is simulated and every
# stage's end is the max-plus power of its steady period (pp
# microbatches) applied to it. Whole, 2^20 microbatches took 1.0 GB and
# 2^22 4.2 GB (about 1 KB a microbatch: 2^24 would take 17 GB); bounded a
# few MB. Peak under 64 MiB (256 MiB in an AddressSanitizer build), exit
# 0, and the step grows by the steady period's time a microbatch: 2^24
# microbatches take 16 times 2^20's less the fixed warm-up, cool-down and
# optimizer, between 15.8 and 16 times. The same of 1F1B on those stages
# (v 1; docs/step-model.md, "Uneven 1F1B past the bound": a prefix of 24
# microbatches, stage 0's 3 warm-up forwards and 4 x 4 + 4 steady pairs,
# raised to m's class modulo pp), which no longer warns that it takes
# its closed form: stderr empty. And of ZB-H1 on those stages ("zb":
# docs/step-model.md, "ZB-H1 past the bound": the same prefix, steady
# triples of F, BX and W), which took its closed form past 2^18 before
# stop 57 and warned: stderr empty.
for v in 2 1 zb; do
	for m in 1048576 16777216; do
		python3 - "$bin" "$sys" "$m" "$work/uneven-$v-$m" "$v" <<'PY' || fails=$((fails + 1))
import json, math, os, resource, subprocess, sys
bin, sys_cfg, m, out, v = sys.argv[1:6]
what = {"1": "uneven 1F1B", "zb": "ZB-H1"}.get(v, "uneven interleaved")
sched = ["--set", "parallel.pipeline_schedule=zero_bubble"] if v == "zb" else []
r = subprocess.run([bin, "--config", sys_cfg, "--set", "parallel.pp=4", "--set", "parallel.dp=1",
                    "--set", "cluster.num_nodes=4", "--set", "parallel.virtual_pipeline=" + ("1" if v == "zb" else v),
                    "--set", "parallel.pipeline_layers=[10,8,8,6]", "--set", "training.grad_accum_steps=" + m,
                    "--only", "step", "--format", "json"] + sched, capture_output=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
bad = []
if r.returncode != 0:
    bad.append("exit %d: %s" % (r.returncode, r.stderr.decode()[:300]))
else:
    t = json.loads(r.stdout)["step"]["time_s"]
    if not (t > 0 and math.isfinite(t)):
        bad.append("step time %r" % t)
    open(out, "w").write(repr(t))
    if r.stderr:
        bad.append("stderr not empty: %s" % r.stderr.decode()[:300])
limit = (256 if os.environ.get("DC_SANITIZED") == "1" else 64) << 20
if rss >= limit:
    bad.append("peak memory %d bytes, not under %d MiB" % (rss, limit >> 20))
for b in bad:
    print("FAIL: %s step at %s microbatches: %s" % (what, m, b))
sys.exit(1 if bad else 0)
PY
	done
	python3 - "$work/uneven-$v-1048576" "$work/uneven-$v-16777216" "$v" <<'PY' || fails=$((fails + 1))
import sys
what = {"1": "uneven 1F1B", "zb": "ZB-H1"}.get(sys.argv[3], "uneven interleaved")
try:
    a, b = (float(open(f).read()) for f in sys.argv[1:3])
except (OSError, ValueError):
    print("FAIL: %s: no step times to compare" % what)
    sys.exit(1)
if not 15.8 <= b / a <= 16:
    print("FAIL: %s: 2^24 microbatches take %r s, %.6f times 2^20's %r s" % (what, b, b / a, a))
    sys.exit(1)
PY
done

# 5b. deep pipelines extend too, in a few MB: until stop 67 the extension
# kept a max-plus form of every op after its cut (pp 64, v 8: 379 MB by
# its estimate, refused above 256 MiB), so uneven interleaving at pp 64,
# v 8 refused past 2 x 2^18 chunks (exit 3) and uneven 1F1B at pp 120
# took its closed form with a warning; the forms in flight alone are kept
# now (a few hundred of them). Uneven interleaved pp 64, v 8 at 65,536
# microbatches (2^25 chunks) and uneven 1F1B pp 120 at 2^20: exit 0, no
# pipeline_schedule warning (the memory warning of these toy layouts
# stays), peak under 64 MiB (256 MiB sanitized). Their agreement with the
# whole schedule: tests/check_step.c test_uneven_interleaved_deep_extends
# and test_uneven_1f1b_past_its_extension_takes_the_closed_form.
python3 - "$bin" "$sys" <<'PY' || fails=$((fails + 1))
import json, math, os, resource, subprocess, sys
bin, sys_cfg = sys.argv[1:3]
runs = {
    "uneven interleaved pp 64, v 8, 65,536 microbatches": [
        "parallel.tp=1", "parallel.dp=1", "cluster.gpus_per_node=1", "cluster.num_nodes=64", "parallel.pp=64",
        "parallel.virtual_pipeline=8", "model.num_layers=520", "parallel.pipeline_layers=[16" + ",8" * 63 + "]",
        "training.grad_accum_steps=65536"],
    "uneven 1F1B pp 120, 2^20 microbatches": [
        "parallel.tp=1", "parallel.dp=1", "cluster.gpus_per_node=1", "cluster.num_nodes=120", "parallel.pp=120",
        "model.num_layers=121", "parallel.pipeline_layers=[2" + ",1" * 119 + "]", "training.grad_accum_steps=1048576"],
}
failed = 0
for what, sets in runs.items():
    args = [bin, "--config", sys_cfg, "--only", "step", "--format", "json"]
    for s in sets:
        args += ["--set", s]
    r = subprocess.run(args, capture_output=True)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    bad = []
    if r.returncode != 0:
        bad.append("exit %d: %s" % (r.returncode, r.stderr.decode()[:300]))
    else:
        t = json.loads(r.stdout)["step"]["time_s"]
        if not (t > 0 and math.isfinite(t)):
            bad.append("step time %r" % t)
        if b"pipeline_schedule" in r.stderr:
            bad.append("a schedule warning: %s" % r.stderr.decode()[:300])
    limit = (256 if os.environ.get("DC_SANITIZED") == "1" else 64) << 20
    if rss >= limit:
        bad.append("peak memory %d bytes (the largest child so far), not under %d MiB" % (rss, limit >> 20))
    for b in bad:
        print("FAIL: %s: %s" % (what, b))
    failed += bool(bad)
sys.exit(1 if failed else 0)
PY

# 6. the loss experiment is bounded by what it shows: above 2^24 documents
# the step's figures are expectations in closed form and only the shown
# rows are drawn (docs/checkpoint-and-loss.md, "How much it draws").
# grad_accum_steps 2^53 - 1 and 2^24 ranks x accumulation 1000 exit 0,
# say "expected", and execute under 10^8 instructions each as valgrind's
# callgrind counts them, the same on every machine (measured 0.75 and 6.6
# million; drawing the whole step at the 2^24 cap takes 6.1 x 10^9). A
# build valgrind cannot run skips the count, and says so.
loss_run() {
	"$bin" --config "$sys" --experiment loss --format json "$@"
}
loss_instrs() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --config "$sys" --experiment loss "$@" 2>&1 >/dev/null |
		sed -n 's/^==[0-9]*== Collected : \([0-9][0-9]*\)$/\1/p'
}
for args in "training.grad_accum_steps=9007199254740991" \
	"cluster.num_nodes=4194304 parallel.tp=1 parallel.dp=16777216 training.grad_accum_steps=1000"; do
	set --
	for a in $args; do set -- "$@" --set "$a"; done
	out=$(loss_run "$@") || fail "loss $args: exit $?"
	case $out in *'"figures": "expected"'*) ;; *) fail "loss $args: the figures are not labelled expected" ;; esac
	if [ "$DC_SANITIZED" = 0 ] && command -v valgrind >/dev/null 2>&1 && n=$(loss_instrs "$@") && [ -n "$n" ]; then
		[ "$n" -lt 100000000 ] || fail "loss $args: $n instructions, not under 10^8"
	else
		echo "skip: the loss experiment's instruction count (valgrind cannot run this build)"
	fi
done

# 7. --trace of the schedules without a closed form is bounded the same
# way (docs/step-model.md, "What the trace shows, and its caps"): above
# 2^18 chunks the step's prefix and its steady-state extension, the shown
# ops the whole schedule's, the rest of each stage one summary span. 2^24
# microbatches, exit 0 (refused before, exit 3), the file under 2 MiB,
# fewer than 2^15 events, peak under 128 MiB (256 MiB in an
# AddressSanitizer build). The prefix by hand: DualPipe and DualPipeV on
# pp 2, 2^18 / 4 = 65536 microbatches and the pairs left out a multiple
# of 840: DualPipe (2^24 - 65536) / 2 = 8355840 -> 8355480 pairs, 2^24 -
# 2 x 8355480 = 66256 simulated; DualPipeV 16711680 -> 16710960 pairs,
# 66256. Uneven interleaved pp 4, v 2: the trace's (32 / 4 + 3) x 4 = 44
# microbatches (more than the step's 24), (2^24 - 44) / 4 = 4194293
# periods. The summarised ops by hand, m microbatches (step.c
# gen_dualpipe, op_at):
# - DualPipe pp 2: both ranks are middle ranks (h 0): F F, then the
#   steady phase's first iteration F, B, F&B and m/2 - 2 more of two F&B
#   pairs, one B and a B, W-deferred B, its W: m + 4 ops. Shown: up to the
#   pair whose backward is microbatch 16 of its direction, iteration 16:
#   2 + 3 + 2 x 15 = 35; summarised m - 31.
# - DualPipeV pp 2: rank 0 F F, F F, B W F, m - 3 iterations of two
#   pairs, B and a pair, B and a deferred B, W and B, W: 2m + 8 ops
#   (4m chunk passes less 2m - 5 pairs plus 3 W's); shown 2 + 2 + 3 + 2 x
#   15 = 37, summarised 2m - 29. Rank 1 (the last: middle) F F F F, F B
#   and a pair, m - 3 iterations of two pairs, two B's, two deferred, two
#   W's: 2m + 7; shown 4 + 3 + 2 x 15 = 37, summarised 2m - 30.
# - uneven interleaved pp 4, v 2: 2 v m = 4m ops a stage; stage s shows
#   its 10 - 2s warm-up forwards, 64 forward-backward pairs and the
#   forward before the backward of microbatch 32 (virtual microbatch 64):
#   139 - 2s; summarised 4m - 139 + 2s.
for run in dualpipe:2:66256:8355480 dualpipev:2:66256:16710960 uneven:4:44:4194293; do
	python3 - "$bin" "$sys" "$run" "$work/trace-${run%%:*}.json" <<'PY' || fails=$((fails + 1))
import json, os, resource, subprocess, sys
bin, sys_cfg, run, out = sys.argv[1:5]
sched, pp, msim, periods = run.split(":")
m = 1 << 24
args = [bin, "--config", sys_cfg, "--set", "parallel.pp=" + pp, "--set", "parallel.dp=1",
        "--set", "cluster.num_nodes=" + pp, "--set", "training.grad_accum_steps=%d" % m,
        "--only", "summary", "--trace", out]
if sched == "uneven":
    args += ["--set", "parallel.virtual_pipeline=2", "--set", "parallel.pipeline_layers=[10,8,8,6]"]
    want = {s: 4 * m - 139 + 2 * s for s in range(4)}
else:
    args += ["--set", "parallel.pipeline_schedule=" + sched]
    want = {0: m - 31, 1: m - 31} if sched == "dualpipe" else {0: 2 * m - 29, 1: 2 * m - 30}
r = subprocess.run(args, capture_output=True)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
bad = []
if r.returncode != 0:
    print("FAIL: %s trace at 2^24: exit %d: %s" % (sched, r.returncode, r.stderr.decode()[:300]))
    sys.exit(1)
size = os.path.getsize(out)
d = json.load(open(out))
o = d["otherData"]
if size >= 2 << 20:
    bad.append("the trace is %d bytes, not under 2 MiB" % size)
if len(d["traceEvents"]) >= 1 << 15:
    bad.append("%d events, not under 2^15" % len(d["traceEvents"]))
limit = (256 if os.environ.get("DC_SANITIZED") == "1" else 128) << 20
if rss >= limit:
    bad.append("peak memory %d bytes, not under %d MiB" % (rss, limit >> 20))
if o.get("caps") != {"stages": 16, "microbatches": 32, "simulated_chunks": 2**18, "events_per_track": 16384,
                     "events": 2**20}:
    bad.append("caps %r" % o.get("caps"))
if (o.get("microbatches_simulated"), o.get("steady_periods_not_simulated"), o.get("step_from_closed_form")) != \
        (int(msim), int(periods), False):
    bad.append("simulated %r, periods %r, closed form %r" % (o.get("microbatches_simulated"),
               o.get("steady_periods_not_simulated"), o.get("step_from_closed_form")))
summ = {e["pid"]: e["args"]["ops"] for e in d["traceEvents"] if e.get("cat") == "summary"}
if summ != want:
    bad.append("summarised ops %r, want %r" % (summ, want))
if o.get("summarised_ops") != sum(want.values()):
    bad.append("summarised_ops %r" % o.get("summarised_ops"))
for b in bad:
    print("FAIL: %s trace at 2^24: %s" % (sched, b))
sys.exit(1 if bad else 0)
PY
done

[ "$fails" = 0 ] && echo "ok: bounded"
exit $((fails != 0))
