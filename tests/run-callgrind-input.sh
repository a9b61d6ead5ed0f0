#!/bin/sh
# The callgrind reader. Per function (callgrind_annotate's "file:function")
# and per event, the self cost and the inclusive cost of the samples read
# (tests/t-callgrind-read --costs) against testdata/callgrind/NAME.costs,
# and against callgrind_annotate's, live, on those files and on programs
# valgrind records here: the same wherever callgrind's numbers are the
# costs of some stacks, and where they are not (recursion, a thread's
# start, a process's end) as doc/formats.md says, with the numbers here.
# Then our own --to=callgrind read back, broken input and large graphs.
. "${top_srcdir:-.}/tests/test-subr.sh"
e=testdata/callgrind
costs_of=$top_builddir/tests/t-callgrind-read
tab=$(printf '\t')

# costs FILE: "EVENT<TAB>file:function<TAB>self<TAB>inclusive", every event
costs() {
	"$costs_of" --costs "$1"
}

# annotated FILE: the same, as callgrind_annotate prints them (run from /,
# as it shortens the names of files under the current directory)
annotated() {
	f=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	for ev in $(sed -n 's/^events: //p' "$1" | head -n 1); do
		(cd / && callgrind_annotate --threshold=100 --show=$ev --sort=$ev "$f") \
			>"$tmpdir/self" 2>>"$tmpdir/annotate.err"
		(cd / && callgrind_annotate --threshold=100 --show=$ev --sort=$ev \
			--inclusive=yes "$f") >"$tmpdir/incl" 2>>"$tmpdir/annotate.err"
		for part in self incl; do
			awk '/file:function$/ { getline; on = 1; next }
			on && !NF { exit }
			on { n = $1; gsub(",", "", n); if (n == ".") n = 0
				$1 = ""; sub(/^ *(\([ 0-9.]*%\) *)?/, "")
				sub(/ \[[^]]*\]$/, ""); print $0 "\t" n }' \
				"$tmpdir/$part" | sort -t "$tab" -k1,1 >"$tmpdir/$part.table"
		done
		join -t "$tab" -a1 -a2 -e 0 -o 0,1.2,2.2 "$tmpdir/self.table" \
			"$tmpdir/incl.table" |
			awk -F "$tab" -v ev="$ev" '$2 != 0 || $3 != 0 { print ev "\t" $0 }'
	done
}

# ---- the files kept, against the numbers worked out for them ----

plan 29
for name in hand-lines hand-parts hand-cycles hand-unbalanced callgraph \
	callgraph-instr; do
	costs $e/$name.callgrind >"$tmpdir/$name.got" 2>"$tmpdir/err"
	same_output "$name: self and inclusive costs per function, every event" \
		$e/$name.costs "$tmpdir/$name.got"
done

# what profkit-info says of a file: each event's total, the facts
profkit-info $e/hand-lines.callgrind >"$tmpdir/info"
same_output "hand-lines: profkit-info" $e/hand-lines.info "$tmpdir/info"
# an event chosen by --sample-type and by --event: profkit-top's flat and
# cum by name (compute's flat its own 50 and its inlined code's 10)
for choice in --sample-type=Dr --event=Dr; do
	profkit-top -n 0 $choice $e/hand-lines.callgrind |
		awk '/^ *[0-9]/ { print $NF, $1 + 0, $4 + 0 }' >"$tmpdir/top"
	printf 'helper 80 80\ncompute 60 140\npow 30 30\nmain 3 173\n' >"$tmpdir/want"
	same_output "hand-lines: profkit-top $choice" "$tmpdir/want" "$tmpdir/top"
done

# ---- callgrind_annotate on them: the same, but where it cannot be ----

