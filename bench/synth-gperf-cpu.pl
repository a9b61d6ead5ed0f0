#!/usr/bin/perl
# synth-gperf-cpu.pl NSTACKS OUT BINARY...: a gperftools CPU profile
# (64-bit little-endian) of NSTACKS distinct stacks over the functions of
# the given ELF files, as if a program had run with each loaded 1 GiB
# apart from 0x555555554000 (the first is the main program). Stacks are
# 6 to 21 frames; addresses fall inside functions at varying offsets, so
# there are many distinct addresses to symbolize.
use strict;
use warnings;
my ($nstacks, $out, @files) = @ARGV;
die "usage: $0 NSTACKS OUT BINARY...\n" unless @files;
my $first = 0x5555 * 2**32 + 0x55554000;	# 0x555555554000
my (@funcs, @maps);	# [absolute start, size]; [start, end, path]
# [absolute start, size] of the sized functions nm lists, and the end
sub functions {
	my ($cmd, $base, $types) = @_;
	my ($end, @found) = (0);
	open(my $nm, '-|', "$cmd 2>/dev/null") or die "nm: $!";
	while (<$nm>) {
		my ($start, $size, $type) = split;
		next unless defined $type && $type =~ $types && hex($size) > 4;
		push @found, [$base + hex($start), hex($size)];
		$end = hex($start) + hex($size) if hex($start) + hex($size) > $end;
	}
	close($nm);
	return ($end, @found);
}

for my $i (0 .. $#files) {
	my $base = $first + $i * 2**30;
	my ($end, @found) = functions("nm -S --defined-only '$files[$i]'", $base, qr/^[tTwW]$/);
	# stripped: the dynamic symbols
	($end, @found) = functions("nm -D -S --defined-only '$files[$i]'", $base, qr/^[tTwWiI]$/)
		unless $end;
	die "$files[$i]: no sized functions\n" unless $end;
	push @funcs, @found;
	push @maps, [$base, $base + (($end + 0xfff) & ~0xfff), $files[$i]];
}

open(my $f, '>', $out) or die "$out: $!";
binmode $f;
print $f pack('Q<*', 0, 3, 0, 10000, 0);
my $seed = 12345;
sub next_rand { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed; }
for my $i (0 .. $nstacks - 1) {
	my $depth = 6 + $i % 16;
	my ($n, @pcs) = ($i);
	for my $d (0 .. $depth - 1) {
		# the stack's number in base @funcs picks its outer frames: distinct
		my $fn = $funcs[$d < 4 ? $n % @funcs : next_rand() % @funcs];
		$n = int($n / @funcs) if $d < 4;
		push @pcs, $fn->[0] + 1 + next_rand() % ($fn->[1] - 1);
	}
	print $f pack('Q<*', 1 + $i % 7, $depth, @pcs);
}
print $f pack('Q<*', 0, 1, 0);
printf $f "%x-%x r-xp 00000000 08:01 1234 %s\n", @$_ for @maps;
close($f) or die "$out: $!";
