#!/bin/sh
# The chrome-trace and firefox readers:
#   - our own --to=chrome-trace and --to=firefox outputs read back give
#     the stacks and weights they were written from: folded equal to the
#     input's (chrome-trace keeps one V8 sample per count, so counts are
#     compared; firefox keeps the shown column's weights);
#   - a recorded Chromium trace, a Perfetto-style file of X and B/E
#     slices, a Gecko profile written from its documented schema: folded
#     as expected (testdata/README.md says how each was made and checked);
#   - found without --from; --event picks the slices; --strict refuses
#     an "E" without its "B";
#   - the Firefox Profiler's own importers (profiler-cli) show per thread
#     the same functions and self percentages, within 0.5 points, for the
#     original file and for our --to=firefox output of it.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 37
c=testdata/chrome-trace
f=testdata/firefox
d=testdata/perf-data
root=$tmpdir/root
mkdir -p "$root/tmp/rec" "$root/tmp/rec3"
for b in c-fp cxx-dwarf; do ln -s "$(pwd)/testdata/bin/$b" "$root/tmp/rec/$b"; done
for b in c-dwarf cxx-threads; do ln -s "$(pwd)/testdata/bin/$b" "$root/tmp/rec3/$b"; done
sym="--symfs=$root --kallsyms=$d/kallsyms"

# round_trip FORMAT VALUE-ARGS INPUT: folded of the input and of its
# FORMAT output read back, both with VALUE-ARGS, are equal
round_trip() {
	fmt=$1 value=$2 in=$3
	# shellcheck disable=SC2086
	profkit-convert -q $sym $value --to=folded "$in" | sort >"$tmpdir/want" &&
		profkit-convert -q $sym --to="$fmt" -o "$tmpdir/out" "$in" &&
		profkit-convert -q $sym $value --to=folded "$tmpdir/out" | sort >"$tmpdir/got"
	same_output "$fmt of $(basename "$in") read back: folded ${value:-(default)} equal" \
		"$tmpdir/want" "$tmpdir/got"
}

for in in $d/c-fp.perf.data $d/cxx-dwarf.perf.data $d/cxx-dwarf-threads.perf.data \
	$d/threads.perf.data $d/multi.perf.data $d/node.perf.data \
	testdata/pprof/go-cpu.pb.gz testdata/pprof/go-heap.pb.gz \
	testdata/gperftools/c-fp.cpu testdata/gperftools/app.heap testdata/folded/diff.folded; do
	round_trip chrome-trace --value=samples $in
done
for in in $d/c-fp.perf.data $d/c-dwarf.perf.data $d/cxx-dwarf-threads.perf.data \
	$d/threads.perf.data $d/multi.perf.data testdata/pprof/go-cpu.pb.gz \
	testdata/pprof/go-allocs.pb.gz testdata/gperftools/c-fp.cpu \
	testdata/gperftools/app.heap; do
	round_trip firefox "" $in
done
# weights all equal are not written: the samples are
round_trip firefox --value=samples testdata/perf-script/c-fp.txt

# the files of other producers, folded as testdata/README.md derives them
testrun_compare "Chromium's trace: V8 samples counted per stack" \
	$c/chromium-v8.samples.folded \
	profkit-convert -q --value=samples --to=folded $c/chromium-v8.trace.json.gz
for t in $c/perfetto-slices.json $f/gecko.json; do
	testrun_compare "$(basename "$t"): folded as expected" "${t%.json}.folded" \
		profkit-convert -q --to=folded "$t"
done
testrun_compare "perfetto-slices.json: --event=slices --value=samples counts stretches" \
	$c/perfetto-slices.samples.folded \
	profkit-convert -q --event=slices --value=samples --to=folded $c/perfetto-slices.json
testrun_status "an E without its B: a warning" 0 'closed no open slice' \
	profkit-convert --to=folded testdata/bad/chrome-trace/end-without-begin
testrun_fails "an E without its B, --strict: an error at its offset" 1 \
	'end-without-begin: offset 1: an "E" event of "lost" without a "B"' \
	profkit-convert --strict --to=folded -o "$outdir/x" \
	testdata/bad/chrome-trace/end-without-begin

