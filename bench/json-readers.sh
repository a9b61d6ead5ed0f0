#!/bin/sh
# The JSON readers (issue 28: each at least 200 MB/s) on large inputs
# grown from real small ones in testdata/ by bench/grow-json.py:
#
#   V8 .cpuprofile -> folded         v8/shape.cpuprofile (node --cpu-prof),
#                                    its samples and deltas repeated
#   speedscope -> folded             speedscope/threads.speedscope.json (a
#                                    perf recording), its samples repeated
#   speedscope py-spy -> folded      the same with the frames after the
#                                    profiles, as py-spy writes them
#   speedscope evented -> folded     speedscope/threads.evented.speedscope.json,
#                                    its events repeated later in time
#
# The reference is the script the tests check the reader against
# (tests/v8-folded.py, tests/speedscope-folded.py: python3's json.load
# and a fold, a floor for a tool that does the same), run once; their
# outputs must be the same. A second row sets the same time beside node's
# JSON.parse alone, the least any JavaScript tool (DevTools, speedscope)
# spends on the file. A reference not at hand prints "n/a".
#
#   bench/json-readers.sh [SIZE-MB]   (default 100; from a built tree;
#                                      REPEAT=3, the best run counts)
# bench/all.sh sources it (json_reader_rows SIZE-MB) for its table.

# json_row CASE FILE OUR-OPTION SCRIPT SCRIPT-OPTION...: a reader's rows,
# profkit-convert --to=folded OUR-OPTION against SCRIPT (tests/)
json_row() {
	name=$1 input=$2 option=$3 script=$4
	shift 4
	bytes=$(stat -c %s "$input")
	cat "$input" >/dev/null	# the page cache warm for all
	ours=$(best "$tmp/ours.folded" "$convert" -q --to=folded $option "$input")
	theirs="n/a n/a" parse="n/a n/a"
	if command -v python3 >/dev/null 2>&1; then
		theirs=$(repeat=1 best "$tmp/theirs.folded" python3 "$top/tests/$script" \
			"$@" "$input")
		LC_ALL=C sort -o "$tmp/ours.folded" "$tmp/ours.folded"
		cmp -s "$tmp/ours.folded" "$tmp/theirs.folded" ||
			{ echo "$name: the output differs from $script's" >&2
			  failed=$((failed + 1)); }
	fi
	command -v node >/dev/null 2>&1 &&
		parse=$(best /dev/null node --max-old-space-size=8192 -e \
			'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$input")
	row "$name" "$bytes" "$ours" "python3 fold" "$theirs" - 200 -
	row "  the same, vs JSON.parse" "$bytes" "$ours" "node" "$parse" - - -
}

# json_reader_rows MB: the readers' rows, on inputs of about MB megabytes
json_reader_rows() {
	for kind in v8 sampled frames-last evented; do
		case $kind in
		v8) seed=v8/shape.cpuprofile name="V8 .cpuprofile -> folded" ;;
		evented) seed=speedscope/threads.evented.speedscope.json
			name="speedscope evented -> folded" ;;
		sampled) seed=speedscope/threads.speedscope.json
			name="speedscope -> folded" ;;
		frames-last) seed=speedscope/threads.speedscope.json
			name="speedscope py-spy -> folded" ;;
		esac
		if ! python3 "$top/bench/grow-json.py" $kind "$top/testdata/$seed" "$1" \
			"$tmp/big.json"; then
			row "$name" 0 "n/a n/a" "python3 fold" "n/a n/a" - 200 -
			continue
		fi
		if [ $kind = v8 ]; then
			json_row "$name" "$tmp/big.json" --value=samples v8-folded.py
		else
			json_row "$name" "$tmp/big.json" "" speedscope-folded.py --folded
		fi
		rm -f "$tmp/big.json"
	done
}

if [ -z "${bench_sourced:-}" ]; then
	set -eu
	top=$(cd "$(dirname "$0")/.." && pwd)
	. "$top/bench/bench-subr.sh"
	bench_alone json_reader_rows "${1:-100}"
fi
