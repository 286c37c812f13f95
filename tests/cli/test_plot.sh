#!/bin/sh
# test_plot.sh DISTCALC SRCDIR - every kind of --plot chart is well-formed
# XML (Python's xml.etree, and xmllint when it is installed), 800 px wide
# and 500 px a panel, says its units, has a legend, draws what the report
# holds (worked by hand below), is the same bytes twice, and is written
# atomically like --output.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-plot.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
sys=$src/configs/systems.json
gpus=$src/configs/sweeps/gpus.json

draw() { # NAME ARGS...: writes $work/NAME.svg, twice, and compares
	name=$1
	shift
	"$bin" "$@" --plot "$work/$name.svg" >/dev/null 2>"$work/err" || { fail "$name: exit $?: $(cat "$work/err")"; return; }
	"$bin" "$@" --plot "$work/$name.again.svg" >/dev/null 2>&1
	cmp -s "$work/$name.svg" "$work/$name.again.svg" || fail "$name: two runs draw different bytes"
	if command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$work/$name.svg" 2>"$work/err" || fail "$name: xmllint: $(cat "$work/err")"
	fi
}
draw systems --config "$sys" --only memory
"$bin" --config "$sys" --only memory --format json >"$work/systems.json" 2>/dev/null || fail "systems json exits $?"
# the summary prices the ledger and the step, so it draws the chart of the
# memory and step sections
draw summary --config "$sys" --only summary
draw memory_step --config "$sys" --only memory,step
cmp -s "$work/summary.svg" "$work/memory_step.svg" || fail "--only summary draws another chart than --only memory,step"
draw systems_step --config "$sys" --set cluster.gpu=a100-sxm4-80gb
draw ring --config "$sys" --experiment ring --set collective.ranks=4
draw ring_only --config "$sys" --only ring --set collective.ranks=4
draw sweep --config "$gpus" --sweep cluster.num_nodes=1,2,4,8
draw grid --config "$gpus" --sweep cluster.num_nodes=1,2,4 --sweep parallel.tp=2,3,4 \
	--sweep-metrics summary.peak_bytes,summary.fits,summary.comm_bytes_per_step,summary.comm_time_s
draw msg --config "$sys" --experiment ring --sweep 'collective.message_size=1 KiB,1 MiB,1 GiB'
draw whatif --config "$sys" --experiment whatif
draw whatif_gpu --config "$sys" --experiment whatif --set checkpoint.format='"full"' --set checkpoint.gather='"gpu"'
draw checkpoint --config "$sys" --experiment checkpoint --set checkpoint.restore.num_nodes=1 \
	--set checkpoint.restore.gpus_per_node=1 --set checkpoint.restore.tp=1
# 2^24 ranks: the ranks drawn are labelled "stage.rank" ("0.10"), one word
# each in a narrow group, which the chart never cuts in two ("0." over
# "10": a trial)
draw checkpoint_many --config "$sys" --experiment checkpoint --set cluster.num_nodes=4194304 --set parallel.dp=auto
draw loss --config "$sys" --experiment loss
draw collectives --config "$sys" --experiment collectives --set 'collective.min_bytes=1 KiB' --set 'collective.max_bytes=1 GiB' \
	--set collective.step_factor=1024
draw search --config "$sys" --experiment search
# after --calibrate: the model's sweep, then measured and modelled busbw per log
draw calibrate --config "$src/tests/inputs/dgx_h100_2x8.json" --experiment collectives \
	--calibrate "$src/tests/data/nccl-tests-h100-2x8-ib.txt" --calibrate "$src/tests/data/nccl-tests-h100-4x8-ib.txt"
draw calibrate_alone --config "$src/tests/inputs/dgx_h100_2x8.json" --only calibration \
	--calibrate "$src/tests/data/nccl-tests-h100-2x8-ib.txt"

