#!/bin/sh
# Tracepoint fields: the raw data of tracepoint samples, decoded with
# libtraceevent from the event formats the recording's tracing data holds.
#
# testdata/perf-data/tp-fields.perf.data and tp-fields.pipe.perf.data
# (perf record -o -) have sched_switch, sched_wakeup, sys_enter_write and
# sys_exit_write samples; tp-fields*.trace.txt are the sample header
# lines (those not starting with a tab) of what `perf script` printed for
# them: comm, tid, cpu, time, event and the fields (tp-prog.trace.txt the
# same of tp-prog.perf.data: sched_switch and cpu-clock). Ours must be the same line
# for line (the callchains are run-perf-data.sh's business). pprof -tags
# of the converted recording must count the fields as perf script's text
# does, profkit-filter --field must keep the samples whose fields perf
# printed with that value, and damaged tracing data must cost the fields,
# not the profile.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 19
d=testdata/perf-data

# the header lines of our perf script text for a recording
headers() {
	profkit-convert --no-symbolize --to=perf-script "$@" >"$tmpdir/all" &&
		grep -v -e '^	' -e '^$' "$tmpdir/all"
}

testrun_compare "file mode: every sample's fields as perf script prints them" \
	$d/tp-fields.trace.txt headers $d/tp-fields.perf.data
testrun_compare "pipe mode: the same" $d/tp-fields.pipe.trace.txt \
	headers $d/tp-fields.pipe.perf.data
testrun_compare "pipe mode from stdin" $d/tp-fields.pipe.trace.txt \
	headers - <$d/tp-fields.pipe.perf.data
testrun_compare "tp-prog: sched_switch and cpu-clock samples as perf prints them" \
	$d/tp-prog.trace.txt headers $d/tp-prog.perf.data
testrun_compare "--addresses-only (perf script -F without trace): no fields" \
	$d/tp-prog.perf-script.txt \
	profkit-convert --no-symbolize --addresses-only --to=perf-script $d/tp-prog.perf.data

# tally KEY NEXT-KEY EVENT: "count value" for a field in perf script's
# text (comms may hold spaces: the value ends at the next field)
tally() {
	sed -n "s/.* $3:.* $1=\(.*\) $2=.*/\1/p" $d/tp-fields.trace.txt |
		sort | uniq -c | sed 's/^ *\([0-9]*\) /\1 /' | sort
}
# tags KEY EVENT: "count value" in pprof -tags for the event's count
tags() {
	"$pprof" -sample_index="$2" -tags "$tmpdir/tp.pb.gz" 2>/dev/null |
		awk -v k=" $1:" 'index($0, k) == 1 { on = 1; next }
			/^ *$/ { on = 0 }
			on { c = $1; sub(/\.0$/, "", c); v = $0
			     sub(/^[^:]*: /, "", v); print c, v }' | sort
}

find_pprof
profkit-convert -q --no-symbolize --to=pprof -o "$tmpdir/tp.pb.gz" $d/tp-fields.perf.data
for check in "next_comm next_comm next_pid sched:sched_switch" \
	     "prev_pid prev_pid prev_prio sched:sched_switch" \
	     "sched_wakeup.comm comm pid sched:sched_wakeup" \
	     "sched_wakeup.pid pid prio sched:sched_wakeup"; do
	set -- $check
	if [ -z "$pprof" ]; then
		skip "pprof -tags: $1" "no Go pprof"
		continue
	fi
	tally "$2" "$3" "$4" >"$tmpdir/perf.tally"
	tags "$1" "$4" >"$tmpdir/pprof.tally"
	same_output "pprof -tags: $1 counted as in perf script's text" \
		"$tmpdir/perf.tally" "$tmpdir/pprof.tally"
done
# perf prints sys_enter_write's count as "count: 0x00000013"
count=$(sed -n 's/.*sys_enter_write: .*count: \(0x[0-9a-f]*\)$/\1/p' $d/tp-fields.trace.txt)
if [ -z "$pprof" ]; then
	skip "pprof -tags: a syscall's count, a number" "no Go pprof"
else
	echo "1 $((count))" >"$tmpdir/perf.tally"
	tags count syscalls:sys_enter_write >"$tmpdir/pprof.tally"
	same_output "pprof -tags: a syscall's count, a number" \
		"$tmpdir/perf.tally" "$tmpdir/pprof.tally"
fi

# profkit-filter --field: the samples whose fields perf script printed
# with NAME=VALUE (prev_state is a number: S is in the printed text only)
for fv in prev_state=S next_comm=git prev_pid=15295 target_cpu=001; do
	grep " $fv\( \|\$\)" $d/tp-fields.trace.txt >"$tmpdir/want"
	testrun_compare "profkit-filter --field=$fv: the samples perf printed with it" \
		"$tmpdir/want" sh -c "profkit-filter -q --no-symbolize --field='$fv' \
			--to=perf-script $d/tp-fields.perf.data | grep -v -e '^	' -e '^\$'"
done
testrun_fails "--field without =" 2 "--field: 'prev_state' is not NAME=VALUE" \
	profkit-filter --field=prev_state $d/tp-fields.perf.data

# bytes at an offset of a copy: patch FILE OFFSET TEXT
patch() {
	printf '%s' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# the offset of the first TEXT in FILE
offset_of() { grep -a -b -o -m1 -e "$2" "$1" | head -n1 | cut -d: -f1; }

# sched_switch's prev_comm 99 bytes long: past every sample's raw data
cp $d/tp-fields.perf.data "$tmpdir/size.perf.data"
off=$(offset_of "$tmpdir/size.perf.data" "prev_comm.16.;	offset:8;	size:16;")
patch "$tmpdir/size.perf.data" $((off + 30)) 99
testrun_status "a field past the raw data: a warning, the sample undecoded" 0 \
	"size.perf.data: offset 0x[0-9a-f]*: the raw data of a 'sched_switch' sample is shorter than its fields" \
	profkit-convert --no-symbolize --to=perf-script -o "$tmpdir/size.txt" "$tmpdir/size.perf.data"
grep -q "sched_switch: prev_comm" "$tmpdir/size.txt" &&
	fail "no sched_switch fields from a damaged format" ||
	pass "no sched_switch fields from a damaged format"

# common_type moved: libtraceevent would read the event id elsewhere
cp $d/tp-fields.pipe.perf.data "$tmpdir/type.perf.data"
off=$(offset_of "$tmpdir/type.perf.data" "common_type;	offset:0;")
patch "$tmpdir/type.perf.data" $((off + 20)) 9
testrun_status "common_type not at offset 0: a warning, no fields" 0 \
	"type.perf.data: tracing data: event '.*' has no common_type at offset 0" \
	profkit-convert --no-symbolize --to=perf-script -o "$tmpdir/type.txt" "$tmpdir/type.perf.data"

# the tracing data cut inside the event formats (a subsystem count of 2^31)
cp $d/tp-fields.perf.data "$tmpdir/cut.perf.data"
off=$(offset_of "$tmpdir/cut.perf.data" "header_page")
patch "$tmpdir/cut.perf.data" $((off + 12)) "$(printf '\377\377\377\177')"
testrun_status "damaged tracing data: a warning naming the byte" 0 \
	"cut.perf.data: tracing data is damaged at byte [0-9]* of [0-9]*" \
	profkit-convert --no-symbolize --to=perf-script -o "$tmpdir/cut.txt" "$tmpdir/cut.perf.data"
finish
