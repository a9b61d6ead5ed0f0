#!/bin/sh
# How tall a flame graph is. flamegraph.pl leaves out frames under 0.1
# pixel and makes the graph as tall as the deepest frame left; one very
# thin, very deep stack (a start-up sample 120 frames deep) then made a
# graph nine tenths blank. Frames under a pixel that would take more rows
# than the wider frames are left out, with a warning; thinner stacks that
# take fewer rows keep flamegraph.pl's height (its output, live, where
# ../shared/reference has it).
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 9

# folded BODY-DEPTH THIN-DEPTH THIN-COUNT: a 13-deep stack of 4000 and
# a thin one (1 of 4001: 0.29 px of 1180)
folded() {
	awk -v body="$1" -v thin="$2" 'BEGIN {
		s = "prog"; for (i = 0; i < body; i++) s = s ";f" i; print s, 4000
		if (!thin) exit
		s = "prog"; for (i = 0; i < thin; i++) s = s ";t" i; print s, 1
	}'
}
height() { sed -n 's/^<svg version="1.1" width="[0-9]*" height="\([0-9]*\)".*/\1/p' "$1"; }

folded 13 0 >"$tmpdir/body.folded"
folded 13 120 >"$tmpdir/tower.folded"
folded 13 20 >"$tmpdir/thin.folded"
profkit-convert --to=flamegraph "$tmpdir/body.folded" -o "$tmpdir/body.svg"
profkit-convert --to=flamegraph "$tmpdir/tower.folded" -o "$tmpdir/tower.svg" \
	2>"$tmpdir/err"
want=$(height "$tmpdir/body.svg")
got=$(height "$tmpdir/tower.svg")
[ -n "$want" ] && [ "$want" = "$got" ] &&
	pass "a thin stack 120 deep: the graph as tall as without it ($got px)" ||
	fail "a thin stack 120 deep: the graph as tall as without it ($got px, want $want)"
grep -qxF "profkit-convert: warning: flamegraph: 107 frames narrower than a pixel, deeper than the wider ones reach, left out (they would make the graph 1712 pixels taller, mostly blank)" \
	"$tmpdir/err" && pass "and a warning says what was left out" ||
	{ fail "and a warning says what was left out"; diag_file "$tmpdir/err"; }
grep -q '<title>t12 (1 samples, 0.02%)</title>' "$tmpdir/tower.svg" &&
	! grep -q '<title>t13 ' "$tmpdir/tower.svg" &&
	pass "its frames drawn as deep as the wider ones reach" ||
	fail "its frames drawn as deep as the wider ones reach"

# a thin stack that takes fewer rows than the wider ones keeps them all
profkit-convert --to=flamegraph "$tmpdir/thin.folded" -o "$tmpdir/thin.svg" \
	2>"$tmpdir/err"
[ ! -s "$tmpdir/err" ] && grep -q '<title>t19 ' "$tmpdir/thin.svg" &&
	pass "a thin stack 20 deep: drawn whole, no warning" ||
	{ fail "a thin stack 20 deep: drawn whole, no warning"; diag_file "$tmpdir/err"; }
# --max-depth: at most N frames above the root, as asked (no warning)
profkit-flamegraph --max-depth=5 "$tmpdir/body.folded" -o "$tmpdir/cut.svg" 2>"$tmpdir/err"
want=$(( $(height "$tmpdir/body.svg") - 9 * 16 ))	# f0..f12 and prog: 14 rows, 6 kept
[ "$(height "$tmpdir/cut.svg")" = "$want" ] && [ ! -s "$tmpdir/err" ] &&
	pass "--max-depth=5: six rows, the root's and five frames' ($want px)" ||
	fail "--max-depth=5: six rows ($(height "$tmpdir/cut.svg") px, want $want)"
grep -q '<title>f3 (' "$tmpdir/cut.svg" && ! grep -q '<title>f4 (' "$tmpdir/cut.svg" &&
	pass "--max-depth=5: prog and f0 to f3 drawn, f4 and deeper not" ||
	fail "--max-depth=5: prog and f0 to f3 drawn, f4 and deeper not"
testrun_compare "-X flamegraph:max-depth=5 draws the same" "$tmpdir/cut.svg" \
	profkit-convert --to=flamegraph -X flamegraph:max-depth=5 "$tmpdir/body.folded"
if find_reference flamegraph/flamegraph.pl && command -v perl >/dev/null 2>&1; then
	fgpl=$reference
	for f in thin body; do
		perl "$fgpl" "$tmpdir/$f.folded" >"$tmpdir/$f.pl.svg"
		want=$(height "$tmpdir/$f.pl.svg")
		got=$(height "$tmpdir/$f.svg")
		[ -n "$want" ] && [ "$want" = "$got" ] &&
			pass "$f: as tall as flamegraph.pl draws it ($got px)" ||
			fail "$f: as tall as flamegraph.pl draws it ($got px, want $want)"
	done
else
	skip "thin: as tall as flamegraph.pl draws it" "${reference_missing:-no perl}"
	skip "body: as tall as flamegraph.pl draws it" "${reference_missing:-no perl}"
fi
finish