# a chart's document title names its run: the config, then --model, --set
# and --unset in their order (a sweep's, its base's), so a chart of an
# overridden run is not the default's; the heading drawn stays the config's.
# A title past 512 bytes is cut with "..." between UTF-8 characters.
title() { sed -n 's|^<title>\(.*\)</title>$|\1|p' "$work/$1.svg"; }
[ "$(title systems)" = "Memory per rank by phase: $sys" ] || fail "systems title: $(title systems)"
draw titled --config "$sys" --only memory --set parallel.sharding=zero1 --unset training.grad_accum_steps
[ "$(title titled)" = "Memory per rank by phase: $sys --set parallel.sharding=zero1 --unset training.grad_accum_steps" ] ||
	fail "an overridden run's title: $(title titled)"
grep -q "font-weight=\"bold\">Memory per rank by phase: $sys</text>" "$work/titled.svg" ||
	fail "the heading drawn is not the config's alone"
[ "$(title whatif_gpu)" = "What-if: each fault against the baseline: $sys --set checkpoint.format=&quot;full&quot; --set checkpoint.gather=&quot;gpu&quot;" ] ||
	fail "what-if title: $(title whatif_gpu)"
draw sweep_set --config "$gpus" --set parallel.sharding=zero1 --sweep cluster.num_nodes=1,2
[ "$(title sweep_set)" = "distcalc sweep over cluster.num_nodes (2): $gpus --set parallel.sharding=zero1" ] ||
	fail "a sweep's title: $(title sweep_set)"
# an import's chart names the cluster's config and the framework file
draw imported --config "$src/tests/inputs/import/h100_1x8.json" \
	--from-megatron "$src/tests/inputs/import/megatron_train_llama3_8b_h100_fp8.sh" --only memory
[ "$(title imported)" = "Memory per rank by phase: $src/tests/inputs/import/h100_1x8.json --from-megatron $src/tests/inputs/import/megatron_train_llama3_8b_h100_fp8.sh" ] ||
	fail "an import's title: $(title imported)"
