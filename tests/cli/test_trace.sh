#!/bin/sh
# test_trace.sh DISTCALC SRCDIR - --trace read back with Python's json
# module: for every shipped config (on an A100 when the config names no
# GPU) the file is Chrome trace-event JSON, every event is named, the
# events of each track never overlap, each stage's compute track tiles
# [0, step] exactly (its events sum to the timeline's step time), the
# timeline's step is within 0.5% of the report's step.time_s (the closed
# form), the memory counter's points are whole bytes in [0, step] and
# peak at the ledger's peak, its values on a small pipeline match a hand
# computation, and a failing --trace leaves no file behind.
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
    if e["ph"] == "C":
        # the memory counter: a point in [0, step] of whole bytes
        a = e.get("args", {})
        if e.get("name") != "memory (bytes)" or sorted(a) != ["allocated", "allocator reserve"] or \
                any(not isinstance(x, int) or x < 0 for x in a.values()) or \
                not -1e-6 <= e["ts"] <= step * 1e6 * (1 + 1e-9) + 1e-6:
            bad.append("bad counter event: %r" % e)
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
# the counter's highest point is the ledger's peak, unless the ledger's is
# the checkpoint save (not in the step)
for m in trace["otherData"]["memory"]:
    if m["counter_peak_bytes"] > m["ledger_peak_bytes"] or \
            (m["counter_peak_bytes"] != m["ledger_peak_bytes"] and m["ledger_peak_phase"] != "checkpoint_save"):
        bad.append("stage %d: counter peak %d B, ledger peak %d B" % (m["stage"], m["counter_peak_bytes"], m["ledger_peak_bytes"]))
if not any(tid == 0 for _, tid in tracks):
    bad.append("no compute track")
for b in bad[:10]:
    print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
PY
done

# the memory counter by hand (docs/step-model.md, "The trace"): the course
# model (Llama-2-7B shape, tp 4) on pp 2, dp 1, 4 microbatches, 1F1B.
# Stage 0's rank: 16 layers x (202,375,168 / 4 + 8,192 norm weights) +
# 32,000 x 4,096 / 4 embedding = 842,399,744 parameters at 2 + 2 + 4 + 8 B
# = 13,478,395,904 B of states, + 256 MiB NCCL buffers + 512 MiB context +
# 256 MiB workspace = 14,552,137,728 B all along. Its activations hold
# 3,768,582,144 B a microbatch (the ledger's 7,537,164,288 at 2 in flight).
# F0's start: 1 held, 18,320,719,872 B + the 5% reserve ceil(916,035,993.6);
# F1's start: 2 held, 22,089,302,016 B + 1,104,465,101 = 23,193,767,117 B,
# the ledger's stage-0 peak; B0 the same (no backward terms: dp 1, no
# recompute, no head); after B3 the states alone, 14,552,137,728 B.
# Stage 1's rank: 16 layers + the final norm 4,096 + the head 32,768,000 =
# 842,403,840 parameters, 13,478,461,440 B, 14,552,203,264 B all along;
# 1 microbatch held, 3,966,763,008 B (the ledger's); its backwards add the
# loss's FP32 gradients 8 s b V / t = 8 x 4,096 x 32,000 / 4 = 262,144,000 B:
# a forward 18,518,966,272 B, a backward 18,781,110,272 B + ceil(939,055,513.6)
# = 19,720,165,786 B, the ledger's stage-1 peak.
"$bin" --config "$src/configs/systems.json" --set parallel.pp=2 --set parallel.dp=1 \
	--set training.grad_accum_steps=4 --only memory --format json --trace "$work/mem.trace.json" \
	>"$work/mem.json" 2>/dev/null || { echo "FAIL: memory counter run exits $?"; fails=$((fails + 1)); }
python3 - "$work/mem.trace.json" "$work/mem.json" <<'PY' || fails=$((fails + 1))
import json, sys
trace = json.load(open(sys.argv[1]))
ledger = json.load(open(sys.argv[2]))["memory"]["classes"]
bad = []
pts = {0: [], 1: []}
for e in trace["traceEvents"]:
    if e["ph"] == "C":
        pts[e["pid"]].append((e["args"]["allocated"], e["args"]["allocator reserve"]))
want0 = [(18320719872, 916035994), (22089302016, 1104465101), (14552137728, 727606887)]
want1 = [(18518966272, 925948314), (18781110272, 939055514), (14552203264, 727610164)]
# the points in order: stage 0 F0's start, F1's start, the end; stage 1 F0's start, B0's start, the end
got0 = [pts[0][0], pts[0][2], pts[0][-1]]
got1 = [pts[1][0], pts[1][2], pts[1][-1]]
if got0 != want0:
    bad.append("stage 0 points %r, by hand %r" % (got0, want0))
if got1 != want1:
    bad.append("stage 1 points %r, by hand %r" % (got1, want1))
