#!/bin/sh
# The stack text readers of issue 26 beside FlameGraph's collapse script
# for each (goal: at least 40x the script, as for perf script text), on
# large inputs grown from real small ones in testdata/ by
# bench/grow-stacks.pl (their functions renamed copy by copy, so that
# the stacks stay many and distinct). The scripts run from
# ../shared/reference/flamegraph/ (or $FLAMEGRAPH_DIR), as the tests run
# them (tests/run-stack-counts.sh, run-stack-dumps.sh, run-stack-exports.sh):
# VTune's with its undeclared $func declared. Our folded output must be
# the script's, summed and sorted, after the sed programs the tests use
# where doc/formats.md names the script wrong; pmcstat's input is the
# seed's INST_RETIRED_ANY event (no chain ends at an inner node, which
# the script loses), pprof -raw's locations are flat (one name each).
# GHC and xctrace have no script: MB/s only (goal 200 MB/s).
#
# Each format has two rows: the wall clock (profkit's best of REPEAT
# runs; the script's of REPEAT_SCRIPT, default 1) and the CPU time (user
# + system of the run of least CPU, in GNU time's hundredths): on a
# shared machine the second says more. A reference not at hand prints "n/a".
#
#   bench/stack-text.sh [SIZE-MB]   (default 50; from a built tree;
#                                    REPEAT=3 REPEAT_SCRIPT=1)
# bench/all.sh sources it (stack_text_rows SIZE-MB) for its table.

