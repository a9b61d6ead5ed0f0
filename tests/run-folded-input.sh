#!/bin/sh
# Folded stacks as input: a round trip is exact, fractional counts and
# difffolded's two columns are kept.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/folded
plan 6

testrun_compare "folded round trip is exact" testdata/perf-script/c-fp.folded \
	profkit-convert --to=folded testdata/perf-script/c-fp.folded
testrun_compare "fractional counts are summed exactly" $d/fractional.expected \
	profkit-convert --to=folded $d/fractional.folded
printf 'java;main;new 7\njava;main;work 12\n' >"$tmpdir/new"
testrun_compare "difffolded input: the new column by default" "$tmpdir/new" \
	profkit-convert --to=folded $d/diff.folded
testrun_compare "folded from stdin is detected" testdata/perf-script/c-fp.folded \
	sh -c "profkit-convert --to=folded < testdata/perf-script/c-fp.folded"
printf 'main;a 1\nthis line has no count\n' >"$tmpdir/bad.folded"
testrun_status "a line without a count is skipped with a warning" 0 "bad.folded: line 2: not a folded stack" \
	profkit-convert --from=folded --to=folded "$tmpdir/bad.folded"
testrun_fails "text that is not folded stacks" 1 "c-fp.c: no folded stacks found" \
	profkit-convert --from=folded --to=folded -o "$outdir/x.folded" testdata/src/c-fp.c
finish
