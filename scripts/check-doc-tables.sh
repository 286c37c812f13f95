#!/bin/sh
# check-doc-tables.sh SOURCE_DIR - every Markdown table in README.md and
# docs/*.md has as many cells in its delimiter row as in its header row
# (GitHub renders a table whose two rows differ as plain text). Prints each
# table that does not and exits 1; silent and 0 when all match.
set -eu
src=${1:-.}
awk '
function cells(s) { sub(/^[ \t]*\|/, "", s); sub(/\|[ \t]*$/, "", s); return split(s, _, "|") }
FNR == 1 { prev = "" }
/^[ \t]*\|([ \t]*:?-+:?[ \t]*\|)+[ \t]*$/ && prev ~ /^[ \t]*\|/ {
	if (cells($0) != cells(prev)) {
		printf "%s:%d: the delimiter row has %d cells, the header %d\n", FILENAME, FNR, cells($0), cells(prev)
		bad = 1
	}
}
{ prev = $0 }
END { exit bad }
' "$src/README.md" "$src"/docs/*.md
