#!/bin/sh
# test_readme.sh DISTCALC SRCDIR - every example command in README.md runs.
#
# Indented lines of README.md that start with "distcalc --"
# (with "\" continuations) are run from the source directory with the
# built binary; each must exit 0 and print a report. Commands that need
# files a reader writes first (plan.json) are skipped. The seed's worked
# example must print its figures: 1.500 GiB per rank, 24 events, 32.212 ms.
set -u
bin=$1
src=$2
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
cd "$src" || exit 2

fails=0
count=0
cmds=$(awk '
	/^ +distcalc --/ { if (cmd != "") print cmd; sub(/^ +/, ""); cmd = $0; next }
	/^        +--/ { if (cmd != "") { sub(/^ +/, ""); cmd = cmd " " $0 }; next }
	{ if (cmd != "") print cmd; cmd = "" }
	END { if (cmd != "") print cmd }
' README.md)
# the loop reads one joined command per line
echo "$cmds" | {
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		case $line in *plan.json*) continue ;; esac
		cmd=$(printf '%s' "$line" | sed -e 's/[[:space:]]*#.*$//' -e 's/\\//g' -e 's/^distcalc //')
		count=$((count + 1))
		out=$(eval "\"$bin\" $cmd" 2>/tmp/dc-readme-err.$$)
		rc=$?
		if [ "$rc" != 0 ] || [ -z "$out" ]; then
			echo "FAIL: README example exits $rc: distcalc $cmd"
			cat /tmp/dc-readme-err.$$
			fails=$((fails + 1))
		fi
		case $cmd in
		*"collective.ranks=4"*"message_size=1 GiB"*)
			for want in "1.500 GiB (1,610,612,736 B)" "transfer events                24" "32.212 ms"; do
				printf '%s\n' "$out" | grep -qF "$want" || { echo "FAIL: worked example lacks '$want'"; fails=$((fails + 1)); }
			done ;;
		esac
	done
	rm -f /tmp/dc-readme-err.$$
	if [ "$count" -lt 8 ]; then
		echo "FAIL: found only $count README examples"
		exit 1
	fi
	[ "$fails" = 0 ] && echo "ok: $count README examples run" && exit 0
	exit 1
}
