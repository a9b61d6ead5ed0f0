#!/bin/sh
# Stack dumps, repeated (issue 26): eu-stack, gdb and jstack samples of a
# poor man's profiler, and Java exception stacks in a log, each found
# without --from and read as FlameGraph's collapse script for it reads
# it (run live), stack for stack and count for count. Where the script is
# wrong, doc/formats.md names the place and the test says how the
# outputs were made comparable. The same stacks through pprof -raw and
# speedscope; broken inputs fail cleanly.
. "${top_srcdir:-.}/tests/test-subr.sh"
. "$top_srcdir/tests/stack-text-subr.sh"
plan 36

# ---- eu-stack: stackcollapse-elfutils.pl ----
d=testdata/eu-stack
like_script "eu-stack: as stackcollapse-elfutils.pl" $d/naps.txt stackcollapse-elfutils.pl $d/naps.txt
# -a: line 80 keeps the activation mark ("- 1 " of a caller, four blanks
# of the sampled frame) in the name, so a function has two names
like_script "eu-stack -a -m: activation marks are no names" $d/naps-a-m.txt \
	stackcollapse-elfutils.pl $d/naps-a-m.txt -e 's/\(^\|;\)- 1 /\1/g' -e 's/\(^\|;\)    /\1/g'
writers_agree "eu-stack" $d/naps.txt
# samples printed again (eu-stack.c adds them whole), one its last thread
# deeper: the script's stacks, each of its thread
like_script "eu-stack: samples again, one deeper" $d/repeats.txt \
	stackcollapse-elfutils.pl $d/repeats.txt
printf -- '-7/7;main;nap 5\n-7/8;wait_for 4\n-7/8;waiter;wait_for 1\n-9/9;nap 1\n' >"$tmpdir/want"
like_file "eu-stack: samples again, each of its thread" "$tmpdir/want" --tid $d/repeats.txt
# -m's module beside the name (as the script names the frame)
frame_placed "eu-stack -m: address and module kept" $d/naps-a-m.txt \
	5637ff93b1e9 nap /work/wt-stack-text/testdata/bin/naps

# ---- gdb: stackcollapse-gdb.pl ----
d=testdata/gdb
# lines 45-46 drop the thread's name; ours is the root, as for every
# input that names threads: --no-comm gives the script's stacks
like_script "gdb: as stackcollapse-gdb.pl, but for the thread" "--no-comm $d/naps.txt" \
	stackcollapse-gdb.pl $d/naps.txt
like_file "gdb: the thread's name is the root" $d/naps.folded $d/naps.txt
like_file "gdb: a thread without a name after a named one" \
	$d/unnamed-after-named.folded $d/unnamed-after-named.txt
# line 48 keeps a name up to its first blank: the script's names are
# ours cut there ("run_tasks(std::vector<std::function<long")
if find_reference flamegraph/stackcollapse-gdb.pl; then
	perl "$reference" $d/cxx-threads.txt | folded_sum >"$tmpdir/script"
	profkit-convert -q --no-comm --to=folded $d/cxx-threads.txt |
		awk '{ n = $NF; sub(/ [^ ]*$/, ""); k = split($0, f, ";"); s = ""
			for (i = 1; i <= k; i++) { sub(/ .*/, "", f[i]); s = s (i > 1 ? ";" : "") f[i] }
			print s, n }' | folded_sum >"$tmpdir/cut"
	same_output "gdb: C++ names whole, the script's cut at a blank" "$tmpdir/script" "$tmpdir/cut"
else
	skip "gdb: C++ names whole, the script's cut at a blank" "$reference_missing"
fi
writers_agree "gdb" $d/naps.txt
writers_agree "gdb C++" $d/cxx-threads.txt
# line 48 wants four words after "#N": of "<signal handler called>" the
# script's first word is the empty one before its blank, an empty frame
printf 'Thread 1 (Thread 0x7f (LWP 12) "app"):\n#0  handler (sig=10) at app.c:5\n#1  <signal handler called>\n#2  0x0000000000401136 in work () at app.c:9\n#3  0x0000000000401150 in main () at app.c:14\n\n' \
	>"$tmpdir/signal.txt"
printf 'app;main;work;<signal handler called>;handler 1\n' >"$tmpdir/want"
like_file "gdb: <signal handler called> is a frame" "$tmpdir/want" "$tmpdir/signal.txt"
printf 'main;work;;handler 1\n' >"$tmpdir/want"
script_gives "gdb: the script names it ''" stackcollapse-gdb.pl "$tmpdir/signal.txt" "$tmpdir/want"
# a thread line is parsed once (gdb.c), first compared with the one
# that came after the line before it: threads in another order, one
# named anew under its LWP, one whose LWP is no number
for t in '2 12 a' '1 11 b' '1 11 b' '2 12 a' '2 12 c' '1 11 b' '3 123456789012345678901 d'; do
	set -- $t
	printf 'Thread %s (Thread 0x7f0%s (LWP %s) "%s"):\n#0  f%s () at f.c:1\n\n' \
		"$1" "$1" "$2" "$3" "$1"
