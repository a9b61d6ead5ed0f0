#!/bin/sh
# A perf.data file read in place has its next rounds found on a second
# thread (read.c's scout) when it is large, or with --threads=N on any
# file: what it gives must be what one thread gives, byte for byte, and
# so must its warnings and exit code. These recordings have several
# rounds (FINISHED_ROUND records), so the scout hands some over: the
# dwarf ones, blocking's switch events, zstd's compressed records (where
# it stops at once), and cxx-dwarf cut short in the middle.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-data
plan 12

# both NAME OPTIONS...: --threads=2 against --threads=1
both() {
	name=$1
	shift
	profkit-convert --threads=1 "$@" >"$tmpdir/one" 2>"$tmpdir/one.err"
	one=$?
	profkit-convert --threads=2 "$@" >"$tmpdir/two" 2>"$tmpdir/two.err"
	two=$?
	if [ -s "$tmpdir/one" ] && [ $one = $two ] &&
	   cmp -s "$tmpdir/one" "$tmpdir/two" &&
	   cmp -s "$tmpdir/one.err" "$tmpdir/two.err"; then
		pass "$name"
	else
		fail "$name (exit $one and $two)"
		diff "$tmpdir/one" "$tmpdir/two" | diag_file /dev/stdin
		diff "$tmpdir/one.err" "$tmpdir/two.err" | diag_file /dev/stdin
	fi
}

for name in c-dwarf cxx-dwarf cxx-dwarf-threads rusty-v0-dwarf blocking; do
	both "$name: every sample in the same order" \
		--no-symbolize --to=perf-script $d/$name.perf.data
done
both "cxx-dwarf: folded, unwound" --no-symbolize --to=folded $d/cxx-dwarf.perf.data
both "blocking: off-CPU time" --no-symbolize --event=off-cpu --to=folded \
	$d/blocking.perf.data
both "blocking: wall-clock time" --no-symbolize --event=wall --to=folded \
	$d/blocking.perf.data
both "blocking-a (system-wide): off-CPU time" --no-symbolize --event=off-cpu \
	--to=folded $d/blocking-a.perf.data
if profkit-convert -q --no-symbolize --to=folded $d/zstd.perf.data >/dev/null 2>&1; then
	both "zstd: compressed records" --no-symbolize --to=perf-script $d/zstd.perf.data
else
	# required in CI: bootstrap installs libzstd-dev
	skip "zstd: compressed records" "built without libzstd"
fi

# cut in its third round: the same records whole, the same warning
size=$(wc -c <$d/cxx-dwarf.perf.data)
head -c $((size * 2 / 3)) $d/cxx-dwarf.perf.data >"$tmpdir/cut.perf.data"
both "cxx-dwarf cut short: the same samples and warning" \
	--no-symbolize --to=perf-script "$tmpdir/cut.perf.data"
both "cxx-dwarf cut short, folded" --no-symbolize --to=folded "$tmpdir/cut.perf.data"
