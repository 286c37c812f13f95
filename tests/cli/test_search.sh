#!/bin/sh
# test_search.sh DISTCALC SRCDIR - the winner's command line, as the search
# prints it, runs the full report with the search's step time and peak;
# the output is the same for every --jobs, and stderr alone carries the
# rate.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-search.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v python3 >/dev/null 2>&1 || { echo "no python3: skipped"; exit 77; }

cfg=$src/configs/korthikanti-175b.json
"$bin" --config "$cfg" --experiment search --format json >"$work/s1.json" 2>"$work/s1.err" || fail "search: exit $?"
"$bin" --config "$cfg" --experiment search --format json --jobs 3 >"$work/s3.json" 2>"$work/s3.err" || fail "search --jobs 3: exit $?"
cmp -s "$work/s1.json" "$work/s3.json" || fail "--jobs 3 changed the output"
# --jobs runs at most one thread per online CPU (a note says so): 3, or
# fewer on a smaller machine
want=3
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 3)
[ "$cpus" -lt 3 ] && want=$cpus
grep -q "^distcalc: search: [0-9]* layouts enumerated, [0-9]* rejected by the rules, [0-9]* priced for memory, [0-9]* for step time, [0-9]* fit, in [0-9.]* s: [0-9]* priced layouts/s on $want threads\$" "$work/s3.err" ||
	fail "no rate on stderr: $(cat "$work/s3.err")"
grep -q 'layouts/s' "$work/s1.json" && fail "the rate reached stdout"

# the command (JSON "command"), run as a shell would, with its report's numbers
cd "$src" || exit 2
cmdline=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["search"]["command"])' "$work/s1.json") ||
	fail "no command"
case $cmdline in "distcalc --config $cfg --set parallel.tp="*) ;; *) fail "command: $cmdline" ;; esac
eval "\"\$bin\" ${cmdline#distcalc } --format json --only step,memory" >"$work/r.json" 2>"$work/r.err" ||
	fail "the winner's report: exit $? $(cat "$work/r.err")"
python3 - "$work/s1.json" "$work/r.json" <<'PY' || fail "the report's numbers are not the search's"
import json, sys
best = json.load(open(sys.argv[1]))["search"]["best"][0]
rep = json.load(open(sys.argv[2]))
assert rep["step"]["time_s"] == best["step_time_s"], (rep["step"]["time_s"], best["step_time_s"])
assert rep["memory"]["per_rank"]["peak_bytes"] == best["peak_bytes"], (rep["memory"]["per_rank"]["peak_bytes"], best["peak_bytes"])
assert rep["step"]["mfu"] == best["mfu"]
# every layout object is --set as it is
for b in json.load(open(sys.argv[1]))["search"]["best"]:
    assert set(b["layout"]) == {"parallel.tp", "parallel.cp", "parallel.pp", "parallel.dp", "parallel.ep", "parallel.dp_replicate",
                                "parallel.virtual_pipeline", "parallel.sequence_parallel", "parallel.sharding",
                                "training.micro_batch_size", "training.grad_accum_steps", "training.recompute"}
    assert b["layout"]["parallel.tp"] == b["tp"] and b["layout"]["training.recompute"] == b["recompute"]
PY

# search.counts adds up, and stderr's figures are the JSON's: every tuple
# refused by a rule or priced for memory; the step time priced for each
# that fits (this config names its GPU), the rate over the layouts priced
python3 - "$work/s3.json" "$work/s3.err" <<'PY' || fail "search.counts"
import json, re, sys
c = json.load(open(sys.argv[1]))["search"]["counts"]
assert c["enumerated"] == c["rejected_by_rules"] + c["valid"], c
assert c["priced_memory"] == c["valid"] and c["priced_time"] == c["fit"] > 0, c
m = re.search(r"search: (\d+) layouts enumerated, (\d+) rejected by the rules, (\d+) priced for memory, (\d+) for step time, (\d+) fit,",
              open(sys.argv[2]).read())
assert m and [int(x) for x in m.groups()] == [c[k] for k in ("enumerated", "rejected_by_rules", "priced_memory", "priced_time", "fit")], m
PY

