#!/bin/sh
# Broken inputs: the fuzz crashers in testdata/bad/READER/ (read with
# --from=READER, as the fuzzer fed them), and truncations and
# bit flips of every kind of input under testdata/, made here with a fixed
# seed. Each conversion must exit 0 or 1 within 10 seconds; on 1 say on
# stderr which input, where in it and what is wrong, and leave nothing in
# the output directory (no output file, no temporary file).
. "${top_srcdir:-.}/tests/test-subr.sh"

inputs="testdata/perf-script/c-fp.txt testdata/perf-script/cxx-dwarf.txt
	testdata/perf-script/c-fp.folded testdata/folded/diff.folded
	testdata/callgrind/hand-lines.callgrind testdata/callgrind/callgraph-instr.callgrind"
for f in testdata/perf-data/c-fp.perf.data testdata/perf-data/pipe.perf.data \
	testdata/perf-data/tp-fields.pipe.perf.data \
	testdata/perf-data/zstd-sym.perf.data testdata/gperftools/*.cpu testdata/gperftools/*.heap \
	testdata/gperftools/app.growth testdata/gperftools/app.threads \
	testdata/gperftools/server.contention testdata/pprof/*.pb* testdata/otlp/*.otlp.*; do
	[ -f "$f" ] && inputs="$inputs $f"
done
# compressed: the formats profkit was built to read
for f in testdata/compressed/app.heap.*; do
	profkit-convert -q --to=folded "$f" >/dev/null 2>&1 && inputs="$inputs $f"
done

broken=0
for f in $inputs; do
	broken_copies "$f" "$tmpdir/broken"
done
cases="$(ls testdata/bad/*/*) $(ls "$tmpdir"/broken.*)"