done >"$tmpdir/order.txt"
printf 'a-?/12;f2 2\nb-?/11;f1 3\nc-?/12;f2 1\nd-?/0;f3 1\n' >"$tmpdir/want"
like_file "gdb: threads in another order, one renamed" "$tmpdir/want" --tid "$tmpdir/order.txt"

# ---- jstack: stackcollapse-jstack.pl ----
d=testdata/jstack
like_script "jstack: as stackcollapse-jstack.pl" $d/stacks.txt stackcollapse-jstack.pl $d/stacks.txt
writers_agree "jstack" $d/stacks.txt
# the last thread of a text that ends without a blank line (line 108
# takes a thread at its blank line)
printf '"main" #1 prio=5 os_prio=0 tid=0x1 nid=0x2a runnable  [0x3]\n   java.lang.Thread.State: RUNNABLE\n\tat App.work(App.java:3)\n\tat App.main(App.java:9)\n' \
	>"$tmpdir/cut.jstack"
printf 'main;App.main;App.work 1\n' >"$tmpdir/want"
like_file "jstack: the last thread without a blank line after it" "$tmpdir/want" "$tmpdir/cut.jstack"
: >"$tmpdir/want"
script_gives "jstack: the script loses it" stackcollapse-jstack.pl "$tmpdir/cut.jstack" "$tmpdir/want"
# a stack met first in a thread not running is skipped whole the next
# time, and counted where its thread runs; a waiting method's stack is
# dropped each time, whatever the state line says
jstack_thread() {	# NAME NID STATE FRAMES
	printf '"%s" #1 prio=5 os_prio=0 tid=0x1 nid=%s runnable  [0x3]\n   java.lang.Thread.State: %s\n%b\n' "$@"
}
park='\tat App.park(App.java:3)\n\t- parking to wait for  <0x5> (a App$Lock)\n\tat App.run(App.java:9)\n'
poll='\tat sun.nio.ch.EPoll.wait(Native Method)\n\tat App.run(App.java:9)\n'
for state in WAITING RUNNABLE; do
	jstack_thread pool-1-thread-1 0x10 "$state" "$park"
	jstack_thread poller 0x12 "$state" "$poll"
	jstack_thread poller 0x12 RUNNABLE "$poll"
	jstack_thread pool-1-thread-2 0x11 RUNNABLE "$park"
done >"$tmpdir/dropped.jstack"
printf 'pool-1-thread;App.run;App.park 3\n' >"$tmpdir/want"
like_file "jstack: a stack not running, then running" "$tmpdir/want" --threads=1 "$tmpdir/dropped.jstack"
script_gives "jstack: the script's the same" stackcollapse-jstack.pl "$tmpdir/dropped.jstack" "$tmpdir/want"
# a thread's label set is kept by its ids and name (stack.c's threads
# seen lately): one nid under two names, one name under two nids
run='\tat App.run(App.java:9)\n'
for i in 1 2; do
	jstack_thread a 0x10 RUNNABLE "$run"
	jstack_thread b 0x10 RUNNABLE "$run"
	jstack_thread a-1 0x11 RUNNABLE "$run"
	jstack_thread a-2 0x11 RUNNABLE "$run"
done >"$tmpdir/threads.jstack"
printf 'a-?/16;App.run 2\na-?/17;App.run 4\nb-?/16;App.run 2\n' >"$tmpdir/want"
like_file "jstack: a thread's labels are its name's and nid's" "$tmpdir/want" --tid "$tmpdir/threads.jstack"

# more threads than stack.c keeps (64), then a tid of them in another
# process: each sample of its own thread
for i in 1 2 3; do
	echo "PID 7 - process"
	for tid in $(seq 1 70); do
		printf 'TID %d:\n#0  0x0000000000001000 f\n' "$tid"
	done
	printf 'PID 8 - process\nTID 7:\n#0  0x0000000000001000 f\n'
done >"$tmpdir/threads.eu-stack"
for tid in $(seq 1 70); do
	printf -- '-7/%d;f 3\n' "$tid"
done >"$tmpdir/want"
printf -- '-8/7;f 3\n' >>"$tmpdir/want"
LC_ALL=C sort -o "$tmpdir/want" "$tmpdir/want"
like_file "eu-stack: 71 threads, each its own labels" "$tmpdir/want" --tid "$tmpdir/threads.eu-stack"

# ---- Java exceptions: stackcollapse-java-exceptions.pl ----
d=testdata/java-exceptions
like_script "java-exceptions: as the script, a program's" $d/stacks.txt \
	stackcollapse-java-exceptions.pl $d/stacks.txt
like_script "java-exceptions: as the script, a log" $d/log.txt \
	stackcollapse-java-exceptions.pl $d/log.txt
writers_agree "java-exceptions" $d/log.txt
# entries logged again (java-exceptions.c adds them whole): the same,
# one that goes on past the same text, one at the text's end
like_script "java-exceptions: entries again, one longer" $d/repeats.txt \
	stackcollapse-java-exceptions.pl $d/repeats.txt

# ---- broken inputs: exit 1, where and what, nothing written ----
bad_inputs_fail "no .* stacks found" testdata/bad/*/no-frames testdata/bad/jstack/no-running-thread
finish
