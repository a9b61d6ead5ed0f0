#!/bin/sh
# Tracepoint fields in perf script text: the text after a tracepoint's
# event becomes the same labels as the perf.data reader decodes with
# libtraceevent from the recording (tests/run-tracepoint-fields.sh).
#
# testdata/perf-script/tp-{fields,prog,kmem}.txt are `perf script` of
# testdata/perf-data/tp-{fields,prog,kmem}.perf.data. Each text
# converted to pprof must give the same `pprof -tags` as its recording,
# but for what the text does not hold: the pid (perf prints the tid
# alone), sys_enter's __syscall_nr (not printed), prev_state (printed as
# a letter, S, where the label of perf.data holds the number), comm (a
# comm's trailing blank is lost in the header), and in tp-kmem the fields
# kmalloc prints as words (gfp_flags=GFP_KERNEL, accounted=false,
# call_site=perf_event_mmap+0x155, so its trace text too); its node=-1,
# ptr=0xffff... and sched_stat_runtime's runtime=568910 [ns] are numbers. profkit-filter --field
# must keep the same samples from the text as from the recording, as
# many as perf printed with the field.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 22

# tags PROFILE INDEX: pprof -tags, less the labels the text cannot hold
tags() {
	"$pprof" -sample_index="$2" -tags "$1" 2>"$tmpdir/err" |
		awk -v words="$words" '/^ [^ ].*: Total / { k = $1; sub(/:$/, "", k)
				skip = (k == "pid" || k == "comm" ||
					k == "__syscall_nr" || k == "prev_state" ||
					index(" " words " ", " " k " ")) }
			!skip'
}

find_pprof
for x in "tp-fields sched:sched_switch_samples sched:sched_wakeup_samples syscalls:sys_enter_write_samples syscalls:sys_exit_write_samples" \
	 "tp-prog sched:sched_switch_samples cpu-clock_samples" \
	 "tp-kmem kmem:kmalloc_samples sched:sched_stat_runtime_samples"; do
	set -- $x
	words=
	[ $1 = tp-kmem ] && words="gfp_flags accounted call_site trace"
	rec=$1
	shift
	profkit-convert -q --no-symbolize --to=pprof -o "$tmpdir/data.pb.gz" \
		testdata/perf-data/$rec.perf.data
	profkit-convert -q --to=pprof -o "$tmpdir/text.pb.gz" \
		testdata/perf-script/$rec.txt
	for index; do
		if [ -z "$pprof" ]; then
			skip "$rec: pprof -tags of $index" "no Go pprof"
			continue
		fi
		tags "$tmpdir/data.pb.gz" "$index" >"$tmpdir/data.tags"
		tags "$tmpdir/text.pb.gz" "$index" >"$tmpdir/text.tags"
		if ! "$pprof" -sample_index="$index" -tags "$tmpdir/data.pb.gz" 2>/dev/null |
			grep -q "^ trace: Total"; then
			fail "$rec: pprof -tags of $index: the recording has no fields"
			diag_file "$tmpdir/err"
			continue
		fi
		same_output "$rec: pprof -tags of $index as from the recording" \
			"$tmpdir/data.tags" "$tmpdir/text.tags"
	done
done

# the tid, cpu and time of each sample kept by --field=$1 from $2
kept() {
	profkit-filter -q --no-symbolize --field="$1" --to=perf-script "$2" |
		sed -n 's/.* \([0-9]*\) \[\([0-9]*\)\] *\([0-9.]*\): .*/\1 \2 \3/p'
}
# the same of the samples perf printed with the field, in $2's text
printed() {
	grep -e " $1 " -e " $1\$" -e " $1," "$2" |
		sed -n 's/.* \([0-9]*\) \[\([0-9]*\)\] *\([0-9.]*\): .*/\1 \2 \3/p'
}
# REC|PRINTED|FIELD|: --field=FIELD, perf printed it as PRINTED
while IFS='|' read -r rec printed fv rest; do
	printed "$printed" testdata/perf-script/$rec.txt >"$tmpdir/want"
	kept "$fv" testdata/perf-data/$rec.perf.data >"$tmpdir/data"
	kept "$fv" testdata/perf-script/$rec.txt >"$tmpdir/text"
	if [ ! -s "$tmpdir/want" ] || ! cmp -s "$tmpdir/want" "$tmpdir/data"; then
		fail "$rec: --field='$fv': the recording keeps what perf printed"
		continue
	fi
	same_output "$rec: --field='$fv' keeps the samples it keeps from the recording" \
		"$tmpdir/data" "$tmpdir/text"
done <<'FIELDS'
tp-fields|prev_state=S|prev_state=S|
tp-fields|next_comm=work er 0|next_comm=work er 0|
tp-fields|prev_comm=trail sp |prev_comm=trail sp |
tp-fields|prev_pid=15295|prev_pid=15295|
tp-fields|target_cpu=001|target_cpu=1|
tp-fields|pid=15291|sched_wakeup.pid=15291|
tp-fields|comm=memfd:sealed-91|sched_wakeup.comm=memfd:sealed-91|
tp-fields|count: 0x00000013|count=19|
tp-fields|fd: 0x00000001|fd=0x1|
tp-prog|next_comm=swapper/0|next_comm=swapper/0|
tp-prog|prev_state=R|prev_state=R|
tp-kmem|node=-1|node=-1|
tp-kmem|runtime=568910 \[ns\]|runtime=568910|
tp-kmem|bytes_req=64|bytes_req=0x40|
FIELDS
finish
