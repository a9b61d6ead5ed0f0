#!/bin/sh
# perf script text to pprof's profile.proto. Without pprof the checks
# look at the bytes (gzip, raw protobuf strings); with Go pprof ($PPROF,
# `pprof` on PATH, or .tools/bin/pprof, which ./bootstrap builds)
# pprof's own reading of our output is compared with expected files
# made by pprof from this output and checked by hand: sample totals
# equal those of the folded output, and the heaviest function is the
# heaviest leaf of stackcollapse-perf.pl's folded stacks (hot_loop in
# c-fp, touch_pages and pvm_irq_enable in multi).
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 18
d=testdata/perf-script
e=testdata/pprof
TZ=UTC
export TZ

find_pprof


# pprof_compare NAME EXPECTED PPROF-ARGS...: pprof's output must equal it
pprof_compare() {
	name=$1 expected=$2
	shift 2
	if [ -n "$pprof" ]; then
		testrun_compare "$name" "$expected" "$pprof" -symbolize=none "$@"
	else
		skip "$name" "no pprof"
	fi
}

# pprof -raw text to folded stacks "comm;root;...;leaf value" summed over
# the samples, with the value of column $2 (1-based).
raw_to_folded() {
	awk -v col="$2" '
	/^Samples:/ { mode = "s"; getline; next }
	/^Locations/ { mode = "l"; next }
	/^Mappings/ { mode = "m"; next }
	mode == "s" && /^ *-?[0-9]+( +-?[0-9]+)*:/ {
		split($0, a, ":"); split(a[1], v, " ")
		n++; val[n] = v[col]; ids[n] = a[2]; next
	}
	mode == "s" && /comm:\[/ {
		c = $0; sub(/.*comm:\[/, "", c); sub(/\].*/, "", c)
		comm[n] = c; next
	}
	mode == "l" && /^ *[0-9]+: / { id = $1 + 0; name[id] = $4; next }
	mode == "l" && /^             [^ ]/ { name[id] = $1 ";" name[id]; next }
	END {
		for (i = 1; i <= n; i++) {
			k = split(ids[i], loc, " "); s = comm[i]
			for (j = k; j >= 1; j--)
				s = s ";" name[loc[j] + 0]
			sum[s] += val[i]
		}
		for (s in sum)
			if (sum[s])
				print s, sum[s]
	}' "$1" | sort
}

# folded_matches NAME RAW COLUMN FOLDED-ARGS...: the samples of an expected
# pprof -raw file in column COLUMN, as folded stacks, equal our folded
# output. Needs no pprof: with the comparisons above it shows that what
# pprof reads is what the folded output (and stackcollapse-perf.pl) says.
folded_matches() {
	name=$1 raw=$2 col=$3
	shift 3
	profkit-convert -q --to=folded "$@" >"$tmpdir/want" &&
		raw_to_folded "$raw" "$col" >"$tmpdir/got"
	if [ -s "$tmpdir/want" ] && cmp -s "$tmpdir/want" "$tmpdir/got"; then
		pass "$name"
	else
		fail "$name"
		diff -u "$tmpdir/want" "$tmpdir/got" | diag_file /dev/stdin 30
	fi
}

is_gzip() { [ "$(od -An -tx1 -N2 "$1" | tr -d ' ')" = 1f8b ]; }

# ---- the bytes, without pprof ----
profkit-convert --to=pprof $d/c-fp.txt >"$tmpdir/c-fp.pb.gz" 2>"$tmpdir/err" &&
	is_gzip "$tmpdir/c-fp.pb.gz" && gzip -t "$tmpdir/c-fp.pb.gz" &&
	pass "c-fp: gzip on stdout by default" ||
	{ fail "c-fp: gzip on stdout by default"; diag_file "$tmpdir/err"; }
profkit-convert --to=pprof -o "$tmpdir/o.pb.gz" $d/c-fp.txt &&
	cmp -s "$tmpdir/o.pb.gz" "$tmpdir/c-fp.pb.gz" &&
	pass "-o writes the same bytes" || fail "-o writes the same bytes"
profkit-convert --to=pprof --no-gzip $d/c-fp.txt >"$tmpdir/c-fp.pb" &&
	[ -s "$tmpdir/c-fp.pb" ] && ! is_gzip "$tmpdir/c-fp.pb" &&
	gzip -dc "$tmpdir/c-fp.pb.gz" | cmp -s - "$tmpdir/c-fp.pb" &&
	pass "--no-gzip writes the raw protobuf" ||
	fail "--no-gzip writes the raw protobuf"
# string_table entries are stored verbatim in the protobuf
for s in hot_loop /tmp/rec/c-fp cpu-clock nanoseconds comm tid; do
	grep -a -q -e "$s" "$tmpdir/c-fp.pb" || echo "missing $s"
done >"$tmpdir/missing"
[ ! -s "$tmpdir/missing" ] && pass "the strings are in the string table" ||
	{ fail "the strings are in the string table"; diag_file "$tmpdir/missing"; }
profkit-convert --to=pprof --no-gzip --labels=none $d/c-fp.txt >"$tmpdir/nolabels.pb" &&
	grep -a -q hot_loop "$tmpdir/nolabels.pb" &&
	! grep -a -q -e comm -e tid "$tmpdir/nolabels.pb" &&
	pass "--labels=none drops labels and their strings" ||
	fail "--labels=none drops labels and their strings"
testrun_status "--labels takes all or none" 2 "expected 'all' or 'none'" \
	profkit-convert --to=pprof --labels=some $d/c-fp.txt
profkit-convert -q --to=pprof $d/multi.txt >"$tmpdir/multi.pb.gz" &&
	is_gzip "$tmpdir/multi.pb.gz" && gzip -t "$tmpdir/multi.pb.gz" &&
	pass "multi: two events" || fail "multi: two events"

# ---- pprof's reading of it ----
pprof_compare "c-fp: pprof -raw" $e/c-fp.raw -raw "$tmpdir/c-fp.pb.gz"
pprof_compare "c-fp: pprof -top, hot_loop first" $e/c-fp.top-samples \
	-top -nodecount=5 -sample_index=samples "$tmpdir/c-fp.pb.gz"
pprof_compare "c-fp: pprof -traces" $e/c-fp.traces -traces "$tmpdir/c-fp.pb.gz"
pprof_compare "c-fp: pprof reads --no-gzip output alike" $e/c-fp.raw \
	-raw "$tmpdir/c-fp.pb"
folded_matches "c-fp: pprof's samples per stack = folded --value=samples" \
	$e/c-fp.raw 1 --value=samples $d/c-fp.txt
folded_matches "c-fp: pprof's cpu-clock per stack = folded" \
	$e/c-fp.raw 2 $d/c-fp.txt
pprof_compare "multi: pprof -raw" $e/multi.raw -raw "$tmpdir/multi.pb.gz"
pprof_compare "multi: pprof -top cpu-clock" $e/multi.top-cpu-clock \
	-top -nodecount=5 -sample_index=cpu-clock "$tmpdir/multi.pb.gz"
pprof_compare "multi: pprof -top page-faults" $e/multi.top-page-faults \
	-top -nodecount=5 -sample_index=page-faults "$tmpdir/multi.pb.gz"
folded_matches "multi: page-faults per stack = folded" \
	$e/multi.raw 2 $d/multi.txt
folded_matches "multi: cpu-clock per stack = folded --event=cpu-clock" \
	$e/multi.raw 4 --event=cpu-clock $d/multi.txt
finish