# annotate_agrees NAME EXPECTED: callgrind_annotate's numbers for NAME
# differ from ours in these rows only (its, "EVENT<TAB>name self incl")
annotate_agrees() {
	annotated $e/$1.callgrind >"$tmpdir/$1.annotate"
	diff "$tmpdir/$1.annotate" $e/$1.costs | sed -n 's/^< //p' |
		tr "$tab" ' ' >"$tmpdir/$1.differ"
	printf '%s\n' "$2" | sed '/^$/d' >"$tmpdir/$1.want"
	if [ -s "$tmpdir/$1.annotate" ] && cmp -s "$tmpdir/$1.want" "$tmpdir/$1.differ"; then
		pass "callgrind_annotate: $1${2:+, but where doc/formats.md says}"
	else
		fail "callgrind_annotate: $1"
		diff "$tmpdir/$1.want" "$tmpdir/$1.differ" | diag_file /dev/stdin
	fi
}
if command -v callgrind_annotate >/dev/null 2>&1; then
	annotate_agrees hand-lines ''
	annotate_agrees hand-parts ''
	# a and b call each other: callgrind counts each level's calls again;
	# together they hold the 150 main's calls cost (doc/formats.md)
	annotate_agrees hand-cycles 'Ir c.c:a 10 220
Ir c.c:b 30 240'
	# the thread stays under clone; x holds 40 of the 100 its call says
	annotate_agrees hand-unbalanced 'Ir u.c:clone 4 10
Ir u.c:parent 5 115
Ir u.c:x 40 100
Dr u.c:clone 1 2
Dr u.c:parent 1 13
Dr u.c:x 4 10'
	# recursion (fact'2 calls itself, even'2 and odd'2 each other) and
	# the second thread under clone
	annotate_agrees callgraph "Ir ./misc/../sysdeps/unix/sysv/linux/x86_64/clone.S:clone 25 18
Ir /tmp/rec/callgraph.c:even'2 288 4320
Ir /tmp/rec/callgraph.c:fact'2 684 12474
Ir /tmp/rec/callgraph.c:odd'2 96 2688"
	annotate_agrees callgraph-instr ''
else
	for name in hand-lines hand-parts hand-cycles hand-unbalanced callgraph \
		callgraph-instr; do
		skip "callgrind_annotate: $name" "no callgrind_annotate (valgrind)"
	done
fi

# ---- programs valgrind records here (testdata/src/callgraph.c) ----

# callers_in FILE FUNCTION CYCLE-REGEX: the cost of the calls into
# FUNCTION from functions not matching CYCLE-REGEX, as
# callgrind_annotate --tree=caller lists each function's callers
callers_in() {
	(cd / && callgrind_annotate --threshold=100 --tree=caller "$1") 2>/dev/null |
		awk -v fn="$2" -v cycle="$3" '
		!NF { n = 0; next }
		/^ *[0-9,]+ .* < / { c = $1; gsub(",", "", c); name = $0
			sub(/^.* < /, "", name); sub(/ \([0-9]+x\).*$/, "", name)
			cost[n] = c; caller[n++] = name; next }
		/^ *[0-9,.]+ .* \* / { name = $0; sub(/^.* \*  */, "", name)
			sub(/ \[[^]]*\]$/, "", name)
			if (name ~ ("/callgraph\\.c:" fn "$")) {
				for (i = 0; i < n; i++)
					if (caller[i] !~ cycle) sum += cost[i]
				found = 1 }
			n = 0 }
		END { if (found) print sum + 0 }'
}

if ! command -v valgrind >/dev/null 2>&1 || ! command -v callgrind_annotate >/dev/null 2>&1; then
	for t in "recorded: every event, every function" "recorded: recursion" \
		"recorded: where each cycle is entered" "recorded: threads apart" \
		"recorded: threads summed"; do
		skip "$t" "no valgrind"
	done
