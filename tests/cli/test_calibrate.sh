#!/bin/sh
# test_calibrate.sh DISTCALC SRCDIR - `--calibrate` on the real nccl-tests
# logs of tests/data (each alone, then all three together) meets the bar of
# issue 22: every size within 20% of the measured time, the median within
# 8%, and no warning (so the verdict says the cluster may be pasted); the
# fit keeps NVLink (no one-node log) at the preset's 370.8 GB/s; and the
# cluster it prints, pasted into a config, gives the calibrated times.
set -u
bin=$1
src=$2
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-calib.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cfg=$src/tests/inputs/dgx_h100_2x8.json
d=$src/tests/data
check() { # NAME LOG...
	name=$1
	shift
	args=
	for l in "$@"; do args="$args --calibrate $l"; done
	# shellcheck disable=SC2086
	"$bin" --config "$cfg" --only calibration --format json --all $args >"$work/$name.json" 2>"$work/$name.err" ||
		{ fail "$name: exit $?: $(cat "$work/$name.err")"; return; }
	# the cluster's config is a model on the default layout, which does
	# not fit its GPUs: the memory section's warning about that is the
	# model's, not the calibration's, and is left out of the check
	grep -v "this plan does not fit" "$work/$name.err" >"$work/$name.err2"
	[ -s "$work/$name.err2" ] && fail "$name: stderr: $(cat "$work/$name.err2")"
	paste "$name"
	python3 - "$work/$name.json" "$name" <<'PY' || fails=$((fails + 1))
import json, sys
c = json.load(open(sys.argv[1]))["calibration"]
name, bad = sys.argv[2], []
errs = sorted(abs(r["error"]) for r in c["sizes"])
n = len(errs)
median = errs[n // 2] if n % 2 else (errs[n // 2 - 1] + errs[n // 2]) / 2
if errs[-1] > 0.20: bad.append("largest |error| %.1f%% > 20%%" % (100 * errs[-1]))
if median > 0.08: bad.append("median |error| %.1f%% > 8%%" % (100 * median))
if abs(c["max_abs_error"] - errs[-1]) > 1e-6: bad.append("max_abs_error is not the largest row's")
for log in c["logs"]:
    if log["max_abs_error"] > 0.20 or log["median_abs_error"] > 0.08:
        bad.append("%s: %.1f%% / %.1f%%" % (log["file"], 100 * log["median_abs_error"], 100 * log["max_abs_error"]))
if c["warnings"]: bad.append("warnings: %s" % c["warnings"])
if not c["verdict"].startswith("no warnings"): bad.append("verdict: " + c["verdict"])
if c["cluster"]["intra_node"]["bandwidth"] != "370.8 GB/s": bad.append("NVLink moved: " + c["cluster"]["intra_node"]["bandwidth"])
for r in c["sizes"]:
    if abs(r["residual_s"] - (r["predicted_s"] - r["measured_s"])) > 1e-9: bad.append("residual of %d" % r["size_bytes"])
for b in bad: print("FAIL: %s: %s" % (name, b))
sys.exit(1 if bad else 0)
PY
}
# The printed cluster, pasted as the config's whole `cluster` object (only
# num_nodes set to each log's hosts), prices every size of every log with
# `--experiment collectives` exactly as the calibrated run did: the keys
# cluster.inter_node.plugin_latency and cluster.*.ramp carry what the fit
# found besides the links, and the text is what the run used (calibrate.c
# rounds each fitted value to the six digits printed).
paste() { # NAME [CONFIG] (after $work/NAME.json is written)
	python3 - "$bin" "${2:-$cfg}" "$work" "$1" <<'PY' || fails=$((fails + 1))
import json, subprocess, sys
bin, cfg_path, work, name = sys.argv[1:5]
c = json.load(open("%s/%s.json" % (work, name)))["calibration"]
bad = []
if c["cluster"]["inter_node"].get("plugin_latency") is None: bad.append("no inter_node.plugin_latency in the cluster")
if not isinstance(c["cluster"]["inter_node"].get("ramp"), list): bad.append("no inter_node.ramp array in the cluster")
for i, log in enumerate(c["logs"]):
    cfg = json.load(open(cfg_path))
    cfg["cluster"] = json.loads(json.dumps(c["cluster"]))
    cfg["cluster"]["num_nodes"] = log["hosts"]
    pts = [p for p in c["sizes"] if p["log"] == i]
    sizes = sorted(p["size_bytes"] for p in pts)
    cfg["collective"] = {"op": log["op"], "min_bytes": sizes[0], "max_bytes": sizes[-1], "step_factor": 2}
    path = "%s/%s-paste-%d.json" % (work, name, i)
    json.dump(cfg, open(path, "w"))
    run = subprocess.run([bin, "--config", path, "--experiment", "collectives", "--format", "json", "--all"],
                         capture_output=True, text=True)
    # the only words allowed on stderr: the loader's note that a pasted
    # link replaces the one cluster.system's preset would fill
    other = [w for w in run.stderr.splitlines() if "from the config overrides" not in w]
    if run.returncode != 0 or other:
        bad.append("%s: the pasted cluster: exit %d: %s" % (log["file"], run.returncode, " / ".join(other)))
        continue
    rows = {r["size_bytes"]: r["time_s"] for r in json.loads(run.stdout)["collectives"]["rows"]}
    for p in pts:
        t = rows.get(p["size_bytes"])
        if t is None:
            bad.append("%s: %d B not in the sweep" % (log["file"], p["size_bytes"]))
        elif t != p["predicted_s"]:
            bad.append("%s: %d B: %.17g s with the pasted cluster, %.17g s calibrated" % (log["file"], p["size_bytes"], t, p["predicted_s"]))
for b in bad: print("FAIL: %s: paste: %s" % (name, b))
sys.exit(1 if bad else 0)
PY
}
check two_by_eight "$d/nccl-tests-h100-2x8-ib.txt"
check four_by_eight "$d/nccl-tests-h100-4x8-ib.txt"
check alltoall "$d/nccl-tests-h100-2x8-alltoall.txt"
check together "$d/nccl-tests-h100-2x8-ib.txt" "$d/nccl-tests-h100-4x8-ib.txt" "$d/nccl-tests-h100-2x8-alltoall.txt"
# A cluster without a preset, on a fabric and paths other than the
# defaults: the printed object carries every key the network model reads
# (gpu, network, nic_path, channels, the leaf fabric), so it prices as the
# calibrated run with nothing from the config it came from. The fit may warn
# on this odd cluster; only the paste is checked.
cat >"$work/custom.json" <<'EOF'
{"model": {"num_layers": 32, "hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 32000, "seq_length": 4096},
 "cluster": {"num_nodes": 2, "gpus_per_node": 8, "gpu": "h100-sxm5-80gb", "network": "efa", "nic_path": "pxb",
             "nics_per_node": 4, "nccl_channels": 12, "oversubscription": 2, "nodes_per_leaf": 1, "nvls": true,
             "intra_node": {"bandwidth": "370.8 GB/s", "latency": "3.4 us"},
             "inter_node": {"bandwidth": "100 GB/s", "latency": "9 us"}}}
EOF
"$bin" --config "$work/custom.json" --only calibration --format json --all --calibrate "$d/nccl-tests-h100-2x8-ib.txt" \
	>"$work/custom_fit.json" 2>"$work/custom_fit.err" || fail "custom: exit $?: $(cat "$work/custom_fit.err")"
paste custom_fit "$work/custom.json"
# A long log (nccl-tests -i, a step in bytes) is fitted on 64 of its rows,
# evenly spaced in log2(size), and says so; every row is still priced in
# the table. The rows: all_reduce of 4,096 k B (k = 1..N) on the 2 x 8 log's
# ranks in 25 us + S / 40 GB/s, with the columns nccl-tests would print.
biglog() { # N FILE
	python3 - "$d/nccl-tests-h100-2x8-ib.txt" "$1" >"$2" <<'PY'
import sys
head = [l for l in open(sys.argv[1]).read().split("\n") if l.startswith("#") and not l.startswith(("# Avg", "# Out"))]
print("\n".join(head))
for k in range(1, int(sys.argv[2]) + 1):
    S = 4096 * k
    t = 25.0 + S / 40e3
    ts = "%.0f" % t if t >= 10000 else "%.1f" % t if t >= 100 else "%.2f" % t
    alg = S / (float(ts) * 1e3)
    print("%12d %13d float sum -1 %8s %7.2f %7.2f 0 %8s %7.2f %7.2f 0" % (S, S // 4, ts, alg, alg * 1.875, ts, alg, alg * 1.875))
print("# Avg bus bandwidth    : 10.0 ")
PY
}
# a cluster.system that fills a collective key: the pasted cluster keeps
# the system, so its preset fills gcp-a3-mega's protocol set again
"$bin" --config "$cfg" --set cluster.system=gcp-a3-mega --only calibration --format json \
	--calibrate "$d/nccl-tests-h100-2x8-ib.txt" >"$work/a3.json" 2>/dev/null || fail "a3-mega: exit $?"
python3 - "$work/a3.json" <<'PY' || fails=$((fails + 1))
import json, sys
c = json.load(open(sys.argv[1]))["calibration"]
if c["cluster"].get("system") != "gcp-a3-mega":
    print("FAIL: a3-mega: the pasted cluster's system is %r" % c["cluster"].get("system"))
    sys.exit(1)
log = c["logs"][0]
if log["protocols"] != "LL128, Simple" or log["protocols_from"] != "collective.protocols":
    print("FAIL: a3-mega: the log was fitted on %r from %r" % (log["protocols"], log["protocols_from"]))
    sys.exit(1)
PY
biglog 1000 "$work/big1000.txt"
biglog 4000 "$work/big4000.txt"
"$bin" --config "$cfg" --only calibration --format json --all --calibrate "$work/big1000.txt" >"$work/big.json" 2>"$work/big.err" ||
	fail "big1000: exit $?: $(cat "$work/big.err")"
grep -q "big1000.txt: 1000 rows; the fit uses 64 of them, evenly spaced in log2(size)" "$work/big.err" ||
	fail "big1000: no note of the rows fitted: $(cat "$work/big.err")"
python3 -c 'import json,sys; n=len(json.load(open(sys.argv[1]))["calibration"]["sizes"]); sys.exit(0 if n == 1000 else print("FAIL: big1000: %d sizes priced, not 1000" % n) or 1)' \
	"$work/big.json" || fails=$((fails + 1))
# bounded by work, not time: the instructions (valgrind's callgrind count,
# the same on every machine) for 4,000 rows at most twice those for 1,000
# (measured 0.94x: the fit is of 64 rows either way; fitting every row made
# them about 4x, and 6 s for 1,000 rows). Skipped where valgrind cannot run.
instrs() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" --config "$cfg" --only calibration --calibrate "$1" \
		2>&1 >/dev/null | sed -n 's/^==[0-9]*== Collected : \([0-9][0-9]*\)$/\1/p'
}
if command -v valgrind >/dev/null 2>&1 && a=$(instrs "$work/big1000.txt") && [ -n "$a" ] && b=$(instrs "$work/big4000.txt") &&
	[ -n "$b" ]; then
	[ $((b / 2)) -gt "$a" ] && fail "long logs: $b instructions for 4,000 rows, $a for 1,000: more than 2x, the fit is not bounded"
else
	echo "skip: the long-log work check (valgrind cannot run this build)"
fi
[ "$fails" -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok"
