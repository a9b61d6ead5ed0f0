#!/bin/sh
# Speed and memory of the gperftools CPU reader with symbolization:
# converts a small real profile (testdata/gperftools/cxx-threads.cpu,
# with and without the debug cache) and a CPU profile of 100k distinct
# stacks over the functions of a C++ test program and the libc and
# libstdc++ it loads (bench/synth-gperf-cpu.pl) to pprof with
# profkit-convert and with Go pprof (`pprof -proto BINARY PROFILE`, which
# symbolizes with binutils), then prints the ratios of wall-clock time
# and of CPU time (user + system: steadier on a busy machine), and checks
# that pprof -top of both lists the same functions. Needs perl, nm, ldd,
# GNU time and Go pprof ($PPROF, `pprof` on PATH or .tools/bin/pprof,
# which ./bootstrap builds).
#
#   bench/gperftools.sh [NSTACKS]        (run from a built tree)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
nstacks=${1:-100000}
binary=$top/testdata/bin/cxx-threads
[ -x /usr/bin/time ] || { echo "no GNU time (/usr/bin/time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/bench/bench-subr.sh"
pprof=${PPROF:-$(command -v pprof || true)}
[ -n "$pprof" ] && "$pprof" -h 2>&1 | grep -q -e -proto ||
	{ echo "no Go pprof (set PPROF; ./bootstrap builds one)" >&2; exit 1; }
# not libtool's wrapper script: it starts slower than a small file converts
use_programs "$top/cmd"
convert=${PROFKIT_CONVERT:-$bin/profkit-convert}

# timed N OUT COMMAND...: "wall-s cpu-s peak-RSS-KiB" a run, of N runs
# in a row (GNU time counts CPU in hundredths), the best of three such
# (least CPU); the last run's stdout in OUT
timed() {
	n=$1 out=$2
	shift 2
	: >"$tmp/runs"
	for run in 1 2 3; do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" sh -c \
			'n=$1; shift; while [ $n -gt 0 ]; do "$@" || exit; n=$((n - 1)); done' \
			sh "$n" "$@" >"$out" 2>/dev/null
		awk -v n="$n" '{ printf "%.4f %.4f %s\n", $1 / n, ($2 + $3) / n, $4 }' \
			"$tmp/t" >>"$tmp/runs"
	done
	sort -n -k2 "$tmp/runs" | head -n 1
}

# row NAME OURS THEIRS: both timings (from timed) and the ratios
row() {
	set -- "$1" $2 $3
	printf '%-28s %7.3f s %7.3f s cpu %7s KiB | pprof %7.3f s %7.3f s cpu %7s KiB | %5sx %5sx cpu\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" "$7" "$(ratio "$5" "$2")" "$(ratio "$6" "$3")"
}

small=$top/testdata/gperftools/cxx-threads.cpu
echo "small: $(basename "$small") ($(($(stat -c %s "$small") / 1000)) kB), runs of 10"
theirs=$(timed 10 "$tmp/theirs.pb.gz" "$pprof" -proto "$binary" "$small")
row "small real profile" "$(timed 10 "$tmp/ours.pb.gz" "$convert" -q \
	--binary="$binary" --to=pprof "$small")" "$theirs"
row "  no debug cache" "$(timed 10 "$tmp/ours.pb.gz" env PROFKIT_CACHE_DIR= \
	"$convert" -q --binary="$binary" --to=pprof "$small")" "$theirs"

libs=$(ldd "$binary" | awk '/libc\.so|libstdc\+\+\.so/ { print $3 }')
perl "$top/bench/synth-gperf-cpu.pl" "$nstacks" "$tmp/cpu.prof" "$binary" $libs
echo "input: $(($(stat -c %s "$tmp/cpu.prof") / 1000)) kB CPU profile, $nstacks distinct stacks over"
echo "       $(basename "$binary")" $libs
row "$nstacks stacks" "$(timed 1 "$tmp/ours.pb.gz" "$convert" -q --binary="$binary" \
	--to=pprof "$tmp/cpu.prof")" "$(timed 1 "$tmp/theirs.pb.gz" "$pprof" -proto "$binary" "$tmp/cpu.prof")"

# the same functions: pprof's -top of both (aliases at one address may
# take different names further down: doc/formats.md)
"$pprof" -top -nodecount=10 "$tmp/theirs.pb.gz" 2>/dev/null | sed -n '/flat%/,$p' >"$tmp/theirs.top"
"$pprof" -top -nodecount=10 "$tmp/ours.pb.gz" 2>/dev/null | sed -n '/flat%/,$p' >"$tmp/ours.top"
cmp -s "$tmp/theirs.top" "$tmp/ours.top" && echo "pprof -top of both: identical" ||
	{ echo "pprof -top of both differs:"; diff "$tmp/theirs.top" "$tmp/ours.top" | head -20; }