# a search priced with --calibrate and --calibrate-compute names them, and
# its winner's command repeats both: without them the report prices other
# levels (this layout: 0.687 s instead of the search's 0.722)
prof=data/profiles/h200-megatron-gpt-7b-tp2-sustained.json
log=tests/data/nccl-tests-h100-2x8-ib.txt
"$bin" --config data/profiles/configs/megatron-gpt-7b-tp2.json --experiment search --calibrate "$log" \
	--calibrate-compute "$prof" --format json >"$work/c.json" 2>/dev/null || fail "calibrated search: exit $?"
cmdline=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["search"]["command"])' "$work/c.json") ||
	fail "calibrated search: no command"
case $cmdline in *" --calibrate $log --calibrate-compute $prof "*) ;; *) fail "calibrated command: $cmdline" ;; esac
eval "\"\$bin\" ${cmdline#distcalc } --format json --only step" >"$work/cr.json" 2>"$work/cr.err" ||
	fail "the calibrated winner's report: exit $? $(cat "$work/cr.err")"
python3 - "$work/c.json" "$work/cr.json" "$prof" <<'PY' || fail "the calibrated report's step is not the search's"
import json, sys
s = json.load(open(sys.argv[1]))["search"]
rep = json.load(open(sys.argv[2]))
assert s["compute_profile"] == sys.argv[3], s.get("compute_profile")
assert s["calibrate"] == [{"log": "tests/data/nccl-tests-h100-2x8-ib.txt"}], s["calibrate"]
assert rep["step"]["time_s"] == s["best"][0]["step_time_s"], (rep["step"]["time_s"], s["best"][0]["step_time_s"])
PY
# where the fit moves the step (two nodes of 8 H100s: the winner 0.40014 s
# fitted, 0.39970 s not), the command's report is the fitted one
"$bin" --config tests/inputs/dgx_h100_2x8.json --experiment search --calibrate "$log" --format json >"$work/n.json" \
	2>/dev/null || fail "fitted search: exit $?"
cmdline=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["search"]["command"])' "$work/n.json") ||
	fail "fitted search: no command"
eval "\"\$bin\" ${cmdline#distcalc } --format json --only step" >"$work/nr.json" 2>"$work/nr.err" ||
	fail "the fitted winner's report: exit $? $(cat "$work/nr.err")"
eval "\"\$bin\" $(echo "${cmdline#distcalc }" | sed "s| --calibrate $log||") --format json --only step" \
	>"$work/nu.json" 2>/dev/null || fail "the winner's report unfitted: exit $?"
python3 - "$work/n.json" "$work/nr.json" "$work/nu.json" <<'PY' || fail "the fitted report's step is not the search's"
import json, sys
best = json.load(open(sys.argv[1]))["search"]["best"][0]
fitted, plain = (json.load(open(f))["step"]["time_s"] for f in sys.argv[2:4])
assert fitted == best["step_time_s"], (fitted, best["step_time_s"])
assert plain != fitted, "the fit does not move this step: the check proves nothing"
PY
# the files by the names given, however long or quoted: a profile under a
# folder whose name has a quote and a space, 300 bytes deep (a profile's
# own recorded name stops at 255)
long=$work/"it's a dir"/$(printf '%0200d' 0)/$(printf '%050d' 1)
mkdir -p "$long" && cp "$prof" "$long/p.json" || exit 2
"$bin" --config data/profiles/configs/megatron-gpt-7b-tp2.json --experiment search --calibrate-compute "$long/p.json" \
	--format json >"$work/l.json" 2>/dev/null || fail "search with a long profile path: exit $?"
cmdline=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["search"]["command"])' "$work/l.json") ||
	fail "long path: no command"
eval "\"\$bin\" ${cmdline#distcalc } --format json --only step" >"$work/lr.json" 2>"$work/lr.err" ||
	fail "the long path's winner's report: exit $? $(cat "$work/lr.err")"
python3 - "$work/l.json" "$work/lr.json" "$long/p.json" <<'PY' || fail "the long path's report is not the search's"
import json, sys
s = json.load(open(sys.argv[1]))["search"]
assert s["compute_profile"] == sys.argv[3], s["compute_profile"]
assert json.load(open(sys.argv[2]))["step"]["time_s"] == s["best"][0]["step_time_s"]
PY
# the table's command, wrapped between its words with " \" line ends, is
# one command pasted into a shell as printed (the quoted folder name too)
"$bin" --config data/profiles/configs/megatron-gpt-7b-tp2.json --experiment search --calibrate-compute "$long/p.json" \
	>"$work/l.txt" 2>/dev/null || fail "table search with a long profile path: exit $?"
