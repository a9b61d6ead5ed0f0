#!/bin/sh
# The speed goals (issue 28) in one table: profkit against the machine
# (wc -l) and the tools users run today, on inputs made here in a temp
# dir (perf recordings of the test programs, large text by repetition, a
# synthetic gperftools profile, a million distinct stacks):
#
#   perf script text (100 MB) -> folded  wc -l (one core)     >= 1x
#                                        stackcollapse-perf.pl >= 100x
#     --to=pprof, --to=speedscope        the folded run       within 1.3x
#     --to=otlp                          the pprof run        within 1.5x, memory too
#   perf.data (~200 KB) -> folded   perf script             >= 10x, RSS <= 1/5
#   perf.data (~100 MB) -> folded   perf script             >= 20x, RSS <= 1/5
#   --call-graph dwarf -> folded    perf script             >= 5x, also with no debug cache
#   off-CPU perf.data -> folded     on-CPU, as many bytes   >= 1x
#   gperftools CPU -> pprof         pprof -proto BIN PROF   >= 10x, also with no debug cache
#   JFR (>= 100 MB) -> folded       jfr print               >= 200 MB/s
#   callgrind (100 MB) -> pprof     callgrind_annotate      >= 40x, >= 200 MB/s
#   V8, speedscope (100 MB) -> folded  tests' python3 folds  >= 200 MB/s
#   Chrome trace, Firefox -> folded (none: trace-readers.sh) >= 200 MB/s
#   stack text (~50 MB) -> folded   FlameGraph's collapse   >= 40x (GHC,
#                                   script for each format  xctrace: none,
#                                   (bench/stack-text.sh)   >= 200 MB/s)
#   flamegraph, 1M distinct stacks  a budget of 1 s         >= 1x, SVG <= 5 MB
#   --version, --help               (none)                  < 5 ms
#
# Each time is the best of REPEAT runs (default 3: the machine may be
# shared); RSS is GNU time's peak. The best run reads compressed debug
# files (libc's) from their plain copies in ~/.cache/profkit, made by the
# first; the "no debug cache" rows show a first conversion's cost. A tool not at hand prints "n/a":
# perl and $STACKCOLLAPSE_PERF (or stackcollapse-perf.pl on PATH, else in
# ../shared/reference/flamegraph/ or $FLAMEGRAPH_DIR, with the other
# collapse scripts), valgrind
# (callgrind_annotate, and python3 for the second callgrind row), perf
# (and perf_event_paranoid <= 2; <= 1 or root for the off-CPU row's
# tracepoint), Go pprof ($PPROF or pprof on PATH).
#
#   bench/all.sh            (run from a built tree; TEXT_MB=100
#                            SMALL_ITERS=3000 LARGE_ITERS=15000
#                            DWARF_REPS=600 OFFCPU_ROUNDS=30000
#                            NSTACKS=100000 CALLGRIND_MB=100 JSON_MB=100
#                            STACK_MB=50 FLAME_STACKS=1000000
#                            REPEAT=3)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
nocache=
cc=${CC:-cc}
cxx=${CXX:-c++}
. "$top/bench/bench-subr.sh"
bench_start
collapse=${STACKCOLLAPSE_PERF:-${STACKCOLLAPSE:-$(command -v stackcollapse-perf.pl || true)}}
# else FlameGraph's, where the tests find it
reference=${FLAMEGRAPH_DIR:-$top/../shared/reference/flamegraph}
[ -n "$collapse" ] || [ ! -f "$reference/stackcollapse-perf.pl" ] ||
	collapse=$reference/stackcollapse-perf.pl
pprof=${PPROF:-$(command -v pprof || true)}
have_perf=$(command -v perf >/dev/null && echo yes || echo no)

# ---- perf script text, made large by repetition ----
seed=$top/testdata/perf-script/c-fp.txt
text=$tmp/big.txt
while [ "$(stat -c %s "$text" 2>/dev/null || echo 0)" -lt $((${TEXT_MB:-100} * 1000000)) ]; do
	cat "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" >>"$text"
done
cat "$text" >/dev/null	# warm the page cache
ours=$(best "$tmp/ours.folded" "$convert" -q --to=folded "$text")
theirs="n/a n/a"
[ -n "$collapse" ] && [ -r "$collapse" ] &&
	theirs=$(best "$tmp/theirs.folded" perl "$collapse" "$text")
