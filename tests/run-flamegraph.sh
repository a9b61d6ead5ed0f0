#!/bin/sh
# SVG flame graphs: well-formed, the numbers in the tooltips, the layout
# (widths in proportion to the values, root at the bottom or the top),
# differential colours, and the frames flamegraph.pl draws of the same
# folded stacks (../shared/reference/flamegraph/), compared as stacks
# and widths (tests/svg-frames.py). What a browser makes of the SVG:
# tests/run-flamegraph-browser.sh.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 25
d=testdata/perf-script
e=testdata/flamegraph
find_reference flamegraph/flamegraph.pl

# same_frames NAME FOLDED OURS.svg [--places]: flamegraph.pl's SVG of
# the folded stacks draws the frames ours draws, each as wide (and at
# the same x)
same_frames() {
	if [ -z "$reference" ]; then
		skip "$1" "$reference_missing"
		return
	fi
	perl "$reference" "$2" >"$tmpdir/theirs.svg" 2>"$tmpdir/err" &&
		python3 tests/svg-frames.py ${4-} "$tmpdir/theirs.svg" >"$tmpdir/theirs.frames" &&
		python3 tests/svg-frames.py ${4-} "$3" >"$tmpdir/ours.frames" ||
		{ fail "$1"; diag_file "$tmpdir/err"; return; }
	same_output "$1" "$tmpdir/theirs.frames" "$tmpdir/ours.frames"
}

# xml_ok NAME FILE: the file parses as XML (python3 or xmllint)
xml_ok() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' \
			"$2" 2>"$tmpdir/xmlerr"
	elif command -v xmllint >/dev/null 2>&1; then
		xmllint --noout "$2" 2>"$tmpdir/xmlerr"
	else
		skip "$1" "neither python3 nor xmllint"
		return
	fi
	if [ $? -eq 0 ]; then pass "$1"; else fail "$1"; diag_file "$tmpdir/xmlerr"; fi
}

# frames FILE: one line per frame, "y x width value total", the value
# from the tooltip and the total from the root's
frames() {
	sed -n 's/^<g class="f"><title>.* (\([0-9,.]*\) [a-z]*, [^)]*)<\/title><rect x="\([0-9.]*\)" y="\([0-9]*\)" width="\([0-9.]*\)".*/\3 \2 \4 \1/p' "$1" |
		tr -d , | awk 'NR == 1 { total = $4 } { print $0, total }'
}

profkit-flamegraph $d/c-fp.txt >"$tmpdir/c-fp.svg"
same_frames "C with frame pointers: flamegraph.pl draws the same frames" \
	$d/c-fp.folded "$tmpdir/c-fp.svg"
xml_ok "well-formed XML" "$tmpdir/c-fp.svg"
grep -q '<title>hot_loop (446,500,000 ns, 73.99%)</title>' "$tmpdir/c-fp.svg" &&
	pass "hot_loop's tooltip gives its time and share" ||
	fail "hot_loop's tooltip gives its time and share"
grep -q '<title>all (603,500,000 ns, 100%)</title><rect x="10.0" y="117" width="1180.0"' \
	"$tmpdir/c-fp.svg" && pass "the root spans the full width at the bottom" ||
	fail "the root spans the full width at the bottom"
frames "$tmpdir/c-fp.svg" >"$tmpdir/frames"
awk '{ want = $4 / $5 * 1180; if ($3 - want > 0.1 || want - $3 > 0.1) bad++ }
     END { exit !(NR == 18 && !bad) }' "$tmpdir/frames" &&
	pass "every width is in proportion to its value" ||
	{ fail "every width is in proportion to its value"; diag_file "$tmpdir/frames"; }
grep -q '<svg version="1.1" width="1200" height="166"' "$tmpdir/c-fp.svg" &&
	grep -q '<text id="title" x="600" y="24">Flame Graph</text>' "$tmpdir/c-fp.svg" &&
	pass "1200 wide, 16 px per level, the default title" ||
	fail "1200 wide, 16 px per level, the default title"
