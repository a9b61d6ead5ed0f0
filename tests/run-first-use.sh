#!/bin/sh
# What a new user meets first, said plainly: gzip on a terminal, a filter
# that keeps nothing, an empty recording and several inputs to
# profkit-info, and speedscope profiles named alike from perf.data and
# from perf script text of one recording.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-script
plan 10

# pprof output is gzip: on a terminal (script(1) gives a pty) a warning,
# as gzip itself refuses; into a file none
if command -v script >/dev/null 2>&1; then
	script -qc "profkit-convert --to=pprof $d/c-fp.folded 2>$tmpdir/tty.err" /dev/null >/dev/null
	echo "profkit-convert: warning: <stdout> is a terminal: writing gzip-compressed data to it; use -o FILE or redirect it" >"$tmpdir/want"
	cmp -s "$tmpdir/want" "$tmpdir/tty.err" && pass "gzip to a terminal warns" ||
		{ fail "gzip to a terminal warns"; diag_file "$tmpdir/tty.err"; }
else
	skip "gzip to a terminal warns" "no script(1) (util-linux)"
fi
profkit-convert --to=pprof $d/c-fp.folded >"$tmpdir/c-fp.pb.gz" 2>"$tmpdir/err"
[ -s "$tmpdir/c-fp.pb.gz" ] && [ ! -s "$tmpdir/err" ] && pass "gzip to a file: no warning" ||
	{ fail "gzip to a file: no warning"; diag_file "$tmpdir/err"; }

# a filter that keeps nothing: exit 0, empty output, and a warning naming
# the tests that dropped the samples
profkit-filter --focus='^nomatch$' $d/c-fp.txt >"$tmpdir/out" 2>"$tmpdir/err"
status=$?
echo "profkit-filter: warning: no sample passed --focus='^nomatch\$': the output is empty" >"$tmpdir/want"
[ $status -eq 0 ] && [ ! -s "$tmpdir/out" ] && cmp -s "$tmpdir/want" "$tmpdir/err" &&
	pass "a --focus that matches nothing says so" ||
	{ fail "a --focus that matches nothing says so (exit $status)"; diag_file "$tmpdir/err"; }
profkit-filter --tid=4203 --focus=nomatch $d/threads.txt >/dev/null 2>"$tmpdir/err"
echo "profkit-filter: warning: no sample passed --tid=4203 and --focus='nomatch': the output is empty" >"$tmpdir/want"
cmp -s "$tmpdir/want" "$tmpdir/err" && pass "each test that dropped samples is named" ||
	{ fail "each test that dropped samples is named"; diag_file "$tmpdir/err"; }
profkit-filter --focus=loop $d/c-fp.txt >/dev/null 2>"$tmpdir/err"
[ ! -s "$tmpdir/err" ] && pass "a filter that keeps samples: no warning" ||
	{ fail "a filter that keeps samples: no warning"; diag_file "$tmpdir/err"; }

# profkit-info on a recording without samples (perf record -c 1000000000
# -- true) describes it: its header as perf report --header-only prints it
testrun_compare "info describes an empty recording" testdata/commands/empty.info \
	profkit-info testdata/perf-data/empty.perf.data
# several inputs: each described, a bad one said in between, exit non-zero
profkit-info testdata/perf-data/empty.perf.data "$tmpdir/missing" $d/c-fp.folded \
	>"$tmpdir/out" 2>"$tmpdir/err"
status=$?
[ $status -ne 0 ] && grep -q "^testdata/perf-data/empty.perf.data: perf-data profile" "$tmpdir/out" &&
	grep -q "^$d/c-fp.folded: folded profile" "$tmpdir/out" &&
	grep -q "cannot open '$tmpdir/missing'" "$tmpdir/err" &&
	pass "info describes each input, past a missing one" ||
	{ fail "info describes each input, past a missing one (exit $status)"; diag_file "$tmpdir/out"; }

# speedscope: the threads of one recording get the same profile names
# from its perf.data and from its perf script text (which has no pid and
# loses the trailing space of "trail sp ")
names() {
	profkit-convert -q --no-symbolize --to=speedscope "$1" |
		grep -o '"type":"sampled","name":"[^"]*"' | sort
}
for x in c-fp threads multi; do
	names testdata/perf-data/$x.perf.data >"$tmpdir/data.names"
	names $d/$x.txt >"$tmpdir/text.names"
	same_output "speedscope names of $x: perf.data as perf script" \
		"$tmpdir/text.names" "$tmpdir/data.names"
done
finish
