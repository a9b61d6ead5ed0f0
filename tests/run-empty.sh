#!/bin/sh
# An empty input (an empty file, empty standard input, perf script of a
# recording without samples) is a profile of no samples: every writer
# writes its format's empty output, each read back by its consumer where
# one is installed, with exit 0 and one warning naming the input, as
# stackcollapse-perf.pl and inferno read nothing; --strict makes it
# exit 1. A file that is not empty but no known format still exits 1.
# Every command does something sensible with it.
. "${top_srcdir:-.}/tests/test-subr.sh"
find_pprof
find_otlp_check
writers=$(profkit-convert --list-formats |
	awk '/^Output formats/ { out = 1; next } out { print $1 }')
: >"$tmpdir/empty.txt"
header=testdata/perf-script/empty-header.txt

# consumer FORMAT FILE: the format's own reader takes FILE as a profile of
# nothing (prints why not on failure); 77 when none is installed here
consumer() {
	case $1 in
	folded|perf-script)
		[ ! -s "$2" ] ;;
	pprof)
		[ -n "$pprof" ] || return 77
		"$pprof" -raw "$2" >"$tmpdir/raw" 2>&1 &&
			grep -q '^samples/count$' "$tmpdir/raw" &&
			! sed -n '/^Samples:/,/^Locations/p' "$tmpdir/raw" | grep -q '^ *[0-9]' ||
			{ diag_file "$tmpdir/raw"; return 1; } ;;
	speedscope|chrome-trace|gprof2dot|firefox)
		command -v python3 >/dev/null 2>&1 || return 77
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$2" || return 1
		if [ "$1" = gprof2dot ] && find_reference gprof2dot/gprof2dot.py; then
			python3 "$reference" -f json "$2" >/dev/null
		elif [ "$1" = speedscope ] && command -v node >/dev/null 2>&1 &&
			node -e "require('ajv')" >/dev/null 2>&1; then
			# 2: no schema (the speedscope package is not installed)
			node tests/validate-speedscope.js "$2" >/dev/null
			case $? in 0) ;; 2) return 77 ;; *) return 1 ;; esac
		fi ;;
	dot)
		command -v dot >/dev/null 2>&1 || return 77
		dot -Tsvg "$2" >/dev/null ;;
	callgrind)
		command -v callgrind_annotate >/dev/null 2>&1 || return 77
		callgrind_annotate "$2" >"$tmpdir/annotate" 2>&1 &&
			grep -q "PROGRAM TOTALS" "$tmpdir/annotate" ;;
	flamegraph)
		command -v python3 >/dev/null 2>&1 || return 77
		python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$2" &&
			grep -q ': no samples</text>' "$2" ;;
	otlp|otlp-json)
		# the official schema's, profcheck's rules kept (every table's
		# entry 0 present) and no sample
		[ -z "$otlp_missing" ] || return 77
		otlp_check rules "$2" >"$tmpdir/rules" &&
			[ -z "$(otlp_check stacks "$2")" ] ||
			{ diag_file "$tmpdir/rules"; return 1; } ;;
	*)
		return 1 ;;
	esac
}

# empty_case NAME WARNING-NAME COMMAND...: for each writer, the command
# (given -o FILE --to=FMT after it) exits 0, warns once about the input,
# and writes what the consumer takes
empty_case() {
	name=$1 input=$2
	shift 2
	for to in $writers; do
		"$@" --to=$to -o "$tmpdir/out.$to" >"$tmpdir/stdout" 2>"$tmpdir/err"
		s=$?
		if [ $s -ne 0 ] || [ "$(wc -l <"$tmpdir/err")" -ne 1 ] ||
			! grep -q "^profkit-convert: warning: $input: .*no samples" "$tmpdir/err"; then
			fail "$name, $to: exit 0 and one warning (exit $s)"
			diag_file "$tmpdir/err"
			continue
		fi
		consumer $to "$tmpdir/out.$to"
		case $? in
		0) pass "$name, $to: exit 0, one warning, read by its consumer" ;;
		77) skip "$name, $to: read by its consumer" "no consumer of $to (pprof, python3, graphviz, valgrind, protoc with python3-protobuf, speedscope's schema: ./bootstrap installs them)" ;;
		*) fail "$name, $to: read by its consumer" ;;
		esac
	done
}

empty_case "an empty file" "$tmpdir/empty.txt" profkit-convert "$tmpdir/empty.txt"
empty_case "empty standard input" "<stdin>" sh -c 'profkit-convert "$@" </dev/null' sh
gzip -c <"$tmpdir/empty.txt" >"$tmpdir/empty.gz"
empty_case "an empty file gzipped" "$tmpdir/empty.gz" profkit-convert "$tmpdir/empty.gz"
# perf script --header of perf-data/empty.perf.data: the header alone
empty_case "perf script --header of a recording without samples" "$header" \
	profkit-convert "$header"
# and without --header: nothing at all, the empty file above; live
if command -v perf >/dev/null 2>&1; then
	HOME=$tmpdir perf script -i testdata/perf-data/empty.perf.data >"$tmpdir/script.txt" 2>/dev/null
	testrun_status "perf script of a recording without samples: empty, converts" 0 \
		"script.txt: the input is empty: no samples" \
		sh -c "[ ! -s '$tmpdir/script.txt' ] && profkit-convert --to=pprof -o '$tmpdir/x.pb.gz' '$tmpdir/script.txt'"