# the reader a crasher was found through, as --from
from_of() {
	case $1 in
	testdata/bad/*) echo "--from=$(basename "$(dirname "$1")")" ;;
	*) echo "--from=auto" ;;
	esac
}
plan $(( $(echo $cases | wc -w) + $(echo $inputs | wc -w) + 1 ))

# What each fuzz crasher must do now: "converts", or fail with a message
# matching the pattern given. A new crasher needs its line here.
crasher_expects() {
	# the JSON readers' hostile inputs (their tests check each message)
	case $1 in testdata/bad/speedscope/*|testdata/bad/v8/*)
		echo "offset [0-9]* (\\\$.*): "
		return ;;
	esac
	case $(basename "$1") in
	empty-callchain|perf-script-repeats|speedscope-null-groups|inlined-lines-realloc|printk-short-format|tracing-*|no-image-first) echo converts ;;
	samples-without-types) echo "invalid pprof profile: missing sample type information" ;;
	gzip-pprof) echo "no folded stacks found" ;;
	count-too-large) echo "line [0-9]*: count too large" ;;
	no-frames|no-running-thread) echo "no .* stacks found" ;;
	# chrome-trace: an "E" without its "B" is left out with a warning
	# (--strict: an error), as speedscope does
	end-without-begin) echo converts ;;
	chunk-unknown-profile|profile-without-nodes) echo "no V8 CPU samples" ;;
	deep-nesting) echo "nested deeper than" ;;
	huge-timestamp) echo "expected a number from" ;;
	parent-cycle) echo "is its own ancestor" ;;
	sample-unknown-node) echo "sample of node 7: no such node" ;;
	# firefox
	prefix-cycle) echo "not an earlier stack" ;;
	func-out-of-range) echo "frameTable.func\[0\]): an index out of range" ;;
	stack-out-of-range) echo "stack 99999 is not in the stack table" ;;
	gecko-data-before-schema) echo "data before its schema" ;;
	truncated) echo "ends inside the document" ;;
	*.jfr) echo "offset 0x[0-9a-f]*: " ;;	# tests/run-jfr-bad.sh: each message
	# many-events-written: the callgrind writer, not the reader, took 2^32 steps
	name-number-largest|many-events-written) echo converts ;;
	name-number-too-large) echo "line 3: fn=(9*\.\.\.: the number does not fit in 64 bits" ;;
	name-used-before-given) echo "line 5: cfn=(7) names nothing" ;;
	calls-without-cost|calls-at-end) echo "line 6: calls= without the cost line that must follow it" ;;
	cost-too-large) echo "line 4: a cost does not fit in 64 bits" ;;
	cost-past-63-bits) echo "line 4: cost 9223372036854775808 does not fit in 63 bits" ;;
	costs-add-up-too-much) echo "line 5: the self costs of event Ir add up to more than 64 bits hold" ;;
	more-costs-than-events) echo "line 4: more costs than events (1)" ;;
	cost-before-function) echo "line 3: a cost line before any fn= line" ;;
	no-events) echo "line 1: costs or names before an events: line" ;;
	position-below-zero) echo "line 4: position -5 from 0 is below 0" ;;
	version-2) echo "line 1: format version 2: this reader knows version 1" ;;
	binary-name) echo "line 3: binary data in a text profile" ;;
	events-33) echo "line 1: more than 32 events" ;;
	# other profilers' exports (issue 26), written by hand: a fault each
	sample-callees-exceed) echo "line 7: callees take 12, more than their caller's 10" ;;
	sample-huge-count) echo "line 4: the count is too large" ;;
	sample-no-graph) echo "no call graph (a line 'Call graph:')" ;;
	sample-skipped-level) echo "line 5: a node 2 levels below the one above it" ;;
	instruments-bad-row) echo "line 3: not a call tree row" ;;
	instruments-skipped-level) echo "line 3: a node 3 levels below the one above it" ;;
	vtune-bad-time) echo "line 3: not a time in seconds: '1e3'" ;;
	vtune-no-self-column) echo "line 1: no 'CPU Time:Self' column in the header" ;;
	vtune-unterminated-quote) echo "line 3: an unterminated quote" ;;
	vsprof-bad-count) echo "line 2: not a level and a count of samples" ;;
	vsprof-level-jump) echo "line 3: a node 3 levels below the one above it" ;;
	ghc-bad-number) echo "line 5: not a number: 'x.0'" ;;
	ghc-no-tree) echo "no cost-centre tree" ;;
	raw-bad-mapping) echo "line 9: not a mapping 'ID: 0xSTART/0xLIMIT/0xOFFSET FILE'" ;;
	raw-labels-first) echo "line 5: labels without a sample" ;;
	raw-no-locations) echo "line 5: location 1, which the locations do not list" ;;
	raw-unknown-location) echo "line 5: location 9, which the locations do not list" ;;
	raw-values-short) echo "line 5: fewer values than sample types" ;;
	ljp-no-traces) echo "no traces" ;;
	xctrace-bad-entity) echo "offset 72: a bad entity in the attribute name" ;;
	xctrace-entity-bomb) echo "offset 22: a DOCTYPE with declarations (not read)" ;;
	xctrace-id-twice) echo "offset 133: id 1 given twice" ;;
	xctrace-empty-number) echo "offset 861: no number in <sample-time>" ;;
	xctrace-empty-text) echo "offset 739: an end tag that matches no start tag" ;;
	xctrace-mismatched-tag) echo "offset 53: an end tag that matches no start tag" ;;
	xctrace-too-deep) echo "offset 807: elements nested too deep" ;;
	xctrace-truncated) echo "offset 128: the document ends inside an element" ;;
	xctrace-unknown-ref) echo "offset 54: <backtrace ref=\"77\"/> names no earlier element" ;;
	*.otlp.pb|*.otlp.json) echo 'OTLP profiles\|offset [0-9a-fx]*[: ]' ;;	# tests/run-otlp-bad.sh
	esac
}

# A failed conversion's message: "profkit-convert: FILE: " then where
# ("offset 0x1a2b: "; "offset 123: " in a gzip stream; "line 7: ") and
# what. These few name no place, as they judge the input whole:
#   unknown profile format        no reader's probe claims the first bytes
#   not a pprof profile,          protobuf-c decodes the message whole and
#   invalid pprof profile         says neither where nor what
#   no gperftools profile header  the header line is judged whole
# and a JSON reader's offset names the value's path, "offset 812
# ($.nodes[3].id): ", and OTLP's unpacked messages are named by their
# place, "OTLP profiles: resource 1, scope 1, profile 2, sample 3: ".
where='((offset (0x[0-9a-f]+|[0-9]+)( \(\$[^)]*\))?|line [0-9]+): [^ ]|unknown profile format|not a pprof profile|invalid pprof profile|no gperftools profile header|OTLP profiles: )'

for f in $cases; do
	rm -rf "$outdir" && mkdir "$outdir" || exit 99
	timeout 10 profkit-convert -q $(from_of "$f") --to=pprof -o "$outdir/out.pb.gz" "$f" 2>"$tmpdir/err"
	status=$?
	left=$(ls -A "$outdir")
	name="$(basename "$f") ($(wc -c <"$f") bytes)"
	want=
	case $f in testdata/bad/*)
		want=$(crasher_expects "$f")
		[ -n "$want" ] || { fail "$name: a crasher with no line in crasher_expects"; continue; } ;;
	esac
	if [ -n "$want" ] && [ "$want" != converts ]; then
		[ $status -eq 1 ] && [ -z "$left" ] && grep -q -e "$want" "$tmpdir/err" &&
			pass "$name fails as it must: $want" ||
			{ fail "$name: exit $status, want 1 and '$want'"; diag_file "$tmpdir/err"; }
		continue
	fi
	case $status in
	0) [ "$left" = out.pb.gz ] && [ -s "$outdir/out.pb.gz" ] && pass "$name converts" ||
		fail "$name: exit 0 with '$left' in the output directory" ;;
	1) if [ "$want" = converts ]; then
		fail "$name: exit 1 where it must convert"
		diag_file "$tmpdir/err"
	   elif [ -n "$left" ]; then
		fail "$name: exit 1 left $left in the output directory"
	   elif ! grep -E -q "^profkit-convert: $f: $where" "$tmpdir/err"; then
		fail "$name: exit 1 without a message naming the input and the place"
		diag_file "$tmpdir/err"
	   else
		pass "$name fails cleanly: $(sed -n "s|^profkit-convert: $f: ||p" "$tmpdir/err" | head -n 1 | cut -c1-100)"
	   fi ;;
	124) fail "$name: still running after 10 s" ;;
	*) fail "$name: exit $status"; diag_file "$tmpdir/err" ;;
	esac
done

# Cut mid-line or mid-record, with --strict: exit 1, nothing written, and
# the warning that stopped it (the first damage) says where, per input.
half_expects() {
	case $1 in
	c-fp.txt) echo "line 3618: the file ends mid-line (truncated file?)" ;;
	cxx-dwarf.txt) echo "line 710: the file ends mid-line (truncated file?)" ;;
	c-fp.folded) echo "line 4: not a folded stack: 'c-fp;__libc_start_call_main'" ;;
	diff.folded) echo "line 2: not a folded stack: 'java;mai'" ;;
	hand-lines.callgrind) echo "line 21: the file ends mid-line (truncated file?)" ;;
	callgraph-instr.callgrind) echo "line 252: the file ends mid-line (truncated file?)" ;;
	c-fp.perf.data) echo "offset 0x108: the data section (107112 bytes) is cut short at 55170 bytes" ;;
	pipe.perf.data) echo "offset 0x43e0: the last record is cut short (truncated file?)" ;;
	tp-fields.pipe.perf.data) echo "offset 0x4928: the last record is cut short (truncated file?)" ;;
	zstd-sym.perf.data) echo "offset 0x108: the data section (3163 bytes) is cut short at 3107 bytes" ;;
	alloc-threads.cpu) echo "offset 0x15c8: the memory map ends mid-line (truncated file?)" ;;
	be32.cpu) echo "offset 0x88: the memory map ends mid-line (truncated file?)" ;;
	c-fp.cpu) echo "offset 0xc83: the memory map ends mid-line (truncated file?)" ;;
	cxx-threads.cpu) echo "offset 0xf8b: the memory map ends mid-line (truncated file?)" ;;
	rusty-v0.cpu) echo "offset 0x1184: the memory map ends mid-line (truncated file?)" ;;
	alloc-threads.heap) echo "line 41: the file ends mid-line (truncated file?)" ;;
	app.heap|server.contention) echo "line 7: the file ends mid-line (truncated file?)" ;;
	c-fp.heap) echo "line 35: the file ends mid-line (truncated file?)" ;;
	cxx-threads.heap) echo "line 45: the file ends mid-line (truncated file?)" ;;
	v2.heap) echo "line 4: the file ends mid-line (truncated file?)" ;;
	app.growth) echo "line 3: the file ends mid-line (truncated file?)" ;;
	app.threads) echo "line 10: the file ends mid-line (truncated file?)" ;;
	c-fp.pb|cxx-threads.heap.by-pprof.pb) echo "not a pprof profile" ;;
	cxx-threads.cpu.by-pprof.pb.gz) echo "offset 1688: gzip stream is truncated" ;;
	go-allocs.pb.gz) echo "offset 1297: gzip stream is truncated" ;;
	go-block.pb.gz) echo "offset 295: gzip stream is truncated" ;;
	go-cpu.pb.gz) echo "offset 855: gzip stream is truncated" ;;
	go-goroutine.pb.gz) echo "offset 301: gzip stream is truncated" ;;
	go-heap.pb.gz) echo "offset 976: gzip stream is truncated" ;;
	go-mutex.pb.gz) echo "offset 164: gzip stream is truncated" ;;
	go-burn-1.pb.gz) echo "offset 362: gzip stream is truncated" ;;
	go-burn-2.pb.gz) echo "offset 334: gzip stream is truncated" ;;
	go-burn-3.pb.gz) echo "offset 331: gzip stream is truncated" ;;
	c-fp.otlp.pb) echo "offset 0x1e2: ProfilesData.dictionary (1037 bytes) runs past the end of the file (truncated file?)" ;;
	multi.otlp.pb) echo "offset 0x0: ProfilesData.resource_profiles (10577 bytes) runs past the end of the file (truncated file?)" ;;
	foreign.otlp.json) echo "offset 1397 (\$.dictionary.locationTable\[2\].lines\[1\].line): the input ends inside the document (truncated?)" ;;
	app.heap.gz) echo "offset 145: gzip stream is truncated" ;;
	app.heap.zst) echo "offset 137: zstd stream is truncated" ;;
	app.heap.xz) echo "offset 164: xz stream is truncated" ;;
	app.heap.bz2) echo "offset 182: bzip2 stream is truncated" ;;
	esac
}
for f in $inputs; do
	b=$(basename "$f")
	cut=$(( $(wc -c <"$f") / 2 ))
	head -c "$cut" "$f" >"$tmpdir/$b.half"
	[ "$(tail -c 1 "$tmpdir/$b.half" | od -An -tu1 | tr -d ' ')" = 10 ] &&
		head -c $((cut + 1)) "$f" >"$tmpdir/$b.half"
	want=$(half_expects "$b")
	if [ -z "$want" ]; then
		fail "$b cut in half: no expected message in half_expects"
		continue
	fi
	testrun_fails "$b cut in half, --strict: exit 1, $want" 1 "$b.half: $want" \
		timeout 10 profkit-convert --strict --to=pprof -o "$outdir/out.pb.gz" "$tmpdir/$b.half"
done

# the same inputs through every other writer, to stdout (the list as
# profkit-convert --list-formats gives it, so a new writer is included)
writers=$(profkit-convert --list-formats |
	awk '/^Output formats/ { out = 1; next } out && $1 != "pprof" { print $1 }')
plan_writers=0
for f in $cases; do
	for to in $writers; do
		timeout 10 profkit-convert -q $(from_of "$f") --to=$to "$f" >/dev/null 2>"$tmpdir/err2"
		s=$?
		[ $s -le 1 ] && continue
		plan_writers=$((plan_writers + 1))
		echo "# $(basename "$f") --to=$to: exit $s"
		diag_file "$tmpdir/err2"
	done
done
[ $plan_writers -eq 0 ] && [ -n "$writers" ] &&
	pass "every writer: exit 0 or 1 on every case" ||
	fail "every writer: $plan_writers runs crashed or hung"
finish
