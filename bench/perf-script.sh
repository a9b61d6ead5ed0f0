#!/bin/sh
# Speed of the perf script reader: builds a ~200 MB input by repeating a
# recording and times profkit-convert --to=folded against cat (the I/O
# floor) and stackcollapse-perf.pl (when STACKCOLLAPSE points at it or it
# is on PATH), printing MB/s and ratios from one run.
#
#   bench/perf-script.sh [SIZE-MB]        (run from a built tree)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
convert=${PROFKIT_CONVERT:-$top/cmd/profkit-convert}
size_mb=${1:-200}
collapse=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seed=$top/testdata/perf-script/c-fp.txt
input=$tmp/big.txt
while [ "$(stat -c %s "$input" 2>/dev/null || echo 0)" -lt $((size_mb * 1000000)) ]; do
	cat "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" >>"$input"
done
bytes=$(stat -c %s "$input")
cat "$input" >/dev/null	# warm the page cache

. "$top/bench/bench-subr.sh"

report() {
	# name seconds rss
	mbs=$(echo "scale=1; $bytes / 1000000 / $2" | bc)
	printf '%-28s %8.2f s %9s MB/s   peak RSS %s KiB\n' "$1" "$2" "$mbs" "$3"
}

echo "input: $((bytes / 1000000)) MB of perf script text ($(basename "$seed") repeated)"
set -- $(measure /dev/null cat "$input"); cat_s=$1; report "cat" "$1" "$2"
set -- $(measure "$tmp/ours.folded" "$convert" -q --to=folded "$input"); pk_s=$1; report "profkit-convert --to=folded" "$1" "$2"
echo "profkit vs cat: $(echo "scale=2; $pk_s / $cat_s" | bc)x the time of cat"
if [ -n "$collapse" ]; then
	set -- $(measure "$tmp/theirs.folded" perl "$collapse" "$input"); pl_s=$1; report "stackcollapse-perf.pl" "$1" "$2"
	echo "profkit is $(echo "scale=1; $pl_s / $pk_s" | bc)x faster than stackcollapse-perf.pl"
	cmp -s "$tmp/theirs.folded" "$tmp/ours.folded" && echo "outputs identical" ||
		echo "outputs differ (see doc/formats.md for the known differences)"
else
	echo "stackcollapse-perf.pl: not found (set STACKCOLLAPSE=/path/to/stackcollapse-perf.pl)"
fi
