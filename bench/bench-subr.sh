# Shared by the bench/ scripts (sourced; they set $top, and $tmp first).

# The reference tools ./bootstrap installs (Go pprof in .tools/bin), after
# the system's, as the tests find them.
PATH=$PATH:${PROFKIT_TOOLS:-$top/.tools}/bin

# measure OUT COMMAND...: prints "seconds peak-RSS-KiB" of the command,
# its stdout in OUT; from GNU time when present ("?" for the RSS if not).
measure() {
	out=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >"$out" 2>/dev/null
		cat "$tmp/t"
	else
		start=$(date +%s.%N)
		"$@" >"$out" 2>/dev/null
		end=$(date +%s.%N)
		echo "$(echo "$end - $start" | bc) ?"
	fi
}

# ratio A B: A / B to one decimal
ratio() {
	echo "scale=1; $1 / $2" | bc
}

# use_programs DIR: sets $bin to the directory of the commands to time.
# libtool's wrapper scripts start slower than a small file converts: in
# a built tree that is DIR/.libs, with the library's .libs on the path.
use_programs() {
	bin=$1
	if [ -x "$bin/.libs/profkit-convert" ] && [ -d "$top/lib/.libs" ]; then
		bin=$bin/.libs
		LD_LIBRARY_PATH=$top/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
	fi
}

# best OUT COMMAND...: "seconds peak-RSS-KiB" of the fastest of $repeat
# (default 3) runs (stdout in OUT), or "n/a n/a" when the command fails
best() {
	out=$1
	shift
	min='' rss='?' r=0
	while [ $r -lt "${repeat:-3}" ]; do
		r=$((r + 1))
		t0=$(date +%s%N)
		if [ -x /usr/bin/time ]; then
			/usr/bin/time -f %M -o "$tmp/rss" "$@" >"$out" 2>/dev/null ||
				{ echo "n/a n/a"; return; }
			rss=$(tail -n 1 "$tmp/rss")
		else
			"$@" >"$out" 2>/dev/null || { echo "n/a n/a"; return; }
		fi
		ns=$(($(date +%s%N) - t0))
		if [ -z "$min" ] || [ "$ns" -lt "$min" ]; then
			min=$ns
		fi
	done
	printf '%.4f %s\n' "$(echo "scale=4; $min / 1000000000" | bc)" "$rss"
}

# cpu OUT COMMAND...: "wall-s cpu-s peak-RSS-KiB" of the run of least
# CPU of $repeat (default 3; the CPU time says more than the wall clock
# on a shared machine); needs GNU time
cpu() {
	out=$1
	shift
	: >"$tmp/runs"
	for run in $(seq "${repeat:-3}"); do
		/usr/bin/time -f '%e %U %S %M' -o "$tmp/t" "$@" >"$out" 2>/dev/null
		awk '{ printf "%.3f %.3f %s\n", $1, $2 + $3, $4 }' "$tmp/t" >>"$tmp/runs"
	done
	sort -n -k2 "$tmp/runs" | head -n 1
}

# off_cpu_recordings ROUNDS: $tmp/off.data, testdata/src/naps.c blocking
# about two and a half times a round (perf record -e sched:sched_switch
# --switch-events -g), and $tmp/on.data, testdata/src/c-fp.c on the CPU
# (perf record -e cpu-clock -F 20000 -g) for about as many bytes. Both
# with frame pointers, so that unwinding costs each side the same.
off_cpu_recordings() {
	${CC:-cc} -O1 -g -fno-omit-frame-pointer -pthread -o "$tmp/naps" \
		"$top/testdata/src/naps.c"
	${CC:-cc} -O1 -g -fno-omit-frame-pointer -o "$tmp/c-fp" "$top/testdata/src/c-fp.c"
	perf record -q -e sched:sched_switch --switch-events -g -o "$tmp/off.data" \
		"$tmp/naps" "$1" 20 20000 >/dev/null 2>"$tmp/record.err" &&
	perf record -q -e cpu-clock -F 20000 -g -o "$tmp/on.data" \
		"$tmp/c-fp" 100 >/dev/null 2>>"$tmp/record.err" || {
		cat "$tmp/record.err" >&2
		return 1
	}
	# c-fp's bytes per iteration make the iterations for the same size;
	# twice, since a busy machine makes the first guess rough
	iters=100
	for pass in 1 2; do
		iters=$(($(stat -c %s "$tmp/off.data") * iters / $(stat -c %s "$tmp/on.data")))
		perf record -q -e cpu-clock -F 20000 -g -o "$tmp/on.data" \
			"$tmp/c-fp" "$iters" >/dev/null 2>"$tmp/record.err" ||
			{ cat "$tmp/record.err" >&2; return 1; }
	done
}

# at_least A B: is A >= B (decimals)?
at_least() {
	[ "$(echo "$1 >= $2" | bc)" = 1 ]
}

# table_header: the heading of row's table
table_header() {
	printf '%-30s %8s %9s %9s %-12s %8s %7s %9s %9s %6s  %s\n' case input \
		"profkit s" "ref s" reference ratio "MB/s" "pk KiB" "ref KiB" "mem" goal
}

