#!/bin/sh
# Other profilers' exports (issue 26): macOS sample, Instruments, VTune,
# Visual Studio, pprof -raw, lightweight-java-profiler, GHC and xctrace.
# On inputs written from each format's documentation, and GHC reports
# recorded here (testdata/README.md says where each came from), read
# without --from:
#
#   - folded, they equal what the format's FlameGraph script makes of
#     them, run live from ../shared/reference/flamegraph/ (its lines as
#     flamegraph.pl reads them: counts summed per stack, zero counts
#     dropped, sorted), except where the script is wrong: there the
#     script's output against ours is X.script.diff, each hunk one of the
#     differences doc/formats.md names;
#   - GHC and xctrace, which have no script, equal inferno's reading of
#     them, written by hand (X.ticks.folded, X.bytes.folded,
#     X.inferno.folded);
#   - pprof -raw text of every profile of testdata/pprof, made live by Go
#     pprof, converts as the profile itself does, and stackcollapse-go.pl
#     folds it as we do where its differences cannot arise;
#   - --to=pprof (read back by Go pprof -raw) and --to=speedscope hold the
#     stacks and values of --to=folded.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 82
TZ=UTC
export TZ
find_pprof
have_python=
command -v python3 >/dev/null 2>&1 && have_python=yes

# what flamegraph.pl reads of folded lines: counts summed per stack, zero
# counts dropped, sorted bytewise
normalize() {
	awk '{ n = $NF; s = $0; sub(/ [^ ]*$/, "", s); sum[s] += n }
	END { for (s in sum) if (sum[s] != 0) print s, sum[s] }' | sort
}

# script_folds NAME EXPECTED COMMAND...: the reference script's output,
# normalized, equals EXPECTED ($reference set by find_reference)
script_folds() {
	name=$1 expected=$2
	shift 2
	if [ -z "$reference" ]; then
		skip "$name" "$reference_missing"
	elif "$@" >"$tmpdir/script.out" 2>"$tmpdir/script.err"; then
		normalize <"$tmpdir/script.out" >"$tmpdir/script"
		same_output "$name" "$expected" "$tmpdir/script"
	else
		fail "$name (exit $?)"
		diag_file "$tmpdir/script.err"
	fi
}

# script_differs NAME DIFF OURS COMMAND...: the reference script's output,
# normalized, against the folded file OURS is the diff DIFF: where the
# script is wrong, and nowhere else
script_differs() {
	name=$1 want=$2 ours=$3
	shift 3
	if [ -z "$reference" ]; then
		skip "$name" "$reference_missing"
		return
	fi
	"$@" 2>"$tmpdir/script.err" | normalize >"$tmpdir/script"
	diff "$tmpdir/script" "$ours" >"$tmpdir/script.diff"
	if cmp -s "$want" "$tmpdir/script.diff"; then
		pass "$name"
	else
		fail "$name"
		diff -u "$want" "$tmpdir/script.diff" | diag_file /dev/stdin 30
	fi
}

