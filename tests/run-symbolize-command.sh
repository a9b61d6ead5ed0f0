#!/bin/sh
# profkit-symbolize on a perf.data whose binary is not where it was
# recorded (/tmp/rec/c-fp): --binary names it, and the stacks through
# the program equal perf script's on the recording machine. The system
# libraries' symbols come from the recording's root (testdata/sysroot:
# its libc and ld.so symbol tables), not from this machine's.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 3
grep '_loop ' testdata/perf-script/c-fp.folded >"$tmpdir/want"
testrun_compare "--binary symbolizes the program's frames as perf did" "$tmpdir/want" \
	sh -c "profkit-symbolize -q --binary=testdata/bin/c-fp --symfs=testdata/sysroot --to=folded testdata/perf-data/c-fp.perf.data | grep '_loop '"
profkit-symbolize -q --binary=testdata/bin/c-fp --symfs=testdata/sysroot -o "$tmpdir/c-fp.pb.gz" testdata/perf-data/c-fp.perf.data
testrun_compare "the default output is pprof, read back the same" "$tmpdir/want" \
	sh -c "profkit-convert -q --to=folded $tmpdir/c-fp.pb.gz | grep '_loop '"
profkit-convert -q --no-symbolize --to=folded testdata/perf-data/c-fp.perf.data >"$tmpdir/raw"
! grep -q hot_loop "$tmpdir/raw" && [ -s "$tmpdir/raw" ] &&
	pass "--no-symbolize keeps raw addresses" || fail "--no-symbolize keeps raw addresses"
finish