else
	skip "perf script of a recording without samples: empty, converts" "no perf (linux-perf)"
fi

testrun_fails "--strict: an empty input exits 1" 1 "stopping: warnings with --strict" \
	profkit-convert --strict --to=pprof -o "$outdir/x.pb.gz" "$tmpdir/empty.txt"
testrun_fails "--strict: perf script of a recording without samples exits 1" 1 \
	"empty-header.txt: no samples in the input" \
	profkit-convert --strict --to=folded -o "$outdir/x.folded" "$header"
printf 'hello\n' >"$tmpdir/hello.txt"
testrun_fails "a file not empty but of no known format exits 1" 1 \
	"hello.txt: unknown profile format" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/hello.txt"
# --from names the format: its reader says what an empty input is
testrun_fails "--from=pprof: an empty file is no pprof profile, as pprof says" 1 \
	"empty.txt: invalid pprof profile: empty input file" \
	profkit-convert --from=pprof --to=folded -o "$outdir/x.folded" "$tmpdir/empty.txt"
# --from naming a text format whose collapse script reads an empty file as
# no stacks (each run here on it): the same, exit 0 and the warning
for pair in dtrace:stackcollapse.pl bpftrace:stackcollapse-bpftrace.pl \
	systemtap:stackcollapse-stap.pl pmcstat:stackcollapse-pmc.pl \
	eu-stack:stackcollapse-elfutils.pl gdb:stackcollapse-gdb.pl \
	jstack:stackcollapse-jstack.pl java-exceptions:stackcollapse-java-exceptions.pl \
	instruments:stackcollapse-instruments.pl vsprof:stackcollapse-vsprof.pl \
	vtune:stackcollapse-vtune.pl pprof-raw:stackcollapse-go.pl \
	macos-sample:stackcollapse-sample.awk ljp:stackcollapse-ljp.awk; do
	from=${pair%%:*} script=${pair#*:}
	if ! find_reference "flamegraph/$script"; then
		skip "--from=$from: an empty file is no stacks, as $script reads it" "$reference_missing"
		continue
	fi
	# stackcollapse-vtune.pl does not compile with current perl (its loop
	# prints nothing of no lines); the stack-less line stackcollapse-pmc.pl
	# (' ') and -vsprof.pl (' 0') print for no input is no stack
	case $script in
	*vtune*) : ;;
	*.awk) awk -f "$reference" "$tmpdir/empty.txt" ;;
	*) perl "$reference" "$tmpdir/empty.txt" 2>/dev/null ;;
	esac | awk 'NF >= 2' >"$tmpdir/theirs"
	testrun_status "--from=$from: an empty file is no stacks, as $script reads it" 0 \
		"empty.txt: the input is empty: no samples" \
		sh -c 'profkit-convert --from="$1" --to=folded "$2" >"$3" && cmp -s "$3" "$4"' sh \
		"$from" "$tmpdir/empty.txt" "$tmpdir/ours" "$tmpdir/theirs"
done

# the commands
c_fp=testdata/perf-script/c-fp.txt
profkit-convert -q --to=folded $c_fp >"$tmpdir/c-fp.folded"
testrun_compare "merge: an empty input adds nothing" "$tmpdir/c-fp.folded" \
	profkit-merge -q --to=folded "$tmpdir/empty.txt" $c_fp "$tmpdir/empty.txt"
profkit-diff -q $c_fp $c_fp | awk '{ $2 = 0; print }' >"$tmpdir/all-new"
testrun_compare "diff: an empty BASE, everything new" "$tmpdir/all-new" \
	profkit-diff -q "$tmpdir/empty.txt" $c_fp
if [ -n "$pprof" ]; then
	profkit-diff -q --to=pprof -o "$tmpdir/gone.pb.gz" $c_fp "$tmpdir/empty.txt"
	"$pprof" -top -symbolize=none "$tmpdir/gone.pb.gz" 2>&1 |
		grep -q "Showing nodes accounting for -" &&
		pass "diff --to=pprof: an empty NEW, everything gone (pprof -top)" ||
		fail "diff --to=pprof: an empty NEW, everything gone (pprof -top)"
else
	skip "diff --to=pprof: an empty NEW, everything gone (pprof -top)" "no Go pprof"
fi
printf '%s\n' "$tmpdir/empty.txt: empty input" "  distinct stacks: 0, functions: 0" \
	"  no samples: the input holds no sample records (was the recording empty, or made without sampling?)" \
	>"$tmpdir/want"
testrun_compare "info: an empty input described" "$tmpdir/want" profkit-info -q "$tmpdir/empty.txt"
for cmd in "profkit-top" "profkit-filter --focus=main --to=folded" \
	"profkit-symbolize --to=folded" "profkit-flamegraph"; do
	# shellcheck disable=SC2086
	$cmd "$tmpdir/empty.txt" >"$tmpdir/out" 2>"$tmpdir/err"
	s=$?
	[ $s -eq 0 ] && grep -q "empty.txt: the input is empty: no samples" "$tmpdir/err" &&
		{ [ "$cmd" = profkit-flamegraph ] && grep -q "no samples</text>" "$tmpdir/out" ||
		  [ ! -s "$tmpdir/out" ]; } &&
		pass "${cmd%% *}: exit 0, the warning, the empty output" ||
		{ fail "${cmd%% *}: exit 0, the warning, the empty output (exit $s)"; diag_file "$tmpdir/err"; }
done

plan $tap_n
finish
