#!/bin/sh
# --help, --version, the man page and --list-formats of every command,
# and the library options by key that --help and the man page list.
. "${top_srcdir:-.}/tests/test-subr.sh"
# the commands as the dispatcher lists them (from cmd/commands.am)
commands=$(profkit --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/profkit-\1/p')
[ -n "$commands" ] || { echo "Bail out! profkit --help lists no commands"; exit 1; }
plan $(( $(echo $commands | wc -w) * 4 + 4 ))
version=$(profkit --version | sed 's/^profkit //')

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
	grep -q "^\.TH .*\"profkit $version\"" "$man" &&
		pass "$c's man page shows version $version" ||
		{ fail "$c's man page shows the version"; diag_file "$man" 1; }
done
grep -q "^\.TH .*\"profkit $version\"" "$top_builddir/doc/profkit.1" &&
	pass "profkit(1) shows version $version" || fail "profkit(1) shows the version"
profkit-convert --list-formats >"$tmpdir/f" && grep -q '^  perf-script ' "$tmpdir/f" &&
	grep -q '^  folded ' "$tmpdir/f" && pass "--list-formats" || fail "--list-formats"

# the keys by key: --help and the man page give the same, from the
# library's declarations; profkit-convert every format's, and each of
# those formats has its line
bad=
for c in $commands; do
	$c --help | sed -n '/^Options by key/,/^Examples:/s/^  \([a-z-]*:[a-z-]*\).*/\1/p' \
		>"$tmpdir/help-keys"
	sed -n '/^\.SS Options by key/,/^\.S[HS] /s/^\.B \([a-z\\-]*:[a-z\\-]*\).*/\1/p' \
		"$top_builddir/doc/$c.1" | sed 's/\\-/-/g' >"$tmpdir/man-keys"
	cmp -s "$tmpdir/help-keys" "$tmpdir/man-keys" || bad="$bad $c"
	[ "$c" = profkit-convert ] && cp "$tmpdir/help-keys" "$tmpdir/convert-keys"
done
[ -z "$bad" ] && [ -s "$tmpdir/convert-keys" ] &&
	pass "the man pages list the keys --help lists" ||
	fail "the man pages list the keys --help lists (not:$bad)"
want=$(profkit-convert --help | sed -n '/^Options by key/,/^Examples:/s/^ \([a-z-]*\)$/\1/p' | sort)
got=$(sed 's/:.*//' "$tmpdir/convert-keys" | sort -u)
[ -n "$want" ] && [ "$want" = "$got" ] && echo "$got" | grep -qx flamegraph &&
	pass "profkit-convert --help: the keys by format" ||
	fail "profkit-convert --help: the keys by format (headings: $want; keys: $got)"
finish
