#!/bin/sh
# Hostile tracing data never crashes profkit: event formats, print
# formats, printk formats and raw data made to break libtraceevent are
# refused with a warning naming the file, the event and the problem, the
# rest of the recording converts, and --strict makes the warning an error.
#
# The recordings are the tracepoint seeds of the perf.data fuzzer
# (testdata/README.md): tp-seed-sched, tp-seed-kmem, tp-seed-exec and
# tp-seed-formats, whose formats are those of Linux 6.18. Each hostile copy changes a few
# bytes of one format in place (the text keeps its length); each
# crashed profkit-convert before the formats were checked (a null field
# in libtraceevent's parser, a division by zero, a read 4 GiB past the
# sample). testdata/bad/perf-data/tracing-* are what the fuzzer found.
. "${top_srcdir:-.}/tests/test-subr.sh"
found=$(ls testdata/bad/perf-data/tracing-*)
plan $((21 + $(echo $found | wc -w)))
d=testdata/perf-data

# A copy of FILE with OLD (a text of its tracing data) replaced by NEW,
# padded with blanks to OLD's length: hostile FILE OLD NEW >COPY
hostile() {
	OLD=$2 NEW=$3 perl -0777 -pe '
		my $pad = length($ENV{OLD}) - length($ENV{NEW});
		die "the new text is longer\n" if $pad < 0;
		s/\Q$ENV{OLD}\E/$ENV{NEW} . (" " x $pad)/e
			or die "\"$ENV{OLD}\" is not in the file\n"' "$1"
}

# the sample header lines of our perf script text: trace FILE >TEXT
trace() {
	profkit-convert -q --no-symbolize --to=perf-script "$1" |
		grep -v -e '^	' -e '^$'
}

# the trace lines of FILE but those of EVENT, as for the undamaged seed:
# the damage to one event's format costs that event only
others_unchanged() {
	name=$1 seed=$2 copy=$3 event=$4
	trace "$seed" | grep -v " $event:" >"$tmpdir/seed.others"
	trace "$copy" | grep -v " $event:" >"$tmpdir/copy.others"
	same_output "$name" "$tmpdir/seed.others" "$tmpdir/copy.others"
}

# the warnings converting FILE about its tracing data and raw data (a
# conversion that fails says so): warnings FILE >TEXT
warnings() {
	{ profkit-convert --no-symbolize --to=perf-script -o /dev/null "$1" ||
		echo "exit $?" >&2; } 2>&1 >/dev/null |
		grep -e 'tracing data' -e 'raw data of' -e '^exit'
}

# the seeds: no such warning but for dma:dma_map_sg, whose print format holds
# GNU statement expressions (libtraceevent cannot parse it either: perf
# prints its samples as "[FAILED TO PARSE]" and the raw fields)
: >"$tmpdir/none"
for seed in tp-seed-sched tp-seed-kmem tp-seed-kmem.pipe tp-seed-exec; do
	warnings $d/$seed.perf.data >"$tmpdir/warnings"
	cmp -s "$tmpdir/none" "$tmpdir/warnings" &&
		pass "$seed: no warning about its tracing data" ||
		{ fail "$seed: no warning about its tracing data"
		  diag_file "$tmpdir/warnings"; }
done
echo "profkit-convert: warning: $d/tp-seed-formats.perf.data: tracing data: event 'dma:dma_map_sg' has a print format profkit cannot parse safely (at byte 1044 of its format: an argument that is not an expression): its trace text is '[FAILED TO PARSE]' and the raw fields" \
	>"$tmpdir/want"
testrun_compare "tp-seed-formats: only dma_map_sg's print format is refused" \
	"$tmpdir/want" warnings $d/tp-seed-formats.perf.data
for seed in tp-seed-sched tp-seed-exec; do
	testrun_compare "$seed: every sample as perf script prints it" \
		$d/$seed.trace.txt trace $d/$seed.perf.data
done

# converts NAME FILE PATTERN: FILE converts (exit 0) with a warning
# "FILE's name: PATTERN"
converts() {
	testrun_status "$1" 0 "${2##*/}: $3" \
		profkit-convert --no-symbolize --to=perf-script -o /dev/null "$2"
}
refused="has a print format profkit cannot parse safely"
undecoded="the raw data of a '[a-z_]*' sample does not hold what its print format reads; not decoded"
dropped="its fields are dropped"
kmalloc_accounted='(1 && (REC->gfp_flags & ( unsigned long)(( gfp_t)((((1UL))) << (22))))) ? "true" : "false"'

# a field __print_flags names that is not one: libtraceevent's parser
# marked a null field
hostile $d/tp-seed-sched.perf.data '__print_flags(REC->prev_state' \
	'__print_flags(REC->prev_stXte' >"$tmpdir/flags.perf.data"
converts "__print_flags of a field that is not there: a warning" \
	"$tmpdir/flags.perf.data" "tracing data: event 'sched:sched_switch' $refused (at byte 978 of its format: a name that is not a field): its trace text is '\[FAILED TO PARSE\]' and the raw fields"
n=$(trace "$tmpdir/flags.perf.data" | grep -c "sched:sched_switch: \[FAILED TO PARSE\] prev_comm=sh prev_pid=[0-9]* prev_prio=120 prev_state=")
[ "$n" -eq "$(grep -c sched_switch $d/tp-seed-sched.trace.txt)" ] &&
	pass "its samples keep their raw fields ($n)" ||
	fail "its samples keep their raw fields ($n)"
