#!/bin/sh
# Exact values: fractional counts (folded "main;a 1.5") are fixed point at
# their column's scale. Merging and diffing inputs of different scales
# brings them to the finer one, and every writer prints the values as the
# input gave them. Each expected output is written out here.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 37

t=$tmpdir
printf 'main;a 1.5\n' >"$t/frac.folded"
printf 'main;a 10\n' >"$t/whole.folded"
printf 'main;a 1\nmain;b 2\n' >"$t/s1.folded"
printf 'main;a 0.5\n' >"$t/s10.folded"
printf 'main;b 0.25\nmain;c 0.01\n' >"$t/s100.folded"

# expect: the expected output, from a heredoc on stdin
expect() { cat >"$t/expected"; }

# ---- merge and diff across scales, both orders ----

expect <<'EOF'
main;a 11.5
EOF
testrun_compare "merge 1.5 and 10 is 11.5" "$t/expected" \
	profkit-merge "$t/frac.folded" "$t/whole.folded"
testrun_compare "merge 10 and 1.5 is 11.5" "$t/expected" \
	profkit-merge "$t/whole.folded" "$t/frac.folded"

expect <<'EOF'
main;a 10 1.5
EOF
testrun_compare "diff BASE 10, NEW 1.5" "$t/expected" \
	profkit-diff "$t/whole.folded" "$t/frac.folded"
expect <<'EOF'
main;a 1.5 10
EOF
testrun_compare "diff BASE 1.5, NEW 10" "$t/expected" \
	profkit-diff "$t/frac.folded" "$t/whole.folded"
expect <<'EOF'
main;a -8.5
EOF
testrun_compare "diff --to: NEW 1.5 - BASE 10" "$t/expected" \
	profkit-diff --to=folded "$t/whole.folded" "$t/frac.folded"
expect <<'EOF'
main;a 8.5
EOF
testrun_compare "diff --to: NEW 10 - BASE 1.5" "$t/expected" \
	profkit-diff --to=folded "$t/frac.folded" "$t/whole.folded"
expect <<'EOF'
main;a 1.5 1.5
EOF
testrun_compare "diff --normalize: BASE scaled to NEW's total of 1.5" "$t/expected" \
	profkit-diff --normalize "$t/whole.folded" "$t/frac.folded"

expect <<'EOF'
main;a 1.5
main;b 2.25
main;c 0.01
EOF
testrun_compare "three-way merge, scales 1, 10, 100" "$t/expected" \
	profkit-merge "$t/s1.folded" "$t/s10.folded" "$t/s100.folded"
testrun_compare "three-way merge, scales 100, 10, 1" "$t/expected" \
	profkit-merge "$t/s100.folded" "$t/s10.folded" "$t/s1.folded"
testrun_compare "three-way merge, scales 10, 100, 1" "$t/expected" \
	profkit-merge "$t/s10.folded" "$t/s100.folded" "$t/s1.folded"
# in one read, as profkit-convert reads several inputs into one profile
testrun_compare "convert of three inputs, scales 100, 1, 10" "$t/expected" \
	profkit-convert --to=folded "$t/s100.folded" "$t/s1.folded" "$t/s10.folded"

# a fractional folded input merged into a richer profile's value column
profkit-convert --to=pprof --no-gzip "$t/whole.folded" -o "$t/whole.pb"
expect <<'EOF'
main;a 11.5
EOF
testrun_compare "merge of pprof 10 and folded 1.5" "$t/expected" \
	profkit-merge "$t/whole.pb" "$t/frac.folded"

# the merge and the diff through other writers
expect <<'EOF'
main;a 11.5
EOF
testrun_compare "merge --to=pprof, read back" "$t/expected" \
	sh -c "profkit-merge --to=pprof '$t/whole.folded' '$t/frac.folded' -o '$t/m.pb.gz' &&
		profkit-convert --to=folded '$t/m.pb.gz'"
expect <<'EOF'
main;a -8.5
EOF
testrun_compare "diff --to=pprof, read back" "$t/expected" \
	sh -c "profkit-diff --to=pprof '$t/whole.folded' '$t/frac.folded' -o '$t/d.pb.gz' &&
		profkit-convert --to=folded '$t/d.pb.gz'"
