#!/bin/sh
# Off-CPU and wall-clock time through every writer, from a recording of a
# program that blocks in functions of its own (testdata/src/naps.c, with
# cpu-clock, sched:sched_switch and switch events). What each must show is
# computed from perf's own text of the same recording, the switch records
# of testdata/perf-data/naps.switches.txt (tests/switch-gaps.awk): the
# time from each sched_switch sample to its thread's next switch-in,
# charged to that sample's stack. Each writer's output is read by its
# reference tool where there is one: pprof, speedscope's schema, the
# Firefox Profiler's own loading code (profiler-cli), callgrind_annotate.
. "${top_srcdir:-.}/tests/test-subr.sh"
command -v node >/dev/null 2>&1 || skip_all "no node to read JSON outputs"
plan 20
d=testdata/perf-data
text=$d/naps.switches.txt
root=$tmpdir/root
mkdir -p "$root/tmp/rec-naps"
ln -s "$(pwd)/testdata/bin/naps" "$root/tmp/rec-naps/naps"

convert() { profkit-convert -q --symfs="$root" "$@" $d/naps.perf.data; }
gaps() { awk -v show="$1" -f tests/switch-gaps.awk $text | sort; }
gaps off-cpu >"$tmpdir/off-cpu.want"
gaps wall >"$tmpdir/wall.want"
gaps blocks >"$tmpdir/blocks.want"
first=$(awk '!/^\t/ && NF && !/PERF_RECORD/ { t = $0; sub(/:.*/, "", t);
	sub(/.* /, "", t); sub(/\./, "", t); print t; exit }' $text)

# check NAME WANT GOT: the two files are equal and not empty
check() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1"
		diff "$2" "$3" | diag_file /dev/stdin 30
	fi
}

# leaf_sums FOLDED: "function total" per leaf function
leaf_sums() {
	awk '{ n = split($1, f, ";"); sum[f[n]] += $2 }
	     END { for (k in sum) print k, sum[k] }' "$1" | sort
}

# thread_shares FOLDED: "comm function percent" of each thread's total,
# per leaf function, to one decimal
thread_shares() {
	awk '{ n = split($1, f, ";"); sum[f[1] " " f[n]] += $2; all[f[1]] += $2 }
	     END { for (k in sum) { split(k, c, " ")
		   printf "%s %.1f\n", k, 100 * sum[k] / all[c[1]] } }' "$1" | sort
}

# ---- folded: the sums themselves ----
convert --event=off-cpu --to=folded >"$tmpdir/off.folded"
check "folded --event=off-cpu: each stack's blocked ns as perf's switch records give" \
	"$tmpdir/off-cpu.want" "$tmpdir/off.folded"
convert --event=wall --to=folded >"$tmpdir/wall.folded"
check "folded --event=wall: the running samples' periods and the blocked ns" \
	"$tmpdir/wall.want" "$tmpdir/wall.folded"

# ---- pprof ----
find_pprof
if [ -n "$pprof" ]; then
	convert --to=pprof -o "$tmpdir/naps.pb.gz"
	if "$pprof" -raw "$tmpdir/naps.pb.gz" 2>&1 | grep -q 'off-cpu/nanoseconds' &&
	   "$pprof" -raw "$tmpdir/naps.pb.gz" 2>&1 | grep -q 'wall/nanoseconds'; then
		pass "pprof -raw: sample types off-cpu/nanoseconds and wall/nanoseconds"
	else
		fail "pprof -raw: sample types off-cpu/nanoseconds and wall/nanoseconds"
		"$pprof" -raw "$tmpdir/naps.pb.gz" 2>&1 | diag_file /dev/stdin 12
	fi
	for ev in off-cpu wall; do
		leaf_sums "$tmpdir/$ev.want" >"$tmpdir/$ev.leaves"
		"$pprof" -top -nodecount=100 -unit=ns -sample_index=$ev "$tmpdir/naps.pb.gz" 2>/dev/null |
			awk '$2 ~ /%$/ && $1 ~ /ns$/ && $1 != "0" { sub(/ns$/, "", $1); print $6, $1 }' |
			sort >"$tmpdir/$ev.top"
		check "pprof -top -sample_index=$ev: each function's flat ns" \
			"$tmpdir/$ev.leaves" "$tmpdir/$ev.top"
	done
	gaps state >"$tmpdir/state.want"
	"$pprof" -tags -unit=ns -sample_index=off-cpu "$tmpdir/naps.pb.gz" 2>/dev/null |
		awk '/prev_state:/ { on = 1; next } on && NF == 0 { on = 0 }
		     on && /%\)/ && $1 != "0.0ns" { sub(/\.0ns$/, "", $1); print $NF, $1 }' |
		sort >"$tmpdir/state.got"
	check "pprof -tags: off-CPU time per prev_state" "$tmpdir/state.want" "$tmpdir/state.got"
