#!/bin/sh
# Speed of unwinding --call-graph dwarf recordings: records a ~6 MB
# perf.data of a C++ program (testdata/src/cxx-dwarf.cpp: templates, a
# lambda in std::function, inlined std::map code; built -O2 -g, no frame
# pointers) with perf record --call-graph dwarf, and times
# profkit-convert --to=folded against perf script, which unwinds every
# sample itself, and against perf script | stackcollapse-perf.pl where
# the perl script is at hand. Prints the ratios and how many stacks of
# the two folded outputs agree (by weight). Needs perf, a C++ compiler
# and perf_event_paranoid <= 2.
#
#   bench/dwarf.sh [REPS]       (run from a built tree; the default 600
#                                makes ~6 MB)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
convert=${PROFKIT_CONVERT:-$top/cmd/profkit-convert}
reps=${1:-600}
cxx=${CXX:-c++}
command -v perf >/dev/null || { echo "perf not found" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

$cxx -O2 -g -o "$tmp/cxx-dwarf" "$top/testdata/src/cxx-dwarf.cpp"
perf record -q -F 1000 --call-graph dwarf,4096 -e cpu-clock -o "$tmp/perf.data" \
	"$tmp/cxx-dwarf" "$reps" >/dev/null 2>"$tmp/record.err" ||
	{ cat "$tmp/record.err" >&2; exit 1; }
bytes=$(stat -c %s "$tmp/perf.data")
cat "$tmp/perf.data" >/dev/null	# warm the page cache

. "$top/bench/bench-subr.sh"

report() {
	# name seconds rss
	printf '%-36s %8.2f s   peak RSS %s KiB\n' "$1" "$2" "$3"
}

echo "input: $((bytes / 1000000)) MB perf.data of $tmp/cxx-dwarf $reps (--call-graph dwarf,4096)"
set -- $(measure "$tmp/ours.folded" "$convert" -q --to=folded "$tmp/perf.data")
ours_s=$1
report "profkit-convert --to=folded" "$1" "$2"
set -- $(measure "$tmp/perf.txt" perf script -i "$tmp/perf.data")
perf_s=$1
report "perf script" "$1" "$2"
echo "perf script / profkit --to=folded:           $(ratio "$perf_s" "$ours_s")x"
collapse=${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}
if [ -n "$collapse" ]; then
	set -- $(measure "$tmp/theirs.folded" perl "$collapse" "$tmp/perf.txt")
	pipe_s=$(echo "$perf_s + $1" | bc)
	echo "perf script | stackcollapse-perf.pl:         $pipe_s s, $(ratio "$pipe_s" "$ours_s")x profkit's time"
fi
# the same stacks? perf script's text read by profkit's own perf script
# reader (stackcollapse-perf.pl cuts C++ names at "(": doc/formats.md)
"$convert" -q --to=folded "$tmp/perf.txt" >"$tmp/theirs.folded"
awk 'FNR == 1 { f++ }
	{ n = $NF; sub(/ [0-9.]+$/, ""); if (f == 1) a[$0] += n; else b[$0] += n }
	END {
		for (k in a) { ta += a[k]; if (k in b) same += (a[k] < b[k] ? a[k] : b[k]) }
		printf "stacks agreeing with perf script: %.2f%% of the weight\n", ta ? 100 * same / ta : 0
	}' "$tmp/theirs.folded" "$tmp/ours.folded"
set -- $(measure "$tmp/leaf.folded" "$convert" -q --to=folded --no-unwind "$tmp/perf.data")
report "profkit-convert --no-unwind (no user stacks)" "$1" "$2"
"${PROFKIT_INFO:-$top/cmd/profkit-info}" -q "$tmp/perf.data" | grep dwarf-unwinding
