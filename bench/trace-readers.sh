#!/bin/sh
# The chrome-trace and firefox readers on large inputs (issue 25's bench;
# issue 28's goal: 200 MB/s each): --to=folded of three files of SIZE MB
# (default 120) that bench/synth-traces.py makes from small real ones:
#   v8        testdata's Chromium trace, its V8 profile over again (the
#             shape of a long DevTools recording: ProfileChunk events)
#   slices    DevTools-shaped "X" events, 8 threads
#   firefox   our --to=firefox of that Chromium trace, its samples over
#             again (a processed profile, as samply writes them)
# MB/s by the wall clock and by CPU time, of the run of least CPU of
# REPEAT (default 3), and the peak RSS; beside the Firefox Profiler's own
# import of each (profiler-cli load, until it answers; once, as it takes
# a while; its daemon's RSS then) where ./bootstrap installed it.
#
#   bench/trace-readers.sh [SIZE-MB]        the table (run from a built tree)
#   bench/trace-readers.sh --make DIR       only make DIR/v8.json,
#                                           DIR/slices.json, DIR/firefox.json
#                                           (bench/all.sh)
#
# Needs python3, bc and GNU time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
. "$top/bench/bench-subr.sh"
use_programs "${PROFKIT_BINDIR:-$top/cmd}"
convert=$bin/profkit-convert

# make_inputs DIR SIZE-MB
make_inputs() {
	synth="python3 $top/bench/synth-traces.py"
	$synth v8 "$top/testdata/chrome-trace/chromium-v8.trace.json.gz" "$1/v8.json" "$2"
	$synth slices - "$1/slices.json" "$2"
	"$convert" -q --to=firefox -o "$tmp/seed.json" \
		"$top/testdata/chrome-trace/chromium-v8.trace.json.gz"
	$synth firefox "$tmp/seed.json" "$1/firefox.json" "$2"
}

if [ "${1:-}" = --make ]; then
	trap 'rm -rf "$tmp"' EXIT
	make_inputs "$2" "${3:-120}"
	exit
fi
for tool in python3 bc /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench/trace-readers.sh: no $tool" >&2; exit 1; }
done

# the Firefox Profiler's importers, where the tests find them
profiler_cli=${PROFILER_CLI:-${PROFKIT_TOOLS:-$top/.tools}/node_modules/.bin/profiler-cli}
[ -x "$profiler_cli" ] || profiler_cli=$(command -v profiler-cli || true)
PROFILER_CLI_SESSION_DIR=$tmp/sessions PROFILER_CLI_NO_SYMBOLICATE=1
export PROFILER_CLI_SESSION_DIR PROFILER_CLI_NO_SYMBOLICATE
trap '[ -z "$profiler_cli" ] || "$profiler_cli" stop --all >/dev/null 2>&1; rm -rf "$tmp"' EXIT

# profiler FILE: "seconds RSS-KiB" of profiler-cli loading FILE until it
# lists the threads, or "n/a n/a"
profiler() {
	[ -n "$profiler_cli" ] || { echo "n/a n/a"; return; }
	t0=$(date +%s%N)
	# a busy machine may start the daemon after load stopped waiting
	"$profiler_cli" load "$1" >"$tmp/load.log" 2>&1 || :
	tries=0
	until "$profiler_cli" thread list >/dev/null 2>&1; do
		tries=$((tries + 1))
		[ $tries -lt 600 ] || { echo "n/a n/a"; return; }
		sleep 0.1
	done
	ns=$(($(date +%s%N) - t0))
	rss=$(ps -eo rss=,comm=,args= | awk -v f="$1" '$2 == "node" && / --daemon / && index($0, f) { print $1; exit }')
	"$profiler_cli" stop --all >/dev/null 2>&1
	printf '%.3f %s\n' "$(echo "scale=4; $ns / 1000000000" | bc)" "${rss:-?}"
}

make_inputs "$tmp" "${1:-120}"
printf '%-10s %6s %8s %8s %9s %9s %9s  %9s %9s %8s  %s\n' input MB "wall s" "cpu s" \
	"MB/s" "MB/s cpu" "RSS KiB" "ref s" "ref KiB" ratio goal
missed=0
for name in v8 slices firefox; do
	f=$tmp/$name.json
	cat "$f" >/dev/null	# in the page cache for every run
	mb=$(echo "scale=1; $(stat -c %s "$f") / 1000000" | bc)
	set -- $(cpu "$tmp/$name.folded" "$convert" -q --to=folded "$f") $(profiler "$f")
	mbs=$(echo "scale=1; $mb / $1" | bc) mbs_cpu=$(echo "scale=1; $mb / $2" | bc)
	ratio=n/a
	[ "$4" = n/a ] || ratio=$(printf %.1fx "$(ratio "$4" "$1")")
	ok=
	[ "$(echo "$mbs_cpu >= 200" | bc)" = 1 ] || { ok=' MISSED'; missed=$((missed + 1)); }
	printf '%-10s %6s %8s %8s %9s %9s %9s  %9s %9s %8s  %s\n' "$name" "$mb" "$1" "$2" \
		"$mbs" "$mbs_cpu" "$3" "$4" "$5" "$ratio" ">=200MB/s cpu$ok"
done
echo "ref: profiler-cli load (the Firefox Profiler's importer); $(nproc) CPUs," \
	"load $(cut -d' ' -f1 /proc/loadavg); $missed goal(s) missed"