grep -q '<text x="40.4" y="47.5">hot_loop</text>' "$tmpdir/c-fp.svg" &&
	grep -q '<text x="15.0" y="47.5">c..</text>' "$tmpdir/c-fp.svg" &&
	grep -q '<text x="13.0" y="79.5"></text>' "$tmpdir/c-fp.svg" &&
	pass "labels are cut to fit" || fail "labels are cut to fit"
grep -q 'ctrlKey' "$tmpdir/c-fp.svg" && grep -q '<text id="search"' "$tmpdir/c-fp.svg" &&
	grep -q '<text id="unzoom" class="hidden"' "$tmpdir/c-fp.svg" &&
	pass "search (button and Ctrl-F) and zoom reset are there" ||
	fail "search (button and Ctrl-F) and zoom reset are there"

profkit-flamegraph --icicle $d/c-fp.txt >"$tmpdir/icicle.svg"
frames "$tmpdir/icicle.svg" >"$tmpdir/iframes"
grep -q '<title>all (.*)</title><rect x="10.0" y="36" width="1180.0"' "$tmpdir/icicle.svg" &&
	awk '$1 < 36 { bad++ } END { exit bad }' "$tmpdir/iframes" &&
	grep -q '>Icicle Graph</text>' "$tmpdir/icicle.svg" &&
	pass "--icicle puts the root at the top" || fail "--icicle puts the root at the top"
grep -q '<title>hot_loop (.*)</title><rect x="37.4" y="116" width="873.0"' "$tmpdir/icicle.svg" &&
	pass "and the callees below it" || fail "and the callees below it"

profkit-flamegraph --width=800 --title='Mine & <yours>' --colors=io $d/c-fp.txt >"$tmpdir/w.svg"
grep -q '<title>all (.*)</title><rect x="10.0" y="117" width="780.0"' "$tmpdir/w.svg" &&
	grep -q '>Mine &amp; &lt;yours&gt;</text>' "$tmpdir/w.svg" &&
	pass "--width and --title (escaped)" || fail "--width and --title (escaped)"
grep -q 'stop-color="#f8f8f8"' "$tmpdir/w.svg" &&
	! grep -q '<rect[^>]*fill="rgb(2[0-9][0-9],[0-9]*,[0-9]*)"' "$tmpdir/w.svg" &&
	pass "--colors=io is bluish" || fail "--colors=io is bluish"
# the same name keeps its colour in another graph
c1=$(grep -o '<title>hot_loop (.*fill="[^"]*"' "$tmpdir/c-fp.svg" | sed 's/.*fill=//')
c2=$(grep -o '<title>hot_loop (.*fill="[^"]*"' "$tmpdir/icicle.svg" | sed 's/.*fill=//')
[ -n "$c1" ] && [ "$c1" = "$c2" ] && pass "colours follow the name" ||
	fail "colours follow the name ($c1, $c2)"

profkit-flamegraph --value=samples $d/c-fp.txt >"$tmpdir/s.svg"
grep -q '<title>hot_loop (893 samples, 73.99%)</title>' "$tmpdir/s.svg" &&
	pass "--value=samples counts samples" || fail "--value=samples counts samples"
profkit-flamegraph -q $d/multi.txt >"$tmpdir/m1.svg" &&
	profkit-flamegraph --event=cpu-clock $d/multi.txt >"$tmpdir/m2.svg" &&
	! grep -q '<title>crunch ' "$tmpdir/m1.svg" && grep -q '<title>crunch ' "$tmpdir/m2.svg" &&
	pass "--event picks the event" || fail "--event picks the event"
grep -q '<title>exc_page_fault (.*fill="rgb(2[0-9]*,1[0-9]*,0)"' "$tmpdir/m2.svg" &&
	grep -q '<title>touch_pages (.*fill="rgb(2[0-9]*,[0-9]*,[1-9][0-9]*)"' "$tmpdir/m2.svg" &&
	pass "kernel frames are orange" || fail "kernel frames are orange"