expect <<'EOF'
"endValue":11.5
"weights":[1.5,10]
EOF
testrun_compare "merge --to=speedscope: each input's sample, in order" "$t/expected" \
	sh -c "profkit-merge --to=speedscope '$t/frac.folded' '$t/whole.folded' |
		grep -o -e '\"endValue\":[0-9.]*' -e '\"weights\":[^]]*]'"
expect <<'EOF'
<title>all (11.5 samples, 100%)</title>
EOF
testrun_compare "merge --to=flamegraph" "$t/expected" \
	sh -c "profkit-merge --to=flamegraph '$t/frac.folded' '$t/whole.folded' | grep -o '<title>all[^<]*</title>'"

# ---- every writer on one fractional input ----

printf 'main;a 1.5\nmain;a;b 0.25\nmain;c 2\n' >"$t/w.folded"
w=$t/w.folded

expect <<'EOF'
main;a 1.5
main;a;b 0.25
main;c 2
EOF
testrun_compare "folded writes the input's values back" "$t/expected" \
	profkit-convert --to=folded "$w"

# pprof: whole numbers only, so the values at their scale, the unit saying it
profkit-convert --to=pprof --no-gzip "$w" -o "$t/w.pb"
if grep -a -q 'count/100' "$t/w.pb"; then
	pass "pprof: the unit is count/100"
else
	fail "pprof: the unit is count/100"
fi
testrun_compare "pprof read back gives the fractions" "$t/expected" \
	profkit-convert --to=folded "$t/w.pb"
expect <<'EOF'
main;a 11.5
EOF
testrun_compare "pprof at scale 10 merged with whole 10" "$t/expected" \
	sh -c "profkit-convert --to=pprof '$t/frac.folded' -o '$t/frac.pb.gz' &&
		profkit-merge '$t/whole.folded' '$t/frac.pb.gz'"

expect <<'EOF'
"endValue":3.75
"weights":[1.5,0.25,2]
EOF
testrun_compare "speedscope: weights and end value" "$t/expected" \
	sh -c "profkit-convert --to=speedscope '$w' | grep -o -e '\"endValue\":[0-9.]*' -e '\"weights\":[^]]*]'"

expect <<'EOF'
<title>all (3.75 samples, 100%)</title>
<title>main (3.75 samples, 100.00%)</title>
<title>a (1.75 samples, 46.67%)</title>
<title>b (0.25 samples, 6.67%)</title>
<title>c (2 samples, 53.33%)</title>
EOF
testrun_compare "flame graph tooltips" "$t/expected" \
	sh -c "profkit-convert --to=flamegraph '$w' | grep -o '<title>[^<]*</title>'"
printf 'main;a 1000.5\nmain;b 1234567\n' >"$t/big.folded"
expect <<'EOF'
<title>all (1,235,567.5 samples, 100%)</title>
EOF
testrun_compare "flame graph: thousands separated, decimals kept" "$t/expected" \
	sh -c "profkit-convert --to=flamegraph '$t/big.folded' | grep -o '<title>all[^<]*</title>'"
printf 'main;a 1 1.5\nmain;b 2 0.5\n' >"$t/two.folded"
expect <<'EOF'
<title>all (2 samples, 100%)</title>
<title>main (2 samples, 100.00%; 0.00%)</title>
<title>a (1.5 samples, 75.00%; +25.00%)</title>
<title>b (0.5 samples, 25.00%; -75.00%)</title>
EOF
testrun_compare "differential flame graph: base and new of two scales" "$t/expected" \
	sh -c "profkit-flamegraph '$t/two.folded' | grep -o '<title>[^<]*</title>'"

expect <<'EOF'
# callgrind format
version: 1
positions: line
event: samples : samples (count, in 1/100)
events: samples
summary: 375

ob=(1) ???
fl=(1) ???
fn=(1) main
cob=(1)
cfi=(1)
cfn=(2) a
calls=2 0
0 175
cob=(1)
cfi=(1)
cfn=(3) c
calls=2 0
0 200