row "perf script text -> folded" "$(stat -c %s "$text")" "$ours" \
	stackcollapse "$theirs" 100 - -
row "  the same, against wc -l" "$(stat -c %s "$text")" "$ours" \
	"wc -l" "$(best /dev/null wc -l "$text")" 1 - -
# the other writers on the same input: within 1.3x of folded's time;
# OpenTelemetry's within 1.5x of pprof's time and memory
bytes=$(stat -c %s "$text")
ours_pprof=$(best /dev/null "$convert" -q --to=pprof "$text")
row "  the same, --to=pprof" "$bytes" "$ours_pprof" folded "$ours" 0.77 - -
row "  the same, --to=speedscope" "$bytes" \
	"$(best /dev/null "$convert" -q --to=speedscope "$text")" folded "$ours" 0.77 - -
row "  the same, --to=otlp" "$(stat -c %s "$text")" \
	"$(best /dev/null "$convert" -q --to=otlp "$text")" "--to=pprof" "$ours_pprof" 0.67 - 0.67
# the same on one thread, and from a pipe (read as a stream): no goals
row "  the same, --threads=1" "$(stat -c %s "$text")" \
	"$(best "$tmp/one.folded" "$convert" -q --threads=1 --to=folded "$text")" \
	stackcollapse "$theirs" - - -
row "  the same, from a pipe" "$(stat -c %s "$text")" \
	"$(best "$tmp/pipe.folded" sh -c 'cat "$1" | "$2" -q --to=folded' sh "$text" "$convert")" \
	stackcollapse "$theirs" - - -
cmp -s "$tmp/ours.folded" "$tmp/one.folded" && cmp -s "$tmp/ours.folded" "$tmp/pipe.folded" ||
	{ echo "perf script text: the outputs of threads, one thread and a pipe differ" >&2
	  failed=$((failed + 1)); }
rm -f "$text"

# ---- perf.data: frame pointers, small and large; --call-graph dwarf ----
# record NAME PERF-RECORD-ARGS... -- COMMAND...: $tmp/NAME.data, or nothing
record() {
	name=$1
	shift
	[ "$have_perf" = yes ] &&
		perf record -q -o "$tmp/$name.data" "$@" >/dev/null 2>"$tmp/$name.err" ||
		{ echo "perf record ($name):" $(head -n 2 "$tmp/$name.err" 2>/dev/null) >&2
		  rm -f "$tmp/$name.data"; }
}

# perf_row CASE NAME MIN-RATIO MIN-MEM: $tmp/NAME.data to folded against perf script
# (with $nocache set: without the plain copies of compressed debug files)
perf_row() {
	data=$tmp/$2.data
	if [ -s "$data" ]; then
		cat "$data" >/dev/null
		ours=$(best "$tmp/ours.folded" env ${nocache:+PROFKIT_CACHE_DIR=} \
			"$convert" -q --to=folded "$data")
		theirs=$(best "$tmp/perf.txt" perf script -i "$data")
		row "$1" "$(stat -c %s "$data")" "$ours" "perf script" "$theirs" "$3" - "$4"
	else
		row "$1" 0 "n/a n/a" "perf script" "n/a n/a" "$3" - "$4"
	fi
}

$cc -O1 -g -fno-omit-frame-pointer -o "$tmp/c-fp" "$top/testdata/src/c-fp.c"
record small -F 1000 -g -e cpu-clock "$tmp/c-fp" "${SMALL_ITERS:-3000}"
perf_row "perf.data (small) -> folded" small 10 5
rm -f "$tmp/small.data"
record large -F 20000 -g -e cpu-clock "$tmp/c-fp" "${LARGE_ITERS:-15000}"
perf_row "perf.data (large) -> folded" large 20 5
rm -f "$tmp/large.data"
$cxx -O2 -g -o "$tmp/cxx-dwarf" "$top/testdata/src/cxx-dwarf.cpp"
record dwarf -F 1000 --call-graph dwarf,4096 -e cpu-clock "$tmp/cxx-dwarf" "${DWARF_REPS:-600}"
perf_row "perf.data (dwarf) -> folded" dwarf 5 -
nocache=yes
perf_row "  the same, no debug cache" dwarf 5 -
nocache=
rm -f "$tmp/dwarf.data"

