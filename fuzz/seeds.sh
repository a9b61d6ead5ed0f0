#!/bin/sh
# The seed inputs of one reader: its test files under testdata/, small ones.
src=$1
case $2 in
perf-script) ls "$src"/testdata/perf-script/*.txt ;;
folded) ls "$src"/testdata/perf-script/*.folded "$src"/testdata/folded/*.folded ;;
perf-data) ls "$src"/testdata/perf-data/*.perf.data ;;
gperftools-cpu) ls "$src"/testdata/gperftools/*.cpu ;;
gperftools-heap) ls "$src"/testdata/gperftools/*.heap "$src"/testdata/gperftools/*.growth "$src"/testdata/gperftools/*.contention "$src"/testdata/gperftools/*.mutex "$src"/testdata/gperftools/*.threads ;;
pprof) ls "$src"/testdata/pprof/*.pb* 2>/dev/null ;;
esac | while read -r f; do
	[ "$(stat -c %s "$f")" -le 2000000 ] && echo "$f"
done