else
	record() {
		out=$1
		shift
		valgrind --tool=callgrind --callgrind-out-file="$out" "$@" \
			>/dev/null 2>"$tmpdir/valgrind.err"
	}
	# no cycles: each level of recursion is a function of its own
	record "$tmpdir/dag.out" --toggle-collect=work --separate-recs=20 \
		--cache-sim=yes --branch-sim=yes --dump-instr=yes --collect-jumps=yes \
		testdata/bin/callgraph 3
	annotated "$tmpdir/dag.out" >"$tmpdir/dag.annotate"
	costs "$tmpdir/dag.out" >"$tmpdir/dag.costs"
	same_output "recorded: every event, every function (instructions, jumps)" \
		"$tmpdir/dag.annotate" "$tmpdir/dag.costs"

	# callgrind's own levels of recursion: fact'2 calls itself, even'2
	# and odd'2 call each other; nothing else may differ
	record "$tmpdir/rec.out" --toggle-collect=work testdata/bin/callgraph 3
	annotated "$tmpdir/rec.out" >"$tmpdir/rec.annotate"
	costs "$tmpdir/rec.out" >"$tmpdir/rec.costs"
	diff "$tmpdir/rec.annotate" "$tmpdir/rec.costs" | sed -n 's/^> //p' |
		cut -f 2 | sed 's/.*://' | sort | tr '\n' ' ' >"$tmpdir/rec.differ"
	[ "$(cat "$tmpdir/rec.differ")" = "even'2 fact'2 odd'2 " ] &&
		pass "recorded: recursion, where only the functions on cycles differ" ||
		fail "recorded: recursion: differ $(cat "$tmpdir/rec.differ")"
	# where a cycle is entered, the inclusive cost is what the calls from
	# outside it cost; odd'2 is reached through even'2 and holds its own
	want_fact=$(callers_in "$tmpdir/rec.out" "fact'2" ":fact'2\$")
	want_even=$(callers_in "$tmpdir/rec.out" "even'2" ":(even|odd)'2\$")
	got=$(awk -F "$tab" '$2 ~ /:(fact|even|odd).2$/ { print $4 }' "$tmpdir/rec.costs" |
		tr '\n' ' ')
	want_odd=$(awk -F "$tab" '$2 ~ /:odd.2$/ { print $3 }' "$tmpdir/rec.annotate")
	[ -n "$want_fact" ] && [ "$got" = "$want_even $want_fact $want_odd " ] &&
		pass "recorded: where each cycle is entered, the calls from outside it" ||
		fail "recorded: cycles: got $got, want $want_even $want_fact $want_odd"

	# --separate-threads: a file per thread, each as callgrind_annotate
	# reads it; both read at once are two threads
	record "$tmpdir/thr.out" --toggle-collect=work --separate-threads=yes \
		--separate-recs=20 testdata/bin/callgraph 3 2
	for f in "$tmpdir"/thr.out-*; do
		annotated "$f"
	done >"$tmpdir/thr.annotate"
	for f in "$tmpdir"/thr.out-*; do
		costs "$f"
	done >"$tmpdir/thr.costs"
	same_output "recorded: threads apart, each file" "$tmpdir/thr.annotate" \
		"$tmpdir/thr.costs"
	profkit-convert --tid --to=folded "$tmpdir"/thr.out-* >"$tmpdir/thr.folded" &&
		[ "$(cut -d';' -f1 "$tmpdir/thr.folded" | sort -u | sed 's/^-[0-9]*//' |
			tr '\n' ' ')" = "/1 /2 " ] &&
		pass "recorded: threads summed, each under its thread" ||
		{ fail "recorded: threads summed"; diag_file "$tmpdir/thr.folded"; }
fi

# ---- our own --to=callgrind, read back ----

d=testdata/perf-script
# a frame that calls itself ([unknown] under [unknown]) is once a frame
once() {
	sed 's/\(\[unknown\];\)\{1,\}/[unknown];/g' "$1" | sort
}
for spec in c-fp:cpu-clock multi:cpu-clock multi:page-faults; do
	f=${spec%%:*} ev=${spec#*:}
	profkit-convert -q --to=callgrind $d/$f.txt -o "$tmpdir/$f.callgrind"
	profkit-convert -q --to=folded --no-comm --event=$ev $d/$f.txt >"$tmpdir/want"
	profkit-convert -q --to=folded --event=$ev "$tmpdir/$f.callgrind" >"$tmpdir/got"
	once "$tmpdir/want" >"$tmpdir/want.once"
	once "$tmpdir/got" >"$tmpdir/got.once"
	same_output "read back: $f, $ev: the stacks written" "$tmpdir/want.once" \
		"$tmpdir/got.once"
done
# threads: two callers share the system call's frames, so the graph
# leaves open which goes with which; every function's costs stay
profkit-convert -q --to=callgrind $d/threads.txt -o "$tmpdir/threads.callgrind"
"$costs_of" --costs $d/threads.txt | sort >"$tmpdir/want"
costs "$tmpdir/threads.callgrind" | sort >"$tmpdir/got"
same_output "read back: threads, each function's self and inclusive costs" \
	"$tmpdir/want" "$tmpdir/got"
# cxx-dwarf: std::function's frames call each other in the graph written
# (_M_invoke twice in a stack): only those three differ
profkit-convert -q --to=callgrind $d/cxx-dwarf.txt -o "$tmpdir/cxx.callgrind"
"$costs_of" --costs $d/cxx-dwarf.txt | sort >"$tmpdir/want"
costs "$tmpdir/cxx.callgrind" | sort >"$tmpdir/got"
diff "$tmpdir/want" "$tmpdir/got" | sed -n 's/^> [^\t]*\t???:\([^<]*\).*/\1/p' |
	sort -u | tr '\n' ' ' >"$tmpdir/differ"
[ "$(cat "$tmpdir/differ")" = "__invoke_impl __invoke_r std::_Function_handler " ] &&
	pass "read back: cxx-dwarf, all but the functions on a cycle" ||
	fail "read back: cxx-dwarf: differ $(cat "$tmpdir/differ")"

# ---- large and hostile graphs: bounded time, found without --from ----

# graph NAME AWK-PROGRAM: a callgrind file made by awk
graph() {
	awk "BEGIN { print \"events: Ir\"; print \"fl=g.c\"; $2 }" >"$tmpdir/$1.callgrind"
}
# a chain 5000 calls deep: stacks cut to 4096 frames
graph deep 'n = 5000; for (i = 1; i <= n; i++) { printf "fn=(%d) f%d\n1 1\n", i, i
	if (i < n) printf "cfn=(%d) f%d\ncalls=1 1\n2 %d\n", i + 1, i + 1, n - i }'
