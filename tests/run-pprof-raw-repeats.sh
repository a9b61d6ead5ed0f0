#!/bin/sh
# pprof -raw text whose samples repeat (the same location ids, with the
# same labels or others): the reader sums them as it reads, where the
# profile would sum them anyway, so each check below holds only if it
# sums those of the same ids and labels, and no others, in the place of
# the first and with its line.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 7
d=testdata/pprof-raw

# repeats.folded checked by hand: leaf under app 1+2+8+32+64 (locations
# 1 and 4 are the same, threads 7 and 8 both "app"), other 4, the
# unlabelled leaf 16+128
testrun_compare "pprof-raw: repeated samples summed" $d/repeats.folded \
	profkit-convert -q --to=folded $d/repeats.txt
# repeats-summed.txt: repeats.txt with each (ids, labels) once, its
# values summed by hand, where its first sample was: the same profile,
# byte for byte, so the tids the folded lines leave out still count
profkit-convert -q --to=pprof --no-gzip $d/repeats-summed.txt >"$tmpdir/want.pb"
profkit-convert -q --to=pprof --no-gzip $d/repeats.txt >"$tmpdir/got.pb"
same_output "pprof-raw: to pprof as the text summed by hand" "$tmpdir/want.pb" "$tmpdir/got.pb"
# speedscope keeps each sample, in order, with its own weight (threads
# 7 and 8, then the samples of no thread)
cat >"$tmpdir/weights" <<'WEIGHTS'
"weights":[10000000,40000000,80000000,640000000]
"weights":[20000000,320000000]
"weights":[160000000,1280000000]
WEIGHTS
profkit-convert -q --to=speedscope $d/repeats.txt >"$tmpdir/speedscope.json"
grep -o '"weights":\[[^]]*\]' "$tmpdir/speedscope.json" >"$tmpdir/got-weights"
same_output "pprof-raw: to speedscope every sample in order" \
	"$tmpdir/weights" "$tmpdir/got-weights"
# the same text after the ids of locations 1, 2, 3 and 5, but 2 and 5
# have a line more (inlined): only 1 and 3 are one location (checked by
# hand: main;leaf 10000000 + 40000000)
testrun_compare "pprof-raw: a location's text again, with lines more or not" \
	$d/same-text.folded profkit-convert -q --to=folded $d/same-text.txt
# stacks of exactly --max-stack frames are neither cut nor read past
# (the next sample's ids were taken for a frame more)
if profkit-convert --to=folded --max-stack=2 $d/goroutines.txt >"$tmpdir/out" 2>"$tmpdir/err" &&
   [ ! -s "$tmpdir/err" ] && cmp -s $d/goroutines.folded "$tmpdir/out"; then
	pass "pprof-raw: stacks of --max-stack frames kept whole, no warning"
else
	fail "pprof-raw: stacks of --max-stack frames kept whole, no warning"
	diag_file "$tmpdir/err"
fi
# the first bad sample is named, though one of its ids comes again
testrun_fails "pprof-raw: the first unknown location's line" 1 \
	": line 6: location 8, which the locations do not list$" \
	profkit-convert -q --to=pprof -o "$outdir/out.pb.gz" $d/repeats-bad-location.txt
testrun_fails "pprof-raw: the same to speedscope" 1 \
	": line 6: location 8, which the locations do not list$" \
	profkit-convert -q --to=speedscope -o "$outdir/out.json" $d/repeats-bad-location.txt
finish
