#!/usr/bin/perl
# Writes be32.cpu: a gperftools CPU profile as a 32-bit big-endian
# machine would, with what pprof cleans up: a signal-handler frame under
# every leaf, a leaf repeated as its caller, a zero-count record, an
# address outside every mapping and a repeated stack.
use strict;
my $h = 0x0804a001;	# the handler's return address, in libprofiler
my @words = (0, 3, 0, 10000, 0,
	5, 3, 0x08048123, $h, 0x08048500,
	2, 4, 0x08048200, $h, 0x08048200, 0x08048500,
	1, 3, 0x09000000, $h, 0x08048500,
	0, 3, 0x08048300, $h, 0x08048500,
	3, 3, 0x08048123, $h, 0x08048500,
	0, 1, 0);
open(my $f, '>', 'be32.cpu') or die "be32.cpu: $!";
binmode $f;
print $f pack('N*', @words);
print $f "08048000-08049000 r-xp 00000000 08:01 123        /usr/bin/prog32\n";
print $f "0804a000-0804b000 r-xp 00000000 08:01 456        /usr/lib/libprofiler.so.0\n";
close($f) or die "be32.cpu: $!";
