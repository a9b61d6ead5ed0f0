#!/bin/sh
# Off-CPU and wall-clock time (issue 16) against known blocking.
# testdata/src/blocking.c sleeps 25 x 20 ms in sleep_often(), waits
# 10 x 30 ms on a futex in wait_on_cond() and spins in spin(), one thread
# each, and printed what each thread measured itself: the time it blocked
# and the time it lived (blocking*.measured.txt). blocking.perf.data is a
# per-task recording with switch events and dwarf stacks; blocking-a a
# system-wide one, of which perf sched timehist printed each switch with
# the wait before it (blocking-a.timehist.txt). Off-CPU time per function
# must be within 5% of what the program blocked there, the spinner's near
# zero, wall time per thread within 5% of its lifetime, and per thread the
# system-wide recording's off-CPU time must agree with perf sched timehist.
# perf record --off-cpu (BPF) cannot record here: its two layouts are
# written below from perf's source (tools/perf/util/bpf_off_cpu.c).
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 25
d=testdata/perf-data
root=$tmpdir/root
mkdir -p "$root/tmp/offcpu-rec" "$tmpdir/home"
ln -s "$(pwd)/testdata/bin/blocking" "$root/tmp/offcpu-rec/blocking"
HOME=$tmpdir/home
export HOME

folded() {
	profkit-convert -q --symfs="$root" --kallsyms=$d/blocking.kallsyms \
		--to=folded "$@"
}
# measured FILE THREAD WHAT: what the program printed, in ms
measured() {
	awk -v t="$2" -v w="$3" '$1 == t { for (i = 2; i < NF; i++)
		if ($i == w) print $(i + 1) }' "$1"
}
# check NAME GOT WANT PERCENT: GOT within PERCENT% of WANT
check() {
	if awk -v a="$2" -v b="$3" -v p="$4" 'BEGIN { d = a - b
		exit !(b > 0 && (d < 0 ? -d : d) <= p / 100 * b) }'; then
		pass "$1"
	else
		fail "$1: $2 ms, want $3 ms within $4%"
	fi
}
# ms_of PATTERN: the folded input's total (ns) of stacks matching, in ms
ms_of() { awk -v re="$1" '$0 ~ re { s += $NF } END { printf "%.3f\n", s / 1e6 }'; }

m=$d/blocking.measured.txt
folded --event=off-cpu $d/blocking.perf.data >"$tmpdir/off"
check "off-CPU time in sleep_often() is the time it slept" \
	"$(ms_of ';sleep_often;' <"$tmpdir/off")" "$(measured $m sleeper blocked)" 5
check "off-CPU time in wait_on_cond() is the time it waited" \
	"$(ms_of ';wait_on_cond;' <"$tmpdir/off")" "$(measured $m waiter blocked)" 5
# the spinner never blocks in spin() (it is preempted there at most)
spun=$(ms_of ';spin;' <"$tmpdir/off")
if awk -v s="$spun" -v l="$(measured $m spinner lived)" 'BEGIN { exit !(s <= l / 100) }' &&
	! grep ';spin;' "$tmpdir/off" | grep -q -v ';irqentry_exit_to_user_mode;'; then
	pass "the spinner: near no off-CPU time in spin(), all of it preempted"
else
	fail "the spinner: $spun ms off CPU in spin()"
	diag_file "$tmpdir/off"
fi

folded --event=wall $d/blocking.perf.data >"$tmpdir/wall"
for t in sleeper waiter spinner; do
	check "wall time of the $t thread is its lifetime" \
		"$(ms_of "^$t;" <"$tmpdir/wall")" "$(measured $m $t lived)" 5
done
# wall = on CPU + off CPU, stack by stack
folded --event=cpu-clock/freq=100/ $d/blocking.perf.data >"$tmpdir/on"
sort "$tmpdir/on" "$tmpdir/off" | awk '{ v = $NF; $NF = ""; s[$0] += v }
	END { for (k in s) print k s[k] }' | sort >"$tmpdir/sum"
sort "$tmpdir/wall" >"$tmpdir/wall.sorted"
same_output "wall time is the clock's time plus the off-CPU time, stack by stack" \
	"$tmpdir/sum" "$tmpdir/wall.sorted"

