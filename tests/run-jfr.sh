#!/bin/sh
# Java Flight Recorder input: for every event profkit reads, the folded
# stacks of testdata/jfr/ recordings, counted and weighed, equal those
# that jfr print --json gives of them (tests/jfr-to-folded.py makes them
# folded: stored in X.expected, and made again where jfr is installed);
# the same of a recording made here of testdata/src/JfrShape.java with
# JDK 17, in several chunks, where java is; chunks summed, the default
# event, async-profiler's frame marks, labels, facts and options.
. "${top_srcdir:-.}/tests/test-subr.sh"

d=testdata/jfr
events=jdk.ExecutionSample,jdk.NativeMethodSample,jdk.ObjectAllocationSample,jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB,jdk.JavaMonitorEnter,jdk.ThreadPark
# EVENT:VALUE: each event counted, and weighed by each of its weights
specs="jdk.ExecutionSample: jdk.NativeMethodSample: jdk.ObjectAllocationSample:
	jdk.ObjectAllocationSample:weight jdk.ObjectAllocationInNewTLAB:
	jdk.ObjectAllocationInNewTLAB:allocationSize jdk.ObjectAllocationInNewTLAB:tlabSize
	jdk.ObjectAllocationOutsideTLAB: jdk.ObjectAllocationOutsideTLAB:allocationSize
	jdk.JavaMonitorEnter: jdk.JavaMonitorEnter:duration jdk.ThreadPark:
	jdk.ThreadPark:duration"

# ours FILE EVENT VALUE: profkit's folded stacks of one event
ours() {
	if [ -z "$3" ]; then
		profkit-convert -q --event="$2" --value=samples --to=folded "$1"
	else
		profkit-convert -q --event="$2" --sample-type="$3" --to=folded "$1"
	fi
}

