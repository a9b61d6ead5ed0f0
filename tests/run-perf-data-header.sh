#!/bin/sh
# The header of a perf.data converted to pprof, as pprof -raw and -top read
# it back, against what perf says of the recording: the Time is the wall
# clock of the first sample (perf record -k writes clock data: perf report
# --header-only's "reference time") or else when the file was written (its
# "captured on"); the Duration is the span of perf script's sample times;
# the period is the first event's. The first event is perf evlist's.
. "${top_srcdir:-.}/tests/test-subr.sh"
# every check reads what perf says, most what pprof says: both or none,
# decided before the plan
find_pprof
[ -n "$pprof" ] || skip_all "no Go pprof"
command -v perf >/dev/null || skip_all "no perf (linux-perf)"
plan 14
d=testdata/perf-data
TZ=UTC
export TZ

header() { perf report -i "$1" --header-only 2>/dev/null; }
# sample times in ns, one a line
sample_times() { perf script --ns -F time -G -i "$1" 2>/dev/null | sed -n 's/^ *\([0-9]*\)\.\([0-9]*\): *$/\1\2/p'; }
first() { sample_times "$1" | sort -n | head -n 1; }
last() { sample_times "$1" | sort -n | tail -n 1; }
# a time in ns as Go's time.Time prints it (trailing zeros of the fraction cut)
go_time() {
	frac=$(printf '%09d' $(($1 % 1000000000)) | sed 's/0*$//')
	echo "$(date -u -d @$(($1 / 1000000000)) '+%Y-%m-%d %H:%M:%S')${frac:+.$frac} +0000 UTC"
}
to_pprof() { profkit-convert -q --no-symbolize --to=pprof -o "$2" "$1"; }
raw_line() { "$pprof" -symbolize=none -raw "$1" 2>/dev/null | sed -n "s/^$2: //p"; }
check() {	# NAME WANT GOT
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1"
		echo "# want: '$2'"
		echo "# got:  '$3'"
	fi
}

# clock data: "reference time: 2026-... = SECS.USECS (TOD) = SECS.NSECS (monotonic)"
c=$d/clock.perf.data
to_pprof $c "$tmpdir/clock.pb.gz"
ref=$(header $c | sed -n 's/^# reference time: .* = \([0-9]*\)\.\([0-9]*\) (TOD) = \([0-9]*\)\.\([0-9]*\) (.*/\1\2000 \3\4/p')
set -- $ref
check "clock data: Time is the wall clock of the first sample" \
	"$(go_time $(($1 + $(first $c) - $2)))" "$(raw_line "$tmpdir/clock.pb.gz" Time)"
span=$(($(last $c) - $(first $c)))
check "Duration as pprof -top shows it: the span of the samples" \
	"Duration: $(awk "BEGIN { printf \"%.2fms\", $span / 1e6 }")," \
	"$("$pprof" -symbolize=none -top "$tmpdir/clock.pb.gz" 2>/dev/null | sed -n 's/^\(Duration: [^ ]*\) .*/\1/p')"
check "and as perf report's sample duration" \
	"$(header $c | sed -n 's/^# sample duration : *\([0-9.]*\) ms/\1/p')" \
	"$(awk "BEGIN { printf \"%.3f\", $span / 1e6 }")"
freq=$(header $c | sed -n 's/.*{ sample_period, sample_freq } = \([0-9]*\),.* freq = 1,.*/\1/p')
check "cpu-clock -F: period type cpu nanoseconds" "cpu nanoseconds" \
	"$(raw_line "$tmpdir/clock.pb.gz" PeriodType)"
check "cpu-clock -F $freq: period 1e9 / F" "$((1000000000 / freq))" \
	"$(raw_line "$tmpdir/clock.pb.gz" Period)"
profkit-convert -q --no-symbolize --to=callgrind $c >"$tmpdir/clock.callgrind"
check "callgrind: the same Time" \
	"$(go_time $(($1 + $(first $c) - $2)) | sed 's/ +0000 UTC//')" \
	"$(sed -n 's/^desc: Time: \(.*\)\.\([0-9]*\) UTC$/\1.\2/p' "$tmpdir/clock.callgrind" | sed 's/0*$//')"
check "callgrind: the Duration to the nanosecond" \
	"$(printf '%d.%09d s' $((span / 1000000000)) $((span % 1000000000)))" \
	"$(sed -n 's/^desc: Duration: //p' "$tmpdir/clock.callgrind")"

# no clock data: when the file was written, perf report's "captured on"
# (perf reads the ctime, profkit the mtime: equal in a fresh copy)
cat $d/multi.perf.data >"$tmpdir/multi.perf.data"
to_pprof "$tmpdir/multi.perf.data" "$tmpdir/multi.pb.gz"
captured=$(header "$tmpdir/multi.perf.data" | sed -n 's/^# captured on *: //p')
check "no clock data: Time is perf report's captured on" \
	"$(date -u -d "$captured" '+%Y-%m-%d %H:%M:%S')" \
	"$(raw_line "$tmpdir/multi.pb.gz" Time | cut -c1-19)"
touch -d '2026-01-02 03:04:05.5' "$tmpdir/multi.perf.data"
to_pprof "$tmpdir/multi.perf.data" "$tmpdir/touched.pb.gz"
check "the file's mtime, which cp -p and tar keep" "2026-01-02 03:04:05.5 +0000 UTC" \
	"$(raw_line "$tmpdir/touched.pb.gz" Time)"

# two events: the first is perf evlist's, whichever was sampled first
for name in multi tp-prog; do
	to_pprof $d/$name.perf.data "$tmpdir/$name.pb.gz"
	check "$name: the first event is perf evlist's" \
		"$(perf evlist -i $d/$name.perf.data 2>/dev/null | head -n 1)_samples/count" \
		"$("$pprof" -symbolize=none -raw "$tmpdir/$name.pb.gz" 2>/dev/null | sed -n '/^Samples:/{n;s/ .*//p;q}')"
done
# a tracepoint -F: the period is the mean of its samples' periods
check "tp-prog: sched:sched_switch's period, the mean of perf script's" \
	"sched:sched_switch count $(perf script -F event,period -i $d/tp-prog.perf.data 2>/dev/null |
		awk '$2 == "sched:sched_switch:" { n++; s += $1 } END { printf "%d", s / n + 0.5 }')" \
	"$(raw_line "$tmpdir/tp-prog.pb.gz" PeriodType) $(raw_line "$tmpdir/tp-prog.pb.gz" Period)"

# a pipe has no wall clock: no Time rather than 1970; still a Duration
p=$d/pipe.perf.data
profkit-convert -q --no-symbolize --to=pprof -o "$tmpdir/pipe.pb.gz" - <$p
check "pipe: no Time line" "x" "$(raw_line "$tmpdir/pipe.pb.gz" Time)x"
profkit-convert -q --no-symbolize --to=callgrind - <$p >"$tmpdir/pipe.callgrind"
span=$(($(last $p) - $(first $p)))
check "pipe: the Duration, the span of the samples" \
	"$(printf '%d.%09d s' $((span / 1000000000)) $((span % 1000000000)))" \
	"$(sed -n 's/^desc: Duration: //p' "$tmpdir/pipe.callgrind")"
finish
