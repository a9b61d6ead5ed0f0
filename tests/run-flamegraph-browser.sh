#!/bin/sh
# A flame graph as its reader sees it: profkit-flamegraph's SVG of c-fp
# opened in headless Chromium (tests/browser-flamegraph.js), where a
# user reads the title, finds every frame of the folded input drawn as
# wide as its count gives, clicks Search and types "_loop$", then
# clicks warm_loop to zoom into it.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 5
d=testdata/perf-script
term='_loop$'
zoom=warm_loop

chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
why=
command -v node >/dev/null 2>&1 || why="no node"
command -v python3 >/dev/null 2>&1 || why="no python3"
[ -n "$chromium" ] && [ -x "$chromium" ] || why="no chromium (apt-get install chromium)"
[ -z "$why" ] || skip_all "$why"

profkit-flamegraph $d/c-fp.txt >"$tmpdir/c-fp.svg"
profkit-convert -q --to=folded $d/c-fp.txt >"$tmpdir/c-fp.folded"
if ! node tests/browser-flamegraph.js "$chromium" "$tmpdir/c-fp.svg" "$term" \
	$zoom >"$tmpdir/seen.json"; then
	echo "Bail out! the browser could not show the SVG"
	diag_file "$tmpdir/seen.json"
	exit 1
fi
# seen KEY: a part of what the page showed, as JSON
seen() {
	python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]]))' \
		"$tmpdir/seen.json" "$1"
}

[ "$(seen title)" = '"Flame Graph"' ] && pass "the title is shown" ||
	fail "the title is shown: $(seen title)"

# frames_fit NAME SHOWN FOLDED: the frames shown are the folded stacks
frames_fit() {
	seen "$2" >"$tmpdir/shown.json"
	if python3 tests/svg-frames.py --shown "$tmpdir/shown.json" \
		--folded "$3" >"$tmpdir/fit" 2>&1; then
		pass "$1"
	else
		fail "$1"
	fi
	diag_file "$tmpdir/fit"
}
frames_fit "every frame of the folded input, as wide as its count gives" \
	frames "$tmpdir/c-fp.folded"

# what the search must find, from the folded stacks: the frames whose name
# matches, and the share of the samples under them
awk -v re="$term" '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
	total += n; hit = 0
	for (i = 1; i <= k; i++) if (f[i] ~ re) { names[f[i]] = 1; hit = 1 }
	if (hit) matched += n }
	END { for (name in names) print name; printf "Matched: %.1f%%\n", 100 * matched / total }' \
	"$tmpdir/c-fp.folded" | sort >"$tmpdir/search.want"
seen search | python3 -c 'import json, sys; s = json.load(sys.stdin)
for line in sorted(s["highlighted"] + [s["matched"] or "(no Matched text)"]): print(line)' \
	>"$tmpdir/search.got"
grep -v '^Matched' "$tmpdir/search.want" >"$tmpdir/names.want"
grep -v '^Matched' "$tmpdir/search.got" >"$tmpdir/names.got"
same_output "Search \"$term\" highlights the frames it matches" \
	"$tmpdir/names.want" "$tmpdir/names.got"
grep '^Matched' "$tmpdir/search.want" >"$tmpdir/share.want"
grep '^Matched' "$tmpdir/search.got" >"$tmpdir/share.got"
same_output "and shows their share of the samples ($(cat "$tmpdir/share.want"))" \
	"$tmpdir/share.want" "$tmpdir/share.got"

# zoomed, the graph is that of the stacks through the frame clicked: it
# and its callers as wide as the graph, its callees in proportion
grep ";$zoom[; ]" "$tmpdir/c-fp.folded" >"$tmpdir/zoomed.folded"
frames_fit "clicking $zoom zooms: only its stacks, widths recomputed" \
	zoomed "$tmpdir/zoomed.folded"
finish
