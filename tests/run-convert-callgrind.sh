#!/bin/sh
# perf script text to the callgrind format: compared with expected files,
# then read live by the reference tools. valgrind's callgrind_annotate
# must find, per function, the self and inclusive costs the folded output
# of the same input adds up to; gprof2dot -f callgrind must draw the
# graph gprof2dot -f perf draws of the text, and our --to=dot draws.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-script
e=testdata/callgrind

testrun_compare "C with frame pointers" $e/c-fp.callgrind \
	profkit-convert --to=callgrind $d/c-fp.txt
testrun_compare "two events: every column, the first event's first" \
	$e/multi.callgrind profkit-convert --to=callgrind $d/multi.txt
# each event name was made again for every later column (2^32 steps)
testrun_compare "32 events, the later of names that tidy alike numbered" \
	$e/event-names.written.callgrind timeout 10 profkit-convert --to=callgrind \
	$e/event-names.callgrind

# The summary is the sum of the self costs, which is the folded total.
profkit-convert --to=callgrind $d/c-fp.txt >"$tmpdir/c-fp.callgrind"
profkit-convert --to=folded $d/c-fp.txt >"$tmpdir/c-fp.folded"
got=$(sed -n 's/^summary: \([0-9]*\) .*/\1/p' "$tmpdir/c-fp.callgrind")
self=$(awk '/^[0-9]/ && !call { s += $2 } { call = /^calls=/ }
	END { printf "%.0f\n", s }' "$tmpdir/c-fp.callgrind")
want=$(awk '{ s += $NF } END { printf "%.0f\n", s }' "$tmpdir/c-fp.folded")
[ "$got" = "$want" ] && [ "$self" = "$want" ] &&
	pass "summary and self costs add up to the folded total" ||
	fail "summary and self costs add up to the folded total ($got, $self, $want)"

testrun_status "an unknown --event is a usage error" 2 "no event 'nope'" \
	profkit-convert --to=callgrind --event=nope $d/multi.txt

# --- callgrind_annotate ---

# annotate_costs FILE [--inclusive=yes]: callgrind_annotate's cost in the
# first column (the folded output's value) per function, as "COST<TAB>NAME"
# lines, sorted, with PROGRAM TOTALS; callgrind_annotate names a function
# FILE:NAME [OBJECT], and tells functions apart by FILE:NAME, so the costs
# of one name are summed. Functions of no cost are left out.
annotate_costs() {
	callgrind_annotate --threshold=100 "$@" 2>>"$tmpdir/annotate.err" | awk '
	/^Events shown:/ { ncolumns = NF - 2 }
	/PROGRAM TOTALS$/ || body {
		line = $0
		gsub(/\([ 0-9.]*%\)/, "", line)
		if (line ~ /^-+$/) { body = 0; next }
		if (line ~ /^ *$/) next
		for (i = 0; i < ncolumns; i++) {
			match(line, /^ *[0-9,.]+/)
			if (i == 0) first = substr(line, 1, RLENGTH)
			line = substr(line, RLENGTH + 1)
		}
		gsub(/[ ,]/, "", first)
		sub(/^ +/, "", line)
		if (line != "PROGRAM TOTALS") {
			sub(/^[^:]*:/, "", line)
			sub(/ \[[^ ]*\]$/, "", line)
		}
		cost[line] += first	# "." is 0
		next
	}
	/file:function$/ { getline; body = 1 }
	END { for (name in cost) if (cost[name]) printf "%.0f\t%s\n", cost[name], name }' |
		sort -t "	" -k 2
}

# folded_costs FOLDED [inclusive]: the same from folded stacks (--no-comm):
# a leaf's cost is its self cost; a function's inclusive cost is that of
# every stack it is on. callgrind_annotate --inclusive=yes counts what the
# calls to a function cost wherever something calls it (doc/formats.md),
# which is that only for a function no stack holds twice (recursion) and
# none holds at its root while others call it: the others are left out.
folded_costs() {
	awk -v inclusive="${2:-}" '{
		cost_of_stack = $NF
		n = split(substr($0, 1, length($0) - length($NF) - 1), frame, ";")
		total += cost_of_stack
		if (!inclusive) {
			cost[frame[n]] += cost_of_stack
			next
		}
		root[frame[1]] = 1
		for (i = 1; i <= n; i++) {
			if (i > 1)
				called[frame[i]] = 1
			if (on[frame[i]] == NR)
				recursive[frame[i]] = 1
			else
				cost[frame[i]] += cost_of_stack
			on[frame[i]] = NR
		}
	}
	END {
		cost["PROGRAM TOTALS"] = total
		for (name in cost)
			if (!(name in recursive) && !(name in root && name in called))
				printf "%.0f\t%s\n", cost[name], name
	}' "$1" | sort -t "	" -k 2
}