sed -n "/^  the winner's full report  /,/^[^ ]/p" "$work/l.txt" | sed -e '$d' -e "s/^  the winner's full report  //" \
	-e 's|^distcalc |"$bin" |' >"$work/pasted.sh"
[ "$(wc -l <"$work/pasted.sh")" -gt 1 ] || fail "the table's command is not wrapped: $(cat "$work/pasted.sh")"
sed '$ s/$/ --format json --only step/' "$work/pasted.sh" >"$work/pasted-run.sh"
bin=$bin sh "$work/pasted-run.sh" >"$work/p.json" 2>"$work/p.err" || fail "the pasted command: exit $? $(cat "$work/p.err")"
python3 - "$work/l.json" "$work/p.json" <<'PY' || fail "the pasted command's step is not the search's"
import json, sys
assert json.load(open(sys.argv[2]))["step"]["time_s"] == json.load(open(sys.argv[1]))["search"]["best"][0]["step_time_s"]
PY
python3 - "$work/l.json" "$work/pasted.sh" <<'PY' || fail "the pasted table command is not the JSON one: $(cat "$work/pasted.sh")"
import json, sys
want = json.load(open(sys.argv[1]))["search"]["command"]
lines = open(sys.argv[2]).read().replace('"$bin"', "distcalc", 1).splitlines()
assert all(l.endswith(" \\") for l in lines[:-1]), lines
got = " ".join(l.strip().removesuffix(" \\").strip() for l in lines)
assert got == want, (got, want)
PY
# with a profile the search warns as the winner's single run would: a
# winner whose layer the profile did not measure (the 7.1B's tp-2 profile,
# winner tp 1 at micro batch 2), none when the space holds only the
# profile's own tp and micro batch and no sequence parallelism (the probe
# runs the whole sequence on one tp rank), a mixture of experts, and the SDPA
# kernel's backend once where the config takes the default
ws() { "$bin" "$@" --experiment search 2>&1 >/dev/null | grep "warning:"; }
w=$(ws --config data/profiles/configs/megatron-gpt-7b-tp2.json --calibrate-compute "$prof")
echo "$w" | grep -q "its levels were measured on another layer than the winner's (micro batch 1, this run's 2; tp 2, this run's 1) and priced every layout the search tried" ||
	fail "no winner-layer warning: $w"
own="--set search.space.tp=[2] --set search.space.micro_batch_size=[1] --set search.space.sequence_parallel=[false]"
# shellcheck disable=SC2086
"$bin" --config data/profiles/configs/megatron-gpt-7b-tp2.json --calibrate-compute "$prof" $own --experiment search \
	>/dev/null 2>"$work/own.err" || fail "the profile's own layout searched: exit $? $(cat "$work/own.err")"
grep -q "warning:" "$work/own.err" && fail "a winner of the profile's own layer warned: $(cat "$work/own.err")"
w=$(ws --config configs/mixtral-8x7b-ep.json --set cluster.gpu=h200-sxm-141gb --unset cluster.gpu_memory --calibrate-compute "$prof")
echo "$w" | grep -q "its levels were measured on a dense layer and priced every layout of this search's (mixture-of-experts" ||
	fail "no dense-layer warning: $w"