# the system-wide recording: per thread of the program, the waits perf
# sched timehist printed (a thread's first switch-in has none)
pid=$(sed -n 's/.* blocking\[\([0-9]*\)\] .*/\1/p' $d/blocking-a.timehist.txt | head -n 1)
awk -v pid="$pid" 'NR > 3 && match($3, /\[[0-9]+(\/[0-9]+)?\]$/) {
	split(substr($3, RSTART + 1, RLENGTH - 2), id, "/")
	if (id[1] == pid || id[2] == pid) printf "%s %s %s %s\n", id[1], $1, $4, $6
}' $d/blocking-a.timehist.txt >"$tmpdir/timehist"
profkit-convert --no-symbolize --event=off-cpu --to=perf-script \
	$d/blocking-a.perf.data >"$tmpdir/blocks.txt"
awk '$NF == "off-cpu:" { printf "%s %.6f %s\n", $(NF - 3), $(NF - 2), $(NF - 1) }' \
	"$tmpdir/blocks.txt" >"$tmpdir/blocks"
for t in blocking sleeper waiter spinner; do
	tid=$(sed -n "s/.* $t\[\([0-9]*\)[]\/].*/\1/p" $d/blocking-a.timehist.txt | head -n 1)
	check "system-wide: $t's off-CPU time is what perf sched timehist counts" \
		"$(awk -v t="$tid" '$1 == t { s += $3 } END { printf "%.3f\n", s / 1e6 }' "$tmpdir/blocks")" \
		"$(awk -v t="$tid" '$1 == t { s += $3 } END { printf "%.3f\n", s }' "$tmpdir/timehist")" 5
done
# block by block: where timehist prints a wait W before a run R that ends
# at T, the thread was switched in at T - R after W off the CPU
awk 'FNR == NR { end = sprintf("%.0f", $2 * 1e6 + $3 / 1e3)
		  b[$1, end] = $3 / 1e3; next }
     $3 != "0.000" { end = sprintf("%.0f", $2 * 1e6 - $4 * 1e3); hit = 0
		  for (e = end - 20; e <= end + 20 && !hit; e++)
			if (($1, e) in b && (b[$1, e] - $3 * 1e3)^2 <= 400) hit = 1
		  if (!hit) { print "not ours:", $0; bad = 1 } }
     END { exit bad }' "$tmpdir/blocks" "$tmpdir/timehist" >"$tmpdir/unmatched"
sleeper=$(sed -n 's/.* sleeper\[\([0-9]*\)\/.*/\1/p' $d/blocking-a.timehist.txt | head -n 1)
waiter=$(sed -n 's/.* waiter\[\([0-9]*\)\/.*/\1/p' $d/blocking-a.timehist.txt | head -n 1)
if ! grep -q -e "^not ours: $sleeper " -e "^not ours: $waiter " "$tmpdir/unmatched"; then
	pass "system-wide: each wait timehist shows of the sleeper and the waiter is one block of ours, to 20 us"
else
	fail "system-wide: waits timehist shows that are no block of ours"
	diag_file "$tmpdir/unmatched"
fi

# what --to=perf-script and pprof make of them
if grep -q -e 'off-cpu:' -e 'wall:' "$tmpdir/blocks.txt" &&
	! profkit-convert --no-symbolize --to=perf-script $d/blocking.perf.data |
		grep -q -e 'off-cpu:' -e 'wall:'; then
	pass "--to=perf-script: off-cpu only when --event names it, as perf records none"
else
	fail "--to=perf-script: off-cpu only when --event names it, as perf records none"
fi
find_pprof
if [ -z "$pprof" ]; then
	skip "pprof: off-cpu and wall in nanoseconds, prev_state as a tag" "no Go pprof"
else
	profkit-convert -q --no-symbolize --to=pprof -o "$tmpdir/b.pb.gz" $d/blocking.perf.data
	"$pprof" -raw "$tmpdir/b.pb.gz" 2>/dev/null | sed -n '/^Samples:/{n;p;}' >"$tmpdir/types"
	"$pprof" -sample_index=off-cpu -tags "$tmpdir/b.pb.gz" 2>/dev/null |
		sed -n '/^ prev_state:/,/^$/p' >"$tmpdir/tags"
	if grep -q ' off-cpu/nanoseconds .* wall/nanoseconds$' "$tmpdir/types" &&
		grep -q '): S$' "$tmpdir/tags"; then
		pass "pprof: off-cpu and wall in nanoseconds, prev_state as a tag"
	else
		fail "pprof: off-cpu and wall in nanoseconds, prev_state as a tag"
		diag_file "$tmpdir/types"
		diag_file "$tmpdir/tags"
	fi
fi
profkit-filter --event=off-cpu --field=prev_state=S --to=folded --no-symbolize \
	$d/blocking.perf.data >"$tmpdir/asleep"
profkit-filter --event=off-cpu --field=prev_state=R --to=folded --no-symbolize \
	$d/blocking.perf.data >"$tmpdir/preempted"
