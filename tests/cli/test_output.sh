#!/bin/sh
# test_output.sh DISTCALC SRCDIR - every way writing the report can go wrong.
#
# --output is atomic (a temporary file in the same directory, then rename):
# on any error or signal an existing file is untouched and no temporary file
# is left. Every write is checked: a full disk, a closed stdout or a
# file-size limit is exit 5, never exit 0 and never a partial file. Links
# are followed, descriptors and devices written in place, read-only files
# and the run's own inputs refused. docs/reliability.md maps each promise
# to its case here.
set -u

bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cfg=$src/configs/systems.json
bad=$src/tests/inputs/unknown_key.json

work=$(mktemp -d "${TMPDIR:-/tmp}/distcalc-output.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT HUP INT TERM
cd "$work" || exit 2

fails=0
skipped=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# only the named files may exist in the work directory
only() {
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	have=$(ls -A | sort | tr '\n' ' ')
	[ "$have" = "$want" ] || fail "$ctx: files are [$have], expected [$want]"
}

# 1. --output writes exactly what stdout would show
ctx="--output writes the report"
"$bin" --config "$cfg" --seed 7 >expected.txt 2>/dev/null || fail "$ctx: plain run failed"
"$bin" --config "$cfg" --seed 7 --output out.txt 2>err.txt
rc=$?
[ "$rc" = 0 ] || fail "$ctx: exit $rc"
[ -s out.txt ] && cmp -s expected.txt out.txt || fail "$ctx: out.txt differs from stdout"
[ -s err.txt ] && fail "$ctx: unexpected stderr: $(cat err.txt)"
only expected.txt out.txt err.txt
[ "$fails" = 0 ] && ok "$ctx"

# 2. a config error leaves an existing file untouched and no temporary file
ctx="config error keeps the old file"
n=$fails
echo "old contents" >out.txt
"$bin" --config "$bad" --output out.txt >stdout.txt 2>/dev/null
rc=$?
[ "$rc" = 3 ] || fail "$ctx: exit $rc, expected 3"
[ "$(cat out.txt)" = "old contents" ] || fail "$ctx: out.txt was changed"
[ -s stdout.txt ] && fail "$ctx: stdout not empty"
only expected.txt out.txt err.txt stdout.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 3. a missing directory is unwritable output
ctx="missing directory"
n=$fails
"$bin" --config "$cfg" --output no/such/dir.txt >/dev/null 2>err.txt
rc=$?
[ "$rc" = 5 ] || fail "$ctx: exit $rc, expected 5"
grep -q "^distcalc: error: cannot create 'no/such/dir.txt': No such file or directory\$" err.txt ||
	fail "$ctx: stderr: $(cat err.txt)"
[ "$fails" = "$n" ] && ok "$ctx"

# 4. a full disk: --output /dev/full must write to the device (renaming over
# it would replace the device node) and fail; stdout on /dev/full too
if [ -c /dev/full ]; then
	ctx="/dev/full"
	n=$fails
	"$bin" --config "$cfg" --output /dev/full >/dev/null 2>err.txt
	rc=$?
	[ "$rc" = 5 ] || fail "$ctx: --output exit $rc, expected 5"
	grep -q "^distcalc: error: cannot write '/dev/full': No space left on device\$" err.txt ||
		fail "$ctx: stderr: $(cat err.txt)"
	[ -c /dev/full ] || fail "$ctx: /dev/full is no longer a character device"
	"$bin" --config "$cfg" >/dev/full 2>err.txt
	rc=$?
	[ "$rc" = 5 ] || fail "$ctx: stdout exit $rc, expected 5"
	grep -q "^distcalc: error: cannot write to standard output: No space left on device\$" err.txt ||
		fail "$ctx: stderr: $(cat err.txt)"
	"$bin" --version >/dev/full 2>/dev/null
	rc=$?
	[ "$rc" = 5 ] || fail "$ctx: --version exit $rc, expected 5"
	"$bin" --help >/dev/full 2>/dev/null
	rc=$?
	[ "$rc" = 5 ] || fail "$ctx: --help exit $rc, expected 5"
	[ "$fails" = "$n" ] && ok "$ctx"
else
	skipped=$((skipped + 1))
	echo "skip: /dev/full (no such device)"
fi

# 5. a closed stdout is an error, not exit 0
ctx="closed stdout"
n=$fails
"$bin" --config "$cfg" >&- 2>err.txt
rc=$?
[ "$rc" = 5 ] || fail "$ctx: exit $rc, expected 5"
grep -q "^distcalc: error: cannot write to standard output: " err.txt || fail "$ctx: stderr: $(cat err.txt)"
[ "$fails" = "$n" ] && ok "$ctx"

# 6. a file-size limit (ulimit -f): SIGXFSZ must not kill distcalc halfway
# through the temporary file; the write fails with EFBIG, exit 5, no file
ctx="ulimit -f"
n=$fails
rm -f out.txt
(ulimit -f 1 && exec "$bin" --config "$cfg" --output out.txt) >/dev/null 2>err.txt
rc=$?
[ "$rc" = 5 ] || fail "$ctx: --output exit $rc, expected 5"
grep -q "^distcalc: error: cannot write 'out.txt': File too large\$" err.txt || fail "$ctx: stderr: $(cat err.txt)"
only expected.txt err.txt stdout.txt
(ulimit -f 1 && exec "$bin" --config "$cfg") >big.txt 2>err.txt
rc=$?
[ "$rc" = 5 ] || fail "$ctx: stdout exit $rc, expected 5"
rm -f big.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 7. an existing file keeps its permissions
ctx="permissions kept"
n=$fails
echo old >mode.txt
chmod 640 mode.txt
"$bin" --config "$cfg" --output mode.txt 2>/dev/null || fail "$ctx: run failed"
[ "$(ls -l mode.txt | cut -c1-10)" = "-rw-r-----" ] || fail "$ctx: mode is $(ls -l mode.txt | cut -c1-10)"
rm -f mode.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 7b. ... and its group (and owner), where the process may give them: as
# root, a file of group nogroup stays nogroup (a trial's shared directory
# lost its group); skipped where not root or no such group
ctx="owner and group kept"
if [ "$(id -u)" = 0 ] && grp=$(getent group nogroup 2>/dev/null | cut -d: -f3) && [ -n "$grp" ] &&
	[ "$grp" != "$(id -g)" ]; then
	n=$fails
	echo old >grp.txt
	chgrp "$grp" grp.txt
	"$bin" --config "$cfg" --output grp.txt 2>/dev/null || fail "$ctx: run failed"
	[ "$(stat -c %g grp.txt)" = "$grp" ] || fail "$ctx: group is $(stat -c %g grp.txt), expected $grp"
	[ "$(stat -c %u grp.txt)" = 0 ] || fail "$ctx: owner is $(stat -c %u grp.txt)"
	rm -f grp.txt
	[ "$fails" = "$n" ] && ok "$ctx"
else
	echo "skip: $ctx (needs root and a group nogroup)"
	skipped=$((skipped + 1))
fi

# 8. same inputs and seed, same bytes (table and JSON)
ctx="repeatable output"
n=$fails
for fmt in table json; do
	"$bin" --config "$cfg" --seed 7 --format $fmt >a.txt 2>/dev/null
	"$bin" --config "$cfg" --seed 7 --format $fmt >b.txt 2>/dev/null
	cmp -s a.txt b.txt || fail "$ctx: two --format $fmt runs differ"
done
rm -f a.txt b.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 9. a 250-byte name (NAME_MAX is 255): the temporary name must fit too
ctx="250-byte output name"
n=$fails
long=$(printf '%0250d' 0)
"$bin" --config "$cfg" --seed 7 --output "$long" 2>err.txt
rc=$?
[ "$rc" = 0 ] || fail "$ctx: exit $rc: $(cat err.txt)"
cmp -s expected.txt "$long" || fail "$ctx: the file differs from stdout"
rm -f "$long"
only expected.txt err.txt stdout.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 10. a symlink: the report replaces the file the link names, the link stays
# (relative links are relative to the link's directory; chains and dangling
# links are followed too)
ctx="--output through a symlink"
n=$fails
mkdir d
echo old >real.txt
ln -s ../real.txt d/link.txt
ln -s d/link.txt chain.txt
ln -s new.txt d/dangling.txt
for l in d/link.txt chain.txt d/dangling.txt; do
	"$bin" --config "$cfg" --seed 7 --output $l 2>err.txt
	rc=$?
	[ "$rc" = 0 ] || fail "$ctx: $l: exit $rc: $(cat err.txt)"
	[ -L $l ] || fail "$ctx: $l is no longer a symlink"
done
cmp -s expected.txt real.txt || fail "$ctx: real.txt does not hold the report"
cmp -s expected.txt d/new.txt || fail "$ctx: d/new.txt (a dangling link's target) does not hold the report"
[ "$(ls -A d | sort | tr '\n' ' ')" = "dangling.txt link.txt new.txt " ] || fail "$ctx: d holds $(ls -A d)"
rm -rf d real.txt chain.txt
only expected.txt err.txt stdout.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 11. a link to a descriptor (/dev/stdout -> /proc/self/fd/1): distcalc writes
# to the descriptor in place, so '>' , '>>' and a pipe all work and the link
# stays. mystdout is a private copy of /dev/stdout: a distcalc that replaced
# the link replaces only that, and /dev/stdout is tried only after it passed.
ctx="--output /dev/stdout"
n=$fails
ln -s /proc/self/fd/1 mystdout
"$bin" --config "$cfg" --seed 7 --output mystdout >report.txt 2>err.txt
rc=$?
[ "$rc" = 0 ] || fail "$ctx: exit $rc: $(cat err.txt)"
[ -L mystdout ] || fail "$ctx: the link was replaced"
cmp -s expected.txt report.txt || fail "$ctx: '>' did not receive the report"
echo old >report.txt
"$bin" --config "$cfg" --seed 7 --output mystdout >>report.txt 2>/dev/null
{ echo old && cat expected.txt; } | cmp -s - report.txt || fail "$ctx: '>>' did not append the report"
"$bin" --config "$cfg" --seed 7 --output /dev/fd/1 2>/dev/null | cat >report.txt
cmp -s expected.txt report.txt || fail "$ctx: /dev/fd/1 into a pipe did not receive the report"
if [ "$fails" = "$n" ] && [ -L /dev/stdout ]; then
	"$bin" --config "$cfg" --seed 7 --output /dev/stdout >report.txt 2>/dev/null
	[ -L /dev/stdout ] || fail "$ctx: /dev/stdout was replaced"
	cmp -s expected.txt report.txt || fail "$ctx: /dev/stdout did not receive the report"
fi
rm -f mystdout report.txt
only expected.txt err.txt stdout.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 12. crash safety, seen with strace: the temporary file is synced before
# the rename and the target's directory after it
ctx="fsync before and after the rename"
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	n=$fails
	mkdir d
	# (LeakSanitizer cannot run under ptrace: a sanitizer build skips it)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -o trace.txt -e trace=openat,open,fsync,fdatasync,rename,renameat,renameat2 \
		"$bin" --config "$cfg" --output d/out.txt 2>err.txt
	rc=$?
	[ "$rc" = 0 ] || fail "$ctx: exit $rc: $(cat err.txt)"
	# prints "file" when the file was synced before the rename and "dir"
	# when d was opened as a directory and synced after it
	seen=$(awk '
		/^f(data)?sync\(/ { if (!renamed) synced = 1; else if ($0 ~ "^f(data)?sync\\(" dirfd "\\)") dir = 1 }
		/^rename(at2?)?\(.*"d\/out\.txt"/ { renamed = 1; if (synced) print "file" }
		renamed && /^open(at)?\(.*"d", O_RDONLY\|O_DIRECTORY/ { dirfd = $NF }
		END { if (dir) print "dir" }
	' trace.txt | tr '\n' ' ')
	[ "$seen" = "file dir " ] || fail "$ctx: saw [$seen] in: $(grep -v '^openat.*lib' trace.txt | tail -n 6)"
	rm -rf d trace.txt
	only expected.txt err.txt stdout.txt
	[ "$fails" = "$n" ] && ok "$ctx"
else
	skipped=$((skipped + 1))
	echo "skip: $ctx (no working strace)"
fi

# 13. a read-only file is refused (exit 5), not replaced behind its back;
# a file without any write bit counts as read-only even for root
ctx="read-only output file"
n=$fails
echo old >ro.txt
chmod 444 ro.txt
"$bin" --config "$cfg" --output ro.txt >stdout.txt 2>err.txt
rc=$?
[ "$rc" = 5 ] || fail "$ctx: exit $rc, expected 5"
grep -q "^distcalc: error: cannot write 'ro.txt': it is read-only\$" err.txt || fail "$ctx: stderr: $(cat err.txt)"
[ "$(cat ro.txt)" = old ] || fail "$ctx: ro.txt was changed"
[ "$(ls -l ro.txt | cut -c1-10)" = "-r--r--r--" ] || fail "$ctx: mode is $(ls -l ro.txt | cut -c1-10)"
[ -s stdout.txt ] && fail "$ctx: stdout not empty"
ln -s ro.txt rolink.txt
"$bin" --config "$cfg" --output rolink.txt >/dev/null 2>err.txt
rc=$?
[ "$rc" = 5 ] || fail "$ctx: through a link: exit $rc, expected 5"
[ -L rolink.txt ] || fail "$ctx: the link was replaced"
rm -f ro.txt rolink.txt
only expected.txt err.txt stdout.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 14. -o onto an input of the same run (the --config or --model file, by
# name, through a link or a hard link) is a usage error: exit 2, the input
# untouched. (--check cannot be combined with --output at all.)
ctx="--output onto an input"
n=$fails
cp "$cfg" plan.json
cp "$src/configs/models/gpt2.json" model.json
ln -s plan.json planlink.json
ln plan.json planhard.json
for o in plan.json planlink.json planhard.json ./plan.json; do
	"$bin" --config plan.json --output $o >stdout.txt 2>err.txt
	rc=$?
	[ "$rc" = 2 ] || fail "$ctx: --config plan.json --output $o: exit $rc, expected 2"
	grep -q "^distcalc: error: '--output': '$o' is the '--config' file 'plan.json'; refusing to overwrite an input\$" err.txt ||
		fail "$ctx: --output $o: stderr: $(cat err.txt)"
done
"$bin" --config plan.json --model model.json --output model.json >stdout.txt 2>err.txt
rc=$?
[ "$rc" = 2 ] || fail "$ctx: --model model.json --output model.json: exit $rc, expected 2"
grep -q "^distcalc: error: '--output': 'model.json' is the '--model' file 'model.json'; refusing" err.txt ||
	fail "$ctx: --model: stderr: $(cat err.txt)"
cmp -s "$cfg" plan.json || fail "$ctx: plan.json was changed"
cmp -s "$src/configs/models/gpt2.json" model.json || fail "$ctx: model.json was changed"
[ -L planlink.json ] || fail "$ctx: planlink.json was replaced"
[ -s stdout.txt ] && fail "$ctx: stdout not empty"
rm -f plan.json model.json planlink.json planhard.json
only expected.txt err.txt stdout.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 15. SIGHUP, SIGINT or SIGTERM while a big report streams into the
# temporary file: the file goes, the old FILE (or none) stays, and distcalc
# dies of the signal (128 + its number). A background job of a script
# starts with SIGINT ignored, which distcalc keeps: env resets it.
ctx="signal during --output"
n=$fails
defsig=
env --default-signal=HUP,INT,TERM true 2>/dev/null && defsig="env --default-signal=HUP,INT,TERM"
tmps() { ls -A | grep -e '^\.dc-' -e '\.tmp\.'; }
for run in "HUP 129 json none" "INT 130 json old" "TERM 143 csv old"; do
	set -- $run
	sig=$1 want=$2 fmt=$3 old=$4
	if [ "$sig" = INT ] && [ -z "$defsig" ]; then
		skipped=$((skipped + 1))
		echo "skip: $ctx: SIGINT (no env --default-signal)"
		continue
	fi
	rm -f out.$fmt
	[ "$old" = old ] && echo "old contents" >out.$fmt
	$defsig "$bin" --experiment ring --set cluster.num_nodes=256 --set parallel.dp=256 --all \
		--format $fmt --output out.$fmt >/dev/null 2>&1 &
	pid=$!
	i=0
	while [ -z "$(tmps)" ] && kill -0 $pid 2>/dev/null && [ $i -lt 2000 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	kill -s $sig $pid 2>/dev/null || fail "$ctx: SIG$sig: distcalc ended before the signal"
	wait $pid
	rc=$?
	[ "$rc" = "$want" ] || fail "$ctx: SIG$sig: exit $rc, expected $want"
	[ -z "$(tmps)" ] || fail "$ctx: SIG$sig: left $(tmps)"
	if [ "$old" = old ]; then
		[ "$(cat out.$fmt)" = "old contents" ] || fail "$ctx: SIG$sig: out.$fmt was changed"
	else
		[ -e out.$fmt ] && fail "$ctx: SIG$sig: out.$fmt was created"
	fi
	rm -f out.$fmt
done
# the trace and the chart are made before the report, so a signal while
# the report is written finds three temporary files: each is removed, and
# none of the three outputs appears
$defsig "$bin" --experiment ring --set cluster.num_nodes=256 --set parallel.dp=256 --all \
	--format csv --output out.csv --trace tr.json --plot ch.svg >/dev/null 2>&1 &
pid=$!
i=0
while [ "$(tmps | wc -l)" -lt 3 ] && kill -0 $pid 2>/dev/null && [ $i -lt 2000 ]; do
	sleep 0.01
	i=$((i + 1))
done
[ "$(tmps | wc -l)" -eq 3 ] || fail "$ctx: three outputs: $(tmps | wc -l) temporary files, not 3, before the signal"
kill -s TERM $pid 2>/dev/null || fail "$ctx: three outputs: distcalc ended before the signal"
wait $pid
rc=$?
[ "$rc" = 143 ] || fail "$ctx: three outputs: exit $rc, expected 143"
[ -z "$(tmps)" ] || fail "$ctx: three outputs: left $(tmps)"
for f in out.csv tr.json ch.svg; do
	[ -e $f ] && fail "$ctx: three outputs: $f was created"
done
rm -f $(tmps) out.csv tr.json ch.svg
only expected.txt err.txt stdout.txt
[ "$fails" = "$n" ] && ok "$ctx"

# 16. a comma-decimal locale changes nothing. Use an installed one, or build
# de_DE into a private LOCPATH when the locale sources are there.
ctx="comma-decimal locale"
loc=
for l in $(locale -a 2>/dev/null); do
	case $l in
	de_DE.utf8 | de_DE.UTF-8 | fr_FR.utf8 | fr_FR.UTF-8 | it_IT.utf8 | es_ES.utf8 | nl_NL.utf8 | ru_RU.utf8)
		loc=$l
		break
		;;
	esac
done
if [ -z "$loc" ] && command -v localedef >/dev/null 2>&1 &&
	mkdir locales && localedef -i de_DE -f UTF-8 "$work/locales/de_DE.UTF-8" >/dev/null 2>&1; then
	LOCPATH=$work/locales
	export LOCPATH
	loc=de_DE.UTF-8
fi
if [ -n "$loc" ] && [ "$(env LC_ALL=$loc printf '%.1f' 1.5 2>/dev/null)" = "1,5" ]; then
	n=$fails
	for fmt in table json; do
		"$bin" --config "$cfg" --seed 7 --format $fmt >c.txt 2>/dev/null
		LC_ALL=$loc "$bin" --config "$cfg" --seed 7 --format $fmt >l.txt 2>/dev/null
		cmp -s c.txt l.txt || fail "$ctx: --format $fmt under LC_ALL=$loc differs from LC_ALL=C"
	done
	# numbers in the config read the same too
	LC_ALL=$loc "$bin" --config "$cfg" --seed 7 --format json --set 'cluster.inter_node.bandwidth=12.5 GB/s' \
		--set cluster.inter_node.latency=0.5e-5 >l.txt 2>/dev/null
	"$bin" --config "$cfg" --seed 7 --format json --set 'cluster.inter_node.bandwidth=12.5 GB/s' \
		--set cluster.inter_node.latency=0.5e-5 >c.txt 2>/dev/null
	cmp -s c.txt l.txt || fail "$ctx: config numbers read differently under LC_ALL=$loc"
	rm -f c.txt l.txt
	[ "$fails" = "$n" ] && ok "$ctx ($loc)"
else
	skipped=$((skipped + 1))
	echo "skip: $ctx (no comma-decimal locale available)"
fi

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
# a check this machine cannot run (no strace, no comma-decimal locale) is
# not a pass: exit 77, which ctest reports as skipped (CMakeLists.txt)
[ "$skipped" = 0 ] || { echo "$skipped check(s) skipped: the run is incomplete"; exit 77; }
exit 0