testrun_compare "profkit-convert --to=flamegraph writes the same" "$tmpdir/c-fp.svg" \
	profkit-convert --to=flamegraph $d/c-fp.txt

# difffolded.pl output of c-fp.folded and a copy with hot_loop halved,
# warm_loop doubled and a new_loop added: widths from the new counts
profkit-flamegraph $e/diff.folded >"$tmpdir/out"
same_frames "differential flame graph: flamegraph.pl draws the same frames" \
	$e/diff.folded "$tmpdir/out"
grep -q '<title>hot_loop (223,250,000 samples, 42.34%; -42.34%)</title>.*fill="rgb(0,0,255)"' \
	"$tmpdir/out" &&
	grep -q '<title>warm_loop (284,000,000 samples, 53.86%; +26.93%)</title>.*fill="rgb(255,76,76)"' \
	"$tmpdir/out" &&
	grep -q '<title>cold_loop (.*fill="rgb(255,255,255)"' "$tmpdir/out" &&
	pass "widths from the new counts, blue for less, red for more" ||
	fail "widths from the new counts, blue for less, red for more"

# Hundreds of callees too narrow to draw (under 0.1 px) between wide
# ones, in name order, at two levels, some with callees of their own:
# never drawn, they still push the wider ones along, as flamegraph.pl
# places them.
awk 'BEGIN {
	print "main 7000"
	print "main;a_wide 20000"
	for (k = 0; k < 300; k++) printf "main;b%03d 1\n", k
	print "main;c_wide;x_wide 15000"
	for (k = 0; k < 200; k++) printf "main;c_wide;w%03d;deeper 1\n", k
	for (k = 0; k < 200; k++) printf "main;c_wide;y%03d 1\n", k
	print "main;c_wide;z_wide 9000"
	print "main;d_mid 500"
	for (k = 0; k < 100; k++) printf "main;e%03d;f 1\n", k
	print "main;zz_wide 8000"
}' >"$tmpdir/narrow.folded"
profkit-flamegraph "$tmpdir/narrow.folded" >"$tmpdir/narrow.svg"
same_frames "narrow callees, not drawn, push the wide ones to flamegraph.pl's places" \
	"$tmpdir/narrow.folded" "$tmpdir/narrow.svg" --places

profkit-flamegraph --from=folded $e/names.folded >"$tmpdir/names.svg"
xml_ok "markup, bad UTF-8 and control characters in names stay well-formed" \
	"$tmpdir/names.svg"

testrun_status "--diff needs two columns" 2 "needs 'base' and 'new'" \
	profkit-flamegraph --diff $d/c-fp.txt
testrun_status "unknown --colors" 2 "expected 'hot', 'mem' or 'io'" \
	profkit-flamegraph --colors=green $d/c-fp.txt
# the tooltip's unit: "samples" only for sample counts (perf report -i
# multi.perf.data: "Samples: 235 of event 'page-faults'", "Event count
# (approx.): 20612"), other counts by their type, as flamegraph.pl's
# --countname would be given
profkit-flamegraph --event=page-faults $d/multi.txt 2>/dev/null >"$tmpdir/pf.svg"
grep -q '<title>all (20,612 page-faults, 100%)</title>' "$tmpdir/pf.svg" &&
	pass "page-faults are counted as page-faults, not samples" ||
	{ fail "page-faults are counted as page-faults, not samples"; grep '<title>all' "$tmpdir/pf.svg" | diag_file /dev/stdin; }
profkit-flamegraph --event=page-faults --value=samples $d/multi.txt 2>/dev/null >"$tmpdir/pfs.svg"
grep -q '<title>all (235 samples, 100%)</title>' "$tmpdir/pfs.svg" &&
	pass "--value=samples counts samples" ||
	{ fail "--value=samples counts samples"; grep '<title>all' "$tmpdir/pfs.svg" | diag_file /dev/stdin; }
finish
