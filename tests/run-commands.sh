#!/bin/sh
# The pipeline commands against expected output: info, top, merge, diff,
# filter, and the profkit dispatcher. difffolded expectations were made
# with FlameGraph's difffolded.pl (its lines sorted: it prints in hash
# order), which runs again from ../shared/reference/flamegraph/.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-script
e=testdata/commands
# profkit-top's "Time:" is in the local zone
TZ=UTC
export TZ
plan 24

testrun_compare "info names every event with its count" $e/multi.info \
	profkit-info $d/multi.txt
profkit-info --json $d/c-fp.txt >"$tmpdir/json" &&
	grep -q '"cpu-clock": 1207' "$tmpdir/json" && pass "info --json" || fail "info --json"

testrun_compare "top -n 5: flat order and columns as pprof -top" $e/c-fp.top \
	profkit-top -n 5 $d/c-fp.txt
testrun_compare "top --cum" $e/cxx-dwarf.cum.top profkit-top --cum -n 4 $d/cxx-dwarf.txt
# c-fp.top-samples: pprof -top of our pprof conversion (run-convert-pprof.sh)
testrun_compare "top: pprof -top of the converted file, header included" \
	testdata/pprof/c-fp.top-samples profkit-top -n 5 --sample-type=samples $d/c-fp.txt
testrun_status "top of an unknown sample type" 2 "no sample type 'alloc_space'" \
	profkit-top --sample-type=alloc_space $d/c-fp.txt

# merge: perf script text plus folded text is twice the folded stacks
awk '{ n = $NF; sub(/[0-9]+$/, ""); printf "%s%.0f\n", $0, n * 2 }' $d/c-fp.folded >"$tmpdir/double"
testrun_compare "merge of two formats is the sum of their folded forms" "$tmpdir/double" \
	profkit-merge $d/c-fp.txt $d/c-fp.folded
profkit-merge $d/c-fp.txt $d/c-fp.folded $d/pipe.txt >"$tmpdir/abc"
profkit-merge $d/pipe.txt $d/c-fp.folded >"$tmpdir/bc"
profkit-merge $d/c-fp.txt "$tmpdir/bc" >"$tmpdir/a_bc"
cmp -s "$tmpdir/abc" "$tmpdir/a_bc" && pass "merge is associative" || fail "merge is associative"
testrun_fails "merge names a sample type mismatch" 1 \
	"c-fp.txt: sample types \[samples/count, cpu-clock/nanoseconds\] differ" \
	profkit-merge -o "$outdir/all.pb.gz" $d/multi.txt $d/c-fp.txt

testrun_compare "diff equals difffolded.pl" $e/c-fp-pipe.difffolded \
	profkit-diff $d/c-fp.txt $d/pipe.txt
testrun_compare "diff --normalize equals difffolded.pl -n" $e/c-fp-pipe.normalized.difffolded \
	profkit-diff --normalize $d/c-fp.txt $d/pipe.txt
find_reference flamegraph/difffolded.pl
for n in "" -n; do
	what="difffolded.pl $n${n:+ }prints what was expected of it"
	if [ -z "$reference" ]; then
		skip "$what" "$reference_missing"
		continue
	fi
	testrun_compare "$what" $e/c-fp-pipe${n:+.normalized}.difffolded \
		sh -c "perl '$reference' $n $d/c-fp.folded $d/pipe.folded | sort"
done
profkit-diff --to=folded $d/c-fp.txt $d/c-fp.txt >"$tmpdir/zero"
[ ! -s "$tmpdir/zero" ] && pass "diff --to of a profile with itself is empty" ||
	fail "diff --to of a profile with itself is empty"

# filter --focus keeps exactly the weight of the stacks through the function
grep 'warm_loop' $d/c-fp.folded >"$tmpdir/warm"
testrun_compare "filter --focus keeps exactly the stacks through it" "$tmpdir/warm" \
	profkit-filter --focus='^warm_loop$' $d/c-fp.txt
grep -v 'loop' $d/c-fp.folded >"$tmpdir/noloop"
testrun_compare "filter --ignore drops them" "$tmpdir/noloop" \
	profkit-filter --ignore=loop $d/c-fp.txt
printf 'c-fp;__libc_start_call_main;main 601500000\n' >"$tmpdir/pruned"
testrun_compare "filter --prune-from cuts below the frame" "$tmpdir/pruned" \
	sh -c "profkit-filter --prune-from='^main$' $d/c-fp.txt | grep ';main '"
profkit-filter --tid=4203 $d/threads.txt >"$tmpdir/tid"
[ "$(cut -d';' -f1 "$tmpdir/tid" | sort -u)" = "io_w_1" ] &&
	pass "filter --tid keeps one thread" || fail "filter --tid keeps one thread"

testrun_compare "profkit convert runs profkit-convert" $d/c-fp.folded \
	profkit convert --to=folded $d/c-fp.txt
profkit-top --help >"$tmpdir/top-help"
testrun_compare "profkit help top is profkit-top --help" "$tmpdir/top-help" profkit help top
profkit --help >"$tmpdir/help"
testrun_compare "profkit help is profkit --help" "$tmpdir/help" profkit help
testrun_status "profkit with an unknown command" 2 "'frobnicate' is not a profkit command" \
	profkit frobnicate
testrun_status "diff --value takes samples or period only" 2 "expected 'samples' or 'period'" \
	profkit-diff --value=bogus $d/c-fp.txt $d/c-fp.txt
testrun_status "filter --value takes samples or period only" 2 "expected 'samples' or 'period'" \
	profkit-filter --value=bogus $d/c-fp.txt
finish
