#!/bin/sh
# Speed of off-CPU conversion (issue 16): --event=off-cpu of a recording
# with switch events against the on-CPU conversion of a cpu-clock
# recording of about the same size (bench-subr.sh's off_cpu_recordings:
# testdata/src/naps.c napping 20 us a round, testdata/src/c-fp.c), to
# folded and to pprof. Prints wall and CPU seconds and the ratio of CPU
# seconds per MB, off-CPU over on-CPU: the goal is 1.0 or less. Needs
# perf, a C compiler and perf_event_paranoid <= 1 (tracepoints), or root.
#
#   bench/off-cpu.sh [ROUNDS]      (run from a built tree; the default
#                                   30000 rounds make ~20 MB; REPEAT=3)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-30000}
repeat=${REPEAT:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v perf >/dev/null || { echo "perf not found" >&2; exit 1; }
. "$top/bench/bench-subr.sh"
use_programs "${PROFKIT_BINDIR:-$top/cmd}"
convert=$bin/profkit-convert

off_cpu_recordings "$rounds"
off_bytes=$(stat -c %s "$tmp/off.data")
on_bytes=$(stat -c %s "$tmp/on.data")
cat "$tmp/off.data" "$tmp/on.data" >/dev/null	# warm the page cache
echo "off-CPU: $((off_bytes / 1000)) KB perf.data of naps $rounds 20 20000;" \
	"on-CPU: $((on_bytes / 1000)) KB of c-fp $iters"
"$convert" -q --event=off-cpu --to=folded "$tmp/off.data" |
	awk '{ n++; s += $NF } END { printf "off-CPU: %d stacks, %.3f s blocked in all\n", n, s / 1e9 }'

# cpu_best OUT COMMAND...: the least CPU seconds (perf stat's task-clock)
# of $repeat runs: on a machine others share, CPU time varies less than
# the wall clock
cpu_best() {
	out=$1
	shift
	min='' r=0
	while [ $r -lt "$repeat" ]; do
		r=$((r + 1))
		perf stat -x, -e task-clock -o "$tmp/stat" -- "$@" >"$out" 2>/dev/null ||
			{ echo n/a; return; }
		s=$(awk -F, '$3 == "task-clock" { printf "%.4f", $1 / 1000 }' "$tmp/stat")
		if [ -z "$min" ] || [ "$(echo "$s < $min" | bc)" = 1 ]; then
			min=$s
		fi
	done
	echo "$min"
}

printf '%-24s %8s %8s %8s %8s %9s\n' case KB "wall s" "CPU s" "MB/CPU s" "peak KiB"
# report CASE BYTES OUT COMMAND...: one line; sets $per_mb (CPU s per MB)
report() {
	name=$1 bytes=$2 out=$3
	shift 3
	set -- $(best "$out" "$@") "$(cpu_best "$out" "$@")"
	per_mb=$(echo "scale=6; $3 * 1000000 / $bytes" | bc)
	printf '%-24s %8s %8s %8s %8s %9s\n' "$name" $((bytes / 1000)) "$1" "$3" \
		"$(echo "scale=1; $bytes / 1000000 / $3" | bc)" "$2"
}
for to in folded pprof; do
	report "off-cpu -> $to" "$off_bytes" "$tmp/off.$to" \
		"$convert" -q --event=off-cpu --to=$to "$tmp/off.data"
	off_per_mb=$per_mb
	report "cpu-clock -> $to" "$on_bytes" "$tmp/on.$to" \
		"$convert" -q --to=$to "$tmp/on.data"
	echo "off-CPU / on-CPU, CPU seconds per MB ($to): $(echo "scale=2; $off_per_mb / $per_mb" | bc)"
done
echo "best of $repeat runs; $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)"
