#!/bin/sh
# Draws the pictures of README.md and docs/sweeps.md from shipped configs,
# one of each kind of --plot chart. Usage:
#   sh scripts/plots.sh [DISTCALC] [OUTDIR]   (defaults: build/distcalc, docs/img)
# Run it after a change that moves a chart, and commit docs/img/.
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/distcalc}
out=${2:-docs/img}
[ -x "$bin" ] || { echo "plots.sh: no executable at $bin (make build, or pass its path)" >&2; exit 2; }
mkdir -p "$out"
# the systems report: the memory ledger per phase against the 80 GiB card
"$bin" --config configs/systems.json --only memory --plot "$out/memory.svg" >/dev/null
# with a GPU preset the step time too: its breakdown per rank class
"$bin" --config configs/systems.json --plot "$out/step.svg" >/dev/null
# the course ring: 8 ranks, 14 rounds
"$bin" --config configs/systems.json --experiment ring --plot "$out/ring.svg" >/dev/null
# more GPUs save memory yet add latency (docs/sweeps.md works it by hand)
"$bin" --config configs/sweeps/gpus.json --set parallel.sharding=zero1 \
	--sweep cluster.num_nodes=1,2,4,8 \
	--sweep-metrics summary.peak_bytes,comm.dp.bytes_per_rank,comm.dp.time_s,step.time_s \
	--plot "$out/sweep-gpus.svg" >/dev/null
# the ring over message sizes: latency-bound, then bandwidth-bound (log axes)
"$bin" --config configs/systems.json --experiment ring \
	--sweep 'collective.message_size=1 KiB,32 KiB,1 MiB,32 MiB,1 GiB' \
	--plot "$out/sweep-message-size.svg" >/dev/null
"$bin" --config configs/systems.json --experiment whatif --set checkpoint.format='"full"' \
	--set checkpoint.gather='"gpu"' --plot "$out/whatif.svg" >/dev/null
"$bin" --config configs/systems.json --experiment checkpoint --plot "$out/checkpoint.svg" >/dev/null
"$bin" --config configs/systems.json --experiment loss --plot "$out/loss.svg" >/dev/null
"$bin" --config configs/systems.json --experiment collectives --plot "$out/collectives.svg" >/dev/null
"$bin" --config configs/systems.json --experiment search --plot "$out/search.svg" >/dev/null 2>&1
echo "plots.sh: wrote $out/memory.svg $out/step.svg $out/ring.svg $out/sweep-gpus.svg $out/sweep-message-size.svg" \
	"$out/whatif.svg $out/checkpoint.svg $out/loss.svg $out/collectives.svg $out/search.svg" >&2
