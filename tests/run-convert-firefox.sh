#!/bin/sh
# --to=firefox, loaded by the Firefox Profiler's own code: profiler-cli
# (npm @firefox-devtools/profiler-cli; $PROFILER_CLI or on PATH) loads
# what profkit writes, and shows per thread the functions and self
# percentages it shows when it imports `perf script` text of the same
# recording (its linux-perf importer), within 2 points, with the pid and
# process name that importer leaves at 0 and "Parent Process".
. "${top_srcdir:-.}/tests/test-subr.sh"
. "$top_srcdir/tests/profiler-cli.sh"
[ -n "$profiler_cli" ] ||
	skip_all "no profiler-cli (npm install @firefox-devtools/profiler-cli)"
plan 12
d=testdata/perf-data
e=testdata/firefox
root=$tmpdir/root
mkdir -p "$root/tmp/rec" "$root/tmp/rec3"
for b in c-fp cxx-dwarf; do ln -s "$(pwd)/testdata/bin/$b" "$root/tmp/rec/$b"; done
for b in c-dwarf cxx-threads; do ln -s "$(pwd)/testdata/bin/$b" "$root/tmp/rec3/$b"; done

convert() {
	profkit-convert -q --symfs="$root" --kallsyms=$d/kallsyms --to=firefox "$@"
}

# NAME PROCESS PID of each thread, as the profiler lists them
thread_rows() {
	awk '{ if ($1 == "*") $1 = ""; $0 = $0 }
		$1 ~ /^t-[0-9]+$/ { print $2, $3, $4 }' "$tmpdir/threads"
}

for r in c-fp cxx-dwarf c-dwarf cxx-dwarf-threads; do
	if convert -o "$tmpdir/$r.json" $d/$r.perf.data &&
	   ff_functions "$tmpdir/$r.json" >"$tmpdir/$r.functions" &&
	   within_points 1 2 $e/$r.functions "$tmpdir/$r.functions" &&
	   thread_rows | cmp -s $e/$r.threads -; then
		pass "$r: the profiler's functions and self% of perf script, real pids"
	else
		fail "$r: the profiler's functions and self% of perf script, real pids"
		within_points 1 2 $e/$r.functions "$tmpdir/$r.functions"
		thread_rows | diff $e/$r.threads - | diag_file /dev/stdin
	fi
done

# Tracepoint samples are markers: one per sched:sched_switch line of perf
# script, the first with the stack perf script prints under it (its
# innermost frame); the cpu-clock samples stay samples.
convert -o "$tmpdir/tp.json" $d/tp-prog.perf.data
want=$(grep -c 'sched:sched_switch:' testdata/perf-script/tp-prog.txt)
leaf=$(awk '/sched:sched_switch:/ { getline; sub(/\+0x.*/, ""); print $2; exit }' \
	testdata/perf-script/tp-prog.txt)
if profiler_load "$tmpdir/tp.json" &&
   awk -v n="$want" '$1 == "*" && $NF == n { ok = 1 } END { exit !ok }' \
	"$tmpdir/threads" &&
   "$profiler_cli" thread markers >/dev/null &&	# names the markers m-N
   "$profiler_cli" marker stack m-1 | grep -q "^ *\[1\] .*!$leaf\$"; then
	pass "tracepoints: $want markers, the first with its stack from $leaf"
else
	fail "tracepoints: $want markers, the first with its stack from $leaf"
	diag_file "$tmpdir/threads"
fi

# A name ending in .gz is gzipped, and loads as the plain file does.
convert -o "$tmpdir/c-fp.json.gz" $d/c-fp.perf.data
if [ "$(od -An -tx1 -N2 "$tmpdir/c-fp.json.gz" | tr -d ' ')" = 1f8b ] &&
   ff_functions "$tmpdir/c-fp.json.gz" >"$tmpdir/gz.functions" &&
   cmp -s "$tmpdir/c-fp.functions" "$tmpdir/gz.functions"; then
	pass "-o X.json.gz: gzipped, the same profile"
else
	fail "-o X.json.gz: gzipped, the same profile"
fi

# gperftools and pprof inputs: the profiler's hottest function is
# profkit-top's (pprof -top's order).
hottest_first() {
	name=$1
	shift
	top=$(profkit-top -q -n 1 "$@" | tail -n 1 | awk '{ print $NF }')
	if profkit-convert -q --to=firefox -o "$tmpdir/in.json" "$@" &&
	   ff_functions "$tmpdir/in.json" >"$tmpdir/in.functions" &&
	   [ -n "$top" ] &&
	   sort -t '	' -k3,3nr "$tmpdir/in.functions" | head -n 1 |
		cut -f2 | grep -qxF "$top"; then
		pass "$name: $top first"
	else
		fail "$name: $top first"
		diag_file "$tmpdir/in.functions"
	fi
}
hottest_first "gperftools CPU profile" --binary=testdata/bin/c-fp \
	testdata/gperftools/c-fp.cpu
hottest_first "gperftools heap profile" --binary=testdata/bin/c-fp \
	testdata/gperftools/c-fp.heap
hottest_first "Go pprof CPU profile" testdata/pprof/go-cpu.pb.gz
hottest_first "Go pprof heap profile" testdata/pprof/go-heap.pb.gz
hottest_first "folded stacks" testdata/perf-script/c-fp.folded


# Two files summed: each thread's samples still in time order, as the
# profiler takes them.
profkit-convert --to=firefox -o "$tmpdir/twice.json" testdata/perf-script/c-fp.txt \
	testdata/perf-script/c-fp.txt
if node -e '
	const p = JSON.parse(require("fs").readFileSync(process.argv[1]));
	const t = p.threads[0].samples.time;
	process.exit(t.length === 2414 && t.every((x, i) => !i || t[i - 1] <= x) ? 0 : 1);
	' "$tmpdir/twice.json"; then
	pass "two inputs: samples in time order"
else
	fail "two inputs: samples in time order"
fi