# FORMAT|SEED|SCRIPT|OUR-OPTIONS|SED-PROGRAM: the formats, their seeds
# in testdata/, their scripts ("-" none) and the sed program that puts
# the script's output right ("" none)
stack_text_formats() {
	cat <<'EOF'
dtrace|dtrace/stacks.txt|stackcollapse.pl||s/;libstdc+;/;libstdc++.so.6`0x7fff5fbff8a0;/;s/condition_variable::wait(std::__1::unique_lock;/condition_variable::wait;/
bpftrace|bpftrace/threads.txt|stackcollapse-bpftrace.pl||
systemtap|systemtap/stacks.txt|stackcollapse-stap.pl||s/;0x00007f3a4b2c1d35 \[\/usr\/lib64\/libc-2.17.so;/;0x00007f3a4b2c1d35;/
pmcstat|pmcstat/callgraph.txt|stackcollapse-pmc.pl||
eu-stack|eu-stack/naps.txt|stackcollapse-elfutils.pl||
gdb|gdb/naps.txt|stackcollapse-gdb.pl|--no-comm|
jstack|jstack/stacks.txt|stackcollapse-jstack.pl||
java-exceptions|java-exceptions/log.txt|stackcollapse-java-exceptions.pl||
macos-sample|macos-sample/demo.txt|stackcollapse-sample.awk||
instruments|instruments/demo.txt|stackcollapse-instruments.pl||
vtune|vtune/demo-2013.csv|stackcollapse-vtune.pl||
vsprof|vsprof/demo.csv|stackcollapse-vsprof.pl||
pprof-raw|pprof-raw/demo.txt|stackcollapse-go.pl|--no-comm --sample-type=samples|
ljp|ljp/demo.txt|stackcollapse-ljp.awk||
ghc-prof|ghc-prof/recorded-P.prof|-||
xctrace|xctrace/demo.xml|-||
EOF
}

# folded lines as flamegraph.pl reads them: summed per stack, zero
# counts dropped, sorted bytewise
folded_sums() {
	awk '{ n = $NF; s = $0; sub(/ [^ ]*$/, "", s); sum[s] += n }
	END { for (s in sum) if (sum[s] != 0) print s, sum[s] }' | LC_ALL=C sort
}

# script_command SCRIPT: the command that runs it ($flamegraph's; VTune's
# fixed in $tmp), or nothing when it is not at hand
script_command() {
	path=$flamegraph/$1
	[ -r "$path" ] || return 0
	case $1 in
	*.awk) echo "awk -f $path" ;;
	stackcollapse-vtune.pl)
		sed 's/^\t\$func = /\tmy $func = /' "$path" >"$tmp/vtune.pl"
		echo "perl $tmp/vtune.pl" ;;
	*) echo "perl $path" ;;
	esac
}

# cpu_rss OUT COMMAND...: "cpu-s peak-RSS-KiB" of cpu's run of least CPU
# (0.01 s at least: GNU time's resolution), or "n/a n/a" when it failed
cpu_rss() {
	set -- $(cpu "$@" || true)
	if [ $# -eq 3 ]; then
		at_least "$2" 0.01 && echo "$2 $3" || echo "0.01 $3"
	else
		echo "n/a n/a"
	fi
}

# stack_text_row FORMAT INPUT SCRIPT OUR-OPTIONS SED-PROGRAM: its two rows
stack_text_row() {
	format=$1 input=$2 script=$3 options=$4 fix=$5
	bytes=$(stat -c %s "$input")
	cat "$input" >/dev/null	# the page cache warm for all
	# shellcheck disable=SC2086
	ours_wall=$(best "$tmp/ours.folded" "$convert" -q --to=folded $options "$input")
	# shellcheck disable=SC2086
	ours_cpu=$(cpu_rss /dev/null "$convert" -q --to=folded $options "$input")
	theirs_wall="n/a n/a" theirs_cpu="n/a n/a" ref=n/a goal_x=- goal_mbs=200
	command=
	[ "$script" = - ] || command=$(script_command "$script")
	if [ -n "$command" ]; then
		ref=${script#stackcollapse}
		ref=${ref#-}
		ref=${ref%.*}
		ref=${ref:-dtrace}
		goal_x=40 goal_mbs=-
		# shellcheck disable=SC2086
		theirs_wall=$(repeat=${REPEAT_SCRIPT:-1} best "$tmp/theirs.folded" $command "$input")
		# shellcheck disable=SC2086
		theirs_cpu=$(repeat=${REPEAT_SCRIPT:-1} cpu_rss /dev/null $command "$input")
		sed "${fix:-p;d}" "$tmp/theirs.folded" | folded_sums >"$tmp/theirs.sums"
		folded_sums <"$tmp/ours.folded" >"$tmp/ours.sums"
		cmp -s "$tmp/ours.sums" "$tmp/theirs.sums" ||
			{ echo "$format: the output differs from $script's" >&2
			  failed=$((failed + 1)); }
	fi
	row "$format -> folded" "$bytes" "$ours_wall" "$ref" "$theirs_wall" "$goal_x" "$goal_mbs" -
	row "  the same, CPU time" "$bytes" "$ours_cpu" "$ref" "$theirs_cpu" - - -
}

# stack_text_rows MB: the readers' rows, on inputs of about MB megabytes
stack_text_rows() {
	flamegraph=${FLAMEGRAPH_DIR:-$top/../shared/reference/flamegraph}
	stack_text_formats | while IFS='|' read -r format seed script options fix; do
		seed=$top/testdata/$seed
		if [ "$format" = pmcstat ]; then
			awk '/^@ / { keep = ($2 == "INST_RETIRED_ANY") } keep' "$seed" >"$tmp/seed"
			seed=$tmp/seed
		fi
		if perl "$top/bench/grow-stacks.pl" "$format" "$seed" "$1" "$tmp/big"; then
			stack_text_row "$format" "$tmp/big" "$script" "$options" "$fix"
		else
			row "$format -> folded" 0 "n/a n/a" - "n/a n/a" - - -
			failed=$((failed + 1))
		fi
		rm -f "$tmp/big" "$tmp/ours.folded" "$tmp/theirs.folded"
		echo "failed=$failed" >"$tmp/failed"
	done
	# the loop ran in a subshell (a pipe)
	. "$tmp/failed"
}

if [ -z "${bench_sourced:-}" ]; then
	set -eu
	top=$(cd "$(dirname "$0")/.." && pwd)
	. "$top/bench/bench-subr.sh"
	bench_alone stack_text_rows "${1:-50}"
fi
