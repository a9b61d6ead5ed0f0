#!/bin/sh
# Run every fuzzer (or the named ones) for SECONDS each (default 60),
# seeded from testdata/; findings go to fuzz/work/findings/READER/.
# Each says how many inputs it ran and how many a second (exec/s).
# Exit 1 when any fuzzer found one.
#   fuzz/run.sh [SECONDS [READER...]]    (after 'make fuzz', from the build dir)
set -u
seconds=${1:-60}
[ $# -gt 0 ] && shift
only=" $* "
src=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$(pwd)}
status=0
# leaks inside the libraries we call are theirs (fuzz/lsan.supp says which)
LSAN_OPTIONS="suppressions=$src/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
for bin in "$build"/fuzz/bin/fuzz-*; do
	[ -x "$bin" ] || continue
	reader=${bin##*/fuzz-}
	case $only in "  ") ;; *" $reader "*) ;; *) continue ;; esac
	corpus=$build/fuzz/work/corpus/$reader
	findings=$build/fuzz/work/findings/$reader
	mkdir -p "$corpus" "$findings"
	# seeds: this reader's own test inputs, small ones only
	for seed in $(sh "$src/fuzz/seeds.sh" "$src" "$reader"); do
		cp -n "$seed" "$corpus/" 2>/dev/null || true
	done
	echo "fuzzing $reader for ${seconds}s"
	# inputs up to 64 KiB (longer seeds are cut there: their ends still
	# reach the readers' checks of cut input), and no rereading of the
	# corpus, which only parallel jobs fill: a few hundred runs a second
	if ! "$bin" -max_total_time="$seconds" -max_len=65536 -reload=0 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$findings/" -print_final_stats=1 \
		"$corpus" >"$build/fuzz/work/$reader.log" 2>&1; then
		echo "FINDING in $reader: see $findings and $build/fuzz/work/$reader.log"
		status=1
	fi
	# one line a harness: how many inputs it ran, how fast, what was new
	awk -v reader="$reader" '$1 == "stat::number_of_executed_units:" { runs = $2 }
		$1 == "stat::average_exec_per_sec:" { rate = $2 }
		$1 == "stat::new_units_added:" { added = $2 }
		END { printf "  %s: %d inputs, %d exec/s, %d new\n", reader, runs, rate, added }' \
		"$build/fuzz/work/$reader.log"
done
exit $status
