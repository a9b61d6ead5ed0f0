#!/bin/sh
# Speed and memory of the gperftools CPU reader with symbolization:
# writes a CPU profile of 100k distinct stacks over the functions of a
# C++ test program and the libc and libstdc++ it loads
# (bench/synth-gperf-cpu.pl), converts it to pprof with profkit-convert
# and with Go pprof (`pprof -proto BINARY PROFILE`, which symbolizes with
# binutils), then prints the ratios and checks that pprof -top of both
# lists the same functions. Needs perl, nm, ldd and Go pprof ($PPROF or
# `pprof` on PATH; tests/build-pprof.sh builds one).
#
#   bench/gperftools.sh [NSTACKS]        (run from a built tree)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
convert=${PROFKIT_CONVERT:-$top/cmd/profkit-convert}
nstacks=${1:-100000}
binary=$top/testdata/bin/cxx-threads
pprof=${PPROF:-$(command -v pprof || true)}
[ -n "$pprof" ] && "$pprof" -h 2>&1 | grep -q -e -proto ||
	{ echo "no Go pprof (set PPROF; tests/build-pprof.sh builds one)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/bench/bench-subr.sh"

libs=$(ldd "$binary" | awk '/libc\.so|libstdc\+\+\.so/ { print $3 }')
perl "$top/bench/synth-gperf-cpu.pl" "$nstacks" "$tmp/cpu.prof" "$binary" $libs
echo "input: $(($(stat -c %s "$tmp/cpu.prof") / 1000)) kB CPU profile, $nstacks distinct stacks over"
echo "       $(basename "$binary")" $libs

set -- $(measure "$tmp/ours.pb.gz" "$convert" -q --binary="$binary" --to=pprof "$tmp/cpu.prof")
ours_s=$1 ours_kb=$2
printf '%-44s %7.2f s   peak RSS %8s KiB\n' "profkit-convert --binary --to=pprof" "$1" "$2"
set -- $(measure "$tmp/theirs.pb.gz" "$pprof" -proto "$binary" "$tmp/cpu.prof")
printf '%-44s %7.2f s   peak RSS %8s KiB\n' "pprof -proto BINARY PROFILE" "$1" "$2"
echo "profkit is $(ratio "$1" "$ours_s")x faster than pprof, with $(ratio "$2" "$ours_kb")x less memory"

# the same functions: pprof's -top of both (aliases at one address may
# take different names further down: doc/formats.md)
"$pprof" -top -nodecount=10 "$tmp/theirs.pb.gz" 2>/dev/null | sed -n '/flat%/,$p' >"$tmp/theirs.top"
"$pprof" -top -nodecount=10 "$tmp/ours.pb.gz" 2>/dev/null | sed -n '/flat%/,$p' >"$tmp/ours.top"
cmp -s "$tmp/theirs.top" "$tmp/ours.top" && echo "pprof -top of both: identical" ||
	{ echo "pprof -top of both differs:"; diff "$tmp/theirs.top" "$tmp/ours.top" | head -20; }