else
	for t in "pprof -raw" "pprof -top off-cpu" "pprof -top wall" "pprof -tags"; do
		skip "$t" "no Go pprof"
	done
fi

# ---- speedscope: the schema, then where each interval lies ----
blocks() { node tests/timeline-blocks.js "$1" "$2" "$first" | sort; }
convert --event=off-cpu --to=speedscope -o "$tmpdir/off.speedscope.json"
convert --event=off-cpu --to=speedscope --speedscope-evented -o "$tmpdir/off-evented.speedscope.json"
convert --event=wall --to=speedscope -o "$tmpdir/wall.speedscope.json"
convert --event=wall --to=speedscope --speedscope-evented -o "$tmpdir/wall-evented.speedscope.json"
node tests/validate-speedscope.js "$tmpdir"/*.speedscope.json >"$tmpdir/valid" 2>&1
case $? in
0) pass "speedscope: off-cpu and wall, sampled and evented, valid by speedscope's schema" ;;
2) skip "speedscope: valid by speedscope's schema" "$(cat "$tmpdir/valid")" ;;
*) fail "speedscope: valid by speedscope's schema"; diag_file "$tmpdir/valid" ;;
esac
blocks speedscope "$tmpdir/off-evented.speedscope.json" >"$tmpdir/got"
check "speedscope evented: each interval from its switch-out to its switch-in" \
	"$tmpdir/blocks.want" "$tmpdir/got"
blocks speedscope "$tmpdir/off.speedscope.json" >"$tmpdir/got"
check "speedscope sampled: the same, by empty samples between" \
	"$tmpdir/blocks.want" "$tmpdir/got"

# ---- firefox ----
convert --event=off-cpu --to=firefox -o "$tmpdir/off.firefox.json"
blocks firefox "$tmpdir/off.firefox.json" >"$tmpdir/got"
check "firefox: each interval from its switch-out to its switch-in" \
	"$tmpdir/blocks.want" "$tmpdir/got"

# ---- chrome-trace ----
convert --event=off-cpu --to=chrome-trace -o "$tmpdir/off.trace.json"
blocks chrome-trace "$tmpdir/off.trace.json" >"$tmpdir/got"
check "chrome-trace: a complete event per interval, from its start for its length" \
	"$tmpdir/blocks.want" "$tmpdir/got"

# ---- the Firefox Profiler's reading of the firefox and chrome-trace files ----
pcli=${PROFILER_CLI:-$(command -v profiler-cli 2>/dev/null)}
mkdir "$tmpdir/pcli"
pcli() { HOME=$tmpdir/pcli PROFILER_CLI_SESSION_DIR=$tmpdir/pcli/s \
	 PROFILER_CLI_NO_SYMBOLICATE=1 "$pcli" "$@"; }
trap 'pcli stop --all >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT

# profiler_shares FILE: "thread function self%" as profiler-cli shows them
profiler_shares() {
	pcli stop --all >/dev/null 2>&1
	pcli load "$1" >"$tmpdir/load.log" 2>&1
	i=0
	until pcli status >/dev/null 2>&1 || [ $i -ge 60 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	pcli thread list --json 2>/dev/null | node -e '
		let s = ""; process.stdin.on("data", (c) => s += c).on("end", () => {
			for (const t of JSON.parse(s).threads)
				console.log(t.threadHandle, t.name);
		});' |
	while read -r handle name; do
		# chrome-trace names a thread "comm tid"
		pcli thread functions --thread "$handle" --limit 0 --json </dev/null 2>/dev/null |
			N=${name%% *} node -e '
			let s = ""; process.stdin.on("data", (c) => s += c).on("end", () => {
				const self = new Map();
				for (const f of JSON.parse(s).functions)
					self.set(f.name, (self.get(f.name) || 0) + f.selfPercentage);
				for (const [f, pct] of self)
					if (pct >= 0.05)
						console.log(process.env.N, f, pct.toFixed(1));
			});'
	done | sort
}

# near NAME WANT GOT POINTS: each share within POINTS of the other's
near() {
	if [ -s "$3" ] && awk -v d="$4" 'NR == FNR { want[$1 " " $2] = $3; next }
		{ got[$1 " " $2] = $3 }
		END { for (k in got) want[k] += 0
		      for (k in want) if (want[k] - got[k] > d || got[k] - want[k] > d) {
			printf "# %s: want %s, profiler-cli %s\n", k, want[k], got[k]; bad = 1 }
		      exit bad }' "$2" "$3"; then
		pass "$1"
	else
		fail "$1"
		diag_file "$3"
	fi
}

if [ -n "$pcli" ] && [ -x "$pcli" ]; then
	thread_shares "$tmpdir/off-cpu.want" >"$tmpdir/shares.want"
	profiler_shares "$tmpdir/off.firefox.json" >"$tmpdir/shares.ff"
	near "profiler-cli loads the firefox output: each thread's blocked time by function, weighed by time" \
		"$tmpdir/shares.want" "$tmpdir/shares.ff" 0.1
	# its Chrome importer counts samples: the writer spaces them by the period
	profiler_shares "$tmpdir/off.trace.json" >"$tmpdir/shares.ct"
	near "profiler-cli loads the chrome-trace output: the same shares within a point" \
		"$tmpdir/shares.want" "$tmpdir/shares.ct" 1
	pcli stop --all >/dev/null 2>&1
else
	skip "profiler-cli: firefox" "no profiler-cli"
	skip "profiler-cli: chrome-trace" "no profiler-cli"
fi

# ---- flame graph: a unit of time, the shares ----
convert --event=off-cpu --to=flamegraph >"$tmpdir/off.svg"
convert --event=wall --to=flamegraph >"$tmpdir/wall.svg"
if grep -q '<text id="title"[^>]*>Off-CPU Time Flame Graph</text>' "$tmpdir/off.svg" &&
   grep -q '<text id="title"[^>]*>Wall-Clock Time Flame Graph</text>' "$tmpdir/wall.svg"; then
	pass "flame graph: titled Off-CPU Time and Wall-Clock Time Flame Graph"
else
	fail "flame graph: titled Off-CPU Time and Wall-Clock Time Flame Graph"
fi
# "nap (125,571,714 ns, 38.20%)" for each stack's leaf, from the folded sums
awk '{ n = split($1, f, ";"); leaf[NR] = f[n]; v[NR] = $2; all += $2 }
     END { for (i = 1; i <= NR; i++) { d = sprintf("%d", v[i]); c = ""
	   while (length(d) > 3) { c = "," substr(d, length(d) - 2) c; d = substr(d, 1, length(d) - 3) }
	   printf "%s (%s%s ns, %.2f%%)\n", leaf[i], d, c, 100 * v[i] / all } }' \
	"$tmpdir/off-cpu.want" | sort >"$tmpdir/tips.want"
grep -o '<title>[^<]*</title>' "$tmpdir/off.svg" | sed 's/<[^>]*>//g' |
	grep -E '^(nap|wake|wait_for|compute) ' | sort >"$tmpdir/tips.got"
check "flame graph: tooltips in ns, as the switch records sum them" \
	"$tmpdir/tips.want" "$tmpdir/tips.got"
# wall time: the frames only waits reach are blue (io: red = green, blue
# >= 190): here the leaves whose stacks have wall time and no more than
# their off-CPU time
awk 'NR == FNR { off[$1] = $2; next } off[$1] == $2 { n = split($1, f, ";"); print f[n] }' \
	"$tmpdir/off-cpu.want" "$tmpdir/wall.want" | sort >"$tmpdir/want"
sed -n 's/.*<title>\([^ ]*\) ([^<]*<\/title><rect[^>]*fill="rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))".*/\1 \2 \3 \4/p' \
	"$tmpdir/wall.svg" | awk '$2 == $3 && $4 >= 190 { print $1 }' | sort >"$tmpdir/got"
