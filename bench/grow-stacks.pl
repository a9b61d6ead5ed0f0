#!/usr/bin/perl
# A large input for the stack text readers' bench, grown from a real
# small one in testdata/: the seed's header once, its body (stacks, call
# tree rows, dumps) again and again, its trailer once, until the file
# holds about MB megabytes. Copy k renames the body's functions (name_K,
# K = k mod 1000, as a thousand builds or processes would differ), so
# that the stacks stay many and distinct, and the file valid for profkit
# and for the format's FlameGraph script alike:
#
#   grow-stacks.pl FORMAT SEED MB OUT
#
# FORMAT is one of the keys of %formats below. pprof-raw's copies get
# their own location ids, xctrace's their own ids and refs, so that each
# copy stands alone; pprof-raw's locations are written flat (one word a
# name, no inlined lines), as stackcollapse-go.pl reads them right.
use strict;
use warnings;

my $variants = 1000;

# head: the seed's lines before the body (a count, or a pattern of the
# body's first line); tail: the pattern of the first line after it;
# rename: the body line for variant $_[1]
my %formats = (
	dtrace => { head => 3, rename => sub { $_[0] =~ s/(`[A-Za-z_]\w*)\+0x/$1_$_[1]+0x/; } },
	bpftrace => { head => 3, rename => sub {
		$_[0] =~ s/^(\s+0x[0-9a-f]+?)([0-9a-f]{3})$/sprintf("%s%03x", $1, (hex($2) + 16 * $_[1]) & 0xfff)/e; } },
	systemtap => { head => 0, rename => sub { $_[0] =~ s/(: [A-Za-z_]\w*)\+0x/$1_$_[1]+0x/; } },
	pmcstat => { head => 2, rename => sub { $_[0] =~ s/(\]\s+)([A-Za-z_]\w*)/$1$2_$_[1]/; } },
	'eu-stack' => { head => 0, rename => sub { $_[0] =~ s/^(#\d+\s+0x[0-9a-f]+ [A-Za-z_]\w*)/$1_$_[1]/; } },
	gdb => { head => 0, rename => sub { $_[0] =~ s/^(#\d+\s+(?:0x[0-9a-f]+ in )?[A-Za-z_]\w*)/$1_$_[1]/; } },
	jstack => { head => 0, rename => sub { $_[0] =~ s/^(\tat [\w.\$]+\.\w+)\(/$1_$_[1](/; } },
	'java-exceptions' => { head => 0, rename => sub { $_[0] =~ s/^(\tat [\w.\$]+\.\w+)\(/$1_$_[1](/; } },
	'macos-sample' => { head => qr/^    \d+ Thread_/, tail => qr/^$/,
		rename => sub { $_[0] =~ s/^([ +!:|]*\d+ [A-Za-z_]\w*)(  \(in |$)/$1_$_[1]$2/; } },
	instruments => { head => 2, rename => sub { $_[0] =~ s/(\t \t\s*[A-Za-z_]\w*)$/$1_$_[1]/; } },
	vtune => { head => 2, rename => sub { $_[0] =~ s/^(\s+[A-Za-z_]\w*),/$1_$_[1],/; } },
	vsprof => { head => 1, rename => sub { $_[0] =~ s/^(\d+,"[A-Za-z_]\w*)"/$1_$_[1]"/; } },
	# GHC aligns its columns: a name grows only into blanks it has
	'ghc-prof' => { head => qr/^ CAF /, tail => qr/^$/, rename => sub {
		my $tag = sprintf("_%02d", $_[1] % 100);
		$_[0] =~ s/^(\s+[A-Za-z_]\w*) {4}/$1$tag /; } },
	ljp => { head => 0, tail => qr/^Total trace count/, rename => sub {
		$_[0] =~ s/^(\d+ \d+ \t|\t)([\w.\$]+\.\w+)\(/$1$2_$_[1](/; } },
	'pprof-raw' => {}, xctrace => {},
);

my ($format, $seed, $mb, $out) = @ARGV;
die "usage: grow-stacks.pl FORMAT SEED MB OUT\n" unless defined $out && $formats{$format};
open(my $in, '<', $seed) or die "$seed: $!\n";
my @lines = <$in>;
close $in;
open(my $fh, '>', $out) or die "$out: $!\n";
my $goal = $mb * 1000000;

if ($format eq 'pprof-raw') {
	pprof_raw();
} elsif ($format eq 'xctrace') {
	xctrace();
} else {
	sections($formats{$format});
}
close $fh or die "$out: $!\n";

# the index of the first line at or after $from matching $pattern;
# past the last line with $optional
sub find_line {
	my ($from, $pattern, $optional) = @_;
	for my $i ($from .. $#lines) {
		return $i if $lines[$i] =~ $pattern;
	}
	return scalar @lines if $optional;
	die "$seed: no line matches $pattern\n";
}

# body copies, renamed, until $goal bytes (with $fixed more written once)
sub repeat_body {
	my ($body, $fixed, $rename) = @_;
	my ($k, $size) = (0, $fixed);
	while ($size < $goal) {
		my $v = $k++ % $variants;
		for my $line (@$body) {
			my $copy = $line;
			$rename->($copy, $v);
			print $fh $copy;
			$size += length $copy;
		}
	}
}

sub sections {
	my ($f) = @_;
	my $first = ref $f->{head} ? find_line(0, $f->{head}) : $f->{head};
	my $end = $f->{tail} ? find_line($first, $f->{tail}, 1) : scalar @lines;
	my @head = @lines[0 .. $first - 1];
	my @body = @lines[$first .. $end - 1];
	my @tail = @lines[$end .. $#lines];
	print $fh @head;
	repeat_body(\@body, length(join '', @head, @tail), $f->{rename});
	print $fh @tail;
}

# Samples: lines ("values: location ids", labels below), then Locations:
# each copy's samples point at its own locations, whose names are name_K
sub pprof_raw {
	my $s = find_line(0, qr/^Samples:$/);
	my $l = find_line($s, qr/^Locations$/);
	my $m = find_line($l, qr/^Mappings$/);
	my @samples = @lines[$s + 2 .. $l - 1];
	my (@locations, $max);
	for (@lines[$l + 1 .. $m - 1]) {
		# flat: a location's first line only, its name one word (none
		# or "??" named fnID); inlined lines (deeper) left out
		next unless /^\s+(\d+): (0x[0-9a-f]+) (M=\d+) ?(.*)$/;
		my ($id, $addr, $map, $rest) = ($1, $2, $3, $4);
		my ($name, $where) = ($rest, '/src/unknown.c:0 s=0');
		($name, $where) = ($1, $2) if $rest =~ /^(.*) (\S+:-?\d+ s=\d+)(?:\(.*\))?$/;
		$name =~ s/[\s(].*//;
		$name = "fn$id" if $name eq '' || $name eq '??';
		push @locations, [$id, $addr, $map, $name, $where];
		$max = $id if !defined $max || $id > $max;
	}
	print $fh @lines[0 .. $s + 1];
	# about 60 bytes a location line
	my $copies = int($goal / (length(join '', @samples) + 60 * @locations)) + 1;
	for my $k (0 .. $copies - 1) {
		for (@samples) {
			my $line = $_;
			if ($line =~ /^(\s*[\d ]+?: )(.*)$/s) {
				my ($values, $ids) = ($1, $2);
				$ids =~ s/(\d+)/$1 + $k * $max/ge;
				$line = $values . $ids;
			}
			print $fh $line;
		}
	}
	print $fh "Locations\n";
	for my $k (0 .. $copies - 1) {
		my $v = $k % $variants;
		printf $fh "%6d: %s %s %s_%d %s\n", $_->[0] + $k * $max, $_->[1], $_->[2],
			$_->[3], $v, $_->[4] for @locations;
	}
	print $fh @lines[$m .. $#lines];
}

# rows of a table: each copy's ids and refs moved past the ones before
sub xctrace {
	my $first = find_line(0, qr/^<row>/);
	my $end = find_line($first, qr/^<\/node>/);
	my $max = 0;
	for (@lines) {
		while (/\bid="(\d+)"/g) { $max = $1 if $1 > $max; }
	}
	print $fh @lines[0 .. $first - 1];
	my @body = @lines[$first .. $end - 1];
	my ($k, $size) = (0, 0);
	while ($size < $goal) {
		my ($v, $shift) = ($k % $variants, $k * $max);
		$k++;
		for (@body) {
			my $line = $_;
			$line =~ s/\b(id|ref)="(\d+)"/$1 . '="' . ($2 + $shift) . '"'/ge;
			$line =~ s/(<frame [^>]*name=")([A-Za-z_]\w*)"/$1$2_$v"/g;
			print $fh $line;
			$size += length $line;
		}
	}
	print $fh @lines[$end .. $#lines];
}
