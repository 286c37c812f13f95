#!/bin/sh
# test_sweep.sh DISTCALC SRCDIR - --sweep against figures worked by hand.
#
# 1. The GPU-count sweep of docs/sweeps.md: configs/sweeps/gpus.json (the
#    course config, configs/systems.json: the Llama-2-7B shape, 4 GPUs a
#    node, tp = 4, with parallel.dp "auto") under ZeRO-1 over
#    1, 2, 4, 8 nodes, so dp = 1, 2, 4, 8. By hand (docs/formulas-systems.md):
#    one tp rank holds P = 1,684,803,584 parameters
#      embedding 32000 x 4096 / 4 = 32,768,000, the head the same;
#      a layer 4 x 4096^2 / 4 + 3 x 4096 x 11008 / 4 + 2 x 4096 = 50,601,984,
#      32 of them 1,619,263,488; the final norm 4096.
#    ZeRO-1 shards the master copy (4 B) and Adam (8 B) over dp:
#      master 4P / dp = 6,739,214,336 / dp, optimizer 8P / dp.
#    The gradients' ReduceScatter and the parameters' AllGather each send
#    (dp - 1) / dp of 2P bytes: 2 x 2P (dp - 1) / dp = 0 (not in play),
#    3,369,607,168, 5,054,410,752, 5,896,812,544.
#    The course ring (ranks = world, M = 2P bytes) takes 2(p - 1) rounds of
#    alpha + (M / p) / B: p = 4 inside a node (5 us, 300 GB/s)
#    6 x (5e-6 + 842,401,792 / 3e11) = 0.01687803584 s; across nodes
#    (10 us, 50 GB/s) p = 8: 14 x (1e-5 + 421,200,896 / 5e10) = 0.11807625088,
#    p = 16: 30 x (1e-5 + 210,600,448 / 5e10) = 0.1266602688,
#    p = 32: 62 x (1e-5 + 105,300,224 / 5e10) = 0.13119227776.
#    So more GPUs save memory (peak strictly falls) and add latency (the
#    ring's time and its latency share 2(p - 1) alpha grow).
#    The course config keeps 8 microbatches of 1 sample a rank a step
#    (grad_accum_steps 8), so a step is 8 x dp x 4096 = 32,768 dp tokens,
#    and the TP AllReduces (4 a layer a microbatch, Megatron's f and g, of
#    b s h x 2 B = 33,554,432 B, each sending 2(4 - 1)/4 of it) send
#    4 x 32 x 8 x 50,331,648 = 51,539,607,552 B a rank at every size.
# 5. parallel.dp "auto" on a config that gives dp (configs/systems.json,
#    dp 2): --set parallel.dp=auto and a sweep of 1, 2, 4 nodes gives
#    dp = 4 num_nodes / (tp 4 x pp 1) = 1, 2, 4 and the global batch
#    1 x 8 x dp = 8, 16, 32; without it every size but the file's own 2 is
#    a row whose error says how to derive dp, in words a sweep can follow.
# 2. An invalid point in the middle: a row that says why, the others run,
#    exit 0; a sweep where nothing runs exits 3 after printing its rows.
# 3. Determinism: the same sweep twice gives the same bytes (JSON, CSV, SVG).
# 4. Usage errors: an unknown key, an empty value, an unknown metric path.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-sweep.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
gpus=$src/configs/sweeps/gpus.json
metrics=memory.per_rank.master_bytes,memory.per_rank.optimizer_bytes,memory.per_rank.peak_bytes,comm.dp.bytes_per_rank,ring.time_s,ring.rounds,batch.tokens_per_step,batch.grad_accum_steps,comm.tp.bytes_per_rank

# 0. gpus.json is the course config with dp "auto": the same keys and
#    values as configs/systems.json but parallel.dp and the description,
#    and at the course's 2 nodes the same report, field for field
python3 - "$gpus" "$src/configs/systems.json" <<'PY' || fails=$((fails + 1))
import json, sys
g, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ok = g["parallel"].pop("dp") == "auto" and c["parallel"].pop("dp") == 2
g.pop("description"); c.pop("description")
if not ok or g != c:
    print("FAIL: configs/sweeps/gpus.json is not configs/systems.json with dp \"auto\"")
    sys.exit(1)