# annotate_agrees NAME INPUT: callgrind_annotate of our callgrind output
# against the folded output of the same input
annotate_agrees() {
	profkit-convert --to=callgrind "$2" >"$tmpdir/$1.callgrind" &&
		profkit-convert -q --to=folded --no-comm "$2" >"$tmpdir/$1.folded" ||
		{ fail "$1: converted"; return; }
	annotate_costs "$tmpdir/$1.callgrind" >"$tmpdir/theirs"
	folded_costs "$tmpdir/$1.folded" >"$tmpdir/ours"
	same_output "$1: callgrind_annotate's self costs are the folded leaves'" \
		"$tmpdir/theirs" "$tmpdir/ours"
	# the functions folded_costs keeps, from callgrind_annotate
	folded_costs "$tmpdir/$1.folded" inclusive >"$tmpdir/ours"
	annotate_costs --inclusive=yes "$tmpdir/$1.callgrind" |
		awk -F "	" 'NR == FNR { kept[$2] = 1; next } $2 in kept' \
			"$tmpdir/ours" - >"$tmpdir/theirs"
	same_output "$1: callgrind_annotate's inclusive costs are the folded stacks'" \
		"$tmpdir/theirs" "$tmpdir/ours"
}

if ! command -v callgrind_annotate >/dev/null 2>&1; then
	for name in c-fp multi cxx-dwarf threads; do
		skip "$name: callgrind_annotate reads it" "no callgrind_annotate (valgrind)"
	done
else
	: >"$tmpdir/annotate.err"
	# one event; two (the first one's column); inlined frames; threads
	# with kernel frames and frames of no file
	for name in c-fp multi cxx-dwarf threads; do
		annotate_agrees $name $d/$name.txt
	done
	if [ -s "$tmpdir/annotate.err" ]; then
		fail "callgrind_annotate has no complaint"
		diag_file "$tmpdir/annotate.err"
	else
		pass "callgrind_annotate has no complaint"
	fi
fi

# --- gprof2dot ---

find_reference gprof2dot/gprof2dot.py
# same_graph NAME DOT-A DOT-B: the two drawings draw one graph
same_graph() {
	python3 tests/dot-graph.py "$2" >"$tmpdir/graph-a" &&
		python3 tests/dot-graph.py "$3" >"$tmpdir/graph-b" &&
		same_output "$1" "$tmpdir/graph-a" "$tmpdir/graph-b"
}
# gprof2dot_reads NAME INPUT: gprof2dot -f callgrind of our callgrind output
# draws what our DOT output draws, and for perf script text (of one
# event: gprof2dot -f perf adds up every event's samples) what gprof2dot
# draws of the text
gprof2dot_reads() {
	if [ -z "$reference" ] || ! command -v python3 >/dev/null 2>&1; then
		skip "$1: gprof2dot -f callgrind draws our DOT's graph" \
			"${reference_missing:-no python3}"
		return
	fi
	profkit-convert --to=callgrind "$2" >"$tmpdir/$1.callgrind" &&
		profkit-convert -q --to=dot "$2" >"$tmpdir/$1.dot" &&
		python3 "$reference" -f callgrind "$tmpdir/$1.callgrind" \
			>"$tmpdir/$1.gprof2dot.dot" 2>"$tmpdir/err" ||
		{ fail "$1: gprof2dot -f callgrind reads it"; diag_file "$tmpdir/err"; return; }
	same_graph "$1: gprof2dot -f callgrind draws our DOT's graph" \
		"$tmpdir/$1.dot" "$tmpdir/$1.gprof2dot.dot"
	[ -z "${3:-}" ] && return
	if python3 "$reference" -f perf "$2" >"$tmpdir/$1.perf.dot" 2>"$tmpdir/err"; then
		same_graph "$1: gprof2dot -f callgrind draws what gprof2dot -f perf does" \
			"$tmpdir/$1.perf.dot" "$tmpdir/$1.gprof2dot.dot"
	else
		fail "$1: gprof2dot -f perf reads the text"
		diag_file "$tmpdir/err"
	fi
}
gprof2dot_reads c-fp $d/c-fp.txt perf
gprof2dot_reads multi $d/multi.txt
gprof2dot_reads go-cpu testdata/pprof/go-cpu.pb.gz

plan $tap_n
finish