# Folded stacks of a pprof -raw text (names whole, inlined lines
# included) or of speedscope JSON, or of folded lines, summed per stack
# as decimals, so that the three compare.
stacks() {
	python3 - "$@" <<'EOF'
import json, re, sys
from collections import defaultdict

mode, path = sys.argv[1], sys.argv[2]
sample_type = sys.argv[3] if len(sys.argv) > 3 else ""
sums = defaultdict(float)
if mode == "folded":
    for line in open(path, encoding="utf-8"):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        sums[stack] += float(n)
elif mode == "speedscope":
    doc = json.load(open(path, encoding="utf-8"))
    names = [f["name"] for f in doc["shared"]["frames"]]
    for prof in doc["profiles"]:
        assert prof["type"] == "sampled"
        for s, w in zip(prof["samples"], prof["weights"]):
            sums[";".join(names[i] for i in s)] += w
else:
    section, scales, samples, locations, loc = None, [], [], {}, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line in ("Samples:", "Locations", "Mappings"):
            section = line
            continue
        if section == "Samples:" and not scales:
            types = [t.split("/")[0] for t in line.split()]
            column = types.index(sample_type) if sample_type else -1
            for t in line.split():
                m = re.search(r"/1(0+)(\[dflt\])?$", t)
                scales.append(10 ** len(m.group(1)) if m else 1)
        elif section == "Samples:":
            m = re.match(r"^ *(-?\d+(?: +-?\d+)*): (.*)$", line)
            if m:
                samples.append((m.group(1).split(), m.group(2).split()))
        elif section == "Locations":
            m = re.match(r"^ *(\d+): 0x[0-9a-f]+ (?:M=\d+ )?(?:\[F\] )?(.*)$", line)
            if m:
                loc, rest = m.group(1), m.group(2)
                locations[loc] = []
            else:
                rest = line.strip()
            if rest:
                locations[loc].append(re.sub(r" \S*:-?\d+(?::\d+)? s=-?\d+(\(.*\))?$", "", rest))
    for values, ids in samples:
        frames = [f for i in reversed(ids) for f in reversed(locations[i])]
        sums[";".join(frames)] += int(values[column]) / scales[column]
for s in sorted(sums, key=lambda s: s.encode()):
    if sums[s]:
        print(s, ("%.6f" % sums[s]).rstrip("0").rstrip("."))
EOF
}

# same_stacks NAME INPUT [OPTIONS...]: --to=pprof as Go pprof reads it
# back, and --to=speedscope, hold the stacks and values of --to=folded
# (threads left out)
same_stacks() {
	name=$1 input=$2
	shift 2
	if [ -z "$have_python" ]; then
		skip "$name: pprof and speedscope" "no python3"
		return
	fi
	profkit-convert -q --no-comm "$@" --to=folded "$input" >"$tmpdir/f.folded" &&
		stacks folded "$tmpdir/f.folded" >"$tmpdir/want" &&
		profkit-convert -q "$@" --to=speedscope -o "$tmpdir/s.json" "$input" &&
		stacks speedscope "$tmpdir/s.json" >"$tmpdir/got" ||
		{ fail "$name: speedscope (it did not convert)"; return; }
	same_output "$name: speedscope" "$tmpdir/want" "$tmpdir/got"
	if [ -z "$pprof" ]; then
		skip "$name: pprof -raw" "no Go pprof"
		return
	fi
	# the column folded shows: the one --sample-type names, else the last
	type=
	case " $* " in *" --sample-type="*)
		type=$(echo " $* " | sed 's/.* --sample-type=\([^ ]*\) .*/\1/') ;;
	esac
	profkit-convert -q "$@" --to=pprof -o "$tmpdir/p.pb.gz" "$input" &&
		"$pprof" -symbolize=none -raw "$tmpdir/p.pb.gz" >"$tmpdir/p.raw" 2>/dev/null &&
		stacks raw "$tmpdir/p.raw" "$type" >"$tmpdir/got" ||
		{ fail "$name: pprof -raw (it did not convert)"; return; }
	same_output "$name: pprof -raw" "$tmpdir/want" "$tmpdir/got"
}

folds() { profkit-convert -q --to=folded "$@"; }

# ---- macOS sample: stackcollapse-sample.awk ----
d=testdata/macos-sample
find_reference flamegraph/stackcollapse-sample.awk
testrun_compare "macos-sample: found and folded" $d/demo.folded folds $d/demo.txt
script_folds "macos-sample: stackcollapse-sample.awk folds it alike" $d/demo.folded \
	awk -f "$reference" $d/demo.txt
testrun_compare "macos-sample: -X macos-sample:no-modules" $d/demo.no-modules.folded \
	folds -X macos-sample:no-modules $d/demo.txt
script_folds "macos-sample: the awk script's MODULES=0 alike" $d/demo.no-modules.folded \
	awk -f "$reference" MODULES=0 $d/demo.txt
