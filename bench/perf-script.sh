#!/bin/sh
# Speed of the perf script reader: builds a ~200 MB input by repeating a
# recording and times profkit-convert --to=folded on it (a thread a core,
# one thread, and from a pipe, read as a stream) against cat (the I/O
# floor) and stackcollapse-perf.pl (when STACKCOLLAPSE_PERF or
# STACKCOLLAPSE points at it or it is on PATH), then the recording itself
# (a small input, each way run 50 times over), printing MB/s and ratios
# from one run, and checks that the three ways give the same output.
#
#   bench/perf-script.sh [SIZE-MB]        (run from a built tree)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
size_mb=${1:-200}
collapse=${STACKCOLLAPSE_PERF:-${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/bench/bench-subr.sh"
use_programs "${PROFKIT_BINDIR:-$top/cmd}"
convert=${PROFKIT_CONVERT:-$bin/profkit-convert}

seed=$top/testdata/perf-script/c-fp.txt
input=$tmp/big.txt
while [ "$(stat -c %s "$input" 2>/dev/null || echo 0)" -lt $((size_mb * 1000000)) ]; do
	cat "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" >>"$input"
done
cat "$input" >/dev/null	# warm the page cache

# runs N OUT COMMAND...: "seconds peak-RSS-KiB" of one run of N in a row
# (the last one's stdout in OUT): a small input takes less than GNU
# time's hundredth of a second
runs() {
	n=$1 out=$2
	shift 2
	set -- $(measure "$out" sh -c 'n=$1; shift; i=1
		while [ $i -lt "$n" ]; do "$@" >/dev/null; i=$((i + 1)); done; "$@"' sh "$n" "$@")
	echo "$(echo "scale=4; $1 / $n" | bc) $2"
}

report() {
	# name seconds rss
	mbs=$(echo "scale=1; $bytes / 1000000 / $2" | bc)
	printf '%-34s %8.4f s %9s MB/s   peak RSS %s KiB\n' "$1" "$2" "$mbs" "$3"
}

# perl_vs NAME SECONDS: the ratio to the perl script's time
perl_vs() {
	[ -n "${pl_s:-}" ] && echo "  $1: $(echo "scale=1; $pl_s / $2" | bc)x faster than stackcollapse-perf.pl"
	return 0
}

for f in "$input" "$seed"; do
	n=1
	[ "$f" = "$seed" ] && n=50
	bytes=$(stat -c %s "$f")
	pl_s=
	echo "input: $bytes bytes of perf script text ($(basename "$seed")$([ "$f" = "$seed" ] || echo ' repeated'))"
	set -- $(runs $n /dev/null cat "$f"); cat_s=$1; report "cat" "$1" "$2"
	if [ -n "$collapse" ]; then
		set -- $(runs $n "$tmp/theirs.folded" perl "$collapse" "$f"); pl_s=$1
		report "stackcollapse-perf.pl" "$1" "$2"
	fi
	set -- $(runs $n "$tmp/ours.folded" "$convert" -q --to=folded "$f"); pk_s=$1
	report "profkit-convert (a thread a core)" "$1" "$2"
	set -- $(runs $n "$tmp/one.folded" "$convert" -q --threads=1 --to=folded "$f"); one_s=$1
	report "profkit-convert --threads=1" "$1" "$2"
	set -- $(runs $n "$tmp/pipe.folded" sh -c 'cat "$1" | "$2" -q --to=folded' sh "$f" "$convert")
	pipe_s=$1
	report "cat | profkit-convert" "$1" "$2"
	echo "  profkit vs cat: $(echo "scale=2; $pk_s / $cat_s" | bc)x the time of cat"
	perl_vs "a thread a core" "$pk_s"
	perl_vs "one thread" "$one_s"
	perl_vs "from a pipe" "$pipe_s"
	cmp -s "$tmp/ours.folded" "$tmp/one.folded" && cmp -s "$tmp/ours.folded" "$tmp/pipe.folded" &&
		echo "  outputs of the three ways identical" ||
		{ echo "  outputs of the three ways DIFFER" >&2; exit 1; }
	if [ -n "$collapse" ]; then
		cmp -s "$tmp/theirs.folded" "$tmp/ours.folded" && echo "  same output as the perl script" ||
			echo "  output differs from the perl script's (doc/formats.md lists its faults)"
	else
		echo "  stackcollapse-perf.pl: not found (set STACKCOLLAPSE_PERF=/path/to/stackcollapse-perf.pl)"
	fi
done
