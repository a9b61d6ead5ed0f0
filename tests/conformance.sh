#!/bin/sh
# The conformance suite: real inputs nobody here wrote, with the reference
# tools' reading of each, in ../shared/conformance. Prints one line and
# succeeds when that folder is absent.
#
#   tests/conformance.sh CONFORMANCE-DIR BUILD-DIR
set -u
dir=$1
build=$2
if [ ! -d "$dir" ]; then
	echo "check-conformance: skipped, no conformance inputs at $dir"
	exit 0
fi
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
PATH="$build/cmd:$PATH"
export LC_ALL=C PATH
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0

# perf script -> folded, against stackcollapse-perf.pl in every mode. Where
# the perl script is wrong (doc/formats.md) the difference is recorded in
# tests/conformance/perf-script.diff; any other difference fails.
: >"$tmp/diff"
for input in "$dir"/perf-script/*.txt; do
	name=$(basename "$input" .txt)
	for mode in pid tid kernel jit all addrs; do
		expected="$dir/perf-script/results/$name-collapsed-$mode.txt"
		[ -f "$expected" ] || continue
		if ! profkit-convert -q --to=folded --"$mode" "$input" >"$tmp/out" 2>"$tmp/err"; then
			echo "FAIL perf-script $name --$mode: $(cat "$tmp/err")"
			failed=$((failed + 1))
			continue
		fi
		diff "$expected" "$tmp/out" | grep '^[<>]' | sed "s|^|$name $mode: |" >>"$tmp/diff"
		passed=$((passed + 1))
	done
done
if cmp -s "$top_srcdir/tests/conformance/perf-script.diff" "$tmp/diff"; then
	echo "ok perf-script: $passed inputs x modes as stackcollapse-perf.pl, known differences only"
else
	echo "FAIL perf-script: differences from stackcollapse-perf.pl changed:"
	diff "$top_srcdir/tests/conformance/perf-script.diff" "$tmp/diff" | cut -c1-200 | head -20
	failed=$((failed + 1))
fi

# The probe matrix: each input here is claimed by its own reader alone.
probe=$build/tests/t-probe
if [ ! -x "$probe" ]; then
	echo "skip probe matrix: tests/t-probe is not built (make check builds it)"
elif "$probe" --conformance "$dir" >"$tmp/probe" 2>&1; then
	echo "ok probe matrix: $(sed -n 's/^ok [0-9]* - \([0-9]* files\) of .* probed$/\1/p' "$tmp/probe"), each its own reader's alone or, not a profile, no reader's"
	passed=$((passed + 1))
else
	echo "FAIL probe matrix:"
	grep -v '^ok' "$tmp/probe" | head -20
	failed=$((failed + 1))
fi

# Other formats bring their own scripts.
for part in "$top_srcdir"/tests/conformance-*.sh; do
	[ -f "$part" ] || continue
	if top_srcdir=$top_srcdir top_builddir=$build CONFORMANCE_DIR=$dir sh "$part"; then
		passed=$((passed + 1))
	else
		echo "FAIL $(basename "$part")"
		failed=$((failed + 1))
	fi
done

echo "check-conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