if [ "$(cat "$tmpdir/asleep" "$tmpdir/preempted" | ms_of .)" = "$(ms_of . <"$tmpdir/off")" ] &&
	[ -s "$tmpdir/asleep" ] && [ -s "$tmpdir/preempted" ]; then
	pass "profkit-filter --field=prev_state: asleep and preempted add up to all"
else
	fail "profkit-filter --field=prev_state: asleep and preempted add up to all"
fi

# what a recording lacks, in one message with the command to record
recipe="record with: perf record -e sched:sched_switch --switch-events --call-graph dwarf -- PROGRAM"
testrun_fails "no sched_switch: how to record" 1 \
	"c-fp.perf.data: no off-CPU time: no sched:sched_switch samples, no switch events; $recipe\$" \
	profkit-convert --event=off-cpu --to=folded $d/c-fp.perf.data
testrun_fails "sched_switch sampled at -F, no switch events: how to record" 1 \
	"tp-prog.perf.data: no off-CPU time: sched_switch sampled, not recorded at every switch (-F or -c), no switch events; $recipe\$" \
	profkit-convert --event=off-cpu --to=folded $d/tp-prog.perf.data
testrun_fails "sched_switch without call chains: how to record" 1 \
	"blocking-nostack.perf.data: no off-CPU time: no call chains; $recipe\$" \
	profkit-convert --event=off-cpu --to=folded $d/blocking-nostack.perf.data
testrun_fails "--event=wall: the recipe with the clock" 1 \
	"blocking-nostack.perf.data: no wall-clock time: no call chains, no cpu-clock or task-clock samples; record with: perf record -e cpu-clock -e sched:sched_switch --switch-events --call-graph dwarf -- PROGRAM\$" \
	profkit-convert --event=wall --to=folded $d/blocking-nostack.perf.data
testrun_fails "sched_switch without switch events: how to record" 1 \
	"tp-fields.perf.data: no off-CPU time: no switch events; $recipe\$" \
	profkit-convert --event=off-cpu --to=folded $d/tp-fields.perf.data
testrun_fails "perf script text: no off-CPU time, and where it comes from" 2 \
	"no event 'off-cpu' in the input: off-CPU and wall-clock time come from perf.data recorded with: perf record" \
	profkit-convert --event=off-cpu --to=folded testdata/perf-script/c-fp.txt

# perf record --off-cpu, both layouts: offcpu-time samples with the
# blocked time as their period and the callchain in the sample (the
# first perfs with --off-cpu, written at the end at time ~0 << 32), or all
# of it embedded in their raw data (later perfs); beside cpu-clock
# samples of a third thread
if ! command -v python3 >/dev/null 2>&1; then
	for t in "old layout" "new layout" "records lost" "wall time, per thread"; do
		skip "perf record --off-cpu: $t" "no python3 to write its samples"
	done
	exit 0
fi
python3 - "$tmpdir" <<'EOF'
import struct, sys
IDENT, IP, TID, TIME, ID, CPU, PERIOD, RAW, CALLCHAIN, CGROUP = \
    1 << 16, 1, 2, 4, 1 << 6, 1 << 7, 1 << 8, 1 << 10, 1 << 5, 1 << 21
USER, END = 0xfffffffffffffe00, 0xffffffff00000000

def rec(kind, body, misc=0):
    return struct.pack('<IHH', kind, misc, 8 + len(body)) + body

def attr(config, period, sample_type, ident):
    a = struct.pack('<IIQQQQQ', 1, 128, config, period, sample_type, 0, 1 << 18)
    return rec(64, a + bytes(128 - len(a)) + struct.pack('<Q', ident))

def name(ident, text):
    text = text.encode() + b'\0'
    return rec(78, struct.pack('<QQ', 2, ident) + text + bytes(-len(text) % 8))

def comm(pid, tid, text):
    text = text.encode() + b'\0'
    return rec(3, struct.pack('<II', pid, tid) + text + bytes(-len(text) % 8) +
               struct.pack('<IIQQ', pid, tid, 1000, 1))

blocks = [(101, 500000000, [0x401010, 0x401100, 0x401200]),
          (101, 20000000, [0x401010, 0x401300]),
          (102, 300000000, [0x402020, 0x401100, 0x401200])]
