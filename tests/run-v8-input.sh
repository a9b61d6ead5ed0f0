#!/bin/sh
# V8 CPU profiles (.cpuprofile) read:
#   - found without --from; the stacks those tests/v8-folded.py counts
#     directly from the samples (or hitCounts), on testdata/v8 and on
#     recordings made here with node --cpu-prof of testdata/src/shape.js,
#     whose shape (outer > middle > leafA, leafB) they must have;
#   - the Firefox Profiler's own importer (profiler-cli) shows per thread
#     the same functions and self percentages, within 0.5 points, for the
#     original and for our --to=firefox of it;
#   - each sample at startTime plus its deltas, the duration spread over
#     the samples as "wall", what profkit-info says of a recording;
#   - the hostile inputs of testdata/bad/v8 refused with offset and path.
. "${top_srcdir:-.}/tests/test-subr.sh"
. "$top_srcdir/tests/profiler-cli.sh"
command -v python3 >/dev/null 2>&1 || skip_all "no python3 (tests/v8-folded.py)"
e=testdata/v8
plan $((2 * $(echo $e/*.cpuprofile | wc -w) + 4 + 2 + 2 + 14))

# counted NAME FILE: our stacks and counts are the script's
counted() {
	python3 tests/v8-folded.py "$2" >"$tmpdir/want" &&
		profkit-convert -q --to=folded --value=samples "$2" |
		LC_ALL=C sort >"$tmpdir/got"
	same_output "$1" "$tmpdir/want" "$tmpdir/got"
}

for f in $e/*.cpuprofile; do
	if profkit-info "$f" 2>&1 | grep -q "^$f: v8 profile\$"; then
		pass "${f##*/}: found without --from"
	else
		fail "${f##*/}: found without --from"
	fi
	counted "${f##*/}: the stacks counted from its samples" "$f"
done

# Recorded here: the program's functions not inlined into each other,
# so that its stacks have its shape.
record() {
	(cd "$tmpdir" && node --no-turbo-inlining --cpu-prof --cpu-prof-interval 1000 \
		--cpu-prof-name "$1.cpuprofile" "$top_srcdir/testdata/src/shape.js" 400)
}
if ! command -v node >/dev/null 2>&1; then
	for i in 1 2 3 4; do skip "a recording of shape.js" "no node"; done
elif record live 2>"$tmpdir/err"; then
	counted "node --cpu-prof: the stacks counted from its samples" "$tmpdir/live.cpuprofile"
	for leaf in leafA leafB; do
		grep -q "(anonymous);outer;middle;$leaf [0-9]" "$tmpdir/got" &&
			pass "node --cpu-prof: outer, middle, $leaf" ||
			fail "node --cpu-prof: outer, middle, $leaf"
	done
	# about two thirds of the samples in leafA, in any case more than leafB
	awk '/;leafA / { a = $2 } /;leafB / { b = $2 } END { exit !(a > b && b > 0) }' \
		"$tmpdir/got" && pass "node --cpu-prof: leafA hotter than leafB" ||
		fail "node --cpu-prof: leafA hotter than leafB"
else
	for i in 1 2 3 4; do fail "node --cpu-prof shape.js"; done
	diag_file "$tmpdir/err"
fi

# The Firefox Profiler: the original and ours, the same functions and
# self percentages (its importer counts samples; so does our wall
# column, each sample weighing the same). Its importer keeps no sample
# within 0.5 ms of the last it kept (a busy machine delays V8's sampler,
# and the next sample comes early): so that the two show the same
# samples, those are left out of the recording first (kept_samples);
# (idle) samples, idle to it and a function to us, count in both.
kept_samples() {
	python3 -c '
import json, sys
profile = json.load(open(sys.argv[1]))
samples, deltas, t, kept_at, since = [], [], profile["startTime"], None, 0
for s, d in zip(profile["samples"], profile["timeDeltas"]):
    t += d
    since += d
    if kept_at is None or t - kept_at >= 500:
        samples.append(s)
        deltas.append(since)
        kept_at, since = t, 0
profile["samples"], profile["timeDeltas"] = samples, deltas
json.dump(profile, open(sys.argv[2], "w"))' "$1" "$2"
}
same_in_profiler() {
	if [ -z "$profiler_cli" ]; then
		skip "$1" "no profiler-cli (npm install @firefox-devtools/profiler-cli)"
	elif [ ! -f "$2" ]; then
		fail "$1 (no recording)"
	elif kept_samples "$2" "$tmpdir/kept.cpuprofile" &&
		ff_functions "$tmpdir/kept.cpuprofile" --include-idle >"$tmpdir/theirs" &&
		profkit-convert -q --to=firefox -o "$tmpdir/ours.json" "$tmpdir/kept.cpuprofile" &&
		ff_functions "$tmpdir/ours.json" --include-idle >"$tmpdir/ours" &&
		[ -s "$tmpdir/theirs" ] && within_points 0.5 0.5 "$tmpdir/theirs" "$tmpdir/ours"; then
		pass "$1"
	else
		fail "$1"
		within_points 0.5 0.5 "$tmpdir/theirs" "$tmpdir/ours"
	fi
}
same_in_profiler "shape.cpuprofile: the Firefox Profiler's functions and self%" \
	$e/shape.cpuprofile
same_in_profiler "node --cpu-prof: the Firefox Profiler's functions and self%" \
	"$tmpdir/live.cpuprofile"

# Times: startTime (500000 us) plus the deltas (150, 1000, 1000.5,
# 999, ...), in the Firefox writer's milliseconds from the first sample.
profkit-convert -q --to=firefox $e/parent-links.cpuprofile | python3 -c '
import json, sys
for t in json.load(sys.stdin)["threads"]:
    print(t["name"] + ":", " ".join("%g" % x for x in t["samples"]["time"]))' \
	>"$tmpdir/times"
echo "main: 0 1 2.0005 2.9995 4.0005 5.0005 6.0005 7.0005 8.2005 9.0005" \
	"10.0005 11.0005 12.0005 13.0005 14.0005" >"$tmpdir/times.want"
same_output "each sample at startTime plus its deltas" "$tmpdir/times.want" "$tmpdir/times"
testrun_compare "profkit-info of a recording" $e/shape.info \
	profkit-info $e/shape.cpuprofile

# hostile inputs: exit 1, nothing written, the offset, path and problem
refused_as v8 <<'EOF'
cycle	offset 387 ($.samples[1]): the parents of node 3 form a cycle
deep-nesting-callframe	offset 245 ($.nodes[0].callFrame.extra[0][0][0][0]...(112 more)...[0][0][0][0][0][0][0][0]): objects and arrays nested deeper than 128
deltas-differ	offset 0 ($): samples and timeDeltas differ in number (3 and 2)
duplicate-id	offset 230 ($.nodes[2]): a second node with id 2
huge-delta	offset 412 ($.timeDeltas[1]): expected a number from -4611686018427387.903 to 4611686018427387.903, not 1e+30
huge-id	offset 121 ($.nodes[1].id): expected a whole number from 0 to 4294967295, not 1e+30
id-2-32	offset 393 ($.samples[1]): expected a whole number from 0 to 4294967295, not 4294967296
missing-child	offset 128 ($.nodes[0].children[1]): node 99 is not in $.nodes
missing-sample-node	offset 393 ($.samples[1]): node 42 is not in $.nodes
negative-id	offset 16 ($.nodes[0].id): expected a whole number from 0 to 4294967295, not -1
no-nodes	offset 0 ($): expected "nodes": not a V8 CPU profile
samples-first	offset 14 ($.samples[1]): node 7 is not in $.nodes
truncated-in-callframe	offset 209 ($.nodes[1].callFrame.lineNumber): the input ends inside the document (truncated?)
two-parents	offset 243 ($.nodes[1].children[0]): node 3 has two parents, nodes 1 and 2
EOF
finish
