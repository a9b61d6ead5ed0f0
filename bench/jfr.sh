#!/bin/sh
# Speed and memory of the JFR reader on a large recording, beside the
# JDK's own reading of it (jfr print). The recording: testdata/src/
# JfrShape.java for 10 s with testdata/src/jfr-shape.jfc and a TLAB of
# 4 KB, so that allocation events come by the hundred thousand (small
# events, as in an allocation profile of a busy program): 10 to 20 MB in
# chunks of 12 MB at most, as the JVM cuts them, depending on the
# machine's speed. The large file is that recording repeated to 100 MB or
# more (its chunks over again: the shape of a long recording's file);
# equal chunks give equal stacks, so the model stays small and the memory
# shown is the reader's own.
#
#   bench/jfr.sh                 the table (run from a built tree)
#   bench/jfr.sh --make FILE     only make the large file (bench/all.sh)
#
# Needs java, javac and jfr (openjdk-17-jdk-headless) and GNU time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/bench/bench-subr.sh"

# make_large FILE: the recording, then its chunks over again to 100 MB
make_large() {
	javac -d "$tmp" "$top/testdata/src/JfrShape.java"
	(cd "$tmp" && java -XX:TLABSize=4k -XX:-ResizeTLAB \
		"-XX:StartFlightRecording=filename=one.jfr,settings=$top/testdata/src/jfr-shape.jfc" \
		JfrShape 10000 >/dev/null 2>&1)
	: >"$1"
	while [ "$(stat -c %s "$1")" -lt 100000000 ]; do
		cat "$tmp/one.jfr" >>"$1"
	done
}

if [ "${1:-}" = --make ]; then
	make_large "$2"
	exit
fi
for tool in java javac jfr /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench/jfr.sh: no $tool" >&2; exit 1; }
done
use_programs "${PROFKIT_BINDIR:-$top/cmd}"
convert=$bin/profkit-convert
large=$tmp/large.jfr
make_large "$large"
bytes=$(stat -c %s "$large")
cat "$large" >/dev/null	# in the page cache for every run

# cpu OUT COMMAND...: "wall-s cpu-s peak-RSS-KiB" of the least CPU of
# three runs (the CPU time says more than the wall clock on a shared
# machine)
cpu() {
	out=$1
	shift
	: >"$tmp/runs"
	for run in 1 2 3; do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" >"$out" 2>/dev/null
		awk '{ printf "%.3f %.3f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >>"$tmp/runs"
	done
	sort -n -k2 "$tmp/runs" | head -n 1
}

# row CASE "WALL CPU KIB": MB/s by wall clock and by CPU time
row() {
	set -- "$1" $2
	printf '%-40s %7.3f s %7.3f s cpu %8s KiB %8.1f MB/s %8.1f MB/s cpu\n' "$1" "$2" "$3" "$4" \
		"$(echo "scale=2; $bytes / 1000000 / $2" | bc)" \
		"$(echo "scale=2; $bytes / 1000000 / $3" | bc)"
}

echo "input: $((bytes / 1000000)) MB, $("$bin/profkit-info" "$large" 2>/dev/null |
	sed -n 's/^  jfr-chunks: //p') chunks, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
row "profkit-convert --to=folded (all events)" "$(cpu "$tmp/all.folded" "$convert" -q --to=folded "$large")"
row "  --event=jdk.ExecutionSample" "$(cpu "$tmp/cpu.folded" "$convert" -q --event=jdk.ExecutionSample --to=folded "$large")"
row "  --event=jdk.ObjectAllocationOutsideTLAB" "$(cpu "$tmp/tlab.folded" "$convert" -q --event=jdk.ObjectAllocationOutsideTLAB --to=folded "$large")"
row "  --to=pprof (all events)" "$(cpu "$tmp/all.pb.gz" "$convert" -q --to=pprof -o "$tmp/all.pb.gz" "$large")"
row "  from a pipe (a chunk at a time)" "$(cpu "$tmp/pipe.folded" sh -c 'cat "$1" | "$2" -q --to=folded' sh "$large" "$convert")"
cmp -s "$tmp/all.folded" "$tmp/pipe.folded" || echo "the pipe's output differs from the file's" >&2
# the JDK's own tool, once: it takes a while
/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" jfr print "$large" >/dev/null 2>&1
row "jfr print (JDK, text, all events)" "$(awk '{ printf "%.3f %.3f %s\n", $1, $2 + $3, $4 }' "$tmp/t")"