for s, peak in ((0, 23193767117), (1, 19720165786)):
    top = max(a + r for a, r in pts[s])
    if top != peak or ledger[s]["peak_bytes"] != peak:
        bad.append("stage %d: counter peak %d, ledger %d, by hand %d" % (s, top, ledger[s]["peak_bytes"], peak))
if [ledger[0]["activations_bytes"], ledger[1]["activations_bytes"]] != [7537164288, 3966763008]:
    bad.append("the ledger's activations moved: %r" % [c["activations_bytes"] for c in ledger])
for b in bad:
    print("FAIL: memory counter: " + b)
sys.exit(1 if bad else 0)
PY

# --experiment ring --trace: the ring's rounds (docs/formulas.md, "Ring
# AllReduce"), by hand. 4 ranks, M = 1,000,000 B, 100 GB/s, 5 us: each
# rank runs 2 (4 - 1) = 6 rounds; chunk M / 4 = 250,000 B; a round (and
# each send) takes 5 us + 250,000 / 10^11 s = 7.5 us, round k from 7.5 k us,
# 45 us in all. Reduce-scatter round t: rank i sends chunk (i - t) mod 4
# and receives rank i - 1's, (i - 1 - t) mod 4; all-gather round t: it sends
# (i + 1 - t) mod 4, receives (i - t) mod 4. Rank 1: sends 1 0 3 | 2 1 0,
# receives 0 3 2 | 1 0 3.
"$bin" --experiment ring --set collective.ranks=4 --set "collective.message_size=1000000 B" \
	--set "cluster.intra_node.bandwidth=100 GB/s" --set "cluster.intra_node.latency=5 us" \
	--trace "$work/ring.trace.json" >/dev/null 2>&1 || { echo "FAIL: ring trace exits $?"; fails=$((fails + 1)); }
# 40 ranks on 10 nodes (over the 400 Gb/s NIC: 50 GB/s, 10 us), M = 40 MB:
# 39 rounds a phase, the first 32 shown and 32..38 one summary span of 7
# rounds, 7 x 1,000,000 B, from round 32 x (10 + 10^6 / 5 x 10^10 s = 30 us)
# = 960 us for 7 x 30 = 210 us; 16 of the 40 ranks shown (0-7, 32-39)
"$bin" --experiment ring --set cluster.num_nodes=10 --set parallel.dp=10 --set collective.ranks=40 \
	--set "collective.message_size=40000000 B" --trace "$work/ring40.trace.json" >/dev/null 2>&1 ||
	{ echo "FAIL: 40-rank ring trace exits $?"; fails=$((fails + 1)); }
python3 - "$work/ring.trace.json" "$work/ring40.trace.json" <<'PY' || fails=$((fails + 1))
import json, sys
from collections import defaultdict
bad = []
d = json.load(open(sys.argv[1]))
o = d["otherData"]
if (o["experiment"], o["ranks"], o["rounds_per_rank"], o["chunk_bytes"]) != ("ring", 4, 6, 250000):
    bad.append("otherData %r" % o)
if abs(o["round_s"] - 7.5e-6) > 1e-15 or abs(o["time_s"] - 45e-6) > 1e-15:
    bad.append("round %r s, time %r s, by hand 7.5 us and 45 us" % (o["round_s"], o["time_s"]))
per = defaultdict(list)
for e in d["traceEvents"]:
    if e["ph"] == "X":
        per[e["pid"]].append(e)
if sorted(per) != [0, 1, 2, 3] or any(len(v) != 6 for v in per.values()):
    bad.append("rounds per rank %r, want 6 on each of 4" % {k: len(v) for k, v in per.items()})
for i, evs in per.items():
    evs.sort(key=lambda e: e["ts"])
    for k, e in enumerate(evs):
        a = e["args"]
        if abs(e["ts"] - 7.5 * k) > 1e-9 or abs(e["dur"] - 7.5) > 1e-9:
            bad.append("rank %d round %d at %r us for %r us, by hand %r and 7.5" % (i, k, e["ts"], e["dur"], 7.5 * k))
        if a["bytes_sent"] != 250000 or a["bytes_received"] != 250000 or a["to"] != (i + 1) % 4 or a["from"] != (i + 3) % 4:
            bad.append("rank %d round %d: %r" % (i, k, a))
        t = k % 3
        sent = (i - t) % 4 if k < 3 else (i + 1 - t) % 4
        got = (i - 1 - t) % 4 if k < 3 else (i - t) % 4
        if (a["chunk_sent"], a["chunk_received"]) != (sent, got):
            bad.append("rank %d round %d sends chunk %d, receives %d; by hand %d, %d"
                       % (i, k, a["chunk_sent"], a["chunk_received"], sent, got))
if [e["args"]["chunk_sent"] for e in per[1]] != [1, 0, 3, 2, 1, 0]:
    bad.append("rank 1 sends %r" % [e["args"]["chunk_sent"] for e in per[1]])
