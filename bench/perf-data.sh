#!/bin/sh
# Speed of the perf.data reader: records a ~30 MB perf.data of a CPU-bound
# program (testdata/src/c-fp.c, frame pointers, perf record -F 20000 -g
# -e cpu-clock) and times profkit-convert against perf script printing the
# same fields, and folded output against perf script with its symbols
# (and piped through stackcollapse-perf.pl when that is at hand), then
# prints the ratios. Needs perf and a C compiler, and
# perf_event_paranoid <= 2 (user-space profiling).
#
#   bench/perf-data.sh [ITERATIONS]       (run from a built tree; the
#                                          default 4500 makes ~30 MB)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
convert=${PROFKIT_CONVERT:-$top/cmd/profkit-convert}
iters=${1:-4500}
cc=${CC:-cc}
command -v perf >/dev/null || { echo "perf not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$cc -O1 -g -fno-omit-frame-pointer -o "$tmp/c-fp" "$top/testdata/src/c-fp.c"
perf record -q -F 20000 -g -e cpu-clock -o "$tmp/perf.data" "$tmp/c-fp" "$iters" \
	>/dev/null 2>"$tmp/record.err" || { cat "$tmp/record.err" >&2; exit 1; }
bytes=$(stat -c %s "$tmp/perf.data")
cat "$tmp/perf.data" >/dev/null	# warm the page cache

. "$top/bench/bench-subr.sh"

report() {
	# name seconds rss
	mbs=$(echo "scale=1; $bytes / 1000000 / $2" | bc)
	printf '%-34s %8.2f s %9s MB/s   peak RSS %s KiB\n' "$1" "$2" "$mbs" "$3"
}

echo "input: $((bytes / 1000000)) MB perf.data of $tmp/c-fp $iters"
fields=comm,pid,tid,time,event,ip,dso
set -- $(measure "$tmp/perf.txt" perf script -F $fields -i "$tmp/perf.data")
perf_s=$1
report "perf script -F $fields" "$1" "$2"
set -- $(measure "$tmp/ours.txt" "$convert" -q --no-symbolize --to=perf-script "$tmp/perf.data")
ps_s=$1
report "profkit-convert --to=perf-script" "$1" "$2"
# folded and pprof as users run them: symbolized
set -- $(measure "$tmp/ours.folded" "$convert" -q --to=folded "$tmp/perf.data")
fold_s=$1
report "profkit-convert --to=folded" "$1" "$2"
# folded as users make it today: perf script with symbols, then the perl
# collapser (FlameGraph's stackcollapse-perf.pl: $STACKCOLLAPSE or on PATH)
set -- $(measure "$tmp/perf-sym.txt" perf script -i "$tmp/perf.data")
sym_s=$1
report "perf script (symbols)" "$1" "$2"
echo "perf script -F $fields / profkit --to=perf-script: $(ratio "$perf_s" "$ps_s")x"
echo "perf script (symbols) / profkit --to=folded:      $(ratio "$sym_s" "$fold_s")x"
collapse=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}
if [ -n "$collapse" ]; then
	set -- $(measure "$tmp/theirs.folded" perl "$collapse" "$tmp/perf-sym.txt")
	pipe_s=$(echo "$sym_s + $1" | bc)
	echo "perf script | stackcollapse-perf.pl:              $pipe_s s, $(ratio "$pipe_s" "$fold_s")x profkit's time"
	cmp -s "$tmp/theirs.folded" "$tmp/ours.folded" && echo "folded outputs identical" ||
		{ echo "folded outputs differ (doc/formats.md lists the perl script's faults):"
		  diff "$tmp/theirs.folded" "$tmp/ours.folded" | cut -c1-160 | head -6; }
fi
if "$convert" --list-formats | grep -q '^  pprof '; then
	set -- $(measure "$tmp/ours.pb.gz" "$convert" -q --to=pprof "$tmp/perf.data")
	report "profkit-convert --to=pprof" "$1" "$2"
	echo "perf script (symbols) / profkit --to=pprof:       $(ratio "$sym_s" "$1")x"
else
	echo "pprof: not registered in this build"
fi
echo "samples: $(grep -c '^$' "$tmp/perf.txt" || true) (perf), $(grep -c '^$' "$tmp/ours.txt" || true) (profkit)"
cmp -s "$tmp/perf.txt" "$tmp/ours.txt" && echo "perf-script outputs identical" ||
	echo "perf-script outputs differ"
