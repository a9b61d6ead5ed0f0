#!/bin/sh
# profkit-merge and profkit-diff --to=pprof against pprof itself. Merged:
# `pprof -top` and `pprof -raw` of profkit-merge's output equal those of
# `pprof -proto A B C` (the time, the summed duration, the rows), and both
# outputs hold as many mappings and stacks (profkit-info, which reads a
# file as it is, where pprof would merge its mappings on reading). Diffed:
# `pprof -top` of profkit-diff's output equals `pprof -top -diff_base=BASE
# NEW`, header and rows. Inputs: three runs of one Go program built as PIE,
# so each run has the binary at another address (testdata/README.md), and
# three perf.data recordings of c-fp, whose pprof forms profkit-convert
# writes for pprof to merge.
. "${top_srcdir:-.}/tests/test-subr.sh"
TZ=UTC
export TZ
find_pprof
if [ -z "$pprof" ]; then
	skip_all "no Go pprof (./bootstrap builds one)"
fi
plan 13

t=$tmpdir
go="testdata/pprof/go-burn-1.pb.gz testdata/pprof/go-burn-2.pb.gz testdata/pprof/go-burn-3.pb.gz"
pd=testdata/perf-data
ks=--kallsyms=$pd/kallsyms

# pprof reads no further than it needs: no binaries, no symbol servers
pp() { PPROF_BINARY_PATH=$t/none "$pprof" -symbolize=none "$@" 2>/dev/null; }
# the mappings and stacks profkit-info counts in a file as it is
shape() { profkit-info -q "$1" | grep -e 'distinct stacks' -e 'mappings:'; }
# pprof's mapping flags say which symbol data its producer wrote; the
# pprof writer sets them from what the locations show ([FN][FL][LN][IN]
# for Go, which writes [FN] alone), as profkit-convert of one file does
flags_dropped() { sed -e 's/ \(\[[A-Z][A-Z]\]\)*$//' "$1"; }

for set in go perf; do
	if [ $set = go ]; then
		inputs=$go
		pp -proto $inputs >"$t/ref.pb.gz"
	else
		inputs="$pd/c-fp.perf.data $pd/zstd-sym.perf.data $pd/zstd.perf.data"
		for f in $inputs; do
			profkit-convert -q $ks --to=pprof -o "$t/$(basename "$f").pb.gz" "$f"
		done
		pp -proto "$t"/*.perf.data.pb.gz >"$t/ref.pb.gz"
	fi
	profkit-merge -q $ks --to=pprof -o "$t/ours.pb.gz" $inputs
	pp -top "$t/ref.pb.gz" >"$t/ref.top"
	pp -top "$t/ours.pb.gz" >"$t/ours.top"
	same_output "$set: pprof -top of the merge as of pprof -proto (time, duration, rows)" \
		"$t/ref.top" "$t/ours.top"
	pp -raw "$t/ref.pb.gz" >"$t/ref.raw"
	pp -raw "$t/ours.pb.gz" >"$t/ours.raw"
	flags_dropped "$t/ref.raw" >"$t/ref.raw.cut"
	flags_dropped "$t/ours.raw" >"$t/ours.raw.cut"
	same_output "$set: pprof -raw of the merge as of pprof -proto" \
		"$t/ref.raw.cut" "$t/ours.raw.cut"
	shape "$t/ref.pb.gz" >"$t/ref.shape"
	shape "$t/ours.pb.gz" >"$t/ours.shape"
	same_output "$set: as many mappings and stacks as pprof's merge" \
		"$t/ref.shape" "$t/ours.shape"
done
# the numbers the issue was about, written out
expect_line() {
	if grep -q -e "$2" "$3"; then pass "$1"; else fail "$1"; diag_file "$3"; fi
}
profkit-merge -q --to=pprof -o "$t/go.pb.gz" $go
pp -top "$t/go.pb.gz" >"$t/go.top"
expect_line "go: the durations add up to 2.43s" '^Duration: 2.43s, Total samples = 1.61s' "$t/go.top"
profkit-info -q "$t/go.pb.gz" >"$t/go.info"
expect_line "go: one mapping for the three runs" '^  mappings: 1$' "$t/go.info"

# diff BASE NEW: both orders, and perf.data against the converted files
diff_top() {
	name=$1 base=$2 new=$3 pbase=${4:-$2} pnew=${5:-$3}
	pp -top -diff_base="$pbase" "$pnew" >"$t/ref.top"
	profkit-diff -q $ks --to=pprof -o "$t/diff.pb.gz" "$base" "$new"
	pp -top "$t/diff.pb.gz" >"$t/ours.top"
	same_output "$name" "$t/ref.top" "$t/ours.top"
}
b=testdata/pprof/go-burn
diff_top "go: pprof -top of the diff as pprof -top -diff_base" $b-1.pb.gz $b-3.pb.gz
diff_top "go: the other way round" $b-3.pb.gz $b-1.pb.gz
diff_top "go: a later base" $b-2.pb.gz $b-1.pb.gz
diff_top "perf.data: as -diff_base of their pprof forms" \
	$pd/c-fp.perf.data $pd/zstd.perf.data \
	"$t/c-fp.perf.data.pb.gz" "$t/zstd.perf.data.pb.gz"
pp -top "$t/diff.pb.gz" >"$t/diff.top"
expect_line "perf.data: percentages of BASE's total" 'of 603.50ms total$' "$t/diff.top"
finish
