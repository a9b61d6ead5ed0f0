#!/bin/sh
# Call graphs: gprof2dot's JSON input (--to=gprof2dot) and our own DOT
# drawing (--to=dot), compared with expected files. The JSON is checked
# against what gprof2dot's JsonParser needs and the DOT against the call
# graph re-derived from it (tests/check-gprof2dot-json.py), the DOT goes
# through Graphviz, and gprof2dot itself (../shared/reference/gprof2dot/)
# draws our JSON as testdata/graph/*.gprof2dot.dot says and, given the
# perf script text, draws the graph our DOT draws. Graphs are compared as
# tests/dot-graph.py lists them: nodes and edges with their percentages.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 22
d=testdata/perf-script
g=testdata/graph


# check NAME ARGS...: the checker prints "ok" or the problems
check() {
	name=$1
	shift
	if ! command -v python3 >/dev/null 2>&1; then
		skip "$name" "no python3"
	elif python3 tests/check-gprof2dot-json.py "$@" >"$tmpdir/check" 2>&1; then
		pass "$name"
	else
		fail "$name"
		diag_file "$tmpdir/check"
	fi
}

# graphviz NAME FILE: dot must take the graph
graphviz() {
	if ! command -v dot >/dev/null 2>&1; then
		skip "$1" "no Graphviz dot"
	elif dot -Tsvg "$2" >"$tmpdir/svg" 2>"$tmpdir/dot.err" &&
	     grep -q '<svg' "$tmpdir/svg"; then
		pass "$1"
	else
		fail "$1"
		diag_file "$tmpdir/dot.err"
	fi
}

find_reference gprof2dot/gprof2dot.py
# real_gprof2dot NAME FORMAT INPUT EXPECTED-DOT: the graph gprof2dot -f
# FORMAT draws of the input is the one the expected DOT draws
real_gprof2dot() {
	if [ -z "$reference" ]; then
		skip "$1" "$reference_missing"
	elif ! python3 "$reference" -f "$2" "$3" >"$tmpdir/theirs.dot" 2>"$tmpdir/err"; then
		fail "$1 (gprof2dot failed)"
		diag_file "$tmpdir/err"
	else
		python3 tests/dot-graph.py "$4" >"$tmpdir/want.graph"
		python3 tests/dot-graph.py "$tmpdir/theirs.dot" >"$tmpdir/theirs.graph"
		same_output "$1" "$tmpdir/want.graph" "$tmpdir/theirs.graph"
	fi
}

# graph NAME INPUT LARGEST-SELF: the five checks of one input
graph() {
	testrun_compare "$1: gprof2dot JSON" "$g/$1.gprof2dot.json" \
		profkit-convert --to=gprof2dot "$2"
	cp "$tmpdir/out" "$tmpdir/$1.json"
	testrun_compare "$1: DOT" "$g/$1.dot" profkit-convert --to=dot "$2"
	cp "$tmpdir/out" "$tmpdir/$1.dot"
	check "$1: JSON as gprof2dot reads it, DOT as re-derived from it" \
		--profkit --dot "$tmpdir/$1.dot" --largest-self "$3" \
		"$tmpdir/$1.json"
	graphviz "$1: dot -Tsvg takes the DOT" "$tmpdir/$1.dot"
	real_gprof2dot "$1: gprof2dot -f json draws the JSON" json "$tmpdir/$1.json" \
		"$g/$1.gprof2dot.dot"
}

graph c-fp $d/c-fp.txt hot_loop
# gprof2dot's own reading of perf script text. Not of cxx-dwarf.txt: it
# takes "(inlined)" for the module of an inlined frame; nor of odd-names:
# it reads text as UTF-8 only
real_gprof2dot "c-fp: gprof2dot -f perf of the same text draws our DOT's graph" \
	perf $d/c-fp.txt "$tmpdir/c-fp.dot"
# inlined frames are callchain entries of their own, innermost first
graph cxx-dwarf $d/cxx-dwarf.txt \
	'std::_Rb_tree<int, std::pair<int const, long>, std::_Select1st<std::pair<int const, long> >, std::less<int>, std::allocator<std::pair<int const, long> > >::_M_lower_bound'
# quotes, backslashes, a Latin-1 byte, a 4200-character name, "(deleted)"
graph odd-names $g/odd-names.txt 'back\slash::leaf'

testrun_compare "--node-thres and --edge-thres prune" $g/cxx-dwarf.thres.dot \
	profkit-convert --to=dot --node-thres=5 --edge-thres=1 $d/cxx-dwarf.txt
check "and exactly what is under them" --node-thres 5 --edge-thres 1 \
	--dot "$tmpdir/out" "$tmpdir/cxx-dwarf.json"
profkit-convert --to=dot --node-thres=0 --edge-thres=0 $d/cxx-dwarf.txt \
	>"$tmpdir/all.dot"
check "thresholds of 0 draw every function and call" --node-thres 0 \
	--edge-thres 0 --dot "$tmpdir/all.dot" "$tmpdir/cxx-dwarf.json"
testrun_status "a threshold must be a percentage" 2 \
	"--node-thres: '5%' is not a percentage" \
	profkit-convert --to=dot --node-thres=5% $d/c-fp.txt

testrun_compare "--value=samples counts samples" $g/c-fp.samples.gprof2dot.json \
	profkit-convert --to=gprof2dot --value=samples $d/c-fp.txt
testrun_status "two events: a warning names the one shown" 0 \
	"event 'page-faults' only" \
	profkit-convert --to=gprof2dot $d/multi.txt
finish