testrun_compare "macos-sample: names whole, waiting callers' own samples kept" \
	$d/viewer.folded folds $d/viewer.txt
script_differs "macos-sample: the awk script differs where doc/formats.md says" \
	$d/viewer.script.diff $d/viewer.folded awk -f "$reference" $d/viewer.txt
sed '/^Total number/,$d' $d/demo.txt >"$tmpdir/cut.txt"
testrun_status "macos-sample: a call graph without its end: a warning" 0 \
	"cut.txt: the call graph ends without its 'Total number in stack' line" \
	profkit-convert --to=folded "$tmpdir/cut.txt"
testrun_compare "macos-sample: ... and every sample" $d/demo.folded folds "$tmpdir/cut.txt"
grep -v 'checksum' $d/demo.folded >"$tmpdir/want"
script_folds "macos-sample: the awk script loses the last path there" "$tmpdir/want" \
	awk -f "$reference" "$tmpdir/cut.txt"
same_stacks "macos-sample" $d/viewer.txt

# ---- Instruments: stackcollapse-instruments.pl ----
d=testdata/instruments
find_reference flamegraph/stackcollapse-instruments.pl
testrun_compare "instruments: found and folded" $d/demo.folded folds $d/demo.txt
script_folds "instruments: stackcollapse-instruments.pl folds it alike" $d/demo.folded \
	perl "$reference" $d/demo.txt
testrun_compare "instruments: fractions of a millisecond kept" $d/fractions.folded \
	folds $d/fractions.txt
script_differs "instruments: the perl script rounds them" $d/fractions.script.diff \
	$d/fractions.folded perl "$reference" $d/fractions.txt
same_stacks "instruments" $d/fractions.txt

# ---- VTune: stackcollapse-vtune.pl's logic, inferno's columns ----
d=testdata/vtune
find_reference flamegraph/stackcollapse-vtune.pl
testrun_compare "vtune: found and folded (CPU Time:Self, Module)" $d/demo.folded folds $d/demo.csv
testrun_compare "vtune: the columns found by name" $d/demo.folded folds $d/demo-2013.csv
# the script with "my" before its undeclared $func, on the column order
# its expression reads
if [ -n "$reference" ]; then
	sed 's/^\t\$func = /\tmy $func = /' "$reference" >"$tmpdir/vtune.pl"
	reference=$tmpdir/vtune.pl
fi
script_folds "vtune: stackcollapse-vtune.pl, \$func declared, folds it alike" \
	$d/demo.folded perl "$reference" $d/demo-2013.csv
same_stacks "vtune" $d/demo.csv

# ---- Visual Studio: stackcollapse-vsprof.pl ----
d=testdata/vsprof
find_reference flamegraph/stackcollapse-vsprof.pl
testrun_compare "vsprof: found and folded" $d/demo.folded folds $d/demo.csv
script_folds "vsprof: stackcollapse-vsprof.pl folds it alike" $d/demo.folded \
	perl "$reference" $d/demo.csv
testrun_compare "vsprof: exclusive samples, names whole" $d/viewer.folded folds $d/viewer.csv
script_differs "vsprof: the perl script differs where doc/formats.md says" \
	$d/viewer.script.diff $d/viewer.folded perl "$reference" $d/viewer.csv
testrun_compare "vsprof: without an exclusive column, what callees leave" \
	$d/viewer.folded folds $d/viewer-inclusive.csv
same_stacks "vsprof" $d/viewer.csv
# a function without a name is unknown (the folded writer names it by
# its module), where the empty name read as out of memory
printf 'Level,Function Name,Inclusive Samples,Exclusive Samples,Module Name\n1,"",100,10,"demo"\n2,"x",90,90,"demo"\n' \
	>"$tmpdir/unnamed.csv"
printf '[demo] 10\n[demo];x 90\n' >"$tmpdir/unnamed.folded"
testrun_compare "vsprof: a function without a name" "$tmpdir/unnamed.folded" \
	folds "$tmpdir/unnamed.csv"
