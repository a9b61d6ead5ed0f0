#!/bin/sh
# perf script text to folded stacks, compared with expected files. Each
# expected file is stackcollapse-perf.pl's output for the same input,
# except where doc/formats.md says the perl script is wrong; where it is
# right, the perl script (../shared/reference/flamegraph/) runs too and
# must print the expected file today.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 28
d=testdata/perf-script

testrun_compare "C with frame pointers" $d/c-fp.folded \
	profkit-convert --to=folded $d/c-fp.txt
testrun_compare "perf record -o - (pipe mode)" $d/pipe.folded \
	profkit-convert --to=folded $d/pipe.txt
testrun_compare "C++ --call-graph dwarf with inlined frames" $d/cxx-dwarf.folded \
	profkit-convert --to=folded $d/cxx-dwarf.txt
testrun_compare "thread names with spaces and digits" $d/threads.folded \
	profkit-convert --to=folded $d/threads.txt
testrun_compare "--tid on pid/tid input" $d/threads-pidtid.tid.folded \
	profkit-convert --to=folded --tid $d/threads-pidtid.txt
testrun_compare "two events: the first one by default" $d/multi.folded \
	profkit-convert --to=folded $d/multi.txt
grep -q "showing event 'page-faults' only" "$tmpdir/err" &&
	pass "and a warning names it" || fail "and a warning names it"
testrun_compare "--event picks the other" $d/multi.cpu-clock.folded \
	profkit-convert --to=folded --event=cpu-clock $d/multi.txt
testrun_compare "--event matches perf's modifier form too" $d/multi.cpu-clock.folded \
	profkit-convert --to=folded --event=cpu-clock:pppH $d/multi.txt
testrun_compare "tracepoint samples do not slip past --event" $d/tp-prog.cpu-clock.folded \
	profkit-convert --to=folded --event=cpu-clock $d/tp-prog.txt
# perf-map-agent's unfoldall names a JIT frame "A->B->C": A with B and C
# inlined, the inlined ones marked _[i], the annotations on A only
testrun_compare "JIT inline chains (A->B->C)" $d/jit-inline.folded \
	profkit-convert --to=folded $d/jit-inline.txt
for mode in kernel jit all; do
	testrun_compare "JIT inline chains, --$mode" $d/jit-inline.$mode.folded \
		profkit-convert --to=folded --$mode $d/jit-inline.txt
done
testrun_compare "--value=samples counts samples" $d/c-fp.samples.folded \
	profkit-convert --to=folded --value=samples $d/c-fp.txt

# the expected files the perl script made, made again by it
find_reference flamegraph/stackcollapse-perf.pl
while read -r input options expected; do
	[ "$options" = - ] && options=
	what="stackcollapse-perf.pl $options${options:+ }$input prints $expected"
	if [ -z "$reference" ]; then
		skip "$what" "$reference_missing"
		continue
	fi
	# shellcheck disable=SC2086
	testrun_compare "$what" $d/$expected perl "$reference" $options $d/$input
done <<'EOF'
c-fp.txt - c-fp.folded
pipe.txt - pipe.folded
multi.txt - multi.folded
multi.txt --event-filter=cpu-clock multi.cpu-clock.folded
jit-inline.txt - jit-inline.folded
jit-inline.txt --kernel jit-inline.kernel.folded
jit-inline.txt --jit jit-inline.jit.folded
jit-inline.txt --all jit-inline.all.folded
EOF

gzip -c $d/c-fp.txt >"$tmpdir/c-fp.txt.gz"
testrun_compare "gzip input is undone" $d/c-fp.folded \
	profkit-convert --to=folded "$tmpdir/c-fp.txt.gz"
testrun_compare "standard input" $d/c-fp.folded \
	sh -c "profkit-convert --to=folded < $d/c-fp.txt"
testrun_compare "stdin through a pipe, gzipped" $d/c-fp.folded \
	sh -c "gzip -c < $d/c-fp.txt | profkit-convert --to=folded"

profkit-convert --to=folded -o "$tmpdir/out.folded" $d/c-fp.txt
cmp -s "$tmpdir/out.folded" $d/c-fp.folded && pass "-o writes the file" || fail "-o writes the file"

# two inputs are summed: every count doubles
awk '{ n = $NF; sub(/[0-9]+$/, ""); printf "%s%.0f\n", $0, n * 2 }' $d/c-fp.folded >"$tmpdir/double"
testrun_compare "several inputs are summed" "$tmpdir/double" \
	profkit-convert --to=folded $d/c-fp.txt $d/c-fp.txt

finish
