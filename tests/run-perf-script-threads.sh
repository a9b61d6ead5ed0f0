#!/bin/sh
# perf script text read in parts on several threads (--threads) gives
# what one thread gives: a file is read from memory and cut at record
# boundaries, a pipe is read as a stream, and every output (strings,
# stacks and samples in the same order) and every warning must be the
# same byte for byte. Inputs: every perf script text in testdata, perf's
# text of the recordings with other field sets (-F, -G, which change
# where records end), damaged text (bad lines in several parts, CRLF, a
# last line cut off), records without empty lines between them, and a
# text large enough that --threads is not
# needed to split it.
. "${top_srcdir:-.}/tests/test-subr.sh"

mkdir "$tmpdir/in" "$tmpdir/home"
set -- testdata/perf-script/*.txt testdata/perf-data/*.txt
# perf's text with other field sets, where records end otherwise
if command -v perf >/dev/null 2>&1; then
	for f in "-F ip,sym" "-F comm,tid,ip,sym,srcline" "-F ip,sym,dso,brstack" \
		 "-F period,ip,sym" "-G -F comm,tid,ip,sym" "-F comm,pid,tid,time,event,trace,ip,sym"; do
		for rec in c-fp multi tp-fields; do
			out=$tmpdir/in/$rec$(echo "$f" | tr -d ' ,').txt
			HOME=$tmpdir/home perf script $f -i testdata/perf-data/$rec.perf.data \
				--kallsyms=testdata/perf-data/kallsyms >"$out" 2>/dev/null
			[ -s "$out" ] && set -- "$@" "$out"
		done
	done
elif tools_required; then
	echo "Bail out! perf is required"
	exit 1
fi
s=testdata/perf-script
{ cat $s/c-fp.txt; echo "bad 1"; cat $s/threads.txt; echo "bad 2"; echo "bad 3"
  cat $s/c-fp.txt; echo "bad 4"; echo "bad 5"; echo "bad 6"; cat $s/multi.txt
  echo "bad 7"; } >"$tmpdir/in/bad-lines.txt"
sed 's/$/\r/' $s/threads.txt >"$tmpdir/in/crlf.txt"
head -c 200000 $s/c-fp.txt >"$tmpdir/in/cut.txt"
{ echo "# hostname : a"; cat $s/c-fp.txt; echo "# hostname : b"; cat $s/threads.txt
  echo "# cmdline : x y"; } >"$tmpdir/in/comments.txt"
# callchains without the empty lines between records
grep -v '^$' $s/threads.txt >"$tmpdir/in/no-empty-lines.txt"
# 16 MB, a bad line after every 800 KB: cut into parts of 2 MiB or
# more, more parts than threads, the warnings of the few in many parts
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	cat $s/c-fp.txt $s/threads.txt $s/tp-fields.txt $s/cxx-dwarf.txt
	echo "bad $i"
done >"$tmpdir/in/large-bad-lines.txt"
set -- "$@" "$tmpdir/in/large-bad-lines.txt"
set -- "$@" "$tmpdir/in/bad-lines.txt" "$tmpdir/in/crlf.txt" "$tmpdir/in/cut.txt" \
	"$tmpdir/in/comments.txt" "$tmpdir/in/no-empty-lines.txt"

plan $(($# + 1))
for f; do
	same_as_stream "$(basename "$f")" "$f" "folded pprof perf-script" --no-symbolize
done

# 10 MB: split without --threads on a machine of two cores or more
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	cat $s/c-fp.txt $s/threads.txt $s/tp-fields.txt $s/cxx-dwarf.txt
done >"$tmpdir/in/large.txt"
cat "$tmpdir/in/large.txt" | profkit-convert --to=pprof --no-gzip >"$tmpdir/want"
profkit-convert --to=pprof --no-gzip "$tmpdir/in/large.txt" >"$tmpdir/got"
same_output "10 MB: as from one stream, split by default" "$tmpdir/want" "$tmpdir/got"
finish
