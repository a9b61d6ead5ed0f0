#!/bin/sh
# What a first-time user is told when a choice finds nothing or a
# recording lacks something: the names that are there, the name meant,
# how to record what is missing.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 23
d=testdata/perf-data

# --event and --sample-type that name nothing list what there is
testrun_status "--event not found: the input's events listed" 2 \
	"no event 'cycles' in the input; its events: cpu-clock, page-faults\$" \
	profkit-convert -q --event=cycles --to=folded $d/multi.perf.data
testrun_status "--event on an input without events: its sample types" 2 \
	"no event 'cycles' in the input: it names no events; its sample types (--sample-type): contentions, delay\$" \
	profkit-convert -q --event=cycles --to=folded testdata/pprof/go-block.pb.gz
testrun_status "--sample-type not found: the input's sample types listed" 2 \
	"no sample type 'cpu' in the input; its sample types: cpu-clock_samples, cpu-clock, page-faults_samples, page-faults\$" \
	profkit-convert -q --sample-type=cpu --to=folded $d/multi.perf.data

# one word for a profile's kinds of values in every message: sample type
# (not "column" or "value type"; a folded file's text columns stay so)
others=$(grep -rn -E '(pk_error_set|pk_warn|cmd_error|PK_WARN_AT_MOST)\(' \
	lib cmd --include='*.c' -A3 | grep -E '"[^"]*\b(columns?|value types?)\b' |
	grep -v -E 'two[- ]columns?')
[ -z "$others" ] && pass "messages say sample type" ||
	{ fail "messages say sample type"; echo "$others" | diag_file /dev/stdin; }

# a writer that shows one event of several says so: all the same way
for to in chrome-trace firefox folded flamegraph dot gprof2dot; do
	testrun_status "--to=$to: the events left out said" 0 \
		"^profkit-convert: warning: showing event 'page-faults' only, the first of 2 (choose with --event)\$" \
		profkit-convert --to=$to -o "$tmpdir/out" testdata/perf-script/multi.txt
done

# a perf recording without call chains: one line, and how to record them
recipe="record them with: perf record -g (--call-graph dwarf for programs built without frame pointers)"
testrun_status "perf record without -g: one line says so" 0 \
	"blocking-nostack.perf.data: no call chains: stacks are one frame deep; $recipe\$" \
	profkit-convert --to=folded -o "$tmpdir/out" $d/blocking-nostack.perf.data
[ "$(grep -c 'no call chains' "$tmpdir/err")" = 1 ] && pass "once" || fail "once"
profkit-convert -q --no-symbolize --to=perf-script $d/blocking-nostack.perf.data >"$tmpdir/nostack.txt"
testrun_status "perf script text without call chains too" 0 \
	"nostack.txt: no call chains: stacks are one frame deep; $recipe, and print them with perf script without -G\$" \
	profkit-convert --to=folded -o "$tmpdir/out" "$tmpdir/nostack.txt"
profkit-info -q $d/blocking-nostack.perf.data >"$tmpdir/info"
grep -qxF "  call-chains: none; stacks are one frame deep; $recipe" "$tmpdir/info" &&
	pass "profkit-info: among the recording's facts" ||
	{ fail "profkit-info: among the recording's facts"; diag_file "$tmpdir/info"; }
# not for stacks recorded (-g), copied to unwind (dwarf: the binaries are
# not found here), or cut to their sampled frame on request
for args in "$d/c-fp.perf.data" "$d/naps.perf.data" "--no-unwind $d/c-dwarf.perf.data"; do
	profkit-convert --kallsyms=$d/kallsyms --to=folded -o "$tmpdir/out" $args 2>"$tmpdir/err"
	grep -q "no call chains" "$tmpdir/err" && fail "not for $args" || pass "not for $args"
done

# an unknown --to: the format meant, as git suggests a command
for typed in svg flame flamegraph.svg FlameGraph; do
	testrun_status "--to=$typed: flamegraph meant" 2 \
		"unknown output format '$typed': did you mean 'flamegraph'? (see --list-formats)\$" \
		profkit-convert --to=$typed $d/c-fp.folded
done
testrun_status "--to with a typo: the nearest name" 2 \
	"unknown output format 'speedscop': did you mean 'speedscope'? (see profkit-convert --list-formats)\$" \
	profkit-merge --to=speedscop $d/c-fp.folded
testrun_status "--to far from every name: no guess" 2 \
	"unknown output format 'nope' (see --list-formats)\$" \
	profkit-convert --to=nope $d/c-fp.folded
finish
