#!/bin/sh
# Folded stacks read in parts on several threads (--threads) give what
# one stream gives: folded and pprof output (strings, stacks and samples
# in the same order) and every message, with its absolute line number,
# byte for byte. A later part leaves to the whole, which reads it after
# the parts before, the lines whose counts depend on the counts before
# them: decimals, counts too large for some scale, difffolded's two
# columns. Inputs: the perf-script testdata's folded stacks repeated
# until cut in several places, with bad lines, comments, blank lines,
# decimals and large counts deep in later parts, CRLF, two columns, and
# a text large enough to be split without --threads. Then folding itself
# on two threads.
. "${top_srcdir:-.}/tests/test-subr.sh"

# grow FILE TIMES: FILE again and again
grow() {
	for _ in $(seq "$2"); do cat "$1"; done
}

mkdir "$tmpdir/in"
cat testdata/perf-script/*.folded >"$tmpdir/one.folded"
grow "$tmpdir/one.folded" 20 >"$tmpdir/in/plain.folded"
# bad lines in several parts: more than the warnings told; comments and
# blank lines are no bad lines
i=0
while [ $i -lt 20 ]; do
	cat "$tmpdir/one.folded"
	i=$((i + 1))
	[ $((i % 3)) = 0 ] && printf 'bad %d line\n# comment\n\n  \n' $i
done >"$tmpdir/in/bad.folded"
# decimals first met in a later part; a count too large at the finer
# scale after them
{ grow "$tmpdir/one.folded" 12
  printf 'main;work;hot 0.25\n'
  grow "$tmpdir/one.folded" 8; } >"$tmpdir/in/decimals.folded"
{ printf 'main;work 0.5\n'
  grow "$tmpdir/one.folded" 12
  printf 'main;huge 999999999999999999\n'
  grow "$tmpdir/one.folded" 8; } >"$tmpdir/in/too-large.folded"
{ grow "$tmpdir/one.folded" 12
  printf 'main;huge 9999999999999999\n'
  grow "$tmpdir/one.folded" 8; } >"$tmpdir/in/large.folded"
sed 's/$/\r/' "$tmpdir/in/bad.folded" >"$tmpdir/in/crlf.folded"
# difffolded's two columns, and lines of one among them
awk '{ print $0, NR % 7; if (NR % 5000 == 0) print "a;b 1" }' \
	"$tmpdir/in/plain.folded" >"$tmpdir/in/diff.folded"

plan 11
for f in plain bad decimals too-large large crlf diff; do
	same_as_stream "$f" "$tmpdir/in/$f.folded" "folded pprof" --from=folded
done

# 10 MB: split without --threads on a machine of two cores or more
grow "$tmpdir/one.folded" 500 >"$tmpdir/in/big.folded"
cat "$tmpdir/in/big.folded" | profkit-convert --to=pprof --no-gzip >"$tmpdir/want"
profkit-convert --to=pprof --no-gzip "$tmpdir/in/big.folded" >"$tmpdir/got"
same_output "10 MB: as from one stream, split by default" "$tmpdir/want" "$tmpdir/got"

# Folding many samples (3,000 stacks: two threads on two cores) whose
# lines share long roots, begin one another and first differ in bytes
# around ';' (sorted bytewise), and stacks that fold alike (f(int) and
# f(char); two threads without --no-comm's root), summed into one line
# also when each half of the samples has one. perl prints the lines
# expected, with and without the thread.
perl - "$tmpdir/many.txt" "$tmpdir/many.folded" "$tmpdir/many.no-comm" <<'EOF'
use strict;
use warnings;
my ($text, $with, $without) = @ARGV;
my @names = qw(a ab a.b a_b A f(int) f(char) g z);
my $seed = 1;
sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return ($seed >> 16) % $_[0]; }
my (%with, %without);
open(my $t, '>', $text) or die;
for my $i (1 .. 3000) {
	my $comm = rnd(2) ? 'p' : 'q';
	my @stack = map { $names[rnd(scalar @names)] } 1 .. 1 + rnd(6);
	printf $t "%s  1  %d.000001:          1 cpu-clock: \n", $comm, $i;
	printf $t "\t%x %s+0x0 (/x)\n", 0x1000 + $_, $stack[-1 - $_] for 0 .. $#stack;
	print $t "\n";
	my $line = join(';', map { s/\(.*//r } @stack);
	$with{"$comm;$line"}++;
	$without{$line}++;
}
close($t);
for ([$with, \%with], [$without, \%without]) {
	my ($file, $sums) = @$_;
	open(my $f, '>', $file) or die;
	print $f "$_ $sums->{$_}\n" for sort keys %$sums;
	close($f);
}
EOF
testrun_compare "many samples folded on two threads, sorted, alike summed" \
	"$tmpdir/many.folded" profkit-convert --to=folded "$tmpdir/many.txt"
testrun_compare "and on one thread" "$tmpdir/many.folded" \
	profkit-convert --threads=1 --to=folded "$tmpdir/many.txt"
testrun_compare "and without the thread's root frame" "$tmpdir/many.no-comm" \
	profkit-convert --to=folded --no-comm "$tmpdir/many.txt"
finish