check "wall-clock flame graph: the frames only waits reach in blue" "$tmpdir/want" "$tmpdir/got"

# ---- call graphs: gprof2dot JSON, DOT, callgrind ----
total=$(awk '{ s += $2 } END { print s }' "$tmpdir/off-cpu.want")
convert --event=off-cpu --to=gprof2dot >"$tmpdir/off.gprof2dot.json"
node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1]));
	console.log(JSON.stringify(j.costs), j.events.reduce((s, e) => s + e.cost[0], 0))' \
	"$tmpdir/off.gprof2dot.json" >"$tmpdir/got"
echo "[{\"description\":\"off-cpu\",\"unit\":\"nanoseconds\"}] $total" >"$tmpdir/want"
check "gprof2dot JSON: the cost is off-cpu in nanoseconds, summing to the blocked time" \
	"$tmpdir/want" "$tmpdir/got"
convert --event=off-cpu --to=dot >"$tmpdir/off.dot"
awk '{ n = split($1, f, ";"); s[f[n]] += $2; all += $2 }
     END { for (k in s) printf "%s %.2f%%\n", k, 100 * s[k] / all }' "$tmpdir/off-cpu.want" |
	sort >"$tmpdir/want"
sed -n 's/.*label="naps\\n\([a-z_]*\)\\n[0-9.]*%\\n(\([0-9.]*%\))".*/\1 \2/p' "$tmpdir/off.dot" |
	grep -v ' 0\.00%$' | sort >"$tmpdir/got"
