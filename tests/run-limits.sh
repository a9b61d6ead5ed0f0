#!/bin/sh
# Bounded work on hostile input: --max-stack keeps the leaf side of deeper
# stacks (as perf script --max-stack does) with one warning, whichever
# reader; --max-memory makes an input too big for it fail with exit 1.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 10
d=testdata/perf-data

# perf's own cut of a recording's callchains, and ours of the same file
root=$tmpdir/root
mkdir -p "$root/tmp/rec" "$tmpdir/home"
ln -s "$(pwd)/testdata/bin/c-fp" "$root/tmp/rec/c-fp"
if ! command -v perf >/dev/null; then
	skip "c-fp.perf.data --max-stack=4: as perf script --max-stack=4" "no perf (linux-perf)"
else
	HOME=$tmpdir/home perf script --max-stack=4 --symfs="$root" --kallsyms=$d/kallsyms \
		-i $d/c-fp.perf.data 2>/dev/null | profkit-convert -q --to=folded >"$tmpdir/theirs"
	HOME=$tmpdir/home profkit-convert -q --max-stack=4 --symfs="$root" --kallsyms=$d/kallsyms \
		--to=folded $d/c-fp.perf.data >"$tmpdir/ours"
	same_output "c-fp.perf.data --max-stack=4: as perf script --max-stack=4" \
		"$tmpdir/theirs" "$tmpdir/ours"
fi

# folded stacks are root first: the cut keeps their ends
printf 'a;b;c;d 3\nx;y 2\n' >"$tmpdir/small.folded"
printf 'c;d 3\nx;y 2\n' >"$tmpdir/want"
testrun_compare "folded --max-stack=2: the two leaf-side frames" "$tmpdir/want" \
	profkit-convert --max-stack=2 --to=folded "$tmpdir/small.folded"
grep -q "small.folded: 1 stack was deeper than 2 frames: cut to their 2 leaf-side frames (see --max-stack)" \
	"$tmpdir/err" && pass "one warning says how many stacks were cut" ||
	{ fail "one warning says how many stacks were cut"; diag_file "$tmpdir/err"; }

# perf script lists the leaf first; its reader stops collecting past the cut
printf 'x 1 1.0: 1 cpu-clock:\n\t1 a (/b)\n\t2 b (/b)\n\t3 c (/b)\n\n' >"$tmpdir/small.txt"
echo "x;b;a 1" >"$tmpdir/want"
testrun_compare "perf script --max-stack=2: the two leaf-side frames" "$tmpdir/want" \
	profkit-convert -q --max-stack=2 --to=folded "$tmpdir/small.txt"

# the default: 4096 frames of a 5000-frame stack, f904 to f4999
seq 0 4999 | sed 's/^/f/' | paste -sd';' | sed 's/$/ 1/' >"$tmpdir/deep.folded"
seq 904 4999 | sed 's/^/f/' | paste -sd';' | sed 's/$/ 1/' >"$tmpdir/want"
testrun_compare "a 5000-frame stack keeps 4096 frames by default" "$tmpdir/want" \
	profkit-convert --from=folded --to=folded "$tmpdir/deep.folded"

# pprof is leaf first: its reader reads no more ids than it keeps
profkit-convert --from=folded --max-stack=10000 --to=pprof -o "$tmpdir/deep.pb.gz" "$tmpdir/deep.folded"
echo "f4997;f4998;f4999 1" >"$tmpdir/want"
testrun_compare "pprof --max-stack=3: the three leaf-side frames" "$tmpdir/want" \
	profkit-convert -q --max-stack=3 --to=folded "$tmpdir/deep.pb.gz"
testrun_status "--max-stack takes a whole number from 1" 2 "max-stack: '0' is not a whole number" \
	profkit-convert --max-stack=0 --to=folded "$tmpdir/small.folded"

# 20000 distinct stacks need more than 1 MiB: exit 1, the input named,
# and the option that raises the limit
seq 1 20000 | sed 's/.*/main;work&;leaf& 1/' >"$tmpdir/wide.folded"
testrun_fails "--max-memory=1M: a bigger input fails with exit 1" 1 \
	"^profkit-convert: $tmpdir/wide.folded: the profile needs more than the memory limit of 1 MiB (see --max-memory)" \
	profkit-convert --max-memory=1M --to=pprof -o "$outdir/out.pb.gz" "$tmpdir/wide.folded"
testrun_status "--max-memory=64M: it fits" 0 "" \
	sh -c "profkit-convert --max-memory=64M --to=pprof -o '$tmpdir/wide.pb.gz' '$tmpdir/wide.folded' && echo fits >&2"
# 100,000 frames of one address whose names have one length: a frame
# cache keyed by the address and length alone put them in one chain
# (40,000 took 11 s on one thread); keyed by the whole text, a blink
awk 'BEGIN { for (i = 0; i < 100000; i++)
	printf "prog 100/100 [000] 1.%06d: 1 cpu-clock:\n\t55aa f%08d (/bin/prog)\n\t55bb main (/bin/prog)\n\n", i, i }' \
	>"$tmpdir/one-address.txt"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "prog;main;f%08d 1\n", i }' >"$tmpdir/want"
testrun_compare "perf script: 100,000 frames of one address and name length, in time" "$tmpdir/want" \
	timeout 20 profkit-convert -q --threads=1 --to=folded "$tmpdir/one-address.txt"
finish