printf 'Call graph:\n    60 Thread_1\n    + 60 \n    +   50 x  (in m) + 1  [0x1]\n\nTotal number in stack\n' \
	>"$tmpdir/unnamed.txt"
printf 'Thread_1;[unknown] 10\nThread_1;[unknown];m`x 50\n' >"$tmpdir/unnamed.folded"
testrun_compare "macos-sample: a function without a name" "$tmpdir/unnamed.folded" \
	folds --from=macos-sample "$tmpdir/unnamed.txt"

# ---- pprof -raw: stackcollapse-go.pl ----
d=testdata/pprof-raw
find_reference flamegraph/stackcollapse-go.pl
testrun_compare "pprof-raw: found and folded, threads and inlined lines" $d/demo.folded \
	folds $d/demo.txt
folds --no-comm --sample-type=samples $d/demo.txt >"$tmpdir/ours"
script_differs "pprof-raw: stackcollapse-go.pl differs where doc/formats.md says" \
	$d/demo.script.diff "$tmpdir/ours" perl "$reference" $d/demo.txt
testrun_compare "pprof-raw: one value a sample" $d/goroutines.folded folds $d/goroutines.txt
script_differs "pprof-raw: stackcollapse-go.pl misreads one value" \
	$d/goroutines.script.diff $d/goroutines.folded perl "$reference" $d/goroutines.txt