others_unchanged "the other events' samples are as in the seed" \
	$d/tp-seed-sched.perf.data "$tmpdir/flags.perf.data" sched:sched_switch

# a division by zero: libtraceevent folded it as it parsed (SIGFPE)
hostile $d/tp-seed-sched.perf.data '<< 1) - 1))' '<< 1) / 0))' \
	>"$tmpdir/div.perf.data"
converts "a division by zero in a print format: a warning" "$tmpdir/div.perf.data" \
	"tracing data: event 'sched:sched_switch' $refused (at byte 953 of its format: a division by zero)"
testrun_fails "--strict: the warning is an error, nothing written" 1 \
	"stopping: warnings with --strict" \
	profkit-convert --strict --no-symbolize --to=perf-script \
	-o "$outdir/out.txt" "$tmpdir/div.perf.data"

# a length from the sample: kmalloc's node (-1) as __print_hex's length
# made libtraceevent read 4 GiB past the sample
hostile $d/tp-seed-kmem.perf.data "$kmalloc_accounted" \
	'__print_hex(REC->ptr, REC->node)' >"$tmpdir/hex.perf.data"
converts "__print_hex past the sample: the sample is not decoded" \
	"$tmpdir/hex.perf.data" "offset 0x3a8: $undecoded"
others_unchanged "kfree's samples are as in the seed" \
	$d/tp-seed-kmem.perf.data "$tmpdir/hex.perf.data" kmem:kmalloc
# within the sample it prints: the 8 bytes of ptr
hostile $d/tp-seed-kmem.perf.data "$kmalloc_accounted" \
	'__print_hex(REC->ptr, 8)' >"$tmpdir/hex8.perf.data"
trace "$tmpdir/hex8.perf.data" >"$tmpdir/hex8.txt" 2>"$tmpdir/hex8.err"
ptr=$(sed -n 's/.*kmem:kmalloc: .* ptr=0x\([0-9a-f]\{16\}\) .*/\1/p' "$tmpdir/hex8.txt" | head -n 1)
le=$(echo "$ptr" | sed 's/\(..\)/\1 /g; s/ $//' | tr ' ' '\n' | tac | tr '\n' ' ' | sed 's/ $//')
[ -n "$ptr" ] && [ ! -s "$tmpdir/hex8.err" ] &&
	grep -q "ptr=0x$ptr .* accounted=$le\$" "$tmpdir/hex8.txt" &&
	pass "__print_hex within the sample: ptr's bytes ($le)" ||
	fail "__print_hex within the sample: ptr's bytes"

# an empty cpumask (exec's filename as one, its length made 0): libtraceevent
# allocates 3 GB for it
hostile $d/tp-seed-exec.perf.data '__get_str(filename), REC->pid, REC->old_pid' \
	'__get_cpumask(filename), REC->pid, 0' |
	perl -0777 -pe 's/\x14\x00\x0c\x00(.{8}\/usr\/bin\/sh)/\x14\x00\x00\x00$1/s' \
	>"$tmpdir/cpumask.perf.data"
converts "an empty cpumask: the sample is not decoded" \
	"$tmpdir/cpumask.perf.data" "offset 0x650: $undecoded"

# a field line not as the kernel writes it: that event's fields dropped
hostile $d/tp-seed-kmem.perf.data 'call_site;	offset:8;' 'call_site;	offxet:8;' \
	>"$tmpdir/field.perf.data"
converts "a damaged field line: the event is left out" "$tmpdir/field.perf.data" \
	"tracing data: event 'kmem:kfree' has a field line profkit cannot read (at byte [0-9]* of its format): $dropped"
others_unchanged "kmalloc's samples are as in the seed" \
	$d/tp-seed-kmem.perf.data "$tmpdir/field.perf.data" kmem:kfree

# an attribute before any type: libtraceevent appended it to a null type
hostile $d/tp-seed-sched.perf.data 'field:unsigned char common_preempt_count;' \
	'field:__attribute__((a)) common_preempt;' >"$tmpdir/attribute.perf.data"
converts "an attribute before the type: the event is left out" \
	"$tmpdir/attribute.perf.data" \
	"tracing data: event 'sched:sched_switch' has a field line profkit cannot read (at byte [0-9]* of its format): $dropped"

# two events of one ID: the second is left out
hostile $d/tp-seed-kmem.perf.data 'ID: 657' 'ID: 658' >"$tmpdir/id.perf.data"
converts "two events of one ID: the second is left out" "$tmpdir/id.perf.data" \
	"tracing data: event 'kmem:kmalloc' has the ID of another event (658): $dropped"

# a printk format of one character: libtraceevent read before its copy
hostile $d/tp-seed-kmem.perf.data '0xffffffff8281a3e9 : "rcu_preempt-GPS"' \
	'0xffffffff8281a3e9 : "r"' >"$tmpdir/printk.perf.data"
converts "a printk format too short: left out" "$tmpdir/printk.perf.data" \
	"tracing data: printk formats profkit cannot read safely left out: 1 (the first at byte 76 of them)"

# what the fuzzer found: each converts (exit 0) with its warning
found_expects() {
	case $(basename "$1") in
	tracing-cut-print-format) echo "tracing data: event 'sched:sched_switch' $refused (at byte 978 of its format: a name that is not a field)" ;;
	esac
}
for f in $found; do
	want=$(found_expects "$f")
	if [ -z "$want" ]; then
		fail "$(basename "$f"): a fuzz finding with no line in found_expects"
		continue
	fi
	converts "fuzz finding ${f##*/} ($(wc -c <"$f") bytes): converts, warns" \
		"$f" "$want"
done
finish
