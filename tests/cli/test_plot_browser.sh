#!/bin/sh
# test_plot_browser.sh DISTCALC SRCDIR - each kind of --plot chart, and the
# --format html page, renders
# in a real browser: headless Chromium (Debian's `chromium`, which
# scripts/deps.sh installs when it is missing and it runs as root) turns it
# into a PNG of the SVG's own size, and the PNG is neither blank nor one
# colour: read back with Python's zlib (no imaging library), every filter
# type undone, its pixels counted.
#
# Without Chromium the test reports itself skipped (exit 77, ctest's
# SKIP_RETURN_CODE for this test in CMakeLists.txt).
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
browser=
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then
		browser=$b
		break
	fi
done
if [ -z "$browser" ]; then
	echo "skipped: no chromium (as root, scripts/deps.sh installs Debian's chromium package)"
	exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "FAIL: python3 is needed (scripts/deps.sh installs it)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-browser.XXXXXX")
trap 'rm -rf "$work"' EXIT HUP INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

render() { # NAME ARGS...
	name=$1
	shift
	"$bin" "$@" --plot "$work/$name.svg" >/dev/null 2>"$work/err" || { fail "$name: distcalc exits $?: $(cat "$work/err")"; return; }
	h=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$work/$name.svg")
	w=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)".*/\1/p' "$work/$name.svg")
	[ -n "$h" ] && [ -n "$w" ] || { fail "$name: no width and height on <svg>"; return; }
	# --no-sandbox: root in a container has no user namespace for it
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
		--user-data-dir="$work/profile-$name" --window-size="$w,$h" \
		--screenshot="$work/$name.png" "file://$work/$name.svg" >"$work/browser.log" 2>&1
	[ -s "$work/$name.png" ] || { fail "$name: $browser wrote no PNG: $(tail -3 "$work/browser.log")"; return; }
	echo "$name $w $h" >>"$work/list"
}
render systems --config "$src/configs/systems.json"
render systems_step --config "$src/configs/systems.json" --set cluster.gpu=a100-sxm4-80gb
render ring --config "$src/configs/systems.json" --experiment ring
render sweep --config "$src/configs/sweeps/gpus.json" --sweep cluster.num_nodes=1,2,4,8 --sweep parallel.tp=2,4
render msg --config "$src/configs/systems.json" --experiment ring --sweep 'collective.message_size=1 KiB,1 MiB,1 GiB'
render whatif --config "$src/configs/systems.json" --experiment whatif
render checkpoint --config "$src/configs/systems.json" --experiment checkpoint
render loss --config "$src/configs/systems.json" --experiment loss
render collectives --config "$src/configs/systems.json" --experiment collectives
render search --config "$src/configs/systems.json" --experiment search
render calibrate --config "$src/tests/inputs/dgx_h100_2x8.json" --experiment collectives \
	--calibrate "$src/tests/data/nccl-tests-h100-2x8-ib.txt"
# --format html: the page renders at 1000 x 1400 px, and the summary's
# fit verdict is in the page's text as the browser reads it (--dump-dom)
"$bin" --config "$src/configs/systems.json" --format html --output "$work/page.html" 2>"$work/err" ||
	fail "page: distcalc exits $?: $(cat "$work/err")"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
	--user-data-dir="$work/profile-page" --window-size=1000,1400 \
	--screenshot="$work/page.png" "file://$work/page.html" >"$work/browser.log" 2>&1
if [ -s "$work/page.png" ]; then
	echo "page 1000 1400" >>"$work/list"
else
	fail "page: $browser wrote no PNG: $(tail -3 "$work/browser.log")"
fi
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile-dom" \
	--dump-dom "file://$work/page.html" >"$work/page.dom" 2>"$work/browser.log"
grep -q "fits in GPU memory (every rank)</td><td>yes</td>" "$work/page.dom" ||
	fail "page: the summary's fit verdict is not in the rendered page's text"

[ -f "$work/list" ] || { echo "FAIL: no chart rendered"; exit 1; }

python3 - "$work" <<'PY' || fails=$((fails + 1))
import struct, sys, zlib
work = sys.argv[1]
bad = []

def pixels(path):
    """Width, height and rows of RGB(A) tuples of an 8-bit PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    if depth != 8 or colour not in (2, 6):
        raise ValueError(f"bit depth {depth}, colour type {colour}")
    bpp = 3 if colour == 2 else 4
    raw, stride, prev, rows, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), [], 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

for entry in open(f"{work}/list").read().split("\n"):
    if not entry:
        continue
    name, w, h = entry.split()
    pw, ph, bpp, rows = pixels(f"{work}/{name}.png")
    if (pw, ph) != (int(w), int(h)):
        bad.append(f"{name}: PNG is {pw}x{ph}, want {w}x{h}")
        continue
    colours, ink = set(), 0
    for line in rows[::2]:
        for x in range(0, len(line), bpp * 2):
            px = bytes(line[x:x + 3])
            colours.add(px)
            ink += px != b"\xff\xff\xff"
    sampled = (ph + 1) // 2 * ((pw + 1) // 2)
    # a chart has text, axes and coloured marks: many colours (antialiased
    # text alone brings dozens) and between 1% and 90% of pixels not white
    if len(colours) < 8:
        bad.append(f"{name}: {len(colours)} colours: blank or flat")
    if not (0.01 * sampled < ink < 0.9 * sampled):
        bad.append(f"{name}: {ink} of {sampled} sampled pixels not white")
    print(f"{name}: {pw}x{ph}, {len(colours)} colours, {100 * ink / sampled:.1f}% ink")
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
[ "$fails" = 0 ] && echo "ok: browser"
exit $((fails > 0))