# ---- off-CPU time: as fast as on-CPU per byte (bench/off-cpu.sh) ----
if [ "$have_perf" = yes ] && off_cpu_recordings "${OFFCPU_ROUNDS:-30000}"; then
	off_bytes=$(stat -c %s "$tmp/off.data")
	ours=$(best "$tmp/ours.folded" "$convert" -q --event=off-cpu --to=folded "$tmp/off.data")
	set -- $(best "$tmp/on.folded" "$convert" -q --to=folded "$tmp/on.data")
	# the on-CPU time for as many bytes as the off-CPU recording has
	[ "$1" = n/a ] || set -- "$(echo "scale=4; $1 * $off_bytes / $(stat -c %s "$tmp/on.data")" | bc)" "$2"
	row "off-CPU perf.data -> folded" "$off_bytes" "$ours" "on-CPU" "$1 $2" 1 - -
else
	row "off-CPU perf.data -> folded" 0 "n/a n/a" "on-CPU" "n/a n/a" 1 - -
fi
rm -f "$tmp/off.data" "$tmp/on.data"

# ---- gperftools CPU profiles with --binary: a real small one, a large synthetic one ----
# gperf_row CASE BINARY PROFILE [MIN-RATIO]
gperf_row() {
	ours=$(best "$tmp/ours.pb.gz" env ${nocache:+PROFKIT_CACHE_DIR=} \
		"$convert" -q --binary="$2" --to=pprof "$3")
	theirs="n/a n/a"
	[ -n "$pprof" ] && theirs=$(best "$tmp/theirs.pb.gz" "$pprof" -proto "$2" "$3")
	row "$1" "$(stat -c %s "$3")" "$ours" "pprof -proto" "$theirs" "${4:-10}" - -
}

gperf_row "gperftools (small) -> pprof" "$top/testdata/bin/cxx-threads" \
	"$top/testdata/gperftools/cxx-threads.cpu"
nocache=yes
gperf_row "  the same, no debug cache" "$top/testdata/bin/cxx-threads" \
	"$top/testdata/gperftools/cxx-threads.cpu" 10
nocache=
binary=$top/testdata/bin/cxx-threads
libs=$(ldd "$binary" | awk '/libc\.so|libstdc\+\+\.so/ { print $3 }')
perl "$top/bench/synth-gperf-cpu.pl" "${NSTACKS:-100000}" "$tmp/cpu.prof" "$binary" $libs
gperf_row "gperftools (large) -> pprof" "$binary" "$tmp/cpu.prof"

# ---- JFR: 100 MB or more of chunks (bench/jfr.sh) against jfr print, once ----
if command -v java >/dev/null && command -v jfr >/dev/null &&
	sh "$top/bench/jfr.sh" --make "$tmp/large.jfr" >/dev/null 2>&1; then
	cat "$tmp/large.jfr" >/dev/null
	row "jfr (large) -> folded" "$(stat -c %s "$tmp/large.jfr")" \
		"$(best "$tmp/ours.folded" "$convert" -q --to=folded "$tmp/large.jfr")" "jfr print" \
		"$(repeat=1 best /dev/null jfr print "$tmp/large.jfr")" - 200 -
else
	row "jfr (large) -> folded" 0 "n/a n/a" "jfr print" "n/a n/a" - 200 -
fi
rm -f "$tmp/large.jfr"

# ---- callgrind: a real recording's dumps to 100 MB (bench/callgrind.sh) ----
# callgrind_row CASE RECORDING MIN-RATIO MIN-MBS: 100 MB of RECORDING's
# parts to pprof, against callgrind_annotate reading it (one run)
callgrind_row() {
	if [ -s "$2" ]; then
		callgrind_large "$2" "$tmp/large.callgrind" "${CALLGRIND_MB:-100}"
		cat "$tmp/large.callgrind" >/dev/null
		ours=$(best "$tmp/ours.pb.gz" "$convert" -q --to=pprof "$tmp/large.callgrind")
		theirs=$(repeat=1 best "$tmp/annotate.txt" callgrind_annotate "$tmp/large.callgrind")
		row "$1" "$(stat -c %s "$tmp/large.callgrind")" "$ours" callgrind_annotate \
			"$theirs" "$3" "$4" -
		rm -f "$tmp/large.callgrind"
	else
		row "$1" 0 "n/a n/a" callgrind_annotate "n/a n/a" "$3" "$4" -
	fi
}
callgrind_recordings || true
callgrind_row "callgrind -> pprof" "$tmp/callgraph.callgrind" 40 200
callgrind_row "  python3's call graph" "$tmp/python.callgrind" - -