# row CASE BYTES "PK_S PK_KIB" REF-NAME "REF_S REF_KIB" MIN-RATIO MIN-MBS MIN-MEM
# prints a line of the table; a goal of "-" is none, a missing number n/a
row() {
	name=$1 bytes=$2 ref=$4 goal_x=$6 goal_mbs=$7 goal_mem=$8
	set -- $3 $5
	pk_s=$1 pk_kb=$2 ref_s=$3 ref_kb=$4
	x=n/a mbs=n/a mem=n/a ok=yes goals=''
	[ "$pk_s" = n/a ] && ok=NO
	if [ "$pk_s" != n/a ] && [ "$ref_s" != n/a ]; then
		x=$(printf %.1fx "$(ratio "$ref_s" "$pk_s")")
		[ "$pk_kb" != '?' ] && [ "$ref_kb" != '?' ] &&
			mem=$(printf %.1fx "$(ratio "$ref_kb" "$pk_kb")")
	fi
	[ "$pk_s" != n/a ] && mbs=$(printf %.1f "$(echo "scale=2; $bytes / 1000000 / $pk_s" | bc)")
	if [ "$goal_x" != - ]; then
		goals="${goals}>=${goal_x}x "
		[ "$x" != n/a ] && ! at_least "${x%x}" "$goal_x" && ok=NO
	fi
	if [ "$goal_mbs" != - ]; then
		goals="${goals}>=${goal_mbs}MB/s "
		[ "$mbs" != n/a ] && ! at_least "$mbs" "$goal_mbs" && ok=NO
	fi
	if [ "$goal_mem" != - ]; then
		goals="${goals}mem>=${goal_mem}x "
		[ "$mem" != n/a ] && ! at_least "${mem%x}" "$goal_mem" && ok=NO
	fi
	[ "$ok" = yes ] || failed=$((failed + 1))
	printf '%-30s %7sK %9s %9s %-12s %8s %7s %9s %9s %6s  %s%s\n' "$name" \
		$((bytes / 1000)) "$pk_s" "$ref_s" "$ref" "$x" "$mbs" "$pk_kb" \
		"$ref_kb" "$mem" "$goals" "$([ $ok = yes ] || echo ' MISSED')"
}

# callgrind_recordings: $tmp/callgraph.callgrind, valgrind --tool=callgrind
# (instructions and jumps too, as --dump-instr=yes --collect-jumps=yes
# write large files) of testdata/src/callgraph.c, with a second thread:
# recursion, three callers of one function, libc; and where python3 is,
# $tmp/python.callgrind of a json and re workload: a deep, recursive graph
# of some 2000 functions. 1 without valgrind.
callgrind_recordings() {
	command -v valgrind >/dev/null || { echo "no valgrind" >&2; return 1; }
	${CC:-cc} -O2 -g -fno-omit-frame-pointer -pthread -o "$tmp/callgraph" \
		"$top/testdata/src/callgraph.c"
	valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes \
		--callgrind-out-file="$tmp/callgraph.callgrind" "$tmp/callgraph" 300 100 \
		>/dev/null 2>"$tmp/valgrind.err" || { cat "$tmp/valgrind.err" >&2; return 1; }
	# the interpreter itself, not a wrapper script (pyenv's) valgrind would record
	python=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null || true)
	[ -z "$python" ] ||
		valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes \
			--callgrind-out-file="$tmp/python.callgrind" "$python" -c '
import json, re
d = {str(i): [i, i * 2, {"a": i}] for i in range(2000)}
s = json.dumps(d)
for i in range(20): json.loads(s)
print(len(re.findall(r"\d+", s)))' >/dev/null 2>"$tmp/valgrind.err" ||
			rm -f "$tmp/python.callgrind"
}

# callgrind_large RECORDING OUT MB: OUT holds RECORDING's header, then its
# body again and again as parts 1, 2, ... (the dumps valgrind's
# --dump-every-bb makes of one run) until it has MB megabytes
callgrind_large() {
	sed -n '1,/^events:/p' "$1" >"$2"
	sed '1,/^events:/d' "$1" >"$tmp/body"
	part=0
	while [ "$(stat -c %s "$2")" -lt $(($3 * 1000000)) ]; do
		part=$((part + 1))
		{ echo "part: $part"; cat "$tmp/body"; } >>"$2"
	done
	rm -f "$tmp/body"
}

# bench_start: what every table needs: $tmp (removed at exit), $bin and
# $convert of the commands timed, $repeat, $failed, the table's header
bench_start() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	use_programs "${PROFKIT_BINDIR:-$top/cmd}"
	convert=$bin/profkit-convert
	repeat=${REPEAT:-3}
	failed=0
	table_header
}

# bench_end: the table's last line
bench_end() {
	echo "best of $repeat runs; $(nproc) CPUs; $failed goal(s) missed"
}

# bench_alone ROWS-FUNCTION ARG...: a bench script run by itself rather
# than sourced by bench/all.sh: the table of ROWS-FUNCTION ARG... alone
bench_alone() {
	bench_start
	"$@"
	bench_end
}
