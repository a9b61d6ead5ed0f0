#!/bin/sh
# Profiles pprof rejects are errors here too, with pprof's reason: each
# file of testdata/pprof/invalid/ (made by its make.py) has one fault of
# pprof's decoder or CheckValid, and an empty file is one more. `pprof
# -raw` must reject each with the reason given below, and profkit-convert
# must exit 1 with the same reason after the file's name, writing nothing. A location whose
# mapping id names no mapping is no fault to pprof: it converts.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/pprof/invalid
find_pprof

reasons="
no-sample-type|missing sample type information
value-count|mismatch: sample has 2 values vs. 1 types
unknown-location|sample has nil location
location-id-zero|found location with reserved id=0
mapping-id-zero|found mapping with reserved ID=0
function-id-zero|found function with reserved ID=0
duplicate-location|multiple locations with same id: 1
duplicate-mapping|multiple mappings with same id: 2
duplicate-function|multiple functions with same id: 1
unknown-function|location id: 1 has a line with nil function
zero-function|location id: 1 has a line with nil function
empty|empty input file"
plan $(( $(echo "$reasons" | grep -c '|') * 2 + 2 ))

while IFS='|' read -r fault reason; do
	[ -n "$fault" ] || continue
	f=$d/$fault.pb
	# an empty file, made here: as pprof it is none (without --from,
	# a profile of no samples: tests/run-empty.sh)
	[ "$fault" = empty ] && : >"$tmpdir/empty.pb" && f=$tmpdir/empty.pb
	if [ -z "$pprof" ]; then
		skip "$fault: pprof -raw rejects it" "no Go pprof"
	else
		testrun_status "$fault: pprof -raw rejects it: $reason" 2 "$f: .*: $reason" \
			"$pprof" -raw "$f"
	fi
	testrun_fails "$fault: profkit rejects it: $reason" 1 \
		"^profkit-convert: $f: invalid pprof profile: $reason" \
		profkit-convert --from=pprof --to=folded -o "$outdir/out.folded" "$f"
done <<EOF_REASONS
$reasons
EOF_REASONS

# the one pprof accepts: the location reads as one without a mapping
f=$d/unknown-mapping.pb
if [ -z "$pprof" ]; then
	skip "unknown-mapping: pprof -raw accepts it" "no Go pprof"
else
	"$pprof" -raw "$f" >"$tmpdir/raw" 2>&1 && grep -q "^Samples:" "$tmpdir/raw" &&
		pass "unknown-mapping: pprof -raw accepts it" ||
		{ fail "unknown-mapping: pprof -raw rejects it"; diag_file "$tmpdir/raw"; }
fi
echo "main 5" >"$tmpdir/want"
testrun_compare "unknown-mapping: profkit converts it" "$tmpdir/want" \
	profkit-convert --from=pprof --to=folded "$f"
finish