# ---- the JSON readers on inputs grown from testdata's (bench/json-readers.sh) ----
bench_sourced=yes
. "$top/bench/json-readers.sh"
json_reader_rows "${JSON_MB:-100}"
# ---- stack text of other profilers against their collapse scripts
# (bench/stack-text.sh) ----
. "$top/bench/stack-text.sh"
stack_text_rows "${STACK_MB:-50}"
# ---- Chrome traces (V8 samples, X slices), a Firefox Profiler file:
# 120 MB each (bench/trace-readers.sh, which sets profiler-cli beside) ----
mkdir "$tmp/traces"
made=$(sh "$top/bench/trace-readers.sh" --make "$tmp/traces" >/dev/null 2>&1 && echo yes || true)
for name in v8 slices firefox; do
	f=$tmp/traces/$name.json
	case $name in v8|slices) label="chrome-trace $name -> folded" ;; *) label="$name -> folded" ;; esac
	if [ -n "$made" ]; then
		cat "$f" >/dev/null
		row "$label" "$(stat -c %s "$f")" \
			"$(best "$tmp/ours.folded" "$convert" -q --to=folded "$f")" - "n/a n/a" - 200 -
	else
		row "$label" 0 "n/a n/a" - "n/a n/a" - 200 -
	fi
done
rm -rf "$tmp/traces"

# ---- a flame graph of a million distinct stacks (5000 functions, 8 to 24
# deep): in under a second, at most 5 MB of SVG (frames too narrow to
# see merged, as flamegraph.pl's --minwidth) ----
awk -v n="${FLAME_STACKS:-1000000}" 'BEGIN {
	srand(28)
	for (i = 0; i < n; i++) {
		depth = 8 + int(rand() * 17); line = "main"
		for (d = 0; d < depth; d++)
			line = line ";fn" int(rand() * rand() * 5000)
		print line ";leaf" i, 1 + int(rand() * 9)
	}
}' >"$tmp/million.folded"
cat "$tmp/million.folded" >/dev/null
row "flamegraph, 1M stacks" "$(stat -c %s "$tmp/million.folded")" \
	"$(best "$tmp/million.svg" "$bin/profkit-flamegraph" "$tmp/million.folded")" \
	"1 s budget" "1 ?" 1 - -
svg_kb=$(($(stat -c %s "$tmp/million.svg") / 1024))
ok=$([ "$svg_kb" -le 5120 ] && echo '' || echo ' MISSED')
[ -z "$ok" ] || failed=$((failed + 1))
printf '%-30s %8s %9s %9s %-12s %8s %7s %9s %9s %6s  %s%s\n' "  its SVG's size" - - - - - - \
	"$svg_kb" - - "<=5120 KiB" "$ok"
rm -f "$tmp/million.folded" "$tmp/million.svg"

# ---- start: 20 runs in a loop, the best loop's time a run; /bin/true
# (its ms in the "ref s" column) shows what any start costs here ----
# start_ms PROGRAM ARG: "milliseconds peak-RSS-KiB" a run
start_ms() {
	set -- $(best /dev/null sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		"$1" "$2" >/dev/null || exit; done' sh "$1" "$2")
	echo "$(echo "scale=1; $1 * 1000 / 20" | bc) $2"
}
true_ms=$(start_ms /bin/true --version)
for arg in --version --help; do
	set -- $(start_ms "$convert" "$arg")
	ok=$(at_least 5 "$1" && echo '' || echo ' MISSED')
	[ -z "$ok" ] || failed=$((failed + 1))
	printf '%-30s %8s %8sms %7sms %-12s %8s %7s %9s %9s %6s  %s%s\n' \
		"profkit-convert $arg" - "$1" "${true_ms% *}" /bin/true - - "$2" - - "<5ms" "$ok"
done
bench_end
