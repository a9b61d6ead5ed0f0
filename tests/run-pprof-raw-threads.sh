#!/bin/sh
# pprof -raw text read from memory, its locations and mappings on a
# helper thread while the samples are read (--threads), gives what
# reading it as a stream gives: every output and message byte for byte,
# also where the helper fails and the reader of the samples reads the
# rest itself: a bad location, mapping or sample line (the first in the
# text named), a "Locations" line before or after the one the helper
# starts at, locations out of order, CRLF, a last line cut off.
. "${top_srcdir:-.}/tests/test-subr.sh"

mkdir "$tmpdir/in"
d=testdata/pprof-raw
in=$tmpdir/in
sed 's/^\(     6: .*\) s=58$/\1/' $d/demo.txt >"$in/bad-location.txt"
sed 's|^2: 0x7f0012340000/|2: 0x7f0012340000|' $d/demo.txt >"$in/bad-mapping.txt"
sed 's/ M=2 / M=3 /' $d/demo.txt >"$in/unknown-mapping.txt"
sed 's/: 7 3 $/: 7 x 3/' "$in/bad-location.txt" >"$in/bad-sample-and-location.txt"
sed 's/^                tid:\[4243\]$/Locations/' $d/demo.txt >"$in/locations-early.txt"
sed 's/^     7: 0x401210 M=1 ??$/Locations/' $d/demo.txt >"$in/locations-twice.txt"
sed '/^     1: /{h;d};/^     7: /G' $d/demo.txt >"$in/out-of-order.txt"
sed 's/$/\r/' $d/repeats.txt >"$in/crlf.txt"
head -c -20 $d/demo.txt >"$in/cut.txt"
# 1 MB of distinct samples, as the bench grows them
perl bench/grow-stacks.pl pprof-raw $d/demo.txt 1 "$in/grown.txt"
# its samples three times: more samples than locations, the last share
# of them read by the helper; that share with a label new to it (its
# string comes after the others), a sample of one line of labels, a bad
# line of labels (read by the other reader: its line named), a bad
# sample, a "Locations" line before the last
g=$in/grown.txt
samples=$(grep -n '^Samples:' "$g" | cut -d: -f1)
locations=$(grep -n '^Locations' "$g" | cut -d: -f1)
{ head -n $((samples + 1)) "$g"
  for i in 1 2 3; do sed -n "$((samples + 2)),$((locations - 1))p" "$g"; done
  tail -n +"$locations" "$g"; } >"$in/many-samples.txt"
m=$in/many-samples.txt
last=$(($(grep -n '^Locations' "$m" | cut -d: -f1) - 1))
sed "$((last - 1))s/comm:\[demo\]/comm:[other]/" "$m" >"$in/share-new-label.txt"
sed "${last}d" "$m" >"$in/share-one-label-line.txt"
sed "${last}s/tid:\[/tid:/" "$m" >"$in/share-bad-label.txt"
sed "$((last - 2))s/: \([0-9]*\) /: \1 x /" "$m" >"$in/share-bad-sample.txt"
sed "$((last - 30))s/.*/Locations/" "$m" >"$in/share-locations-early.txt"
# an unknown location in the second half of the samples, whose stacks
# are found on a thread of each half, and in both halves
sed "$((last - 2))s/: \([0-9]*\) /: 99999999 /" "$m" >"$in/unknown-location-late.txt"
sed "1000s/^\( *[0-9]* *[0-9]*\): \([0-9]*\) /\1: 99999998 /" "$in/unknown-location-late.txt" \
	>"$in/unknown-location-both.txt"

set -- $d/demo.txt $d/goroutines.txt $d/repeats.txt $d/repeats-bad-location.txt \
	"$in"/*.txt
plan $(($# + 1))
for f; do
	same_as_stream "$(basename "$f")" "$f" "folded pprof speedscope firefox"
done
# stacks cut (--max-stack): counted one by one
same_as_stream "many-samples.txt --max-stack=2" "$m" "folded pprof" --max-stack=2
finish