check "dot: each function's self share of the blocked time" "$tmpdir/want" "$tmpdir/got"
convert --event=off-cpu --to=callgrind -o "$tmpdir/callgrind.out"
if command -v callgrind_annotate >/dev/null 2>&1; then
	callgrind_annotate "$tmpdir/callgrind.out" 2>&1 |
		awk '/^Events shown:/ { print $3 } /PROGRAM TOTALS/ { gsub(/,/, "", $1); print $1 }' \
		>"$tmpdir/got"
	printf 'off_cpu\n%s\n' "$total" >"$tmpdir/want"
	check "callgrind_annotate: the off-cpu event (off_cpu), totalling the blocked ns" \
		"$tmpdir/want" "$tmpdir/got"
else
	skip "callgrind_annotate: the off-cpu event" "no callgrind_annotate (valgrind)"
fi

# ---- perf script text: in time order as perf prints it; read back ----
convert --event=off-cpu --to=perf-script >"$tmpdir/off.txt"
if awk '/^[^\t]/ && NF { t = $3; sub(/:$/, "", t); if (t + 0 < last) bad = 1; last = t + 0 }
	END { exit bad }' "$tmpdir/off.txt"; then
	profkit-convert -q --event=off-cpu --to=folded "$tmpdir/off.txt" >"$tmpdir/got" 2>"$tmpdir/err"
else
	echo "times out of order" >"$tmpdir/got"
fi
check "perf-script --event=off-cpu: in time order, read back, each stack's blocked ns" \
	"$tmpdir/off-cpu.want" "$tmpdir/got"
finish