PY
"$bin" --config "$gpus" --seed 7 --format json >"$work/g2.json" 2>/dev/null || fail "gpus.json report exits $?"
"$bin" --config "$src/configs/systems.json" --seed 7 --format json >"$work/s2.json" 2>/dev/null || fail "systems.json report exits $?"
python3 - "$work/g2.json" "$work/s2.json" <<'PY' || fails=$((fails + 1))
import json, sys
g, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
g.pop("config"); c.pop("config")
diff = [k for k in set(c) | set(g) if g.get(k) != c.get(k)]
if diff:
    print(f"FAIL: gpus.json at 2 nodes differs from the course config in {diff}")
    sys.exit(1)
PY

# 1. the GPU-count sweep
"$bin" --config "$gpus" --set parallel.sharding=zero1 --sweep cluster.num_nodes=1,2,4,8 \
	--sweep-metrics "$metrics" --format json >"$work/gpus.json" 2>"$work/err" || fail "gpu sweep exits $?: $(cat "$work/err")"
python3 - "$work/gpus.json" <<'PY' || fails=$((fails + 1))
import json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
P = 32000 * 4096 // 4 * 2 + 32 * (4 * 4096 * 4096 // 4 + 3 * 4096 * 11008 // 4 + 2 * 4096) + 4096
assert P == 1684803584, P
bad = []
def eq(what, got, want):
    if got != want:
        bad.append(f"{what}: got {got}, want {want}")
def near(what, got, want):
    if got is None or abs(got - want) > 1e-12 * abs(want):
        bad.append(f"{what}: got {got}, want {want}")
eq("rows", [r["cluster.num_nodes"] for r in rows], ["1", "2", "4", "8"])
ring = {4: 6 * (5e-6 + 842401792 / 3e11), 8: 14 * (1e-5 + 421200896 / 5e10),
        16: 30 * (1e-5 + 210600448 / 5e10), 32: 62 * (1e-5 + 105300224 / 5e10)}