# found without --from
detected() {
	if profkit-info -q "$2" | grep -q "^$2: $1 profile"; then
		pass "$(basename "$2"): found to be $1"
	else
		fail "$(basename "$2"): found to be $1"
	fi
}
detected chrome-trace $c/chromium-v8.trace.json.gz
detected chrome-trace $c/perfetto-slices.json
detected firefox $f/gecko.json
profkit-convert -q --to=chrome-trace -o "$tmpdir/ours.trace.json" testdata/gperftools/c-fp.cpu
detected chrome-trace "$tmpdir/ours.trace.json"
profkit-convert -q --to=firefox -o "$tmpdir/ours.firefox.json" testdata/gperftools/c-fp.cpu
detected firefox "$tmpdir/ours.firefox.json"

# ---- the Firefox Profiler's own view ----
. "$top_srcdir/tests/profiler-cli.sh"
if [ -z "$profiler_cli" ] || ! command -v node >/dev/null; then
	for i in 1 2 3 4 5; do
		skip "the Firefox Profiler's view" "no profiler-cli (npm install @firefox-devtools/profiler-cli)"
	done
	finish
fi

# self_shares FILE: "THREAD<TAB>FUNCTION<TAB>SELF%" per thread (its
# handle) for functions summed by name, shares of the thread's samples
# other than "(idle)" (the Chrome importer's Idle category, which
# profiler-cli leaves out), rows of 0.1% or more; an unsymbolicated
# frame, named by its address, as "[unknown]"
self_shares() {
	profiler_load "$1" || return 1
	awk '{ h = $1 == "*" ? $2 : $1 } h ~ /^t-[0-9]+$/ { print h }' "$tmpdir/threads" |
	while read -r h; do
		"$profiler_cli" thread functions --thread "$h" --limit 0 --json </dev/null 2>/dev/null |
			H=$h node -e '
			let s = ""; process.stdin.on("data", (c) => s += c);
			process.stdin.on("end", () => {
				const self = new Map();
				let total = 0;
				for (const f of JSON.parse(s).functions) {
					if (f.name === "(idle)") continue;
					/* an address is a frame without a symbol:
					 * our writer names it as perf does */
					const name = /^0x[0-9a-f]+$/.test(f.name) ? "[unknown]" : f.name;
					self.set(name, (self.get(name) || 0) + f.selfSamples);
					total += f.selfSamples;
				}
				for (const [name, n] of self)
					if (total && 100 * n / total >= 0.1)
						console.log("%s\t%s\t%s", process.env.H, name,
							    (100 * n / total).toFixed(2));
			});'
	done | sort
}

# compare NAME POINTS ORIGINAL: the profiler's view of the original and
# of our --to=firefox output of it, every function within POINTS
compare() {
	if profkit-convert -q --no-symbolize --to=firefox -o "$tmpdir/ours.json" "$3" &&
		self_shares "$3" >"$tmpdir/theirs" &&
		self_shares "$tmpdir/ours.json" >"$tmpdir/ours" &&
		[ -s "$tmpdir/theirs" ] && within_points 0.1 "$2" "$tmpdir/theirs" "$tmpdir/ours"; then
		pass "$1"
	else
		fail "$1"
	fi
}

profkit-convert -q --to=chrome-trace -o "$tmpdir/gperf.trace.json" testdata/gperftools/c-fp.cpu
compare "chrome-trace of a gperftools profile: the profiler's shares within 0.5" 0.5 \
	"$tmpdir/gperf.trace.json"
profkit-convert -q --to=chrome-trace -o "$tmpdir/go.trace.json" testdata/pprof/go-cpu.pb.gz
compare "chrome-trace of a Go profile: the profiler's shares within 0.5" 0.5 \
	"$tmpdir/go.trace.json"
profkit-convert -q $sym --to=firefox -o "$tmpdir/threads.json" $d/cxx-dwarf-threads.perf.data
compare "firefox of perf.data, read back: the profiler's shares within 0.5" 0.5 \
	"$tmpdir/threads.json"
compare "Gecko profile: the profiler's shares within 0.5" 0.5 $f/gecko.json
# The profiler keeps a Chrome trace's samples 0.5 ms apart at the least
# and drops those between (its importer's resampling): of a recording
# sampled every 0.17 ms it keeps about one in three, where we keep all.
compare "Chromium's trace: the profiler's shares, which it resamples, within 2.5" 2.5 \
	$c/chromium-v8.trace.json.gz
finish
