#!/bin/sh
# Stack text read in parts on several threads (--threads) gives what one
# stream gives: a file is read from memory and cut where the format says
# a record starts, a pipe is read line by line, and folded, pprof and
# speedscope output (strings, stacks and samples in the same order;
# speedscope's every sample in input order) and every message, with its absolute line number, must be the same byte for
# byte. Inputs: each format's testdata repeated until it is cut in
# several places, pmcstat's parts starting far from the event line
# that names their counts (or before any, or after one that is not),
# bad lines and a count too large deep in a later part, CRLF, and a text
# large enough to be split without --threads. A file's stacks seen before
# are remembered whole, a pipe's parsed line by line: the same again, and
# a count too large after a stack remembered is named by its line.
. "${top_srcdir:-.}/tests/test-subr.sh"

# grow FILE TIMES: FILE again and again
grow() {
	i=0
	while [ $i -lt "$2" ]; do
		cat "$1"
		i=$((i + 1))
	done
}

mkdir "$tmpdir/in"
set --
for f in testdata/dtrace/*.txt testdata/bpftrace/*.txt testdata/systemtap/*.txt \
	 testdata/pmcstat/*.txt testdata/eu-stack/*.txt testdata/gdb/*.txt \
	 testdata/jstack/*.txt testdata/java-exceptions/*.txt; do
	format=$(basename "$(dirname "$f")")
	out=$tmpdir/in/$format-$(basename "$f")
	grow "$f" 40 >"$out"
	set -- "$@" "$out:$format"
done
# bad lines in several parts: more than the warnings told
b=testdata/bpftrace/threads.txt
i=0
while [ $i -lt 40 ]; do
	cat $b
	i=$((i + 1))
	[ $((i % 5)) = 0 ] && printf '@[\nbad line %d\n' $i
done >"$tmpdir/in/bpftrace-bad.txt"
# a count too large deep in the text, an error of the part it is in
for format in dtrace systemtap; do
	{ grow testdata/$format/stacks.txt 30
	  printf '              a.out`main+0x1\n              99999999999999999999999\n'
	  grow testdata/$format/stacks.txt 10; } >"$tmpdir/in/$format-too-large.txt"
done
# a stack read many times before (remembered whole, not parsed again),
# then once more with a count too large: the error names its line
for format in dtrace systemtap; do
	{ grow testdata/$format/stacks.txt 30
	  # the seed's second stack, its count too large
	  awk '/^[ \t]*[0-9]+$/ { if (++n == 2) { print "  99999999999999999999999"; exit } }
	       n == 1 && !/^[ \t]*[0-9]+$/' testdata/$format/stacks.txt
	  grow testdata/$format/stacks.txt 10; } >"$tmpdir/in/$format-known-too-large.txt"
done
# a stack key read many times before, its entry then cut short: its
# frames (pushed whole) are dropped with the entry, as held ones are
{ grow $b 20
  awk '/^@\[/ { n++ } n == 1 && /^[ \t]/ { print } n == 1 && /^@\[/ { print }' $b
  echo ', key cut short'
  grow $b 20; } >"$tmpdir/in/bpftrace-cut-known.txt"
sed 's/$/\r/' "$tmpdir/in/gdb-cxx-threads.txt" >"$tmpdir/in/gdb-crlf.txt"
set -- "$@" "$tmpdir/in/bpftrace-bad.txt:bpftrace" "$tmpdir/in/gdb-crlf.txt:gdb" \
	"$tmpdir/in/bpftrace-cut-known.txt:bpftrace" \
	"$tmpdir/in/dtrace-too-large.txt:dtrace" \
	"$tmpdir/in/systemtap-too-large.txt:systemtap"

# pmcstat trees before any event line, an event line that is none, a
# node deeper than its line allows
p=testdata/pmcstat/callgraph.txt
grep -v '^@' $p >"$tmpdir/trees"
{ grow "$tmpdir/trees" 10
  grow $p 10
  echo '@ no event: no samples count'
  grow "$tmpdir/trees" 10
  echo '     100.0%  [2]     too_deep'
  grow $p 10; } >"$tmpdir/in/pmcstat-events.txt"
sed 's/$/\r/' "$tmpdir/in/pmcstat-events.txt" >"$tmpdir/in/pmcstat-crlf.txt"
set -- "$@" "$tmpdir/in/pmcstat-events.txt:pmcstat" "$tmpdir/in/pmcstat-crlf.txt:pmcstat"

plan $(($# + 5))
for f; do
	same_as_stream "$(basename "${f%:*}")" "${f%:*}" "folded pprof speedscope" --from="${f##*:}"
done

# the line numbers are the file's, not a part's
in=$tmpdir/in/bpftrace-bad.txt
line=$(grep -n '^bad line 25$' "$in" | cut -d: -f1)
profkit-convert --threads=7 --to=folded "$in" 2>"$tmpdir/err" >/dev/null
if grep -q -F "bpftrace-bad.txt: line $line: not a bpftrace map key: 'bad line 25'" \
	"$tmpdir/err" && grep -q -F "bpftrace-bad.txt: 8 lines skipped in all" "$tmpdir/err"; then
	pass "a skipped line of a later part named by its line in the file"
else
	fail "a skipped line of a later part named by its line in the file ($line)"
	diag_file "$tmpdir/err"
fi
# too_large NAME WHAT: the count too large in input NAME named by its
# line in the file, exit 1
too_large() {
	in=$tmpdir/in/$1
	line=$(grep -n '99999999999999999999999' "$in" | cut -d: -f1)
	profkit-convert --threads=7 --to=folded "$in" 2>"$tmpdir/err" >/dev/null
	testrun_status=$?
	if [ $testrun_status = 1 ] &&
	   grep -q -F "$1: line $line: count too large" "$tmpdir/err"; then
		pass "$2: its line in the file, exit 1"
	else
		fail "$2: its line in the file ($line), exit 1"
		diag_file "$tmpdir/err"
	fi
}
too_large dtrace-too-large.txt "a count too large in a later part"
for format in dtrace systemtap; do
	too_large $format-known-too-large.txt "$format: a count too large after a stack remembered"
done

# 10 MB: split without --threads on a machine of two cores or more
grow testdata/jstack/stacks.txt 7600 >"$tmpdir/in/large.txt"
cat "$tmpdir/in/large.txt" | profkit-convert --to=pprof --no-gzip >"$tmpdir/want"
profkit-convert --to=pprof --no-gzip "$tmpdir/in/large.txt" >"$tmpdir/got"
same_output "10 MB: as from one stream, split by default" "$tmpdir/want" "$tmpdir/got"
finish