old_type = IDENT | IP | TID | TIME | ID | CPU | PERIOD | CALLCHAIN | CGROUP
new_type = IDENT | IP | TID | TIME | ID | CPU | PERIOD | RAW | CGROUP
for layout, offcpu_type in (('old', old_type), ('new', new_type)):
    out = b'PERFILE2' + struct.pack('<Q', 16)
    out += attr(0, 10000000, IDENT | IP | TID | TIME | PERIOD | CALLCHAIN, 1)
    out += attr(10, 1, offcpu_type, 2) + name(2, 'offcpu-time')
    for tid, text in ((100, 'blocking'), (101, 'sleeper'), (102, 'waiter'), (103, 'spinner')):
        out += comm(100, tid, text)
    for i in range(40):     # the spinner on the CPU
        out += rec(9, struct.pack('<QQIIQQQQQ', 1, 0x403030, 100, 103,
                                  2000 + i * 10000000, 10000000, 2, USER, 0x403030), 2)
    for tid, period, chain in blocks:
        if layout == 'old':
            body = struct.pack('<QQIIQQIIQQ', 2, chain[0], 100, tid, END, 2, 0, 0,
                               period, 1 + len(chain))
            body += struct.pack('<%dQ' % (1 + len(chain)), USER, *chain) + struct.pack('<Q', 7)
        else:
            raw = struct.pack('<QQQ', tid << 32 | 100, period, 1 + len(chain))
            raw += struct.pack('<%dQ' % (1 + len(chain)), USER, *chain) + struct.pack('<Q', 7)
            body = struct.pack('<QQIIQQIIQ', 2, 0, 0, 0, END, 2, 0, 0, 0)
            body += struct.pack('<I', len(raw) + 4) + raw + bytes(4) + struct.pack('<Q', 0)
        out += rec(9, body, 2)
    open('%s/offcpu-%s.perf.data' % (sys.argv[1], layout), 'wb').write(out)

# sched_switch and switch events of one thread, with records lost (perf's
# buffers overflowed) in its second block: its switch-in and the
# sched_switch of its next switch-out; that block's end is unknown
SWITCH_OUT = 1 << 13
def switch(tid, time, out):
    return rec(14, struct.pack('<IIQQ', 100, tid, time, 3), SWITCH_OUT if out else 0)
def switched_out(tid, time):
    return rec(9, struct.pack('<QIIQQQQQ', 3, 100, tid, time, 1, 2, USER, 0x401010), 2)
a = struct.pack('<IIQQQQQ', 2, 128, 316, 1, IDENT | TID | TIME | PERIOD | CALLCHAIN,
                0, 1 << 18 | 1 << 26)
out = b'PERFILE2' + struct.pack('<Q', 16)
out += rec(64, a + bytes(128 - len(a)) + struct.pack('<Q', 3)) + name(3, 'sched:sched_switch')
out += comm(100, 101, 'sleeper')
out += switched_out(101, 1000) + switch(101, 1001, 1) + switch(101, 21000, 0)
out += switched_out(101, 30000) + switch(101, 30001, 1)
out += rec(2, struct.pack('<QQ', 3, 2) + struct.pack('<IIQQ', 100, 101, 40000, 3))
out += switch(101, 50001, 1) + switch(101, 70000, 0)
out += switched_out(101, 80000) + switch(101, 80001, 1) + switch(101, 90000, 0)
open('%s/lost.perf.data' % sys.argv[1], 'wb').write(out)
EOF
cat >"$tmpdir/offcpu.want" <<'EOF'
sleeper;[unknown];[unknown] 20000000
sleeper;[unknown];[unknown];[unknown] 500000000
waiter;[unknown];[unknown];[unknown] 300000000
EOF
for layout in old new; do
	testrun_compare "perf record --off-cpu, $layout layout: offcpu-time is off-cpu time" \
		"$tmpdir/offcpu.want" \
		profkit-convert -q --no-symbolize --event=off-cpu --to=folded "$tmpdir/offcpu-$layout.perf.data"
done
echo "sleeper;[unknown] 30000" >"$tmpdir/lost.want"
testrun_compare "records lost in a block: the block is dropped, not stretched" \
	"$tmpdir/lost.want" \
	profkit-convert -q --no-symbolize --event=off-cpu --to=folded "$tmpdir/lost.perf.data"
cat >"$tmpdir/wall.want" <<'EOF'
sleeper 520000000
spinner 400000000
waiter 300000000
EOF
profkit-convert -q --no-symbolize --event=wall --to=folded "$tmpdir/offcpu-new.perf.data" |
	awk '{ split($1, f, ";"); s[f[1]] += $NF } END { for (k in s) print k, s[k] }' |
	sort >"$tmpdir/wall.got"
same_output "perf record --off-cpu: wall time, per thread" "$tmpdir/wall.want" "$tmpdir/wall.got"