[ "$(echo "$w" | grep -c "SDPA run cuDNN's kernel")" = 1 ] || fail "the backend note not once: $w"
# the table's command stays within 100 columns with a shipped profile
"$bin" --config data/profiles/configs/megatron-gpt-7b-tp2.json --experiment search --calibrate-compute "$prof" \
	>"$work/w.txt" 2>/dev/null || fail "width search: exit $?"
awk 'length > 100 { print; bad = 1 } END { exit bad }' "$work/w.txt" || fail "a line of the search table is over 100 columns"

# a command longer than its 2,047 bytes is not printed cut: a config 2,100
# bytes deep gets search.command_omitted instead
deep=$work
for i in 1 2 3 4 5 6 7 8 9; do deep=$deep/$(printf '%0230d' "$i"); done
mkdir -p "$deep" && cp "$src/configs/systems.json" "$deep/c.json" || exit 2
"$bin" --config "$deep/c.json" --experiment search --format json >"$work/d.json" 2>/dev/null || fail "deep config: exit $?"
python3 - "$work/d.json" <<'PY' || fail "an overlong command was printed"
import json, sys
s = json.load(open(sys.argv[1]))["search"]
assert "command" not in s and s["command_omitted"].startswith("not shown: its command line is longer than 2047 bytes"), s.get("command")
PY
"$bin" --config data/profiles/configs/megatron-gpt-7b-tp2.json --experiment search --format json >"$work/u.json" 2>/dev/null ||
	fail "uncalibrated search: exit $?"
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["search"]; sys.exit("compute_profile" in s or "calibrate" in s["command"])' \
	"$work/u.json" || fail "an uncalibrated search names a profile"

# a CSV of the search is whole CSV (the layout column quoted)
"$bin" --config "$cfg" --experiment search --format csv >"$work/s.csv" 2>/dev/null || fail "csv: exit $?"
python3 - "$work/s.csv" <<'PY' || fail "csv"
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
head = [r for r in rows if r and r[0] == "rank"]
assert head and head[0][-1] == "layout", head
PY
# offloaded states must fit the host too (summary.fits): with 1 GiB of host
# memory no layout of the course model holds its offloaded optimizer
# (about 100 GiB a node), so none fits; without host_memory every one does
sys_cfg=$src/configs/systems.json
"$bin" --config "$sys_cfg" --experiment search --set parallel.offload=optimizer --set cluster.host_memory=1GiB \
	--format json >"$work/h.json" 2>/dev/null || fail "search with host memory: exit $?"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["search"]["counts"]; sys.exit(0 if c["fit"] == 0 and c["priced_memory"] > 0 else 1)' "$work/h.json" ||
	fail "a layout fits 1 GiB of host memory"
"$bin" --config "$sys_cfg" --experiment search --set parallel.offload=optimizer --format json >"$work/h0.json" 2>/dev/null ||
	fail "search without host memory: exit $?"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["search"]["counts"]; sys.exit(0 if c["fit"] > 0 else 1)' "$work/h0.json" ||
	fail "no layout fits without host memory"

# a tight winner (within 5% of the GPU, no headroom asked) is said on
# stderr, with its peak and what is left; with search.headroom 0.05 the
# layouts ranked keep that margin and nothing is said (a user trial's 70B
# search: 77.169 GiB of 80 first)
t=$src/tests/inputs/search/llama-3.1-70b-dgx-h100-4.json
"$bin" --config "$t" --experiment search --format json >"$work/t.json" 2>"$work/t.err" || fail "tight search: exit $?"
python3 - "$work/t.json" "$work/t.err" <<'PY' || fail "the tight winner's warning: $(cat "$work/t.err")"
import json, sys
s = json.load(open(sys.argv[1]))["search"]
b = s["best"][0]
assert b["fits"] and b["tight"], b
left = 100.0 * (1 - b["peak_bytes"] / s["limit_bytes"])
def gib(n):  # as the report names memory: whole GiB plain, else 3 decimals and the bytes
    return "%d GiB" % (n >> 30) if n % 2**30 == 0 else "%.3f GiB (%s B)" % (n / 2**30, format(n, ","))
want = ("'search.headroom': the best layout is tight: its peak, %s, leaves %.1f%% of the %s of GPU memory"
        % (gib(b["peak_bytes"]), left, gib(s["limit_bytes"])))
assert want in open(sys.argv[2]).read(), want
# an H100: the card's usable memory below the preset's, as a single run says
assert "an H100 SXM5 80GB, for one, reports 79.65 GiB" in open(sys.argv[2]).read()
PY
"$bin" --config "$t" --experiment search --set search.headroom=0.05 >/dev/null 2>"$work/t5.err" || fail "tight search, headroom 0.05: exit $?"
grep -q "the best layout is tight" "$work/t5.err" && fail "headroom 0.05 still warns: $(cat "$work/t5.err")"

[ "$fails" = 0 ] || exit 1
echo "ok"