# blocks FILE: ours of every spec, in blocks "== EVENT VALUE" (an event
# the file lacks gives an empty block, as from jfr print)
blocks() {
	for spec in $specs; do
		e=${spec%%:*} v=${spec#*:}
		echo "== $e ${v:-samples}"
		ours "$1" "$e" "$v" 2>/dev/null
	done
}

# theirs FILE: the same blocks from jfr print --json of FILE
theirs() {
	jfr print --json --stack-depth 4096 --events "$events" "$1" |
		python3 tests/jfr-to-folded.py --blocks $specs
}

# sum_blocks: blocks of several files as one, each stack's values summed,
# sorted bytewise as jfr-to-folded.py sorts them
sum_blocks() {
	python3 -c '
import sys
blocks = {}
for line in sys.stdin.buffer:
    line = line.rstrip(b"\n")
    if line.startswith(b"== "):
        block = blocks.setdefault(line, {})
        continue
    stack, _, value = line.rpartition(b" ")
    block[stack] = block.get(stack, 0) + int(value)
for header, block in blocks.items():
    sys.stdout.buffer.write(header + b"\n")
    for stack in sorted(block):
        sys.stdout.buffer.write(b"%s %d\n" % (stack, block[stack]))
'
}

# block HEADER FILE: the lines of one block
block() {
	awk -v h="$1" '$0 == h { on = 1; next } /^== / { on = 0 } on' "$2"
}

# compare_blocks NAME EXPECTED OURS: one result per block
compare_blocks() {
	for spec in $specs; do
		e=${spec%%:*} v=${spec#*:}
		h="== $e ${v:-samples}"
		block "$h" "$2" >"$tmpdir/want"
		block "$h" "$3" >"$tmpdir/got"
		if cmp -s "$tmpdir/want" "$tmpdir/got"; then
			pass "$1: $e ${v:-samples} ($(wc -l <"$tmpdir/want") stacks)"
		else
			fail "$1: $e ${v:-samples}"
			diff "$tmpdir/want" "$tmpdir/got" | diag_file /dev/stdin
		fi
	done
}

have_jfr=yes
command -v jfr >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || have_jfr=no
have_java=yes
command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 &&
	command -v jcmd >/dev/null 2>&1 && [ $have_jfr = yes ] || have_java=no
nspecs=$(echo $specs | wc -w)
plan $((3 * nspecs + 25))

# --- the stored recordings against what jfr printed of them ---
for f in shape async; do
	blocks "$d/$f.jfr" >"$tmpdir/$f.ours"
	compare_blocks "$f.jfr" "$d/$f.expected" "$tmpdir/$f.ours"
done
# and against jfr print here and now
for f in shape async; do
	if [ $have_jfr = yes ]; then
		theirs "$d/$f.jfr" >"$tmpdir/$f.theirs"
		same_output "$f.jfr: every event as jfr print --json gives it, here" \
			"$tmpdir/$f.theirs" "$tmpdir/$f.ours"
	else
		skip "$f.jfr: every event as jfr print --json gives it" "no jfr and python3"
	fi
done
# async-profiler's frame marks (jfr2flame's FRAME_SUFFIX) of the types
# jfr print shows: --jit marks the Java ones, --all kernel frames too
for m in jit all; do
	testrun_compare "async.jfr --$m: frames marked as async-profiler marks them" \
		"$d/async.$m.folded" profkit-convert -q --$m --value=samples \
		--event=jdk.ExecutionSample --to=folded "$d/async.jfr"
done

# --- recorded here: JDK 17, settings=profile with the TLAB events on, in
# several chunks (1 MB each at most, and a JFR.dump on the way starts a
# new one). The program runs until stopped, so that a loaded machine,
# where the JVM and jcmd start late, still dumps it while it runs ---
if [ $have_java = yes ]; then
	mkdir "$tmpdir/java"
	javac -d "$tmpdir/java" testdata/src/JfrShape.java
	(cd "$tmpdir/java" && exec java -XX:FlightRecorderOptions:maxchunksize=1M \
		"-XX:StartFlightRecording=name=live,filename=live.jfr,settings=profile,settings=$top_srcdir/testdata/src/jfr-shape.jfc" \
		JfrShape 600000 >java.out 2>&1) &
	java_pid=$!
	tries=0
	sleep 1
	# jcmd exits 0 also when the dump failed (the recording not started
	# yet, on a loaded machine): the dump's file says whether it was made
	until { jcmd $java_pid JFR.dump name=live filename="$tmpdir/java/dump.jfr" \
		>"$tmpdir/java/jcmd.out" 2>&1 && [ -s "$tmpdir/java/dump.jfr" ]; } ||
		[ $tries -ge 120 ]; do
		tries=$((tries + 1))
		sleep 0.5
	done
	# some work in the chunk the dump started, then the JVM's exit (a
	# SIGTERM runs its shutdown hooks) writes the recording to live.jfr
	sleep 2
	kill -TERM $java_pid
	wait $java_pid
	live=$tmpdir/java/live.jfr
	chunks=$(profkit-info "$live" 2>/dev/null | sed -n 's/^  jfr-chunks: //p')
	blocks "$live" >"$tmpdir/live.ours"
	# jfr print of each chunk alone, summed: a stack trace a chunk's own
	# pool lacks (an event flushed just after a rotation, on a loaded
	# machine) is null there, as profkit reads it; jfr print of the whole
	# file sometimes finds it in the chunk before (doc/formats.md)
	mkdir "$tmpdir/chunks"
	jfr disassemble --output "$tmpdir/chunks" --max-chunks 1 "$live" >/dev/null
	for chunk in "$tmpdir"/chunks/*.jfr; do
		theirs "$chunk"
	done | sum_blocks >"$tmpdir/live.theirs"
	compare_blocks "recorded here (${chunks:-no} chunks)" "$tmpdir/live.theirs" "$tmpdir/live.ours"
	[ "${chunks:-0}" -ge 2 ] && pass "the recording made here has $chunks chunks" ||
		{ fail "the recording made here has ${chunks:-no} chunks, not several"
		  # no JFR.dump: why jcmd failed, or the JVM ended
		  diag_file "$tmpdir/java/jcmd.out"; diag_file "$tmpdir/java/java.out"; }
	blocks "$tmpdir/java/dump.jfr" >"$tmpdir/dump.ours"
	theirs "$tmpdir/java/dump.jfr" >"$tmpdir/dump.theirs"
	same_output "JFR.dump of it while running: every event as jfr print gives it" \
		"$tmpdir/dump.theirs" "$tmpdir/dump.ours"
else
	for spec in $specs; do
		skip "recorded here: $spec" "no java, javac, jcmd, jfr and python3 (openjdk-17-jdk-headless)"
	done
	skip "the recording made here has several chunks" "no java"
	skip "JFR.dump of it while running" "no java"
fi

# --- chunks: a file of several is the sum of its chunks ---
cat "$d/shape.jfr" "$d/async.jfr" "$d/shape.jfr" >"$tmpdir/three.jfr"
for f in shape async shape; do
	profkit-convert -q --value=samples --event=jdk.ExecutionSample --to=folded "$d/$f.jfr"
done | awk '{ n = $NF; sub(/ [0-9]+$/, ""); sum[$0] += n } END { for (s in sum) print s, sum[s] }' |
	LC_ALL=C sort >"$tmpdir/sum"
testrun_compare "four chunks of three files: the sum of the files" "$tmpdir/sum" \
	profkit-convert -q --value=samples --event=jdk.ExecutionSample --to=folded "$tmpdir/three.jfr"
gzip -c "$tmpdir/three.jfr" >"$tmpdir/three.jfr.gz"
profkit-convert -q --to=folded "$tmpdir/three.jfr" >"$tmpdir/three.folded"
testrun_compare "the same gzipped (read a chunk at a time)" "$tmpdir/three.folded" \
	profkit-convert -q --to=folded "$tmpdir/three.jfr.gz"
testrun_compare "the same from a pipe" "$tmpdir/three.folded" \
	sh -c 'cat "$1" | profkit-convert -q --to=folded' sh "$tmpdir/three.jfr"

# --- what is read, and how it is named ---
ours "$d/shape.jfr" jdk.ExecutionSample cpu >"$tmpdir/cpu"
testrun_compare "no --event: the CPU samples, weighed in ns" "$tmpdir/cpu" \
	profkit-convert -q --to=folded "$d/shape.jfr"
block "== jdk.ExecutionSample samples" "$d/shape.expected" |
	awk '{ $NF = $NF * 10000000 } 1' >"$tmpdir/want"
same_output "cpu: 10 ms a sample (the recording's period setting)" "$tmpdir/want" "$tmpdir/cpu"
printf 'a;Clock.tick 200000000\nb;Clock.tick 200000000\n' >"$tmpdir/want"
testrun_compare "a period observed: the median time between two samples of a thread" \
	"$tmpdir/want" profkit-convert -q --to=folded "$d/observed.jfr"
testrun_status "--event of an event the recording lacks: exit 2, its events listed" 2 \
	"no jdk.ThreadSleep events in the recording; its events: jdk.ActiveSetting 337, jdk.ExecutionSample 73, .*jdk.ThreadPark 46 (and 1 events of 1 types without stack traces)" \
	profkit-convert --event=jdk.ThreadSleep --to=folded "$d/shape.jfr"
profkit-info "$d/shape.jfr" >"$tmpdir/info" 2>/dev/null
for fact in "jfr-version: 2.1" "jfr-chunks: 1" "recording-start: 2026-11-28T03:44:" \
	"pid: [0-9][0-9]*" "jdk.ExecutionSample-period: 10000000 ns (the recording's setting)" \
	"event jdk.ObjectAllocationInNewTLAB: 1186 samples" "java-arguments: JfrShape 2000"; do
	grep -q "^  $fact" "$tmpdir/info" && pass "profkit-info: $fact" ||
		{ fail "profkit-info: $fact"; diag_file "$tmpdir/info"; }
done
# the thread's labels: comm the root, tid its OS thread id (--tid)
tid=$(jfr print --json --events jdk.ExecutionSample "$d/shape.jfr" 2>/dev/null |
	python3 -c 'import json, sys
for e in json.load(sys.stdin)["recording"]["events"]:
    t = e["values"]["sampledThread"]
    if t["javaName"] == "compute": print(t["osThreadId"]); break' 2>/dev/null)
pid=$(sed -n 's/^  pid: //p' "$tmpdir/info")
if [ -n "$tid" ]; then
	profkit-convert -q --tid --to=folded "$d/shape.jfr" >"$tmpdir/tid"
	grep -q "^compute-$pid/$tid;" "$tmpdir/tid" && pass "--tid: compute-PID/TID, the JVM's pid and the OS thread id" ||
		{ fail "--tid: compute-$pid/$tid"; diag_file "$tmpdir/tid"; }
else
	skip "--tid: compute-PID/TID" "no jfr and python3"
fi
profkit-convert -q --to=pprof -o "$tmpdir/shape.pb.gz" "$d/shape.jfr"
testrun_compare "pprof output read back: the same stacks" "$tmpdir/cpu" \
	profkit-convert -q --sample-type=cpu --to=folded "$tmpdir/shape.pb.gz"
profkit-convert -q --jfr-signatures --to=speedscope "$d/shape.jfr" >"$tmpdir/sig.json"
grep -q '"name": *"JfrShape.mix(J)J"' "$tmpdir/sig.json" &&
	pass "--jfr-signatures: JfrShape.mix(J)J" ||
	{ fail "--jfr-signatures: JfrShape.mix(J)J"; grep -o '"name": *"[^"]*mix[^"]*"' "$tmpdir/sig.json" | diag_file /dev/stdin; }
printf '    Inlined (symbolized)\n    Interpreted (symbolized)\n    JIT compiled (symbolized)\n    Native (symbolized)\n  mappings: 4\n' >"$tmpdir/want"
testrun_compare "frames typed the JVM's way: a mapping each (profkit-info)" "$tmpdir/want" \
	sh -c 'profkit-info "$1" 2>/dev/null | sed -n "/^  mappings:/,/^  [a-z]/p" | sed "\$d" | sort' sh "$d/shape.jfr"
echo "odd 1" >"$tmpdir/want"
testrun_compare "types described otherwise: what is not as the JVM has it left out" \
	"$tmpdir/want" profkit-convert -q --value=samples --to=folded "$d/odd-types.jfr"
finish
