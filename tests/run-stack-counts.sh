#!/bin/sh
# Counted stacks of other tools (issue 26): DTrace, bpftrace, SystemTap
# and pmcstat text, each found without --from and read as FlameGraph's
# collapse script for it reads it (run live), stack for stack and count
# for count. Where the script is wrong, doc/formats.md names the place
# and the sed program here puts the script's output right before the
# comparison. The same stacks through pprof -raw and speedscope; kernel
# frames marked with --kernel (expected outputs checked by hand: the
# frames of kernel stacks, and only those, end in _[k]).
. "${top_srcdir:-.}/tests/test-subr.sh"
. "$top_srcdir/tests/stack-text-subr.sh"
plan 38

# ---- DTrace: stackcollapse.pl ----
d=testdata/dtrace
# line 85 cuts at the last '+' where no offset follows ("libstdc++.so.6`0x7fff..."),
# line 88 at a '<' inside the arguments ("wait(std::__1::unique_lock<...>&)")
like_script "dtrace: as stackcollapse.pl" $d/stacks.txt stackcollapse.pl $d/stacks.txt \
	-e 's/;libstdc+;/;libstdc++.so.6`0x7fff5fbff8a0;/' \
	-e 's/condition_variable::wait(std::__1::unique_lock;/condition_variable::wait;/'
# line 53 skips three lines, whatever they are: without dtrace's header
# they are the first stack's frames. With the header put back, the same.
{ printf 'CPU     ID                    FUNCTION:NAME\n  0  64091                        :tick-60s \n\n'
  cat $d/no-header.txt; } >"$tmpdir/with-header.txt"
like_script "dtrace: no header" $d/no-header.txt stackcollapse.pl "$tmpdir/with-header.txt"
writers_agree "dtrace" $d/stacks.txt
like_file "dtrace: --kernel marks the stack() blocks" $d/stacks.kernel.folded --kernel $d/stacks.txt

# ---- bpftrace: stackcollapse-bpftrace.pl ----
d=testdata/bpftrace
like_script "bpftrace: @[ustack]" $d/ustack.txt stackcollapse-bpftrace.pl $d/ustack.txt
like_script "bpftrace: @[ustack, comm], comms with blanks" $d/threads.txt \
	stackcollapse-bpftrace.pl $d/threads.txt
# line 54 takes an entry only when "@[" is alone on its line: those of
# an empty kstack ("@[, ") are dropped; lines 68-69 keep the ", "
# between two stack keys as a frame. Put right: "@[, " given as "@[",
# the ", " frame taken out.
sed 's/^@\[, $/@[/' $d/kstack-ustack-comm.txt >"$tmpdir/bt.txt"
like_script "bpftrace: @[kstack, ustack, comm]" $d/kstack-ustack-comm.txt \
	stackcollapse-bpftrace.pl "$tmpdir/bt.txt" -e 's/;, ;/;/'
# perf mode: lines 68-69 keep a frame's address and module in its name
# (an address differs in each process); lines 60-62 take ", comm, tid"
# as one frame. Given the script the frames without them and no tid key:
sed -e 's/^@\[, $/@[/' -e 's/^\t[0-9a-f]* \(.*\) (.*)$/\t\1/' \
	-e 's/^\t[0-9a-f]* \(.*\)$/\t\1/' -e 's/, [0-9]*\]: /]: /' \
	$d/perf-mode.txt >"$tmpdir/bt-perf.txt"
like_script "bpftrace: perf mode, a tid key" $d/perf-mode.txt \
	stackcollapse-bpftrace.pl "$tmpdir/bt-perf.txt" -e 's/;, ;/;/'
writers_agree "bpftrace" $d/kstack-ustack-comm.txt
writers_agree "bpftrace perf mode" $d/perf-mode.txt
like_file "bpftrace: --kernel marks kstack's frames" $d/kstack-ustack-comm.kernel.folded \
	--kernel $d/kstack-ustack-comm.txt
like_file "bpftrace: --kernel marks kernel addresses" $d/perf-mode.kernel.folded \
	--kernel $d/perf-mode.txt
# `@[ustack(perf), kstack(perf)]`: the script's order would have the
# kernel call the program; its frames are the leaf's end whatever the keys
printf '@[\n\t55a2f1e1d17a compute+17 (/bin/app)\n\t7f0db5c2624a main+12 (/bin/app)\n, \n\tffffffff81415437 exit_to_user_mode_loop+71\n\tffffffff821ed6db do_syscall_64+571\n]: 7\n' \
	>"$tmpdir/user-first.txt"