# every profile of testdata/pprof as Go pprof prints it, live
if [ -n "$pprof" ]; then
	for f in testdata/pprof/*.pb.gz testdata/pprof/c-fp.pb; do
		b=$(basename "$f")
		"$pprof" -raw "$f" >"$tmpdir/$b.raw" 2>/dev/null
		folds "$f" >"$tmpdir/want"
		testrun_compare "pprof-raw: $b's pprof -raw text folds as $b" \
			"$tmpdir/want" folds "$tmpdir/$b.raw"
	done
	profkit-convert -q --to=pprof -o "$tmpdir/want.pb.gz" testdata/pprof/go-cpu.pb.gz
	profkit-convert -q --to=pprof -o "$tmpdir/got.pb.gz" "$tmpdir/go-cpu.pb.gz.raw"
	"$pprof" -raw "$tmpdir/want.pb.gz" | grep -v '^Duration: ' >"$tmpdir/want"
	testrun_compare "pprof-raw: go-cpu to pprof as from the profile (but its duration)" \
		"$tmpdir/want" "$pprof" -raw "$tmpdir/got.pb.gz"
	# two values a sample, one-word names, without inlined lines: the
	# script reads these whole
	for b in c-fp.pb go-block.pb.gz go-burn-1.pb.gz go-cpu.pb.gz go-mutex.pb.gz; do
		awk '/^Locations/ { l = 1 } /^Mappings/ { l = 0 } !(l && /^             /)' \
			"$tmpdir/$b.raw" >"$tmpdir/flat.raw"
		folds --no-comm --sample-type="$(sed -n '/^Samples:/{n;s|/.*||p;q}' "$tmpdir/flat.raw")" \
			"$tmpdir/flat.raw" >"$tmpdir/ours"
		script_folds "pprof-raw: stackcollapse-go.pl folds $b's text alike" \
			"$tmpdir/ours" perl "$reference" "$tmpdir/flat.raw"
	done
	# more than two values a sample: the script reads none
	for b in go-heap.pb.gz go-allocs.pb.gz; do
		if [ -z "$reference" ]; then
			skip "pprof-raw: stackcollapse-go.pl reads no sample of $b" "$reference_missing"
		elif [ -z "$(perl "$reference" "$tmpdir/$b.raw")" ] &&
			folds "$tmpdir/$b.raw" | grep -q .; then
			pass "pprof-raw: stackcollapse-go.pl reads no sample of $b (four values)"
		else
			fail "pprof-raw: stackcollapse-go.pl reads no sample of $b"
		fi
	done
else
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
		skip "pprof-raw: live pprof -raw text ($i)" "no Go pprof"
	done
fi
# its time, with the offset it was printed with (not this machine's zone)
TZ=Asia/Tokyo profkit-convert -q --to=pprof -o "$tmpdir/tz.pb.gz" $d/demo.txt
if [ -z "$pprof" ]; then
	skip "pprof-raw: its time" "no Go pprof"
elif "$pprof" -raw "$tmpdir/tz.pb.gz" 2>/dev/null | grep -q '^Time: 2024-03-01 09:00:00.5 +0000 UTC$'; then
	pass "pprof-raw: its time, 10:00:00.5 +0100"
else
	fail "pprof-raw: its time, 10:00:00.5 +0100"
fi
same_stacks "pprof-raw" $d/goroutines.txt

# ---- lightweight-java-profiler: stackcollapse-ljp.awk ----
d=testdata/ljp
find_reference flamegraph/stackcollapse-ljp.awk
testrun_compare "ljp: found and folded" $d/demo.folded folds $d/demo.txt
script_folds "ljp: stackcollapse-ljp.awk folds it alike" $d/demo.folded \
	awk -f "$reference" $d/demo.txt
sed '/^Total/,$d' $d/demo.txt >"$tmpdir/cut.txt"
testrun_compare "ljp: traces without their total" $d/demo.folded folds "$tmpdir/cut.txt"
awk '/demo.Work.spin/ { $NF -= 15 } { print }' $d/demo.folded >"$tmpdir/want"
script_folds "ljp: the awk script loses the last trace there" "$tmpdir/want" \
	awk -f "$reference" "$tmpdir/cut.txt"
same_stacks "ljp" $d/demo.txt

# ---- GHC: inferno's reading ----
d=testdata/ghc-prof
testrun_compare "ghc-prof: ticks of -P, as inferno --ticks" $d/demo.ticks.folded \
	folds --sample-type=ticks $d/demo.prof
testrun_compare "ghc-prof: bytes of -P, as inferno --bytes" $d/demo.bytes.folded \
	folds --sample-type=bytes $d/demo.prof
testrun_compare "ghc-prof: ticks by default" $d/demo.ticks.folded folds $d/demo.prof
testrun_compare "ghc-prof: -p's individual %time" $d/demo-p.folded folds $d/demo-p.prof
folds $d/demo-p.prof | awk '{ $NF = $NF * 10; print }' >"$tmpdir/got"
same_output "ghc-prof: inferno's per mille of it" $d/demo-p.inferno.folded "$tmpdir/got"
# recorded here with GHC 9.0.2 (testdata/src/ghc-demo.hs)
testrun_compare "ghc-prof: a recorded -P report, ticks" $d/recorded-P.ticks.folded \
	folds $d/recorded-P.prof
testrun_compare "ghc-prof: a recorded -P report, bytes" $d/recorded-P.bytes.folded \
	folds --sample-type=bytes $d/recorded-P.prof
testrun_compare "ghc-prof: a recorded -p report, %time" $d/recorded-p.folded \
	folds $d/recorded-p.prof
same_stacks "ghc-prof bytes" $d/demo.prof --sample-type=bytes
same_stacks "ghc-prof ticks" $d/demo.prof --sample-type=ticks

# ---- xctrace: inferno's reading ----
d=testdata/xctrace
testrun_compare "xctrace: rows counted, as inferno" $d/demo.inferno.folded \
	folds --value=samples --no-comm $d/demo.xml
testrun_compare "xctrace: weights and threads by default" $d/demo.folded folds $d/demo.xml
same_stacks "xctrace weight" $d/demo.xml
same_stacks "xctrace samples" $d/demo.xml --sample-type=samples
testrun_compare "xctrace: from a pipe" $d/demo.folded sh -c "profkit-convert -q --to=folded < $d/demo.xml"
finish
