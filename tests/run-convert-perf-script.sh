#!/bin/sh
# --to=perf-script prints what `perf script` prints by default, so that
# what reads perf script text takes any profile:
#
#   - the recordings of testdata/perf-data, symbolized from a root that
#     holds only the recorded programs (as tests/run-perf-data-folded.sh),
#     folded by our perf script reader, give X.folded: what
#     stackcollapse-perf.pl made of perf script's own text;
#   - with the recording's system libraries (testdata/sysroot: the symbol
#     tables of its libc and ld.so), the text is perf script's on the
#     recording machine (testdata/perf-script/X.txt) line for line, less
#     the symbol offsets the model does not keep;
#   - gperftools and pprof profiles fold as stackcollapse-perf.pl folded
#     our text (testdata/perf-script-written/X.folded, made with the perl
#     script), and fold back to what they fold to directly;
#   - stackcollapse-perf.pl itself (../shared/reference/flamegraph/)
#     folds our text to the same;
#   - --addresses-only keeps `perf script -F comm,pid,tid,time,event,ip,dso`.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 25
d=testdata/perf-data
w=testdata/perf-script-written
bin=$(pwd)/testdata/bin
find_reference flamegraph/stackcollapse-perf.pl

root=$tmpdir/root
link() { mkdir -p "$root$(dirname "$2")" && ln -s "$1" "$root$2"; }
for b in c-fp multi sleeper; do link "$bin/$b" /tmp/rec/$b; done
link "$bin/c-fp" /tmp/rec2/c-fp
link "$bin/c-fp-stripped" /tmp/rec2/c-fp-stripped
link "$bin/c-dwarf" /tmp/rec3/c-dwarf
link "$(pwd)/$d/perf-1262.map" /tmp/perf-1262.map
mkdir "$tmpdir/home" "$tmpdir/no-root"

script() {
	HOME=$tmpdir/home profkit-convert -q --symfs="$root" \
		--kallsyms=$d/kallsyms --to=perf-script "$@"
}
refold() { profkit-convert -q --from=perf-script --to=folded "$@"; }

# perl_folds NAME FILE EXPECTED: stackcollapse-perf.pl's folding of FILE
# (testrun_compare sets $name: the loops say $rec)
perl_folds() {
	if [ -z "$reference" ]; then
		skip "$1" "$reference_missing"
		return
	fi
	testrun_compare "$1" "$3" perl "$reference" "$2"
}

# stackcollapse-perf.pl is right on these (doc/formats.md lists where not).
# Text has no attribute order: text readers (the perl script too) show the
# first event sampled, where perf.data's default is perf evlist's first.
for rec in c-fp multi pipe tp-prog stripped node c-dwarf; do
	case $rec in
	multi) want=$d/multi.page-faults.folded ;;
	tp-prog) want=$d/tp-prog.cpu-clock.folded ;;
	*) want=$d/$rec.folded ;;
	esac
	script $d/$rec.perf.data >"$tmpdir/$rec.txt"
	testrun_compare "$rec.perf.data: folds as perf script's text did" \
		"$want" refold "$tmpdir/$rec.txt"
	# the perl script sees an event only at the end of a line, so with
	# tracepoint fields after it, it counts the sched_switch samples with
	# the first event's, in perf script's text as in ours: its folding,
	# made once, is the expected one (doc/formats.md)
	[ $rec = tp-prog ] && want=$w/tp-prog.perl.folded
	perl_folds "$rec.perf.data: stackcollapse-perf.pl folds it as perf's" \
		"$tmpdir/$rec.txt" "$want"
done

# line for line, with the recording's system libraries (by build id, and
# by name for multi, whose header has no build id for libc)
for rec in c-fp multi; do
	sed 's/+0x[0-9a-f]* (/ (/' testdata/perf-script/$rec.txt >"$tmpdir/want"
	testrun_compare "$rec.perf.data: as perf script prints it" "$tmpdir/want" \
		env HOME="$tmpdir/home" profkit-convert -q --symfs=testdata/sysroot \
		--symbol-path="$bin" --kallsyms=$d/kallsyms --to=perf-script $d/$rec.perf.data
done

# no threads, no times: the binary's name, tid 0, a clock of the periods
profkit-convert -q --binary="$bin/c-fp" --symfs="$tmpdir/no-root" \
	--to=perf-script testdata/gperftools/c-fp.cpu >"$tmpdir/gperf.txt"
cat >"$tmpdir/want" <<'EOF'
c-fp     0     0.000000:    5000000 cpu: 
c-fp     0     0.005000:    5000000 cpu: 
EOF
testrun_compare "gperftools: comm, tid, time, period and event" "$tmpdir/want" \
	sh -c "grep '^c-fp' '$tmpdir/gperf.txt' | head -2"
testrun_compare "gperftools: folds as stackcollapse-perf.pl folded it" \
	$w/c-fp.cpu.folded refold "$tmpdir/gperf.txt"
perl_folds "gperftools: stackcollapse-perf.pl folds it" "$tmpdir/gperf.txt" \
	$w/c-fp.cpu.folded
profkit-convert -q --binary="$bin/c-fp" --symfs="$tmpdir/no-root" \
	--to=folded testdata/gperftools/c-fp.cpu >"$tmpdir/direct"
testrun_compare "gperftools: round trip to folded" "$tmpdir/direct" \
	refold --no-comm "$tmpdir/gperf.txt"

for rec in go-cpu go-heap; do
	profkit-convert -q --to=perf-script testdata/pprof/$rec.pb.gz >"$tmpdir/$rec.txt"
	testrun_compare "pprof $rec: folds as stackcollapse-perf.pl folded it" \
		$w/$rec.folded refold "$tmpdir/$rec.txt"
done
perl_folds "pprof go-heap: stackcollapse-perf.pl folds it" "$tmpdir/go-heap.txt" \
	$w/go-heap.folded
# the first event of a heap profile is its alloc_objects column, with
# alloc_space as the period
profkit-convert -q --sample-type=alloc_space --to=folded \
	testdata/pprof/go-heap.pb.gz >"$tmpdir/direct"
testrun_compare "pprof go-heap: round trip to folded" "$tmpdir/direct" \
	refold --no-comm "$tmpdir/go-heap.txt"

testrun_compare "--addresses-only: as perf script -F comm,pid,tid,time,event,ip,dso" \
	$d/c-fp.perf-script.txt \
	profkit-convert --no-symbolize --addresses-only --to=perf-script $d/c-fp.perf.data
finish