# a description of two-byte characters after 7 --set of 34 bytes: cut at
# byte 508 of the run's text, which an ASCII "x" first puts inside a
# character whatever the checkout's path length (the text before the
# description is the path, 7 x 34 bytes and " --set description=", 19)
pad=$(( (508 - ${#sys} - 7 * 34 - 19) % 2 == 0 ? 1 : 0 ))
long=$(python3 -c 'import sys; print("x" * int(sys.argv[1]) + "é" * 120)' "$pad")
draw long --config "$sys" --only memory --set training.micro_batch_size=1 --set training.micro_batch_size=1 \
	--set training.micro_batch_size=1 --set training.micro_batch_size=1 --set training.micro_batch_size=1 \
	--set training.micro_batch_size=1 --set training.micro_batch_size=1 --set "description=$long"
# (the SVG writes each byte outside ASCII as "?": a whole é is "??", so an
# odd count is a character cut in two)
t=$(title long)
case $t in *"description="*"..."*) ;; *) fail "a long title is not cut with ...: $t" ;; esac
[ "$(printf '%s' "$t" | wc -c)" -le 537 ] || fail "a long title is not cut"
q=$(printf '%s' "${t#*description=}" | tr -cd '?' | wc -c)
[ $((q % 2)) = 0 ] && [ "$q" -gt 100 ] || fail "a cut title splits a UTF-8 character ($q bytes of it): $t"

# an experiment with nothing to draw is an error: exit 2, a reason, no file
nothing() { # NAME ARGS...
	name=$1
	shift
	"$bin" "$@" --plot "$work/$name.svg" >/dev/null 2>"$work/err"
	rc=$?
	[ "$rc" = 2 ] || fail "$name: nothing to draw exits $rc, want 2"
	grep -q "error: '--plot': " "$work/err" || fail "$name: no reason: $(cat "$work/err")"
	[ ! -e "$work/$name.svg" ] || fail "$name: a file was written"
}
nothing none_model --config "$sys" --only model
nothing none_search --config "$src/configs/llama-3-8b.json" --experiment search
# a ring of one rank has no round: its chart was blank, with a busbw of
# 0.00 the table calls n/a (a trial)
nothing none_ring_one --config "$sys" --experiment ring --set collective.ranks=1
grep -q "one rank (collective.ranks 1)" "$work/err" || fail "ring of one rank: $(cat "$work/err")"

# the chart is drawn before the report is printed: a chart that cannot be
# drawn stops the run with nothing on standard output, exit 2, no chart,
# no --output file and no temporary file, in each format. The reasons
# dc_report_render_svg_why gives: sections without a chart (model, step,
# cluster), a search ranked by memory alone (llama-3-8b.json names no
# GPU), a search where no layout fits (1 GiB a GPU: the smallest peak of
# the default config is 14.763 GiB), a sweep whose only metric no point
# has (step time without GPU speeds)
for what in "only model|--config $sys --only model" \
	"only step|--only step" \
	"only cluster|--only cluster --set cluster.num_nodes=1 --set cluster.gpus_per_node=1 --set parallel.tp=1 --set parallel.dp=1" \
	"search without speeds|--config $src/configs/llama-3-8b.json --experiment search|3" \
	"search nothing fits|--experiment search --set cluster.gpu_memory=1GiB" \
	"sweep nothing to draw|--config $src/configs/llama-3-8b.json --sweep training.micro_batch_size=1,2 --sweep-metrics summary.step_time_s"; do
	name=${what%%|*}
	for fmt in table json csv; do
		args=${what#*|}
		want=2
		case $args in *\|3) want=3 args=${args%|3} ;; esac
		rm -rf "$work/half"
		mkdir "$work/half"
		# shellcheck disable=SC2086
		"$bin" $args --format "$fmt" --plot "$work/half/p.svg" >"$work/out" 2>"$work/err"
		rc=$?
		[ "$rc" = 2 ] || fail "$name ($fmt): exits $rc, want 2"
		[ -s "$work/out" ] && fail "$name ($fmt): printed $(wc -c <"$work/out") bytes before the chart's error"
		grep -q "error: '--plot': " "$work/err" || fail "$name ($fmt): no reason: $(cat "$work/err")"
		# with --output and --trace too (a sweep takes no --trace): no file
		# of either; a trace that cannot be made either is refused first
		# (exit 3: without GPU speeds there is no step time to trace)
		tr="--trace $work/half/t.json"
		case $args in *--sweep*) tr= ;; esac
		# shellcheck disable=SC2086
		"$bin" $args --format "$fmt" --output "$work/half/r.out" $tr --plot "$work/half/p.svg" >"$work/out" 2>"$work/err"
		rc=$?
		[ "$rc" = "$want" ] || fail "$name ($fmt) with --output: exits $rc, want $want"
		[ -s "$work/out" ] && fail "$name ($fmt) with --output: printed $(wc -c <"$work/out") bytes"
		left=$(ls -A "$work/half")
		[ -z "$left" ] || fail "$name ($fmt): left $left"
	done
done
# with --check or --check-max the chart is drawn before the comparison:
# one with nothing to draw stops the run before any line of it (exit 2,
# not 0 for the matching report nor 6 for the budget it exceeds)
"$bin" --config "$sys" --only model --format json >"$work/ref.json" 2>/dev/null || fail "ref: exits $?"
for chk in "--check $work/ref.json" "--check-max model.params_total=1"; do
	# shellcheck disable=SC2086
	"$bin" --config "$sys" --only model $chk --plot "$work/chk.svg" >"$work/out" 2>"$work/err"
	rc=$?
	[ "$rc" = 2 ] || fail "$chk with nothing to draw: exits $rc, want 2"
	[ -s "$work/out" ] && fail "$chk with nothing to draw: printed $(cat "$work/out")"
	grep -q "fields compared\|budget" "$work/err" && fail "$chk with nothing to draw: compared first: $(cat "$work/err")"
	[ -e "$work/chk.svg" ] && fail "$chk with nothing to draw: a chart was written"
done
# kept when a budget fails: a --check-max that fails (exit 6) still writes
# the chart and the trace, as one that passes does (a trial's CI job lost
# both on the runs it needed them for); a sweep's chart likewise
for max in "summary.peak_bytes=1GiB:6" "summary.peak_bytes=1000GiB:0"; do
	want=${max#*:}
	rm -f "$work/kept.svg" "$work/kept.json"
	"$bin" --config "$sys" --check-max "${max%:*}" --plot "$work/kept.svg" --trace "$work/kept.json" \
		>"$work/out" 2>"$work/err"
	rc=$?
	[ "$rc" = "$want" ] || fail "--check-max ${max%:*} with --plot and --trace: exits $rc, want $want"
	[ -s "$work/kept.svg" ] || fail "--check-max ${max%:*} (exit $rc): no chart written"
	[ -s "$work/kept.json" ] || fail "--check-max ${max%:*} (exit $rc): no trace written"
done
rm -f "$work/kept.svg"
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --check-max 'sweep.rows[0].summary.peak_bytes=1GiB' \
	--plot "$work/kept.svg" >"$work/out" 2>"$work/err"
rc=$?
[ "$rc" = 6 ] || fail "a sweep's failed budget with --plot: exits $rc, want 6: $(cat "$work/err")"
[ -s "$work/kept.svg" ] || fail "a sweep's failed budget (exit $rc): no chart written"
# a chart that can be drawn changes nothing in the report: the same bytes
# with and without --plot, and onto standard output the report comes
# first, then the chart, as it did when the chart was drawn after it
for args in "--config $sys" "--experiment search" "--config $gpus --sweep cluster.num_nodes=1,2"; do
	# shellcheck disable=SC2086
	"$bin" $args --format json >"$work/plain" 2>/dev/null || fail "$args: exits $?"
	# shellcheck disable=SC2086
	"$bin" $args --format json --plot "$work/same.svg" >"$work/with" 2>/dev/null || fail "$args --plot: exits $?"
	cmp -s "$work/plain" "$work/with" || fail "$args: --plot changed the report"
	# shellcheck disable=SC2086
	"$bin" $args --format json --plot /dev/stdout >"$work/both" 2>/dev/null || fail "$args --plot /dev/stdout: exits $?"
	cat "$work/plain" "$work/same.svg" | cmp -s - "$work/both" || fail "$args --plot /dev/stdout: not the report, then the chart"
done

python3 - "$work" <<'PY' || fails=$((fails + 1))
import sys, xml.etree.ElementTree as ET
work = sys.argv[1]
NS = "{http://www.w3.org/2000/svg}"
bad = []

def load(name):
    root = ET.parse(f"{work}/{name}.svg").getroot()  # raises on malformed XML
    if root.tag != NS + "svg":
        bad.append(f"{name}: root is {root.tag}")
    return root

def texts(root):
    return [t.text or "" for t in root.iter(NS + "text")]

def rects(root, fill):
    return [r for r in root.iter(NS + "rect") if r.get("fill") == fill]

def size(root):
    return int(root.get("width")), int(root.get("height"))

def want(name, cond, what):
    if not cond:
        bad.append(f"{name}: {what}")

# systems: one class (pp = 1), four phases; the GPU line at 80 GiB
r = load("systems")
t = texts(r)
want("systems", size(r) == (800, 500), f"size {size(r)}")
want("systems", "memory per rank [GiB]" in t, "no GiB axis title")
want("systems", "GPU memory 80.0 GiB" in t, "no GPU memory line label")
want("systems", "legend" in t and "activations" in t and "optimizer states" in t, "legend lacks parts")
want("systems", [x for x in t if x in ("fwd", "bwd", "optim", "ckpt")] == ["fwd", "bwd", "optim", "ckpt"],
     "not one bar per phase")
want("systems", "class 0: stage 0" in t, "no class label")
# the bars' labels are the memory section's phase totals, in GiB, in phase
# order: the chart shows the report's numbers
import json
phases = json.load(open(f"{work}/systems.json"))["memory"]["per_rank"]["phases"]
labels = [x for x in t if x.replace(".", "", 1).isdigit() and "." in x]
want("systems", labels == [f"{p['total_bytes'] / 2**30:.1f}" for p in phases],
     f"bar labels {labels}, the report's phase totals {[p['total_bytes'] for p in phases]}")
dashed = [l for l in r.iter(NS + "line") if l.get("stroke-dasharray")]
want("systems", len(dashed) >= 1, "no dashed GPU line")

# with step time (an A100 preset): a second panel, one bar per rank class
# (pp = 1: one), its parts stacked from 0 to the step time it is labelled
# with, in the report's units
r = load("systems_step")
t = texts(r)
want("systems_step", size(r) == (800, 1000), f"size {size(r)}")
want("systems_step", "memory per rank [GiB]" in t, "no memory panel")
want("systems_step", any(x.startswith("Step time per rank class: ") for x in t), "no step panel")
unit = "s" if "time per step [s]" in t else "ms"
want("systems_step", f"time per step [{unit}]" in t, "no time axis title")
want("systems_step", "compute" in t and "optimizer step" in t, "legend lacks compute or the optimizer")
want("systems_step", "other" not in t, "an 'other' part: the classes' parts no longer sum to their total")
total = [x for x in t if x.startswith("Step time per rank class: ")][0].split(": ")[1]
want("systems_step", t.count(total) == 1, f"the class's bar is not labelled with the step time {total}")
bar = [x for x in r.iter(NS + "rect") if 120 <= float(x.get("x")) < 560 and float(x.get("y")) > 500]
ends = sorted(round(float(x.get("x")) + float(x.get("width")), 1) for x in bar)
starts = sorted(round(float(x.get("x")), 1) for x in bar)
want("systems_step", starts and starts[0] == 120.0 and all(abs(a - b) < 0.15 for a, b in zip(ends, starts[1:])),
     f"the parts do not touch from 0: {starts} {ends}")

# ring, p = 4: 2(p - 1) = 6 rounds on 4 lanes, 3 reduce-scatter and 3
# all-gather rounds a lane, in ms
for name in ("ring", "ring_only"):
    r = load(name)
    t = texts(r)
    want(name, size(r) == (800, 500), f"size {size(r)}")
    want(name, len(rects(r, "#0072B2")) == 4 * 3 + 1, f"{len(rects(r, '#0072B2'))} reduce-scatter boxes, want 12 + legend")
    want(name, len(rects(r, "#E69F00")) == 4 * 3 + 1, f"{len(rects(r, '#E69F00'))} all-gather boxes, want 12 + legend")
    want(name, [x for x in t if x.startswith("rank ")] == ["rank 0", "rank 1", "rank 2", "rank 3"], "lanes")
    want(name, "time [ms]" in t, "no ms axis")
    want(name, any(x.startswith("reduce-scatter") for x in t) and any(x.startswith("all-gather") for x in t),
         "legend")

# sweep: gpus.json (the course config with a GPU) shows nine numeric
# headline metrics (fits is a yes/no): nine panels, the tokens a step
# among them (dp grows with the nodes: 8 x 4096 x dp, work that differs);
# the DP group's two have no point at one node (dp 1: no DP group), so 3
# points, the others 4
r = load("sweep")
t = texts(r)
want("sweep", size(r) == (800, 4500), f"size {size(r)}")
# titles in words with their units; the JSON path below each
for title in ("peak/rank [GiB] against cluster.num_nodes", "comm/step [GiB] against cluster.num_nodes",
              "comm time [ms] against cluster.num_nodes", "DP sent/rank [GiB] against cluster.num_nodes",
              "DP time [ms] against cluster.num_nodes", "step time [s] against cluster.num_nodes"):
    want("sweep", title in t, f"no panel '{title}'")
for path in ("summary.peak_bytes", "summary.comm_bytes_per_step", "summary.comm_time_s", "comm.dp.bytes_per_rank",
             "comm.dp.time_s"):
    want("sweep", any(x.startswith(path + ": ") for x in t), f"no subtitle naming {path}")
want("sweep", "peak/rank [GiB]" in t and "comm/step [GiB]" in t and "comm time [ms]" in t, "y axis units")
lines = list(r.iter(NS + "polyline"))
want("sweep", [len(l.get("points").split()) for l in lines] == [4, 4, 4, 3, 3, 4, 4, 4, 4], "one line a panel, 4 points (DP: 3)")
want("sweep", "tokens/step against cluster.num_nodes" in t, "no panel 'tokens/step against cluster.num_nodes'")

# grid: tp = 3 never runs, so each panel has two series (tp 2, tp 4) of 3
# points and marks 3 points that did not run
r = load("grid")
t = texts(r)
lines = list(r.iter(NS + "polyline"))
want("grid", len(lines) == 6 and all(len(l.get("points").split()) == 3 for l in lines),
     f"{[len(l.get('points').split()) for l in lines]}")
want("grid", "parallel.tp=2" in t and "parallel.tp=4" in t, "legend names the series")
want("grid", t.count("x") == 3 * 3 + 3, f"{t.count('x')} markers of points that did not run")
want("grid", any("3 of 9 points did not run" in x for x in t), "no note of the invalid points")

# message size over decades: a log axis, ticks as written
r = load("msg")
t = texts(r)
want("msg", "collective.message_size (log scale)" in t, "no log x axis")
want("msg", all(v in t for v in ("1 KiB", "1 MiB", "1 GiB")), "ticks not as written")
xs = [float(c.get("cx")) for c in r.iter(NS + "circle")][:3]
want("msg", len(xs) == 3 and abs((xs[1] - xs[0]) - (xs[2] - xs[1])) < 0.2, f"1 KiB..1 GiB not evenly spaced: {xs}")

def bar_values(root, fill):
    """Bar heights in px of one colour, left to right (legend swatches are 14 px wide)."""
    return [float(x.get("height")) for x in sorted(rects(root, fill), key=lambda e: float(e.get("x")))
            if float(x.get("width")) != 14]

# whatif on systems.json: two panels (step time, peak memory); the memory
# faults' bars are the figures of docs/whatif.md: whole-model gather 22.5
# -> 28.6 GiB, the checkpoint 35.3 GiB training, 27.4 GiB saving; with a
# full state dict kept on the GPU (checkpoint.gather "gpu"): 128,486,838,682
# B = 119.66 GiB saving, above the training bar and the 80 GiB line
r = load("whatif")
t = texts(r)
want("whatif", size(r) == (800, 1000), f"size {size(r)}")
want("whatif", "Step time: baseline and each fault [s]" in t, "no step panel")
want("whatif", "Peak memory per rank: baseline and each fault [GiB]" in t, "no memory panel")
want("whatif", all(v in t for v in ("22.5", "28.6", "35.3", "27.4")), "memory bars not the hand-worked figures")
want("whatif", "GPU memory 80.0 GiB" in t, "no GPU line in the legend")
r = load("whatif_gpu")
t = texts(r)
want("whatif_gpu", "120" in t and "35.3" in t, f"the gpu-gathered save is not 119.66 GiB against 35.3: {t}")
mem = bar_values(r, "#0072B2")
want("whatif_gpu", len(mem) == 2 and mem[1] > 2 * 140, f"the save bar is not above the 80 GiB line: {mem}")

# checkpoint restored onto one GPU: three panels; the one new rank reads all
# 87.86 GiB of states, + 0.5 GiB of context: above the 80 GiB line
r = load("checkpoint")
t = texts(r)
want("checkpoint", size(r) == (800, 1500), f"size {size(r)}")
for title in ("Each rank's checkpoint bytes and save-phase peak [GiB]", "Save time by part [s]",
              "Restore: what each new rank loads [GiB]"):
    want("checkpoint", title in t, f"no panel '{title}'")
want("checkpoint", any("the largest does NOT fit its GPU" in x for x in t), "the restore's fit is not said")
want("checkpoint", "87.9" in t and "88.4" in t, "the restored rank's 87.86 + 0.5 GiB are not the bars")
r = load("checkpoint_many")
t = texts(r)
cut = [x for x in t if x.endswith(".") or (x.startswith(".") and x[1:2].isdigit())]
want("checkpoint_many", not cut and any(x == "0.10" for x in t), f"a rank label cut in two: {cut[:4]}")

# loss: the three recipes of docs/checkpoint-and-loss.md's worked example
# (systems.json, seed 0): 2.0645, 2.0357, 2.1970; 16 microbatches' weights
r = load("loss")
t = texts(r)
want("loss", size(r) == (800, 1000), f"size {size(r)}")
want("loss", all(v in t for v in ("2.06", "2.04", "2.2")), f"recipe bars {t}")
want("loss", len([c for c in r.iter(NS + "circle") if float(c.get("cy")) > 500]) >= 16, "no point a microbatch")

# collectives from 1 KiB to 1 GiB by 1024: three sizes, log axes, two lines
r = load("collectives")
t = texts(r)
want("collectives", "message size [B] (log)" in t, "no log size axis")
lines = list(r.iter(NS + "polyline"))
want("collectives", len(lines) == 2 and all(len(l.get("points").split()) == 3 for l in lines), "two 3-point lines")

# --calibrate: a panel for the sweep and one per log (3 x 500 px); each log
# panel has its 32 measured sizes as black points over two 32-point lines
# (fitted, before), on log axes; the measured 16 GiB point of the 2 x 8 log
# is 17179869184 B / 68652 us x 2 x 15/16 = 469.2 GB/s of busbw, the
# highest of its panel (8 GiB's 468.7 lies within the 0.1 px the SVG
# prints)
r = load("calibrate")
t = texts(r)
want("calibrate", size(r) == (800, 1500), "size %s, want 800 x 1500" % (size(r),))
for f in ("nccl-tests-h100-2x8-ib.txt", "nccl-tests-h100-4x8-ib.txt"):
    want("calibrate", f + ": bus bandwidth against message size [GB/s]" in t, "no panel for " + f)
want("calibrate", all(x in t for x in ("measured (the log)", "model, fitted", "model, before the fit")), "legend")
want("calibrate", "busbw [GB/s] (log)" in t and "message size [B] (log)" in t, "not log axes")
black = [c for c in r.iter(NS + "circle") if c.get("fill") == "#000000"]
want("calibrate", len(black) == 64, "%d measured points, want 64" % len(black))
lines = list(r.iter(NS + "polyline"))
want("calibrate", len(lines) == 6 and all(len(l.get("points").split()) == 32 for l in lines[2:]),
     "%d lines, want the sweep's 2 and 2 x 32 points per log" % len(lines))
ys = [float(c.get("cy")) for c in black[:32]]
want("calibrate", ys[31] <= min(ys) + 0.05 and ys[0] == max(ys), "the 16 GiB point (469.2 GB/s) is not the 2 x 8 panel's highest or 8 B its lowest")
r = load("calibrate_alone")
want("calibrate_alone", size(r) == (800, 500), "size %s, want one 500 px panel" % (size(r),))
want("calibrate_alone", "nccl-tests-h100-2x8-ib.txt: bus bandwidth against message size [GB/s]" in texts(r), "no panel")

# search: the Pareto front, the chosen layout ringed, the limit dashed
r = load("search")
t = texts(r)
want("search", "Pareto front: step time against peak memory" in t, "no title")
want("search", "the chosen layout" in t and any(x.startswith("memory limit ") for x in t), "legend")
want("search", any(c.get("r") == "9" for c in r.iter(NS + "circle")), "the chosen layout is not ringed")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# every shipped config: each memory bar's parts stack up to the phase total
# it is labelled with (the label sits 4 px above the total's height), and
# the parts are the ledger's named lines ("other" never shows: svg.c sums
# the phases as memory.c does)
for cfg in "$src"/configs/*.json; do
	n=$(basename "$cfg" .json)
	"$bin" --config "$cfg" --plot "$work/mem-$n.svg" >/dev/null 2>&1 || { fail "$n: --plot exits $?"; continue; }
done
python3 - "$work" <<'PY' || fails=$((fails + 1))
import glob, sys, xml.etree.ElementTree as ET
NS = "{http://www.w3.org/2000/svg}"
bad = []
for path in sorted(glob.glob(sys.argv[1] + "/mem-*.svg")):
    root = ET.parse(path).getroot()
    bars = {}
    for r in root.iter(NS + "rect"):
        x, w = float(r.get("x")), float(r.get("width"))
        if x < 70 or x >= 560 or w >= 400 or float(r.get("y")) >= 500:
            continue  # the background, the legend's swatches, a step panel below
        bars.setdefault(x, []).append((float(r.get("y")), float(r.get("height"))))
    labels = {}
    for t in root.iter(NS + "text"):
        try:
            float(t.text)
        except (TypeError, ValueError):
            continue
        if float(t.get("y")) >= 500:
            continue
        labels[float(t.get("x"))] = float(t.get("y"))
    if not bars:
        bad.append(f"{path}: no bars")
    for x, parts in bars.items():
        parts.sort()
        top = parts[0][0]
        # the parts touch: each one's bottom is the next one's top
        for (ya, ha), (yb, hb) in zip(parts, parts[1:]):
            if abs(ya + ha - yb) > 0.15:
                bad.append(f"{path}: bar at x={x}: a gap between parts at y={ya + ha}")
        w = [float(r.get("width")) for r in root.iter(NS + "rect") if float(r.get("x")) == x][0]
        near = [lx for lx in labels if abs(lx - (x + w / 2)) < 0.3]
        ly = labels[near[0]] if len(near) == 1 else None
        if ly is None or abs(ly + 4 - top) > 0.15:
            bad.append(f"{path}: bar at x={x}: parts reach y={top}, the total's label is at {ly}")
    if "other" in [t.text for t in root.iter(NS + "text")]:
        bad.append(f"{path}: an 'other' part: svg.c's phase sums no longer match memory.c")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# atomic: an existing file is replaced whole; a failed run leaves no
# temporary file and the old chart in place
echo old >"$work/keep.svg"
"$bin" --config "$sys" --plot "$work/keep.svg" >/dev/null 2>&1 || fail "replace: exit $?"
head -c 5 "$work/keep.svg" | grep -q '<?xml' || fail "replace: old bytes left"
mkdir "$work/ro"
chmod a-w "$work/ro"
if [ "$(id -u)" != 0 ]; then
	"$bin" --config "$sys" --plot "$work/ro/x.svg" >/dev/null 2>"$work/err"
	code=$?
	[ "$code" = 5 ] || fail "unwritable: exit $code, want 5"
fi
"$bin" --config "$sys" --plot "$work/no/such/dir/x.svg" >/dev/null 2>"$work/err"
code=$?
[ "$code" = 5 ] || fail "missing directory: exit $code, want 5"
grep -q "cannot create '$work/no/such/dir/x.svg'" "$work/err" || fail "missing directory: $(cat "$work/err")"
[ -z "$(find "$work" -name '.dc-*')" ] || fail "a temporary file stayed: $(find "$work" -name '.dc-*')"
"$bin" --config "$sys" --plot "$sys" >/dev/null 2>"$work/err"
code=$?
[ "$code" = 2 ] || fail "--plot over the config: exit $code, want 2"
grep -q "'--plot': '.*' is the '--config' file" "$work/err" || fail "--plot over the config: $(cat "$work/err")"
# a chart named as another image format is refused before anything runs
"$bin" --config "$sys" --plot "$work/chart.png" >"$work/out" 2>"$work/err"
code=$?
[ "$code" = 2 ] || fail "--plot chart.png: exit $code, want 2"
grep -q "'--plot': the chart is SVG, but '.*chart.png' names a png file; name it .*chart.svg" "$work/err" ||
	fail "--plot chart.png: $(cat "$work/err")"
[ -e "$work/chart.png" ] && fail "--plot chart.png wrote the file"
[ -s "$work/out" ] && fail "--plot chart.png printed a report"

# the pictures of README.md and docs/sweeps.md are what scripts/plots.sh
# draws now: after a change that moves them, run it and commit docs/img/
sh "$src/scripts/plots.sh" "$bin" "$work/img" 2>"$work/err" || fail "scripts/plots.sh: $(cat "$work/err")"
for f in memory step ring sweep-gpus sweep-message-size whatif checkpoint loss collectives search; do
	cmp -s "$work/img/$f.svg" "$src/docs/img/$f.svg" ||
		fail "docs/img/$f.svg is stale: run sh scripts/plots.sh and commit docs/img/"
done

[ "$fails" = 0 ] && echo "ok: plot"
exit $((fails > 0))