ob=(1)
fl=(1)
fn=(2)
0 150
cob=(1)
cfi=(1)
cfn=(4) b
calls=1 0
0 25

ob=(1)
fl=(1)
fn=(4)
0 25

ob=(1)
fl=(1)
fn=(3)
0 200

totals: 375
EOF
testrun_compare "callgrind: costs at the scale the event line gives" "$t/expected" \
	sh -c "profkit-convert --to=callgrind '$w' | grep -v '^creator:'"

expect <<'EOF'
  {"callchain": [0, 1], "cost": [1.5]},
  {"callchain": [2, 0, 1], "cost": [0.25]},
  {"callchain": [3, 1], "cost": [2]}
EOF
testrun_compare "gprof2dot: costs as decimals" "$t/expected" \
	sh -c "profkit-convert --to=gprof2dot '$w' | grep callchain"

expect <<'EOF'
label="a\n46.67%\n(40.00%)"
label="6.67%"
label="main\n100.00%\n(0.00%)"
label="46.67%"
label="53.33%"
label="b\n6.67%\n(6.67%)"
label="c\n53.33%\n(53.33%)"
EOF
testrun_compare "DOT: shares of the fractional total" "$t/expected" \
	sh -c "profkit-convert --to=dot '$w' | grep -o 'label=\"[^\"]*\"'"

expect <<'EOF'
Type: samples
Showing nodes accounting for 3.75, 100% of 3.75 total
      flat  flat%   sum%        cum   cum%
         2 53.33% 53.33%          2 53.33%  c
      1.50 40.00% 93.33%       1.75 46.67%  a
      0.25  6.67%   100%       0.25  6.67%  b
         0     0%   100%       3.75   100%  main
EOF
testrun_compare "top: flat and cum as decimals" "$t/expected" profkit-top "$w"

expect <<'EOF'
main;a 1.5
main;c 2
EOF
testrun_compare "filter --min-percent=7 drops 0.25 of 3.75 (6.67%)" "$t/expected" \
	profkit-filter --min-percent=7 "$w"
expect <<'EOF'
main;a 1.5
main;a;b 0.25
main;c 2
EOF
testrun_compare "filter --min-percent=6.6 keeps it" "$t/expected" \
	profkit-filter --min-percent=6.6 "$w"

# perf script text has whole samples: 1.5 prints twice, 0.25 once
expect <<'EOF'
5
EOF
testrun_compare "perf-script: each sample rounded, at least once" "$t/expected" \
	sh -c "profkit-convert --to=perf-script '$w' | grep -c '^$'"

expect <<'EOF'
    samples                      total 3.75 count
EOF
testrun_compare "info: the total as a decimal" "$t/expected" \
	sh -c "profkit-info '$w' | grep total"

# ---- overflow is an error, never a wrap-around ----

printf 'main;a 9000000000000000000\n' >"$t/huge.folded"
testrun_status "merge: 9e18 at scale 10 does not fit" 1 \
	"cannot merge samples/count: a value does not fit in 64 bits at the scale of the fractional counts (1/10)" \
	profkit-merge "$t/huge.folded" "$t/frac.folded"
testrun_status "merge: the other order too" 1 \
	"cannot merge samples/count: a value does not fit in 64 bits" \
	profkit-merge "$t/frac.folded" "$t/huge.folded"
profkit-merge "$t/huge.folded" "$t/frac.folded" -o "$t/no-output" 2>/dev/null
[ ! -e "$t/no-output" ] && pass "merge: no output file is left" ||
	fail "merge: no output file is left"
testrun_status "diff: 9e18 against 1.5" 1 "a value does not fit in 64 bits" \
	profkit-diff "$t/huge.folded" "$t/frac.folded"
printf 'main;a 9000000000000000000\nmain;b 0.5\n' >"$t/huge-then-frac.folded"
testrun_status "one input: decimals after 9e18" 1 \
	"huge-then-frac.folded: line 2: with 1 decimals the counts so far no longer fit in 64 bits" \
	profkit-convert --to=folded "$t/huge-then-frac.folded"
finish