testrun_status "a chain 5000 deep: stacks cut at --max-stack" 0 \
	"stacks were deeper than 4096 frames" \
	timeout 20 profkit-convert --to=folded "$tmpdir/deep.callgrind"
# a ring of 3000 functions and 400 that each call all the others
graph cycles 'n = 3000; print "fn=main"; print "cfn=(1) r1"; print "calls=1 1"
	printf "1 %d\n", n
	for (i = 1; i <= n; i++) { printf "fn=(%d) r%d\n1 1\ncfn=(%d) r%d\ncalls=1 1\n2 %d\n",
		i, i, i % n + 1, i % n + 1, n }
	print "fn=main"; print "cfn=(9001) k1"; print "calls=1 1"; print "1 400"
	for (i = 1; i <= 400; i++) { printf "fn=(%d) k%d\n1 1\n", 9000 + i, i
		for (j = 1; j <= 400; j++) if (j != i) printf "cfn=(%d) k%d\ncalls=1 1\n2 5\n", 9000 + j, j }'
if timeout 20 profkit-convert --to=folded "$tmpdir/cycles.callgrind" >"$tmpdir/out" 2>"$tmpdir/err" &&
	[ "$(wc -l <"$tmpdir/out")" -eq 3400 ] &&
	[ "$(awk '{ s += $NF } END { print s }' "$tmpdir/out")" -eq 3400 ]; then
	pass "cycles of 3000 and 400 functions: each function's self cost"
else
	fail "cycles of 3000 and 400 functions"
	diag_file "$tmpdir/err"
fi
# two functions a level, each calling both of the next, 60 levels: 2^60
# paths (costs too large to round any to nothing), merged past
# callgrind:max-paths
graph lattice 's = 2^40; print "fn=top"; print "1 1"
	for (k = 0; k < 2; k++) printf "cfn=%s1\ncalls=1 1\n2 %.0f\n", k ? "b" : "a", s * 60
	for (l = 1; l <= 60; l++) for (k = 0; k < 2; k++) {
		printf "fn=%s%d\n1 %.0f\n", k ? "b" : "a", l, s
		if (l < 60) for (j = 0; j < 2; j++)
			printf "cfn=%s%d\ncalls=1 1\n2 %.0f\n", j ? "b" : "a", l + 1, s * (60 - l) / 2 }'
testrun_status "2^60 paths: merged past callgrind:max-paths" 0 \
	"reached by more call paths than callgrind:max-paths keeps" \
	timeout 20 profkit-convert --to=folded "$tmpdir/lattice.callgrind"
# a million events on the events: line
awk 'BEGIN { printf "events:"; for (i = 0; i < 1000000; i++) printf " e%d", i; print "" }' \
	>"$tmpdir/events.callgrind"
testrun_fails "a million events: an error, at once" 1 \
	"events.callgrind: line 1: more than 32 events" \
	timeout 10 profkit-convert --to=pprof -o "$outdir/out.pb.gz" "$tmpdir/events.callgrind"
finish
