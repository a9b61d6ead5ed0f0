#!/bin/sh
# --help, --version and --list-formats of every command.
. "${top_srcdir:-.}/tests/test-subr.sh"
commands="profkit-convert profkit-info profkit-top profkit-merge profkit-diff profkit-filter profkit-flamegraph profkit-symbolize"
plan $(( $(echo $commands | wc -w) * 3 + 1 ))

for c in $commands; do
	$c --version >"$tmpdir/v" 2>&1 && grep -q "^$c (profkit) [0-9]" "$tmpdir/v" &&
		pass "$c --version" || fail "$c --version"
	$c --help >"$tmpdir/h" 2>&1 && grep -q "^usage: $c" "$tmpdir/h" &&
		[ "$(awk 'length > 100' "$tmpdir/h" | wc -l)" -eq 0 ] &&
		pass "$c --help fits a terminal" || fail "$c --help"
	man=$top_builddir/doc/$c.1
	[ -f "$man" ] && grep -q '^\.SH OPTIONS' "$man" && grep -q 'help' "$man" &&
		! grep -q '@OPTIONS@' "$man" && pass "$c has a man page with its options" ||
		fail "$c man page"
done
profkit-convert --list-formats >"$tmpdir/f" && grep -q '^  perf-script ' "$tmpdir/f" &&
	grep -q '^  folded ' "$tmpdir/f" && pass "--list-formats" || fail "--list-formats"
finish
