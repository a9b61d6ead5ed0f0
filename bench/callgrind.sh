#!/bin/sh
# Speed and memory of the callgrind reader on 100 MB files made from real
# recordings (bench/bench-subr.sh: valgrind --tool=callgrind --dump-instr=yes
# --collect-jumps=yes of testdata/src/callgraph.c, and of python3 where it
# is; each recording's body repeated as the parts valgrind's
# --dump-every-bb makes of one run), beside callgrind_annotate's reading
# of the same file. Wall-clock and CPU time (user + system: steadier on a
# busy machine), the best of REPEAT runs, and GNU time's peak RSS.
#
# A callgrind file's reading has two costs: its lines, which grow with the
# file, and the stacks its call graph makes, which grow with the paths
# through the graph (bounded by callgrind:max-paths), not with the file:
# the dumps of one thread add up in one graph, made into stacks once.
#
#   bench/callgrind.sh [MB]       (run from a built tree; needs valgrind,
#                                  GNU time; REPEAT=3)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mb=${1:-100}
repeat=${REPEAT:-3}
[ -x /usr/bin/time ] || { echo "no GNU time (/usr/bin/time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/bench/bench-subr.sh"
use_programs "$top/cmd"
convert=$bin/profkit-convert
callgrind_recordings || exit 1

# cpu N OUT COMMAND...: "wall-s cpu-s peak-RSS-KiB", the least CPU of N runs
cpu() {
	n=$1 out=$2
	shift 2
	: >"$tmp/runs"
	while [ "$n" -gt 0 ]; do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" >"$out" 2>/dev/null || true
		awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >>"$tmp/runs"
		n=$((n - 1))
	done
	sort -n -k2,2 "$tmp/runs" | head -n 1
}

printf '%-22s %6s %8s %6s %6s %9s %8s %7s %8s %9s\n' recording MB stacks "wall s" \
	"cpu s" "MB/s wall" "MB/s cpu" "RSS MiB" "annot. s" "annot. cpu"
for name in callgraph python; do
	[ -s "$tmp/$name.callgrind" ] || continue
	callgrind_large "$tmp/$name.callgrind" "$tmp/large.callgrind" "$mb"
	size=$(stat -c %s "$tmp/large.callgrind")
	cat "$tmp/large.callgrind" >/dev/null
	set -- $(cpu "$repeat" "$tmp/ours.pb.gz" "$convert" -q --to=pprof "$tmp/large.callgrind")
	ours_wall=$1 ours_cpu=$2 ours_kb=$3
	stacks=$("$bin/profkit-info" "$tmp/large.callgrind" |
		sed -n 's/^  distinct stacks: \([0-9]*\).*/\1/p')
	set -- $(cpu 1 "$tmp/annotate.txt" callgrind_annotate "$tmp/large.callgrind")
	printf '%-22s %6.1f %8s %6s %6s %9.0f %8.0f %7d %8s %9s\n' \
		"$name ($(stat -c %s "$tmp/$name.callgrind" | awk '{ printf "%.1f MB", $1 / 1e6 }'))" \
		"$(echo "$size / 1000000" | bc -l)" "$stacks" "$ours_wall" "$ours_cpu" \
		"$(echo "$size / 1000000 / $ours_wall" | bc -l)" \
		"$(echo "$size / 1000000 / $ours_cpu" | bc -l)" $((ours_kb / 1024)) "$1" "$2"
	rm -f "$tmp/large.callgrind"
done
