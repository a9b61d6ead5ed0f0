#!/bin/sh
# Batch conversion as CI jobs do it: -O DIR, -j, --keep-going.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-script
plan 8
mkdir "$tmpdir/in"
cp $d/c-fp.txt $d/multi.txt $d/c-fp.folded "$tmpdir/in/"
head -c 5000 /dev/urandom >"$tmpdir/in/broken.bin"

profkit-convert -q --to=folded -O "$tmpdir/batch" -j 2 --keep-going \
	"$tmpdir/in/c-fp.txt" "$tmpdir/in/broken.bin" "$tmpdir/in/multi.txt" \
	"$tmpdir/in/c-fp.folded" 2>"$tmpdir/err"
status=$?
[ $status -eq 1 ] && pass "one bad file of four: exit 1" || fail "exit $status, want 1"
grep -q "broken.bin: unknown profile format" "$tmpdir/err" && grep -q "1 of 4 inputs failed" "$tmpdir/err" &&
	pass "the bad file is named" || { fail "the bad file is named"; diag_file "$tmpdir/err"; }
cmp -s "$tmpdir/batch/c-fp.txt.folded" $d/c-fp.folded && cmp -s "$tmpdir/batch/multi.txt.folded" $d/multi.folded &&
	cmp -s "$tmpdir/batch/c-fp.folded.folded" $d/c-fp.folded &&
	pass "every good input has its output, named after it" || fail "outputs"
[ ! -e "$tmpdir/batch/broken.bin.folded" ] && [ "$(ls "$tmpdir/batch" | wc -l)" -eq 3 ] &&
	pass "nothing written for the bad one" || fail "something written for the bad one"

rm -rf "$tmpdir/batch"
profkit-convert -q --to=folded -O "$tmpdir/batch" "$tmpdir/in/broken.bin" "$tmpdir/in/c-fp.txt" 2>/dev/null
[ $? -eq 1 ] && [ ! -e "$tmpdir/batch/c-fp.txt.folded" ] &&
	pass "without --keep-going the batch stops at the first failure" || fail "batch did not stop"
testrun_status "-o and -O together" 2 "exclude each other" \
	profkit-convert --to=folded -o x -O y $d/c-fp.txt
mkdir -p "$tmpdir/a" "$tmpdir/b"
cp $d/c-fp.txt "$tmpdir/a/p.txt" && cp $d/c-fp.txt "$tmpdir/b/p.txt"
testrun_status "two inputs with one base name: refused, not overwritten" 2 \
	"would both write .*/p.txt.folded" \
	profkit-convert --to=folded -O "$tmpdir/same" "$tmpdir/a/p.txt" "$tmpdir/b/p.txt"
# two bad files of four: still 1, not the count (2 would read as "usage")
cp "$tmpdir/in/broken.bin" "$tmpdir/in/broken2.bin"
profkit-convert -q --to=folded -O "$tmpdir/two" --keep-going "$tmpdir/in/c-fp.txt" \
	"$tmpdir/in/broken.bin" "$tmpdir/in/broken2.bin" "$tmpdir/in/multi.txt" 2>"$tmpdir/err"
status=$?
[ $status -eq 1 ] && grep -q "2 of 4 inputs failed" "$tmpdir/err" &&
	pass "two bad files of four: exit 1, the count in the message" ||
	{ fail "two bad files of four: exit $status, want 1"; diag_file "$tmpdir/err"; }
finish
