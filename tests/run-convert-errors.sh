#!/bin/sh
# Bad input and bad usage: a clear message, the documented exit code,
# and no output file left behind.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 11
d=testdata/perf-script

testrun_status "missing input file" 3 "cannot open 'no-such-file'" \
	profkit-convert --to=folded no-such-file
testrun_status "no --to" 2 "give --to=FMT" profkit-convert $d/c-fp.txt
testrun_status "unknown --to" 2 "unknown output format 'nope'" \
	profkit-convert --to=nope $d/c-fp.txt
testrun_status "unknown option" 2 "unknown option '--frobnicate'" \
	profkit-convert --frobnicate
testrun_status "unknown event" 2 "no event 'cycles'" \
	profkit-convert --to=folded --event=cycles $d/c-fp.txt

head -c 20000 /dev/urandom >"$tmpdir/random.bin"
testrun_status "binary garbage" 1 "unknown profile format" \
	profkit-convert --to=folded "$tmpdir/random.bin"
testrun_status "garbage forced through the perf script reader" 1 \
	"no perf script samples found" \
	profkit-convert --from=perf-script --to=folded -o "$tmpdir/never" "$tmpdir/random.bin"
[ ! -e "$tmpdir/never" ] && [ -z "$(ls "$tmpdir" | grep never)" ] &&
	pass "no output file after an error" || fail "no output file after an error"

# a 10 MB line: handled, with a warning naming the line
{ head -n 5 $d/c-fp.txt; head -c 10000000 /dev/zero | tr '\0' 'a'; echo; tail -n +6 $d/c-fp.txt; } \
	>"$tmpdir/longline.txt"
testrun_status "a 10 MB line is skipped with a warning" 0 "line 6: not a perf script line" \
	profkit-convert --to=folded "$tmpdir/longline.txt"

# truncated in the middle of a frame line: what is whole converts
head -c 100000 $d/c-fp.txt >"$tmpdir/cut.txt"
testrun_status "a truncated input converts what is whole" 0 "" \
	profkit-convert --to=folded "$tmpdir/cut.txt"
testrun_status "--max-memory too small fails cleanly" 1 "memory limit" \
	profkit-convert --to=folded --max-memory=64K $d/c-fp.txt
finish
