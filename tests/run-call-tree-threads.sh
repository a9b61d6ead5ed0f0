#!/bin/sh
# Call trees (and ljp's traces) read in parts on several threads
# (--threads) give what one stream gives (same_as_stream: folded, pprof and speedscope output, the
# last with every sample in input order, and every message byte for
# byte, absolute line numbers): a part starts where a root does (a thread of
# macOS sample, a row without indentation for Instruments and VTune, a
# level-1 row for Visual Studio, a trace's count line for ljp). Inputs: each format's testdata, its
# rows again and again after one header, with what a part must not get
# wrong: nodes that leave at a part's end (Visual Studio's inclusive
# counts, macOS sample's), an error there, more bad lines than are
# warned of, a macOS call graph or ljp's traces that end before the
# text does (its text after the end read by no part), a cut last line,
# CRLF; a macOS thread's call graph met again.
. "${top_srcdir:-.}/tests/test-subr.sh"

# rows_again FILE HEADER-LINES TIMES: FILE's header once, then its rows
# TIMES times
rows_again() {
	head -n "$2" "$1"
	i=0
	while [ $i -lt "$3" ]; do
		tail -n +"$(($2 + 1))" "$1"
		i=$((i + 1))
	done
}

in=$tmpdir/in
mkdir "$in"
set --
for f in testdata/instruments/*.txt; do
	rows_again "$f" 1 30 >"$in/instruments-$(basename "$f")"
	set -- "$@" "$in/instruments-$(basename "$f"):instruments"
done
rows_again testdata/vtune/demo-2013.csv 1 30 >"$in/vtune.csv"
rows_again testdata/vsprof/demo.csv 1 30 >"$in/vsprof.csv"
rows_again testdata/vsprof/viewer-inclusive.csv 1 30 >"$in/vsprof-inclusive.csv"
sed 's/$/\r/' "$in/vsprof.csv" >"$in/vsprof-crlf.csv"
set -- "$@" "$in/vtune.csv:vtune" "$in/vsprof.csv:vsprof" \
	"$in/vsprof-inclusive.csv:vsprof" "$in/vsprof-crlf.csv:vsprof"

# the inclusive counts of a root's callee above its own, at the end of
# a part: the error names the next root's line
{ rows_again testdata/vsprof/viewer-inclusive.csv 1 20
  printf '1,"a",10,10,"m"\n2,"b",20,20,"m"\n'
  rows_again testdata/vsprof/viewer-inclusive.csv 1 20 | tail -n +2; } \
	>"$in/vsprof-too-many.csv"
set -- "$@" "$in/vsprof-too-many.csv:vsprof"

# macOS sample: the call graph again and again, bad lines in it, and
# threads after its end that no reader reads
graph() {
	sed -n '/^Call graph:/,/^Total number in stack/p' "$1" | sed '1d;$d'
}
for f in testdata/macos-sample/*.txt; do
	name=macos-sample-$(basename "$f" .txt)
	{ sed -n '1,/^Call graph:/p' "$f"
	  i=0
	  while [ $i -lt 30 ]; do
		graph "$f"
		[ $((i % 4)) = 0 ] && echo "bad line $i"
		i=$((i + 1))
	  done
	  sed -n '/^Total number in stack/,$p' "$f"
	  graph "$f"
	  echo "after the end"; } >"$in/$name.txt"
	set -- "$@" "$in/$name.txt:macos-sample"
	# cut short: no end to the graph, the last line cut
	head -c $(($(wc -c <"$in/$name.txt") * 2 / 3)) "$in/$name.txt" >"$in/$name-cut.txt"
	set -- "$@" "$in/$name-cut.txt:macos-sample"
done

# macOS sample: a thread's call graph met again is added whole where the
# file is mapped (a stream reads it again), but not where it differs:
# its thread's count, its last line, a bad line inside; met below
# another thread and back
f=testdata/macos-sample/demo.txt
again=$in/macos-sample-again.txt
{ sed -n '1,/^Call graph:/p' "$f"
  graph "$f"
  graph "$f"
  graph "$f" | sed 's/^    120 Thread_1001/    130 Thread_1001/'
  graph "$f" | sed '$s/$/ x/'
  graph "$f" | sed '3a\
    +   bad line'
  graph "$f"
  graph "$f"
  graph "$f" | sed 's/Thread_100/Thread_200/'
  graph "$f"
  graph "$f" | sed 's/Thread_100/Thread_200/'
  graph "$f"
  sed -n '/^Total number in stack/,$p' "$f"; } >"$again"
set -- "$@" "$again:macos-sample"

# a line inside every thread's rows that is no thread's: no part starts
# there (one reader goes on below the thread)
{ sed -n '1,/^Call graph:/p' "$f"
  i=0
  while [ $i -lt 40 ]; do
	graph "$f" | sed '5i\
    7x not a thread'
	i=$((i + 1))
  done
  sed -n '/^Total number in stack/,$p' "$f"; } >"$in/macos-sample-not-thread.txt"
set -- "$@" "$in/macos-sample-not-thread.txt:macos-sample"

# macOS sample: a later part tells its threads' graphs apart and the
# whole reads each once, its samples its count over; a graph with a
# line its reader warns of, or a stack --max-stack cuts, is read each
# time it comes: an empty line (no warning), a line that is no thread's,
# an odd indentation, a count of 19 digits, CRLF; the text's end without
# the graph's, a count above its caller's at the end (the warning, then
# the error) and in the middle (the error names the next thread's line);
# threads that do not come again, which a later part reads itself
blocks() {
	i=0
	while [ $i -lt 40 ]; do
		case $((i % 5)) in
		1) graph "$f" | sed '3a\
' ;;
		2) [ $((i % 3)) = 0 ] && graph "$f" | sed '5i\
    7x not a thread' || graph "$f" ;;
		3) [ $((i % 4)) = 0 ] && graph "$f" | sed '11s/^/ /' ||
		   graph "$f" | sed 's/^    60 Thread_1002/    0000000000000000060 Thread_1002/' ;;
		*) graph "$f" ;;
		esac
		i=$((i + 1))
	done
}
{ sed -n '1,/^Call graph:/p' "$f"; blocks
  sed -n '/^Total number in stack/,$p' "$f"; } >"$in/macos-sample-blocks.txt"
sed 's/$/\r/' "$in/macos-sample-blocks.txt" >"$in/macos-sample-blocks-crlf.txt"
{ sed -n '1,/^Call graph:/p' "$f"; blocks
  graph "$f" | sed 's/^      60 thread_start/      70 thread_start/'; } \
	>"$in/macos-sample-blocks-above.txt"
{ sed -n '1,/^Call graph:/p' "$f"; blocks
  graph "$f" | sed 's/^    + 120 start/    + 130 start/'; blocks; } \
	>"$in/macos-sample-blocks-error.txt"
{ sed -n '1,/^Call graph:/p' "$f"
  awk 'BEGIN { for (i = 0; i < 40000; i++)
	printf "    %d Thread_%d\n    + %d run_%d  (in demo) + 4  [0x1000%d]\n", i % 7 + 1, i, i % 7 + 1, i, i }'
  sed -n '/^Total number in stack/,$p' "$f"; } >"$in/macos-sample-distinct.txt"
for name in blocks blocks-crlf blocks-above blocks-error distinct; do
	set -- "$@" "$in/macos-sample-$name.txt:macos-sample"
done

# ljp: the traces again and again, bad lines between them, and traces
# after the total that no reader reads
traces() {
	sed '/^Total /,$d' testdata/ljp/demo.txt
}
{ i=0
  while [ $i -lt 30 ]; do
	traces
	[ $((i % 4)) = 0 ] && printf 'bad line %d\n\tfoo(Foo.java:1)\n' $i
	i=$((i + 1))
  done
  sed -n '/^Total /,$p' testdata/ljp/demo.txt
  traces
  echo "after the end"; } >"$in/ljp.txt"
head -c $(($(wc -c <"$in/ljp.txt") * 2 / 3)) "$in/ljp.txt" >"$in/ljp-cut.txt"
set -- "$@" "$in/ljp.txt:ljp" "$in/ljp-cut.txt:ljp"

plan $(($# + 3))
for f; do
	same_as_stream "$(basename "${f%:*}")" "${f%:*}" "folded pprof speedscope" --from="${f##*:}"
done
# a stack cut is counted each time, in a call graph met again too
same_as_stream "macos-sample-again.txt --max-stack=3" "$again" "folded pprof" \
	--from=macos-sample --max-stack=3
same_as_stream "macos-sample-blocks.txt --max-stack=3" "$tmpdir/in/macos-sample-blocks.txt" \
	"folded pprof" --from=macos-sample --max-stack=3

# the error of a later part names its line in the file
in=$tmpdir/in/vsprof-too-many.csv
line=$(($(grep -n '^2,"b",20' "$in" | cut -d: -f1) + 1))
profkit-convert --threads=7 --to=folded "$in" 2>"$tmpdir/err" >/dev/null
testrun_status=$?
if [ $testrun_status = 1 ] && grep -q -F "vsprof-too-many.csv: line $line: callees take 20, more than their caller's 10" "$tmpdir/err"; then
	pass "an error at a later part's end: the next root's line in the file, exit 1"
else
	fail "an error at a later part's end: the next root's line ($line), exit 1"
	diag_file "$tmpdir/err"
fi
finish
