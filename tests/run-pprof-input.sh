#!/bin/sh
# pprof profiles as input: our own output read back, gzipped or not, is
# the profile it came from; profkit-top lists what pprof -top lists.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-script
plan 6

profkit-convert --to=pprof -o "$tmpdir/c-fp.pb.gz" $d/c-fp.txt
profkit-convert --to=pprof --no-gzip -o "$tmpdir/c-fp.pb" $d/c-fp.txt
testrun_compare "pprof (gzipped) read back folds as the input" $d/c-fp.folded \
	profkit-convert --to=folded "$tmpdir/c-fp.pb.gz"
testrun_compare "raw protobuf is detected too" $d/c-fp.folded \
	profkit-convert --to=folded "$tmpdir/c-fp.pb"
profkit-convert --to=pprof -o "$tmpdir/multi.pb.gz" $d/multi.txt
testrun_compare "--sample-type picks one of several" $d/multi.cpu-clock.folded \
	profkit-convert --to=folded --sample-type=cpu-clock "$tmpdir/multi.pb.gz"
awk '{ n = $NF; sub(/[0-9]+$/, ""); printf "%s%.0f\n", $0, n * 2 }' $d/c-fp.folded >"$tmpdir/double"
testrun_compare "merge of pprof and perf script text" "$tmpdir/double" \
	profkit-merge "$tmpdir/c-fp.pb.gz" $d/c-fp.txt
head -c 300 "$tmpdir/c-fp.pb" >"$tmpdir/cut.pb"
testrun_fails "a truncated protobuf is an error" 1 "cut.pb: not a pprof profile" \
	profkit-convert --from=pprof --to=folded -o "$outdir/x.folded" "$tmpdir/cut.pb"

# the same ranking as pprof -top, where pprof is here
find_pprof
if [ -n "$pprof" ]; then
	profkit-convert --to=pprof -o "$tmpdir/cxx.pb.gz" $d/cxx-dwarf.txt
	# pprof shortens C++ names (no template arguments); the columns and
	# inline marks must be equal and the names equal once shortened
	"$pprof" -top -nodecount=5 "$tmpdir/cxx.pb.gz" 2>/dev/null | sed -n '/flat%/,$p' \
		>"$tmpdir/theirs"
	profkit-top -q -n 5 "$tmpdir/cxx.pb.gz" | sed -n '/flat%/,$p' |
		sed -e ':a' -e 's/<[^<>]*>//' -e 'ta' >"$tmpdir/ours"
	cmp -s "$tmpdir/theirs" "$tmpdir/ours" && pass "top -n 5: pprof -top's rows in its order" ||
		{ fail "top -n 5: pprof -top's rows in its order"; diff "$tmpdir/theirs" "$tmpdir/ours" | diag_file /dev/stdin; }
else
	skip "top -n 5 as pprof -top" "no Go pprof (./bootstrap builds one)"
fi
finish
