#!/bin/sh
# perf script text to speedscope JSON: compared with expected files (each
# checked by hand against its input: one sample per input sample, one
# profile per thread and event, weights summing to the folded total), and
# validated against speedscope's schema when node and ajv are at hand
# (./bootstrap puts the packages in .tools/node_modules; $NODE_PATH may
# name another folder, $SPEEDSCOPE_SCHEMA the schema file itself).
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 12
d=testdata/perf-script
e=testdata/speedscope

# From standard input the file's "name" is "profkit", whatever the input.
testrun_compare "one sampled profile per thread, in time order" \
	$e/threads.speedscope.json \
	sh -c "profkit-convert --to=speedscope < $d/threads.txt"
cp "$tmpdir/out" "$tmpdir/threads.json"
testrun_compare "two events: one profile per event and thread" \
	$e/multi.speedscope.json \
	sh -c "profkit-convert --to=speedscope < $d/multi.txt"
cp "$tmpdir/out" "$tmpdir/multi.json"
testrun_compare "--speedscope-evented: timelines from timestamps" \
	$e/threads.evented.speedscope.json \
	sh -c "profkit-convert --to=speedscope --speedscope-evented < $d/threads.txt"
cp "$tmpdir/out" "$tmpdir/evented.json"

# The sample arrays are one line per sample: count them and sum weights.
weights_sum() {
	sed -n 's/^"weights":\[\(.*\)\]}.*$/\1/p' "$1" | tr ',' '\n' |
		awk '{ s += $1 } END { printf "%.0f\n", s }'
}
folded_sum() {
	awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"
}

profkit-convert --to=speedscope -o "$tmpdir/c-fp.speedscope.json" $d/c-fp.txt
profkit-convert --to=folded $d/c-fp.txt >"$tmpdir/c-fp.folded"
got=$(weights_sum "$tmpdir/c-fp.speedscope.json")
want=$(folded_sum "$tmpdir/c-fp.folded")
[ -n "$got" ] && [ "$got" = "$want" ] &&
	pass "weights sum to the folded total" ||
	fail "weights sum to the folded total (got $got, want $want)"

got=$(grep -c '^\[' "$tmpdir/c-fp.speedscope.json")
want=$(grep -c '^[^[:space:]#]' $d/c-fp.txt)
[ "$got" = "$want" ] && pass "one sample per input sample" ||
	fail "one sample per input sample (got $got, want $want)"

grep -q '^"name":"c-fp.txt",$' "$tmpdir/c-fp.speedscope.json" ||
	grep -q '^"name":"profkit",$' "$tmpdir/c-fp.speedscope.json" &&
	pass "the file is named after its input, or profkit" ||
	fail "the file is named after its input, or profkit"

if profkit-convert --to=speedscope --event=cpu-clock:pppH $d/multi.txt \
	>"$tmpdir/one.json" 2>"$tmpdir/err" &&
	[ "$(grep -c '"type":"sampled"' "$tmpdir/one.json")" = 1 ] &&
	grep -q '"name":"multi 4524",' "$tmpdir/one.json"; then
	pass "--event keeps one event, in a profile without a suffix"
else
	fail "--event keeps one event, in a profile without a suffix"
	diag_file "$tmpdir/err"
fi
testrun_status "an unknown --event is a usage error" 2 "no event 'nope'" \
	profkit-convert --to=speedscope --event=nope $d/multi.txt

# Validation: our checker (schema plus what speedscope's importer needs)
# when node finds ajv, else the reference script of the dev setup.
validator=
if command -v node >/dev/null 2>&1 &&
	node -e "require('ajv')" >/dev/null 2>&1; then
	validator="node tests/validate-speedscope.js"
	[ -n "${SPEEDSCOPE_SCHEMA:-}" ] ||
		node -e "require.resolve('speedscope/dist/release/file-format-schema.json')" \
			>/dev/null 2>&1 || validator=
fi
if [ -z "$validator" ] && [ -x /tmp/ref/validate-speedscope.sh ]; then
	validator=/tmp/ref/validate-speedscope.sh
fi
for f in threads multi evented c-fp.speedscope; do
	name="$f.json is valid speedscope"
	if [ -z "$validator" ]; then
		skip "$name" "no node with ajv and speedscope (./bootstrap installs them)"
	elif $validator "$tmpdir/$f.json" >"$tmpdir/valid" 2>&1; then
		pass "$name"
	else
		fail "$name"
		diag_file "$tmpdir/valid"
	fi
done
finish
