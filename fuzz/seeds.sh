#!/bin/sh
# The seed inputs of one reader, small ones only: its own test files under
# testdata/, what other producers wrote (Go's runtime/pprof, Java, C++ and
# pprof itself in testdata/pprof/producers, Debian's pprof test profiles,
# ../shared/conformance when present), the inputs pprof rejects, what the
# fuzzers found (testdata/bad/), and a few files of every other format,
# which reach the readers' error paths.
#   fuzz/seeds.sh SRCDIR READER
src=$1
pprof_testdata=/usr/share/gocode/src/github.com/google/pprof/profile/testdata
shared=$src/../shared/conformance
t=$src/testdata

own() {
	case $1 in
	perf-script) ls "$t"/perf-script/*.txt "$shared"/perf-script/*.txt "$shared"/perf-data/*.perf-script.txt ;;
	folded) ls "$t"/perf-script/*.folded "$t"/folded/*.folded "$shared"/perf-script/results/*.txt ;;
	# the tracepoint recordings among them (tp-*, tp-seed-* made for
	# this) carry event formats for the tracing-data checks to meet
	perf-data) ls "$t"/perf-data/*.perf.data "$shared"/perf-data/*.perf.data "$shared"/perf-data/perf.data.*[0-9] \
		"$t"/bad/perf-data/* ;;
	gperftools-cpu) ls "$t"/gperftools/*.cpu "$shared"/gperftools/*.cpu "$pprof_testdata"/*.cpu ;;
	gperftools-heap) ls "$t"/gperftools/*.heap "$t"/gperftools/*.growth "$t"/gperftools/*.contention \
		"$t"/gperftools/*.mutex "$t"/gperftools/*.threads "$shared"/gperftools/*.heap \
		"$shared"/gperftools/*.growth "$shared"/gperftools/*.contention "$shared"/gperftools/*.thread* \
		"$pprof_testdata"/*.heap "$pprof_testdata"/*.growth "$pprof_testdata"/*.contention \
		"$pprof_testdata"/*.thread* ;;
	pprof) ls "$t"/pprof/*.pb* "$t"/pprof/producers/*.pb* "$t"/pprof/invalid/*.pb \
		"$t"/bad/pprof/* ;;
	# the stack text of other tools: each its own folder, its expected
	# folded outputs there too (the other readers' error paths)
	dtrace|bpftrace|systemtap|pmcstat|eu-stack|gdb|jstack|java-exceptions)
		ls "$t/$1"/* "$t/bad/$1"/* ;;
	jfr) ls "$t"/jfr/*.jfr "$t"/bad/jfr/* ;;
	speedscope) ls "$t"/speedscope/*.json "$t"/bad/speedscope/* ;;
	v8) ls "$t"/v8/*.cpuprofile "$t"/bad/v8/* ;;
	# not callgraph.callgrind: its 20000 stacks through every writer take
	# longer than libFuzzer's timeout under the sanitizers
	callgrind) ls "$t"/callgrind/hand-*.callgrind "$t"/callgrind/callgraph-instr.callgrind \
		"$t"/callgrind/c-fp.callgrind "$t"/callgrind/multi.callgrind "$t"/bad/callgrind/* ;;
	# other profilers' exports: their test inputs and hand-made faults
	macos-sample|instruments|vtune|vsprof|ghc-prof|ljp|xctrace) ls "$t/$1"/* "$t/bad/$1"/* ;;
	pprof-raw) ls "$t"/pprof-raw/*.txt "$t"/bad/pprof-raw/* "$t"/pprof/*.raw \
		"$t"/gperftools/*.pprof-raw.txt "$shared"/gperftools/*.string ;;
	chrome-trace) ls "$t"/chrome-trace/*.json* "$t"/bad/chrome-trace/* ;;
	firefox) ls "$t"/firefox/*.json "$t"/bad/firefox/* ;;
	otlp) ls "$t"/otlp/*.otlp.* "$t"/bad/otlp/* ;;
	esac
}

# one or two of every format, whichever reader this is
others() {
	ls "$t"/perf-script/c-fp.txt "$t"/folded/diff.folded "$t"/perf-data/c-fp.perf.data \
		"$t"/gperftools/c-fp.cpu "$t"/gperftools/app.heap "$t"/pprof/go-cpu.pb.gz \
		"$t"/pprof/c-fp.pb "$t"/pprof/producers/java.cpu.pb.gz \
		"$t"/speedscope/evented.speedscope.json "$t"/v8/shape.cpuprofile \
		"$t"/callgrind/hand-lines.callgrind \
		"$t"/dtrace/stacks.txt "$t"/gdb/naps.txt "$t"/jstack/stacks.txt
}

{ own "$2"; others; } 2>/dev/null | sort -u | while read -r f; do
	[ -f "$f" ] && [ "$(stat -c %s "$f")" -le 2000000 ] && echo "$f"
done
