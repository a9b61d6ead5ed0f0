#!/bin/sh
# --to=firefox, loaded by the Firefox Profiler's own code: profiler-cli
# (npm @firefox-devtools/profiler-cli; $PROFILER_CLI or on PATH) loads
# what profkit writes, and shows per thread the functions and self
# percentages it shows when it imports `perf script` text of the same
# recording (its linux-perf importer), within 2 points, with the pid and
# process name that importer leaves at 0 and "Parent Process".
. "${top_srcdir:-.}/tests/test-subr.sh"
profiler_cli=${PROFILER_CLI:-$(command -v profiler-cli 2>/dev/null)}
[ -n "$profiler_cli" ] && [ -x "$profiler_cli" ] ||
	skip_all "no profiler-cli (npm install @firefox-devtools/profiler-cli)"
plan 12
d=testdata/perf-data
e=testdata/firefox
root=$tmpdir/root
mkdir -p "$root/tmp/rec" "$root/tmp/rec3"
for b in c-fp cxx-dwarf; do ln -s "$(pwd)/testdata/bin/$b" "$root/tmp/rec/$b"; done
for b in c-dwarf cxx-threads; do ln -s "$(pwd)/testdata/bin/$b" "$root/tmp/rec3/$b"; done
# a daemon of our own, never symbol servers on the network
PROFILER_CLI_SESSION_DIR=$tmpdir/sessions PROFILER_CLI_NO_SYMBOLICATE=1
export PROFILER_CLI_SESSION_DIR PROFILER_CLI_NO_SYMBOLICATE
trap '"$profiler_cli" stop --all >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT

convert() {
	profkit-convert -q --symfs="$root" --kallsyms=$d/kallsyms --to=firefox "$@"
}

# profiler_load FILE: load it and list its threads into $tmpdir/threads
profiler_load() {
	"$profiler_cli" stop --all >/dev/null 2>&1
	"$profiler_cli" load "$1" >"$tmpdir/load.log" 2>&1
	# a busy machine starts the daemon after load has stopped waiting
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$profiler_cli" thread list >"$tmpdir/threads" 2>&1 && return 0
		sleep 1
	done
	diag_file "$tmpdir/load.log"
	return 1
}

# ff_functions FILE: "HANDLE<TAB>FUNCTION<TAB>SELF%" per thread, for
# functions (summed by name) with 0.5% or more of their thread's samples
ff_functions() {
	profiler_load "$1" || return 1
	awk '{ h = $1 == "*" ? $2 : $1 } h ~ /^t-[0-9]+$/ { print h }' \
		"$tmpdir/threads" >"$tmpdir/handles"
	while read -r t; do
		"$profiler_cli" thread select "$t" </dev/null >/dev/null 2>&1
		"$profiler_cli" thread functions --json </dev/null 2>/dev/null |
			T=$t node -e '
			let s = ""; process.stdin.on("data", (c) => s += c);
			process.stdin.on("end", () => {
				const self = new Map();
				for (const f of JSON.parse(s).functions)
					self.set(f.name, (self.get(f.name) || 0) + f.selfPercentage);
				for (const [name, pct] of self)
					if (pct >= 0.5)
						console.log("%s\t%s\t%s", process.env.T, name, pct.toFixed(2));
			});'
	done <"$tmpdir/handles"
}

# within_2_points EXPECTED OURS: every function at 1% or more in either
# is within 2 points in the other (absent: under 0.5%)
within_2_points() {
	awk -F'\t' 'NR == FNR { ref[$1 FS $2] = $3; next }
		{ ours[$1 FS $2] = $3 }
		END {
			for (k in ref) keys[k] = 1
			for (k in ours) keys[k] = 1
			for (k in keys) {
				a = ref[k] + 0; b = ours[k] + 0
				if ((a >= 1 || b >= 1) && (a - b > 2 || b - a > 2)) {
					printf "# %s: profiler %.2f, profkit %.2f\n", k, a, b
					bad = 1
				}
			}
			exit bad
		}' "$1" "$2"
}

# NAME PROCESS PID of each thread, as the profiler lists them
thread_rows() {
	awk '{ if ($1 == "*") $1 = ""; $0 = $0 }
		$1 ~ /^t-[0-9]+$/ { print $2, $3, $4 }' "$tmpdir/threads"
}

for r in c-fp cxx-dwarf c-dwarf cxx-dwarf-threads; do
	if convert -o "$tmpdir/$r.json" $d/$r.perf.data &&
	   ff_functions "$tmpdir/$r.json" >"$tmpdir/$r.functions" &&
	   within_2_points $e/$r.functions "$tmpdir/$r.functions" &&
	   thread_rows | cmp -s $e/$r.threads -; then
		pass "$r: the profiler's functions and self% of perf script, real pids"
	else
		fail "$r: the profiler's functions and self% of perf script, real pids"
		within_2_points $e/$r.functions "$tmpdir/$r.functions"
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
