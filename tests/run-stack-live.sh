#!/bin/sh
# Stack text recorded here and now (issue 26), where the producer runs:
# eu-stack, gdb and bpftrace on testdata/src/naps.c built for the test,
# jstack on testdata/src/Stacks.java, and the exceptions Stacks prints.
# Each recording read with no --from equals its collapse script's
# reading (run live, its faults put right as in run-stack-counts.sh and
# run-stack-dumps.sh), holds the program's own functions, and shows the
# same stacks through pprof -raw and speedscope. ./bootstrap installs
# the producers (bpftrace, elfutils, gdb, a JDK); a missing one is a skip
# that PROFKIT_REQUIRE_TOOLS=1 makes a failure.
. "${top_srcdir:-.}/tests/test-subr.sh"
. "$top_srcdir/tests/stack-text-subr.sh"
plan 20

pids=
trap 'for p in $pids; do kill "$p" 2>/dev/null; done' EXIT

# recorded NAME FILE WORD: the recording holds a stack with WORD (the
# program's own function), as we read it; else why not
recorded() {
	if profkit-convert -q --to=folded "$2" 2>"$tmpdir/err" | grep -q -F "$3"; then
		pass "$1: recorded, $3 among its frames"
	else
		fail "$1: recorded, $3 among its frames"
		diag_file "$2"
		diag_file "$tmpdir/err"
	fi
}

# ---- C: naps, a thread that computes and naps, one that waits ----
naps=$tmpdir/naps
if ${CC:-cc} -O1 -g -fno-omit-frame-pointer -pthread -o "$naps" \
	"$top_srcdir/testdata/src/naps.c" 2>"$tmpdir/cc.err"; then
	"$naps" 3000 10000 2000000 &
	naps_pid=$!
	pids="$pids $naps_pid"
	sleep 0.2
else
	naps_pid=
	diag_file "$tmpdir/cc.err"
fi

# the_tool NAME TOOL: whether TOOL is here to record with, and naps runs
the_tool() {
	if [ -z "$naps_pid" ]; then
		for t in 1 2 3 4; do skip "$1" "naps did not build (${CC:-cc})"; done
		return 1
	fi
	if ! command -v "$2" >/dev/null 2>&1; then
		for t in 1 2 3 4; do skip "$1" "no $2 (./bootstrap installs it)"; done
		return 1
	fi
}

if the_tool eu-stack eu-stack; then
	for i in 1 2 3 4 5 6; do
		eu-stack -p "$naps_pid" 2>/dev/null
		sleep 0.03
	done >"$tmpdir/eu-stack.txt"
	recorded "eu-stack" "$tmpdir/eu-stack.txt" main
	like_script "eu-stack: live, as stackcollapse-elfutils.pl" "$tmpdir/eu-stack.txt" \
		stackcollapse-elfutils.pl "$tmpdir/eu-stack.txt"
	writers_agree "eu-stack live" "$tmpdir/eu-stack.txt"
fi

if the_tool gdb gdb; then
	for i in 1 2 3; do
		gdb -ex "set pagination 0" -ex "thread apply all bt" -batch -p "$naps_pid" 2>/dev/null
	done >"$tmpdir/gdb.txt"
	recorded "gdb" "$tmpdir/gdb.txt" napper-wait
	# the script drops thread names (doc/formats.md)
	like_script "gdb: live, as stackcollapse-gdb.pl" "--no-comm $tmpdir/gdb.txt" \
		stackcollapse-gdb.pl "$tmpdir/gdb.txt"
	writers_agree "gdb live" "$tmpdir/gdb.txt"
fi

# bpftrace needs root for its probes
if [ -n "$naps_pid" ] && command -v bpftrace >/dev/null 2>&1 && [ "$(id -u)" != 0 ]; then
	for t in 1 2 3 4; do skip "bpftrace" "not root: bpftrace cannot attach its probes"; done
elif the_tool bpftrace bpftrace; then
	# a second try where the first saw naps on no CPU (a busy machine)
	for try in 1 2; do
		bpftrace -e "profile:hz:499 /pid == $naps_pid/ { @[kstack, ustack, comm] = count(); }
			interval:s:1 { exit(); }" >"$tmpdir/bpftrace.txt" 2>"$tmpdir/bpftrace.err"
		grep -q '^@\[' "$tmpdir/bpftrace.txt" && break
	done
	recorded "bpftrace" "$tmpdir/bpftrace.txt" compute
	# the entries of an empty kstack, and the ", " between two stacks
	sed 's/^@\[, $/@[/' "$tmpdir/bpftrace.txt" >"$tmpdir/bt-script.txt"
	like_script "bpftrace: live, as stackcollapse-bpftrace.pl" "$tmpdir/bpftrace.txt" \
		stackcollapse-bpftrace.pl "$tmpdir/bt-script.txt" -e 's/;, ;/;/'
	writers_agree "bpftrace live" "$tmpdir/bpftrace.txt"
fi

[ -n "$naps_pid" ] && kill "$naps_pid" 2>/dev/null

# ---- Java: Stacks, dumped by jstack; then its exceptions ----
if ! command -v javac >/dev/null 2>&1 || ! command -v jstack >/dev/null 2>&1; then
	for t in 1 2 3 4 5 6 7 8; do skip "jstack" "no JDK (./bootstrap installs openjdk-17-jdk-headless)"; done
elif ! javac -d "$tmpdir" "$top_srcdir/testdata/src/Stacks.java" 2>"$tmpdir/javac.err"; then
	for t in 1 2 3 4 5 6 7 8; do fail "jstack: javac Stacks.java"; done
	diag_file "$tmpdir/javac.err"
else
	java -cp "$tmpdir" Stacks 4000 >/dev/null 2>"$tmpdir/exceptions.txt" &
	java_pid=$!
	pids="$pids $java_pid"
	sleep 1
	for i in 1 2 3; do
		jstack "$java_pid" 2>/dev/null
		sleep 0.1
	done >"$tmpdir/jstack.txt"
	recorded "jstack" "$tmpdir/jstack.txt" Stacks.mix
	like_script "jstack: live, as stackcollapse-jstack.pl" "$tmpdir/jstack.txt" \
		stackcollapse-jstack.pl "$tmpdir/jstack.txt"
	writers_agree "jstack live" "$tmpdir/jstack.txt"
	wait "$java_pid"
	recorded "java-exceptions" "$tmpdir/exceptions.txt" Stacks.main
	like_script "java-exceptions: live, as the script" "$tmpdir/exceptions.txt" \
		stackcollapse-java-exceptions.pl "$tmpdir/exceptions.txt"
	writers_agree "java-exceptions live" "$tmpdir/exceptions.txt"
fi
finish