# the hand-worked times, written out as the comment above gives them
near("ring 4 by hand", ring[4], 0.01687803584)
near("ring 32 by hand", ring[32], 0.13119227776)
for r, nodes in zip(rows, [1, 2, 4, 8]):
    dp, p = nodes, 4 * nodes
    eq(f"dp={dp} status", r["status"], "ok")
    eq(f"dp={dp} master", r["memory.per_rank.master_bytes"], 4 * P // dp)
    eq(f"dp={dp} optimizer", r["memory.per_rank.optimizer_bytes"], 8 * P // dp)
    eq(f"dp={dp} dp bytes", r["comm.dp.bytes_per_rank"], None if dp == 1 else 2 * 2 * P * (dp - 1) // dp)
    eq(f"dp={dp} rounds", r["ring.rounds"], 2 * (p - 1))
    near(f"dp={dp} ring time", r["ring.time_s"], ring[p])
    eq(f"dp={dp} error", r["error"], None)
    eq(f"dp={dp} tokens a step", r["batch.tokens_per_step"], 8 * dp * 4096)
    eq(f"dp={dp} accumulation", r["batch.grad_accum_steps"], 8)
    # the layers' 4 AllReduces a layer a microbatch, and the model's ends
    # (src/axis/tp.c ends_calls): the embedding's and the head's input
    # gradient's AllReduce of b s h, and the loss's 3 of 4 B a token
    layers = 4 * 32 * 8 * (2 * 3 * (4096 * 4096 * 2) // 4)
    ends = 2 * 8 * (2 * 3 * (4096 * 4096 * 2) // 4) + 3 * 8 * (2 * 3 * (4 * 4096) // 4)
    eq(f"dp={dp} tp bytes", r["comm.tp.bytes_per_rank"], layers + ends)
    eq("tp bytes by hand", (layers, ends), (51539607552, 805896192))
peaks = [r["memory.per_rank.peak_bytes"] for r in rows]
if not all(a > b for a, b in zip(peaks, peaks[1:])):
    bad.append(f"peak memory should fall with more GPUs: {peaks}")
times = [r["ring.time_s"] for r in rows]
if not all(a < b for a, b in zip(times, times[1:])):
    bad.append(f"ring time should grow with more GPUs: {times}")
for b in bad:
    print("FAIL: gpu sweep:", b)
sys.exit(1 if bad else 0)
PY

# the table: a header, a units row, one line per point
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 >"$work/table" 2>"$work/err" || fail "table exits $?"
grep -q '^Sweep over cluster.num_nodes (2)$' "$work/table" || fail "table: no title"
grep -Eq '^ +\[GiB\]' "$work/table" || grep -q '\[GiB\]' "$work/table" || fail "table: no units row"
[ "$(grep -Ec '^ +[01] +[12] +ok ' "$work/table")" = 2 ] || fail "table: expected two ok rows: $(cat "$work/table")"

# 2. an invalid point in the middle
"$bin" --config "$gpus" --sweep parallel.tp=2,3,4 --format json >"$work/mid.json" 2>"$work/err"
code=$?
[ "$code" = 0 ] || fail "invalid middle point: exit $code, want 0"
python3 - "$work/mid.json" <<'PY' || fails=$((fails + 1))
import json, sys
s = json.load(open(sys.argv[1]))["sweep"]
rows = s["rows"]
bad = []
if [r["status"] for r in rows] != ["ok", "invalid", "ok"]:
    bad.append(f"statuses {[r['status'] for r in rows]}")
if s["points"] != 3 or s["valid"] != 2:
    bad.append(f"points {s['points']} valid {s['valid']}")
e = rows[1]["error"] or ""
if "'parallel.tp': must divide model.num_attention_heads (32), got 3" not in e:
    bad.append(f"the middle row's reason: {e!r}")
if any(rows[1][k] is not None for k in ("summary.peak_bytes", "summary.fits", "summary.comm_time_s")):
    bad.append("the invalid row has metrics")
if rows[0]["error"] is not None or rows[0]["summary.peak_bytes"] is None:
    bad.append("the first row did not run")
# tp 2 holds twice tp 4's layer parameters: more memory per rank
if not rows[0]["summary.peak_bytes"] > rows[2]["summary.peak_bytes"]:
    bad.append("tp=2 should need more memory per rank than tp=4")
for b in bad:
    print("FAIL: invalid middle point:", b)
sys.exit(1 if bad else 0)
PY
"$bin" --config "$gpus" --sweep parallel.tp=3,5 >"$work/none" 2>"$work/err"
code=$?
[ "$code" = 3 ] || fail "no valid point: exit $code, want 3"
grep -q 'invalid' "$work/none" || fail "no valid point: the rows are not printed"
grep -q "no point of the sweep ran" "$work/err" || fail "no valid point: stderr says $(cat "$work/err")"

# 3. determinism, and the three formats agree on the rows
for i in 1 2; do
	"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2,4 --sweep parallel.sharding=none,fsdp --format json >"$work/d$i.json" 2>/dev/null
	"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2,4 --sweep parallel.sharding=none,fsdp --format csv >"$work/d$i.csv" 2>/dev/null
	"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2,4 --sweep parallel.sharding=none,fsdp --plot "$work/d$i.svg" >/dev/null 2>&1
done
cmp -s "$work/d1.json" "$work/d2.json" || fail "json differs between two runs"
cmp -s "$work/d1.csv" "$work/d2.csv" || fail "csv differs between two runs"
cmp -s "$work/d1.svg" "$work/d2.svg" || fail "svg differs between two runs"
python3 - "$work/d1.json" "$work/d1.csv" <<'PY' || fails=$((fails + 1))
import csv, io, json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
bad = []
# the grid, first axis slowest
want = [(n, s) for n in ("1", "2", "4") for s in ("none", "fsdp")]
got = [(r["cluster.num_nodes"], r["parallel.sharding"]) for r in rows]
if got != want:
    bad.append(f"grid order {got}")
text = open(sys.argv[2], newline="").read()
block = text[text.index("# table: sweep.rows"):].split("\r\n", 1)[1]
table = list(csv.DictReader(io.StringIO(block.split("\r\n#")[0])))
if len(table) != len(rows):
    bad.append(f"csv has {len(table)} rows, json {len(rows)}")
for c, j in zip(table, rows):
    for k, v in j.items():
        t = "" if v is None else ("true" if v is True else "false" if v is False else str(v))
        if isinstance(v, float):
            ok = c[k] != "" and float(c[k]) == v
        elif isinstance(v, dict):
            ok = json.loads(c[k]) == v
        else:
            ok = c[k] == t
        if not ok:
            bad.append(f"row {j['point']} {k}: csv {c[k]!r}, json {v!r}")
for b in bad:
    print("FAIL: grid:", b)
sys.exit(1 if bad else 0)
PY

# the course config names its GPU (cluster.gpu a100-sxm4-80gb), so the
# step's headline metrics are in the defaults: every point has a step
# time, and tokens/s per GPU is the step's tokens over its time over the
# GPUs (8 x dp x 4096 tokens a step, 4 x dp GPUs); without a GPU preset
# they are null and the chart leaves them out. The DP group's bytes and
# time a rank are default columns too: null at one node (dp 1), then
# 2 x 2P (dp - 1) / dp bytes (an AllReduce of the 2P bytes of gradients)
# and a time that grows with dp
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2,4,8 --format json \
	>"$work/step.json" 2>"$work/err" || fail "step sweep exits $?: $(cat "$work/err")"
python3 - "$work/step.json" "$work/gpus.json" <<'PY' || fails=$((fails + 1))
import json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
bad = []
P = 1684803584
for r, dp in zip(rows, (1, 2, 4, 8)):
    gpus, tokens = 4 * dp, 8 * dp * 4096
    t, g, mfu = r.get("step.time_s"), r.get("step.tokens_per_s_per_gpu"), r.get("step.mfu")
    if not (isinstance(t, float) and t > 0 and isinstance(mfu, float) and 0 < mfu < 1):
        bad.append(f"{gpus} GPUs: step time {t}, MFU {mfu}")
    elif abs(g - tokens / t / gpus) > 1e-9 * g:
        bad.append(f"{gpus} GPUs: tokens/s per GPU {g}, want {tokens} / {t} / {gpus}")
    want = None if dp == 1 else 2 * 2 * P * (dp - 1) // dp
    if r.get("comm.dp.bytes_per_rank") != want:
        bad.append(f"dp {dp}: DP bytes a rank {r.get('comm.dp.bytes_per_rank')}, want {want}")
    if dp == 1 and r.get("comm.dp.time_s") is not None:
        bad.append("dp 1: a DP time")
times = [r.get("comm.dp.time_s") for r in rows[1:]]
if not all(isinstance(a, float) and isinstance(b, float) and a < b for a, b in zip(times, times[1:])):
    bad.append(f"DP time should grow with the GPU count: {times}")
plain = json.load(open(sys.argv[2]))["sweep"]["rows"]
if "step.time_s" in plain[0]:
    bad.append("--sweep-metrics given: no step column expected")
for b in bad:
    print("FAIL: step metrics:", b)
sys.exit(1 if bad else 0)
PY
"$bin" --config "$gpus" --unset cluster.gpu --sweep cluster.num_nodes=1,2 --format json >"$work/nostep.json" 2>/dev/null
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["sweep"]["rows"][0]
sys.exit(0 if r["step.time_s"] is None and r["step.mfu"] is None and r["status"] == "ok" else 1)' "$work/nostep.json" ||
	fail "without a GPU preset the step metrics should be null"

# the swept values in their JSON types beside the strings as written: a
# count is a number, a boolean a boolean, a unit string or an enum name
# (quoted or not) a string, as --set reads them; CSV carries the object as
# its JSON text, the table leaves it out
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --sweep 'cluster.gpu_memory=80 GiB,"40 GiB"' \
	--sweep parallel.sequence_parallel=false --sweep 'parallel.sharding=none,"fsdp"' --sweep-metrics summary.fits \
	--format json >"$work/typed.json" 2>/dev/null || fail "typed values: exit $?"
python3 - "$work/typed.json" <<'PY' || fails=$((fails + 1))
import json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
bad = []
for r in rows:
    v = r.get("values")
    want = {"cluster.num_nodes": int(r["cluster.num_nodes"]), "cluster.gpu_memory": r["cluster.gpu_memory"].strip('"'),
            "parallel.sequence_parallel": False, "parallel.sharding": r["parallel.sharding"].strip('"')}
    if v != want or type(v["cluster.num_nodes"]) is not int:
        bad.append(f"point {r['point']}: values {v!r}, want {want!r}")
    if not isinstance(r["cluster.num_nodes"], str):
        bad.append(f"point {r['point']}: the value as written is no longer a string")
if len(rows) != 8:
    bad.append(f"{len(rows)} rows, want 8")
for b in bad:
    print("FAIL: typed values:", b)
sys.exit(1 if bad else 0)
PY
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --sweep-metrics summary.fits --format csv 2>/dev/null | tr -d '\r' |
	grep -qx '0,1,ok,true,,"{""cluster.num_nodes"": 1}"' || fail "typed values: csv"
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --sweep-metrics summary.fits 2>/dev/null | grep -q 'values' &&
	fail "typed values: the table shows them"

# the GPU count is a default column when the swept key can change it: a
# system preset sets the GPUs a node (dgx-h100 8, gb200-nvl72 4, by their
# spec sheets: 8 GPUs a DGX, a GB200 compute tray of 2 Grace + 4 Blackwell),
# so 2 nodes are 16 and 8 GPUs; a num_nodes sweep of gpus.json (4 a node)
# 4, 8, 16; a sweep of another key has no such column; the chart draws no
# panel for it
cat >"$work/sys2.json" <<EOF
{"model": {"hf_config": "$src/configs/models/llama-3-8b.json", "seq_length": 4096},
 "cluster": {"system": "dgx-h100", "num_nodes": 2}, "parallel": {"tp": 4, "dp": "auto"}}
EOF
for args in "--config $work/sys2.json --sweep cluster.system=dgx-h100,gb200-nvl72|16 8" \
	"--config $gpus --sweep cluster.num_nodes=1,2,4|4 8 16" \
	"--config $gpus --sweep training.micro_batch_size=1,2|"; do
	want=${args#*|}
	# shellcheck disable=SC2086
	"$bin" ${args%|*} --format json >"$work/world.json" 2>"$work/err" || fail "world: ${args%|*}: exit $?: $(cat "$work/err")"
	got=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
print(" ".join(str(r["topology.world_size"]) for r in rows if "topology.world_size" in r))' "$work/world.json")
	[ "$got" = "$want" ] || fail "world: ${args%|*}: GPUs '$got', want '$want'"
done
"$bin" --config "$work/sys2.json" --sweep cluster.system=dgx-h100,gb200-nvl72 2>/dev/null | grep -q "cluster.system  status  GPUs  peak/rank" ||
	fail "world: no GPUs column beside the swept value in the table"
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --plot "$work/world.svg" >/dev/null 2>&1 &&
	! grep -q "GPUs" "$work/world.svg" || fail "world: the chart draws the GPU count"

# the default sharding columns follow the sharding: under FSDP the FSDP
# pair (every point has FSDP traffic: dp 2 and 4 here), not two columns of
# n/a for a DP group FSDP does not have; under none the DP pair alone;
# across both, both
for args in "--set parallel.sharding=fsdp|comm.fsdp.bytes_per_rank comm.fsdp.time_s" \
	"--set parallel.sharding=none|comm.dp.bytes_per_rank comm.dp.time_s" \
	"--sweep parallel.sharding=none,fsdp|comm.dp.bytes_per_rank comm.dp.time_s comm.fsdp.bytes_per_rank comm.fsdp.time_s"; do
	want=${args#*|}
	# shellcheck disable=SC2086
	"$bin" --config "$gpus" --sweep cluster.num_nodes=2,4 ${args%|*} --format json >"$work/shard.json" 2>"$work/err" ||
		fail "sharding: ${args%|*}: exit $?: $(cat "$work/err")"
	got=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
keys = [k for k in rows[0] if k.startswith("comm.")]
# a column shown has a value at some point
print(" ".join(k for k in keys if any(r[k] is not None for r in rows)) if all(list(r) == list(rows[0]) for r in rows) else "ragged")' "$work/shard.json")
	[ "$got" = "$want" ] || fail "sharding: ${args%|*}: columns '$got', want '$want'"
done
"$bin" --config "$gpus" --set parallel.sharding=fsdp --sweep cluster.num_nodes=2,4 >"$work/shard.txt" 2>/dev/null
grep -q "FSDP sent/rank" "$work/shard.txt" && grep -q "FSDP time" "$work/shard.txt" && ! grep -q " DP sent/rank\| DP time" \
	"$work/shard.txt" || fail "sharding: the table's labels: $(cat "$work/shard.txt")"

# the MFU over the BF16 peak is a default column only where some point has
# it apart from step.mfu: under fp8 on an H100 mfu is over the FP8 peak,
# 1979 TFLOP/s (the data sheet, docs/compute-model.md), mfu_bf16_peak over
# 989, so their ratio is 1979 / 989 whatever the step; under bf16 both are
# over 989 and one column shows
"$bin" --config "$src/configs/llama-3-8b.json" --set cluster.gpu=h100-sxm5-80gb --sweep precision.compute=bf16,fp8 \
	--format json >"$work/mfu.json" 2>"$work/err" || fail "mfu: exit $?: $(cat "$work/err")"
python3 - "$work/mfu.json" <<'PY' || fails=$((fails + 1))
import json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
bf, f8 = rows
ok = (bf["step.mfu"] == bf["step.mfu_bf16_peak"] and abs(f8["step.mfu_bf16_peak"] / f8["step.mfu"] - 1979 / 989) < 1e-12
      and f8["step.mfu_bf16_peak"] > bf["step.mfu_bf16_peak"])
if not ok:
    print("FAIL: mfu columns:", rows)
sys.exit(0 if ok else 1)
PY
"$bin" --config "$src/configs/llama-3-8b.json" --set cluster.gpu=h100-sxm5-80gb --sweep cluster.num_nodes=1,2 \
	--format json 2>/dev/null | grep -q mfu_bf16_peak && fail "mfu: a BF16 sweep shows two equal MFU columns"

# every row, without --all: 40 points are 40 rows in the table and in JSON
"$bin" --config "$gpus" --sweep "parallel.tp=$(seq -s, 1 40)" --format json >"$work/forty.json" 2>/dev/null
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["sweep"]
sys.exit(0 if len(s["rows"]) == 40 and "rows_omitted" not in s else 1)' "$work/forty.json" || fail "a 40-point sweep is excerpted"
[ "$("$bin" --config "$gpus" --sweep "parallel.tp=$(seq -s, 1 40)" 2>/dev/null | grep -Ec '^ +[0-9]+ +[0-9]+ +(ok|invalid) ')" = 40 ] ||
	fail "the table of a 40-point sweep does not have 40 rows"

# 4. usage errors, caught before any point runs
check_usage() {
	want=$1
	shift
	"$bin" --config "$gpus" "$@" >"$work/out" 2>"$work/err"
	code=$?
	[ "$code" = 2 ] || fail "$*: exit $code, want 2"
	grep -qF "$want" "$work/err" || fail "$*: stderr lacks '$want': $(cat "$work/err")"
	[ -s "$work/out" ] && fail "$*: printed to stdout"
}
check_usage "'--sweep': unknown config key 'cluster.num_node'; did you mean 'cluster.num_nodes'?" --sweep cluster.num_node=1,2
check_usage "'--sweep': 'cluster.num_nodes': empty value in '1,,2'" --sweep cluster.num_nodes=1,,2
check_usage "'--sweep': 'cluster' is a section" --sweep cluster=1
check_usage "'--sweep-metrics': 'summary.peak': no field 'peak' there" --sweep cluster.num_nodes=1 --sweep-metrics summary.peak
check_usage "'--sweep-metrics': 'memory.per_rank.phases': 'phases' is a table" --sweep cluster.num_nodes=1 --sweep-metrics memory.per_rank.phases
check_usage "'--sweep-metrics' only applies with '--sweep'" --sweep-metrics summary.peak_bytes
check_usage "'--only': a sweep's report has the section 'sweep' and the table 'sweep.rows', not 'memory'" --sweep cluster.num_nodes=1 --only memory

# 5. parallel.dp "auto" on a config that gives dp
sys=$src/configs/systems.json
"$bin" --config "$sys" --set parallel.dp=auto --sweep cluster.num_nodes=1,2,4 \
	--sweep-metrics topology.dp,batch.global_batch_size --format json >"$work/auto.json" 2>"$work/err" ||
	fail "dp auto sweep exits $?: $(cat "$work/err")"
python3 - "$work/auto.json" <<'PY' || fails=$((fails + 1))
import json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
got = [(r["status"], r["topology.dp"], r["batch.global_batch_size"]) for r in rows]
# dp = 4 num_nodes / 4 by hand; the global batch 1 x 8 x dp
want = [("ok", 1, 8), ("ok", 2, 16), ("ok", 4, 32)]
if got != want:
    print(f"FAIL: dp auto: {got}, want {want}")
    sys.exit(1)
PY
# without it: the file's dp 2 fits 2 nodes alone; the other rows say how
"$bin" --config "$sys" --sweep cluster.num_nodes=1,2,4 --format json >"$work/pinned.json" 2>/dev/null || fail "pinned dp sweep exits $?"
python3 - "$work/pinned.json" <<'PY' || fails=$((fails + 1))
import json, sys
rows = json.load(open(sys.argv[1]))["sweep"]["rows"]
bad = []
if [r["status"] for r in rows] != ["invalid", "ok", "invalid"]:
    bad.append(f"statuses {[r['status'] for r in rows]}")
for r, dp, world in ((rows[0], 1, 4), (rows[2], 4, 16)):
    want = (f"'parallel.dp': dp x tp x pp (2 x 4 x 1) must equal num_nodes x gpus_per_node ({world}); "
            f'set parallel.dp to "auto" (or --unset parallel.dp) to derive it from the GPU count ({dp} here)')
    if r["error"] != want:
        bad.append(f"error {r['error']!r}, want {want!r}")
for b in bad:
    print("FAIL: pinned dp:", b)
sys.exit(1 if bad else 0)
PY
# a --set of dp: the hint names the --set
"$bin" --config "$sys" --set parallel.dp=2 --sweep cluster.num_nodes=4 --format json >"$work/setdp.json" 2>/dev/null
grep -qF -- "--set parallel.dp=auto (or drop the --set of parallel.dp) to derive it from the GPU count (4 here)" "$work/setdp.json" ||
	fail "a --set of dp: $(cat "$work/setdp.json")"
# and the advice works: the same sweep with what it says runs every point
"$bin" --config "$sys" --unset parallel.dp --sweep cluster.num_nodes=1,2,4 --format json >"$work/unset.json" 2>/dev/null ||
	fail "--unset parallel.dp sweep exits $?"
grep -q '"valid": 3' "$work/unset.json" || fail "--unset parallel.dp: not every point ran"

# a metric on a table's row keeps the row in its table label: one event
# of a 1 MiB ring over 8 ranks moves a chunk of 1 MiB / 8 = 131,072 B
"$bin" --config "$sys" --experiment ring --sweep 'collective.message_size=1 MiB' --sweep-metrics 'ring.events[3].bytes' \
	>"$work/evlabel.txt" 2>/dev/null || fail "event metric exits $?"
grep -q ' events\[3\]\.bytes ' "$work/evlabel.txt" || fail "event metric label: $(grep -A1 'point ' "$work/evlabel.txt")"
grep -q ' 131,072 ' "$work/evlabel.txt" || fail "event metric value: $(cat "$work/evlabel.txt")"

# a key below a section's sub-object keeps the object in its label
# (cp.time_s, not a bare time_s beside the step time); a section's own key
# is its last
"$bin" --config "$src/configs/llama-3-8b.json" --sweep parallel.cp=1,2 \
	--sweep-metrics step.time_s,comm.cp.time_s,batch.tokens_per_step >"$work/cplabel.txt" 2>/dev/null ||
	fail "cp metric exits $?"
grep -q ' step time  *cp\.time_s  *tokens/step$' "$work/cplabel.txt" ||
	fail "sub-object metric labels: $(grep 'point ' "$work/cplabel.txt")"

# a table's row by index is a metric too
"$bin" --config "$gpus" --sweep cluster.num_nodes=1 --sweep-metrics 'memory.per_rank.phases[3].phase,memory.per_rank.phases[9].total_bytes' \
	--format json >"$work/idx.json" 2>/dev/null || fail "indexed metric exits $?"
python3 - "$work/idx.json" <<'PY' || fails=$((fails + 1))
import json, sys
r = json.load(open(sys.argv[1]))["sweep"]["rows"][0]
ok = r["memory.per_rank.phases[3].phase"] == "checkpoint_save" and r["memory.per_rank.phases[9].total_bytes"] is None
if not ok:
    print("FAIL: indexed metric:", r)
sys.exit(0 if ok else 1)
PY

# points that run different work say so: tp 1, 2, 4, 8 on the course's 8
# GPUs with dp auto runs dp 8, 4, 2, 1 x 8 microbatches x 4096 tokens =
# 262,144 down to 32,768 tokens a step: a tokens/step column and one
# warning; with training.global_batch_size 16 every point runs 65,536 and
# neither shows
"$bin" --config "$sys" --set parallel.dp=auto --sweep parallel.tp=1,2,4,8 >"$work/work.txt" 2>"$work/work.err" ||
	fail "work: exit $?"
grep -q "warning: the sweep's points run different work, 32,768 to 262,144 tokens a step" "$work/work.err" ||
	fail "work: no warning: $(cat "$work/work.err")"
grep -q "tokens/step" "$work/work.txt" || fail "work: no tokens/step column"
grep -q "^        0      262,144 " "$work/work.txt" || fail "work: point 0's tokens: $(grep -A6 'tokens/step' "$work/work.txt")"
"$bin" --config "$sys" --set parallel.dp=auto --set training.global_batch_size=16 --sweep parallel.tp=1,2,4,8 \
	>"$work/work.txt" 2>"$work/work.err" || fail "work, aligned: exit $?"
grep -q "different work" "$work/work.err" && fail "work, aligned: warned: $(cat "$work/work.err")"
grep -q "tokens/step" "$work/work.txt" && fail "work, aligned: a tokens/step column of one value"
# the warning whatever the metrics (a review: --sweep-metrics step.time_s
# compared the step times of different work unsaid), without the column
"$bin" --config "$sys" --set parallel.dp=auto --sweep parallel.tp=1,2,4,8 --sweep-metrics step.time_s \
	>"$work/work.txt" 2>"$work/work.err" || fail "work, metrics: exit $?"
grep -q "different work, 32,768 to 262,144 tokens a step" "$work/work.err" || fail "work, metrics: no warning"
grep -q "tokens/step" "$work/work.txt" && fail "work, metrics: a column not asked for"

# a sweep that stops (point 1 names a directory as model.hf_config: exit
# 4, nothing printed) says the warnings of the points that ran (point 0's
# here), then the error that stopped it, last, as a single run would
mkdir -p "$work/adir"
"$bin" --config "$gpus" --sweep "model.hf_config=$src/configs/models/llama-3-8b.json,$work/adir" \
	>"$work/stop.out" 2>"$work/stop.err"
rc=$?
[ "$rc" = 4 ] || fail "stopped sweep: exit $rc, want 4"
[ -s "$work/stop.out" ] && fail "stopped sweep: printed a report"
# the error names the point that read the file (a CI trial)
tail -n 1 "$work/stop.err" | grep -q "adir: error: sweep point 1 (model.hf_config=$work/adir): is a directory" ||
	fail "stopped sweep: the error is not last, or names no point: $(cat "$work/stop.err")"
# a catalogue name the catalogue lacks stops the sweep the same way
"$bin" --config "$gpus" --sweep "model.hf_config=llama-3-8b,nosuch" >"$work/stop.out" 2>"$work/stop.err"
rc=$?
[ "$rc" = 4 ] || fail "stopped sweep, catalogue: exit $rc, want 4"
[ -s "$work/stop.out" ] && fail "stopped sweep, catalogue: printed a report"
tail -n 1 "$work/stop.err" | grep -q "^distcalc: error: sweep point 1 (model.hf_config=nosuch): 'model.hf_config' from the command line: no model 'nosuch' in the catalogue" ||
	fail "stopped sweep, catalogue: $(cat "$work/stop.err")"
grep -q "warning: sweep point 0 (model.hf_config=" "$work/stop.err" || fail "stopped sweep: point 0's warnings: $(cat "$work/stop.err")"

# a budget written with --only (the table sweep.rows, the section sweep) is
# compared by --check without --only on those sections, as a single run's:
# from a file and from standard input (a CI trial's budget moved, exit 6)
for only in sweep.rows sweep; do
	"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --only "$only" --format json --output "$work/budget.json" 2>/dev/null ||
		fail "budget --only $only: not written"
	"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --check "$work/budget.json" >/dev/null 2>"$work/chk.err"
	rc=$?
	[ "$rc" = 0 ] || fail "budget --only $only, --check without --only: exit $rc: $(cat "$work/chk.err")"
	grep -q "it holds --only $only; comparing those sections" "$work/chk.err" || fail "budget --only $only: no note: $(cat "$work/chk.err")"
	"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --check - <"$work/budget.json" >/dev/null 2>"$work/chk.err"
	rc=$?
	[ "$rc" = 0 ] || fail "budget --only $only, --check - without --only: exit $rc: $(cat "$work/chk.err")"
done
# and a point that moves is still found
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2 --set training.grad_accum_steps=4 --check "$work/budget.json" >/dev/null 2>&1
rc=$?
[ "$rc" = 6 ] || fail "budget --only sweep, a moved point: exit $rc, want 6"

# a list of figures is no range: the two points' TP groups (dp first: ranks
# 0, 2, 4, 6 on 2 nodes of 4 GPUs, 0, 4, 8, 12 on 4) are two warnings, not
# "0, 2 to 4, 4 to 8, 6 to 12" (a CI trial)
"$bin" --config "$gpus" --sweep cluster.num_nodes=1,2,4 --set parallel.order=dp-tp-pp --format csv >/dev/null 2>"$work/list.err"
grep -q "sweep point 1 (cluster.num_nodes=2): .*(group 0: ranks 0, 2, 4, 6)" "$work/list.err" || fail "list: point 1: $(cat "$work/list.err")"
grep -q "sweep point 2 (cluster.num_nodes=4): .*(group 0: ranks 0, 4, 8, 12)" "$work/list.err" || fail "list: point 2: $(cat "$work/list.err")"
grep -q "ranks 0, 2 to 4" "$work/list.err" && fail "list: merged into ranges: $(cat "$work/list.err")"

[ "$fails" = 0 ] && echo "ok: sweep"
exit $((fails > 0))
