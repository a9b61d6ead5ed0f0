#!/bin/sh
# perf script text to the callgrind format: compared with expected files,
# then read by valgrind's callgrind_annotate, whose totals and per-function
# costs (self, and inclusive with --inclusive=yes) are compared with an
# expected file checked by hand against the folded output: hot_loop's self
# cost is its folded leaf total, main's inclusive cost the sum of its stacks.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 6
d=testdata/perf-script
e=testdata/callgrind

testrun_compare "C with frame pointers" $e/c-fp.callgrind \
	profkit-convert --to=callgrind $d/c-fp.txt
testrun_compare "two events: every column, the first event's first" \
	$e/multi.callgrind profkit-convert --to=callgrind $d/multi.txt

# The summary is the sum of the self costs, which is the folded total.
profkit-convert --to=callgrind $d/c-fp.txt >"$tmpdir/c-fp.callgrind"
profkit-convert --to=folded $d/c-fp.txt >"$tmpdir/c-fp.folded"
got=$(sed -n 's/^summary: \([0-9]*\) .*/\1/p' "$tmpdir/c-fp.callgrind")
self=$(awk '/^[0-9]/ && !call { s += $2 } { call = /^calls=/ }
	END { printf "%.0f\n", s }' "$tmpdir/c-fp.callgrind")
want=$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$tmpdir/c-fp.folded")
[ "$got" = "$want" ] && [ "$self" = "$want" ] &&
	pass "summary and self costs add up to the folded total" ||
	fail "summary and self costs add up to the folded total ($got, $self, $want)"

testrun_status "an unknown --event is a usage error" 2 "no event 'nope'" \
	profkit-convert --to=callgrind --event=nope $d/multi.txt

# callgrind_annotate's reading, without the percentages and the column
# widths, which differ between valgrind versions.
annotate() {
	echo "# self"
	callgrind_annotate --threshold=100 "$1" 2>"$tmpdir/annotate.err"
	echo "# inclusive"
	callgrind_annotate --threshold=100 --inclusive=yes "$1" 2>>"$tmpdir/annotate.err"
}
if ! command -v callgrind_annotate >/dev/null 2>&1; then
	skip "callgrind_annotate reads it" "no callgrind_annotate (valgrind)"
	skip "callgrind_annotate has no complaint" "no callgrind_annotate (valgrind)"
	finish
fi
annotate "$tmpdir/c-fp.callgrind" |
	sed -n -e '/^# /p' -e '/^Events recorded:/p' -e '/PROGRAM TOTALS/p' \
		-e '/ ???:/p' |
	sed -e 's/([ 0-9.]*%)//g' -e 's/  */ /g' -e 's/^ //' \
		>"$tmpdir/annotate"
if cmp -s $e/c-fp.annotate.txt "$tmpdir/annotate"; then
	pass "callgrind_annotate reads it"
else
	fail "callgrind_annotate reads it"
	diff -u $e/c-fp.annotate.txt "$tmpdir/annotate" | diag_file /dev/stdin 30
fi
if grep -q . "$tmpdir/annotate.err"; then
	fail "callgrind_annotate has no complaint"
	diag_file "$tmpdir/annotate.err"
else
	pass "callgrind_annotate has no complaint"
fi
finish
