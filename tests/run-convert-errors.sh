#!/bin/sh
# Bad input and bad usage: the documented exit code, a message that names
# the input, the offset or line and the problem, and, where the command
# writes with -o, no output file and no temporary file left behind.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 16
d=testdata/perf-script

testrun_fails "missing input file" 3 \
	"^profkit-convert: cannot open 'no-such-file': No such file or directory$" \
	profkit-convert --to=folded -o "$outdir/x.folded" no-such-file
testrun_fails "no --to" 2 "give --to=FMT" \
	profkit-convert -o "$outdir/x.folded" $d/c-fp.txt
testrun_fails "unknown --to" 2 "unknown output format 'nope'" \
	profkit-convert --to=nope -o "$outdir/x.folded" $d/c-fp.txt
testrun_fails "unknown option" 2 "unknown option '--frobnicate'" \
	profkit-convert --frobnicate -o "$outdir/x.folded" $d/c-fp.txt
testrun_fails "unknown event" 2 "no event 'cycles' in the input" \
	profkit-convert --to=folded --event=cycles -o "$outdir/x.folded" $d/c-fp.txt
testrun_fails "-o in a directory that is not there" 3 \
	"cannot create '$outdir/no-dir/x.folded': No such file or directory" \
	profkit-convert --to=folded -o "$outdir/no-dir/x.folded" $d/c-fp.txt

# random bytes, fixed so the test never changes from run to run
cp testdata/bad/random.bin "$tmpdir/random.bin"
testrun_fails "binary garbage" 1 "random.bin: unknown profile format" \
	profkit-convert --to=pprof -o "$outdir/x.pb.gz" "$tmpdir/random.bin"
testrun_fails "garbage forced through the perf script reader" 1 \
	"random.bin: no perf script samples found (expected 'comm pid \[cpu\] time: event:' lines)" \
	profkit-convert --from=perf-script --to=folded -o "$outdir/x.folded" "$tmpdir/random.bin"
grep -q "random.bin: line 1: not a perf script line" "$tmpdir/err" &&
	pass "and its warnings name the lines" || fail "and its warnings name the lines"
testrun_fails "--max-memory too small fails cleanly" 1 \
	"c-fp.txt: the profile needs more than the memory limit of 0 MiB (see --max-memory)" \
	profkit-convert --to=pprof --max-memory=64K -o "$outdir/x.pb.gz" $d/c-fp.txt

# The writer fails after the output was opened: its temporary file goes.
printf 'main;a 9223372036854775000\nmain;b 9223372036854775000\n' >"$tmpdir/big.folded"
testrun_fails "a writer's failure removes its temporary file" 1 \
	"flamegraph: the values add up past 2^63" \
	profkit-convert --to=flamegraph -o "$outdir/x.svg" "$tmpdir/big.folded"
testrun_fails "profkit-flamegraph --diff of one column" 2 \
	"a differential flame graph needs 'base' and 'new' counts" \
	profkit-flamegraph --diff -o "$outdir/x.svg" $d/c-fp.txt

# A failure leaves a file that was there as it was.
mkdir -p "$tmpdir/keep"
echo "the earlier profile" >"$tmpdir/keep/x.svg"
profkit-convert --to=flamegraph -o "$tmpdir/keep/x.svg" "$tmpdir/big.folded" 2>/dev/null
if [ $? -eq 1 ] && [ "$(cat "$tmpdir/keep/x.svg")" = "the earlier profile" ] &&
	[ "$(ls -A "$tmpdir/keep")" = x.svg ]; then
	pass "a failure keeps the file -o named as it was"
else
	fail "a failure keeps the file -o named as it was"
	ls -A "$tmpdir/keep" | diag_file /dev/stdin
fi

# a 10 MB line: handled, with a warning naming the line
{ head -n 5 $d/c-fp.txt; head -c 10000000 /dev/zero | tr '\0' 'a'; echo; tail -n +6 $d/c-fp.txt; } \
	>"$tmpdir/longline.txt"
testrun_status "a 10 MB line is skipped with a warning" 0 \
	"warning: .*longline.txt: line 6: not a perf script line" \
	profkit-convert --to=folded "$tmpdir/longline.txt"

# truncated in the middle of a frame line: what is whole converts
head -c 100000 $d/c-fp.txt >"$tmpdir/cut.txt"
testrun_status "a truncated input converts what is whole, with a warning" 0 \
	"warning: .*cut.txt: line 2217: the file ends mid-line (truncated file?)" \
	profkit-convert --to=folded "$tmpdir/cut.txt"
testrun_fails "and fails with --strict, writing nothing" 1 \
	"cut.txt: line 2217: the file ends mid-line" \
	profkit-convert --strict --to=folded -o "$outdir/x.folded" "$tmpdir/cut.txt"
finish