d = json.load(open(sys.argv[2]))
o = d["otherData"]
if (o["ranks"], o["ranks_shown"], o["ranks_not_shown"], o["rounds_per_rank"]) != (40, 16, 24, 78):
    bad.append("40 ranks: otherData %r" % o)
pids = sorted({e["pid"] for e in d["traceEvents"] if e["ph"] == "X"})
if pids != list(range(8)) + list(range(32, 40)):
    bad.append("ranks shown %r" % pids)
summ = [e for e in d["traceEvents"] if e.get("cat") == "summary"]
if len(summ) != 32 or o["summarised_rounds"] != 16 * 2 * 7:
    bad.append("%d summaries, %d rounds summarised; want 32 and 224" % (len(summ), o["summarised_rounds"]))
for e in summ:
    rs = e["name"].startswith("reduce_scatter")
    start = (32 if rs else 71) * 30.0
    if e["args"] != {"rounds": 7, "bytes_sent": 7000000} or abs(e["ts"] - start) > 1e-6 or abs(e["dur"] - 210) > 1e-6:
        bad.append("summary %r, by hand 7 rounds, 7,000,000 B, from %g us for 210 us" % (e, start))
shown = [e for e in d["traceEvents"] if e["ph"] == "X" and e.get("cat") != "summary"]
if len(shown) != 16 * 2 * 32:
    bad.append("%d rounds shown, want 16 x 2 x 32" % len(shown))
for b in bad[:10]:
    print("FAIL: ring trace: " + b)
sys.exit(1 if bad else 0)
PY

# a trace that cannot be written leaves nothing and fails with exit 5
"$bin" --config "$src/configs/korthikanti-22b.json" --set cluster.gpu=a100-sxm4-80gb --only step \
	--trace "$work/no/such/dir/t.json" >/dev/null 2>"$work/err"
rc=$?
[ "$rc" -eq 5 ] || { echo "FAIL: unwritable --trace exits $rc, not 5"; fails=$((fails + 1)); }
# a trace that cannot be made stops the run before the report: nothing on
# standard output, exit 3, no trace file, for each kind of refusal (the
# ring of one rank, a step without GPU data, a schedule too deep to trace)
for what in "one-rank ring|--experiment ring --set cluster.num_nodes=1 --set cluster.gpus_per_node=1 --set parallel.tp=1 --set parallel.dp=1|the ring has one rank" \
	"no step time|--config $src/configs/llama-3-8b.json --only step|no step time to trace" \
	"too deep|--only summary --set training.grad_accum_steps=1000000 --set parallel.pp=512 --set parallel.dp=1 --set cluster.num_nodes=512 --set model.num_layers=512|too long to trace"; do
	name=${what%%|*}
	rest=${what#*|}
	args=${rest%%|*}
	want=${rest#*|}
	for fmt in table json csv; do
		rm -f "$work/fail.json"
		# shellcheck disable=SC2086
		"$bin" $args --format "$fmt" --trace "$work/fail.json" >"$work/out" 2>"$work/err"
		rc=$?
		[ "$rc" -eq 3 ] || { echo "FAIL: $name ($fmt): exits $rc, not 3"; fails=$((fails + 1)); }
		[ -s "$work/out" ] && { echo "FAIL: $name ($fmt): printed $(wc -c <"$work/out") bytes before the trace's error"; fails=$((fails + 1)); }
		[ -e "$work/fail.json" ] && { echo "FAIL: $name ($fmt): left a trace file"; fails=$((fails + 1)); }
		grep -q "error: '--trace': .*$want" "$work/err" || { echo "FAIL: $name ($fmt): stderr $(cat "$work/err")"; fails=$((fails + 1)); }
	done
done
# the report and the trace both go out when both can be made, also onto
# one descriptor (the report first, then the trace)
"$bin" --config "$src/configs/korthikanti-22b.json" --set cluster.gpu=a100-sxm4-80gb --only step --format json \
	--trace /dev/stdout >"$work/both" 2>"$work/err" || { echo "FAIL: --trace /dev/stdout exits $?"; fails=$((fails + 1)); }
python3 - "$work/both" <<'PY' || fails=$((fails + 1))
import json, sys
text = open(sys.argv[1]).read()
report, end = json.JSONDecoder().raw_decode(text)
trace = json.loads(text[end:])
if report.get("only") != "step" or "traceEvents" not in trace:
    print("FAIL: --trace /dev/stdout: not the report then the trace")
    sys.exit(1)
PY
# --trace onto the config it reads is refused
cp "$src/configs/korthikanti-22b.json" "$work/c.json"
"$bin" --config "$work/c.json" --trace "$work/c.json" >/dev/null 2>"$work/err"
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: --trace onto the config exits $rc, not 2"; fails=$((fails + 1)); }
cmp -s "$src/configs/korthikanti-22b.json" "$work/c.json" || { echo "FAIL: --trace overwrote its config"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "ok: trace files parse, tracks tile, timeline within 0.5% of the closed form"
exit "$fails"