printf 'main+12;compute+17;do_syscall_64+571_[k];exit_to_user_mode_loop+71_[k] 7\n' >"$tmpdir/want"
like_file "bpftrace: kernel frames at the leaf's end" "$tmpdir/want" --kernel "$tmpdir/user-first.txt"
# other keys are labels keyN, the first string key the comm
profkit-convert -q --to=pprof -o "$tmpdir/tid.pb.gz" $d/perf-mode.txt
if [ -n "$pprof" ]; then
	"$pprof" -raw -symbolize=none "$tmpdir/tid.pb.gz" >"$tmpdir/tid.raw" 2>&1
	grep -q 'key4:\[[0-9]*\]' "$tmpdir/tid.raw" && grep -q 'comm:\[napper-wait\]' "$tmpdir/tid.raw" &&
		pass "bpftrace: comm a thread, the tid a label key4" ||
		{ fail "bpftrace: comm a thread, the tid a label key4"; diag_file "$tmpdir/tid.raw"; }
else
	skip "bpftrace: comm a thread, the tid a label key4" "no pprof"
fi
# perf mode's address and module, which the script keeps in the name
frame_placed "bpftrace perf mode: address and module kept" $d/perf-mode.txt \
	558a77bf222c wake+23 /work/wt-stack-text/testdata/bin/naps
frame_placed "bpftrace perf mode: kernel frames in the kernel's mapping" $d/perf-mode.txt \
	ffffffff821ed6db do_syscall_64+571 '[kernel.kallsyms]'

# ---- SystemTap: stackcollapse-stap.pl ----
d=testdata/systemtap
# lines 76-77: "ADDRESS [module+0xoff]" (no symbol) leaves "ADDRESS [module"
like_script "systemtap: as stackcollapse-stap.pl" $d/stacks.txt stackcollapse-stap.pl \
	$d/stacks.txt -e 's/;0x00007f3a4b2c1d35 \[\/usr\/lib64\/libc-2.17.so;/;0x00007f3a4b2c1d35;/'
writers_agree "systemtap" $d/stacks.txt
like_file "systemtap: --kernel marks [kernel] and [ext4]" $d/stacks.kernel.folded --kernel $d/stacks.txt

# ---- pmcstat: stackcollapse-pmc.pl ----
d=testdata/pmcstat
# The script sums every PMC's samples, and prints only the tree's
# leaves (lines 65-68): the samples of a chain that ends at an inner node
# are lost. Each event apart: its stacks are ours, all but those.
for event in CPU_CLK_UNHALTED_CORE INST_RETIRED_ANY; do
	awk -v e="$event" '/^@ / { keep = ($2 == e) } keep' $d/callgraph.txt >"$tmpdir/$event.txt"
	profkit-convert -q --event=$event --to=folded $d/callgraph.txt >"$tmpdir/ours"
	if find_reference flamegraph/stackcollapse-pmc.pl; then
		perl "$reference" "$tmpdir/$event.txt" | folded_sum >"$tmpdir/script"
		comm -23 "$tmpdir/script" "$tmpdir/ours" >"$tmpdir/missing"
		[ -s "$tmpdir/script" ] && [ ! -s "$tmpdir/missing" ] &&
			pass "pmcstat $event: the script's stacks are ours" ||
			{ fail "pmcstat $event: the script's stacks are ours"; diag_file "$tmpdir/missing"; }
	else
		skip "pmcstat $event: the script's stacks are ours" "$reference_missing"
	fi
done
like_file "pmcstat: the first PMC, inner nodes' own samples too" $d/callgraph.folded $d/callgraph.txt
like_file "pmcstat: --event chooses the PMC" $d/callgraph.INST_RETIRED_ANY.folded \
	--event=INST_RETIRED_ANY $d/callgraph.txt
writers_agree "pmcstat" $d/callgraph.txt --event=CPU_CLK_UNHALTED_CORE
like_file "pmcstat: --kernel marks /boot/kernel/'s" $d/callgraph.kernel.folded --kernel $d/callgraph.txt

# ---- every one found without --from, none for another's ----
for f in testdata/dtrace/stacks.txt testdata/bpftrace/ustack.txt \
	testdata/systemtap/stacks.txt testdata/pmcstat/callgraph.txt; do
	want=${f#testdata/}
	want=${want%%/*}
	got=$(profkit-info "$f" 2>/dev/null | sed -n '1s/^.*: \(.*\) profile$/\1/p')
	[ "$got" = "$want" ] && pass "$f is read as $want" || fail "$f is read as $want (got '$got')"
done

# ---- broken inputs: exit 1, where and what, nothing written ----
bad_inputs_fail "line [0-9]*: count too large" testdata/bad/*/count-too-large
finish
