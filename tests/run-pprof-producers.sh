#!/bin/sh
# pprof files from every producer at hand: Go's runtime/pprof (go-*.pb.gz,
# recorded here from testdata/src/gowork.go), and from Debian's pprof
# sources an older Go runtime's CPU profile, a heap profile without
# mappings and `pprof -proto` of Java and C++ legacy profiles
# (producers/, see testdata/README.md). Each one, gzipped and raw, must
# be found without --from and give the stored profkit-top output (made
# by `pprof -top`); with Go pprof ($PPROF, `pprof` on PATH or
# .tools/bin/pprof, which ./bootstrap builds) profkit-top's output
# must equal `pprof -top`'s, header included, character for character.
# With PROFKIT_REQUIRE_TOOLS set, a missing pprof is a failure.
. "${top_srcdir:-.}/tests/test-subr.sh"
# "Time:" is in the local zone
TZ=UTC
export TZ
d=testdata/pprof
files="$d/go-cpu.pb.gz $d/go-heap.pb.gz $d/go-allocs.pb.gz $d/go-goroutine.pb.gz
$d/go-mutex.pb.gz $d/go-block.pb.gz $d/producers/go-sample.cpu.pb.gz
$d/producers/go.nomappings.crash.pb.gz $d/producers/java.cpu.pb.gz
$d/producers/java.heap.pb.gz $d/producers/java.contention.pb.gz
$d/producers/cppbench.cpu.pb.gz"
find_pprof
if [ -z "$pprof" ] && [ -n "${PROFKIT_REQUIRE_TOOLS:-}" ]; then
	echo "Bail out! Go pprof is required (PROFKIT_REQUIRE_TOOLS is set); build it" \
		"with ./bootstrap (.tools/bin/pprof) or set PPROF"
	exit 1
fi
plan 48

mkdir "$tmpdir/no-root" "$tmpdir/bin"
# detected NAME FILE: profkit-info names the pprof reader, without --from
detected() {
	if profkit-info "$2" >"$tmpdir/info" 2>"$tmpdir/err" &&
		head -n 1 "$tmpdir/info" | grep -q ': pprof profile$'; then
		pass "$1"
	else
		fail "$1"
		diag_file "$tmpdir/err"
	fi
}

for f in $files; do
	name=$(basename "$f" .pb.gz)
	top="profkit-top -q -n 0 --symfs=$tmpdir/no-root"

	# found without --from, by the pprof reader
	detected "$name: detected as pprof, gzipped" "$f"
	gzip -dc "$f" >"$tmpdir/$name.pb"
	detected "$name: detected as pprof, raw" "$tmpdir/$name.pb"

	# the stored output, on any machine
	$top "$f" >"$tmpdir/ours" 2>"$tmpdir/err"
	if [ -s "$tmpdir/ours" ] && cmp -s "${f%.pb.gz}.top" "$tmpdir/ours"; then
		pass "$name: profkit-top output as stored"
	else
		fail "$name: profkit-top output as stored"
		diff -u "${f%.pb.gz}.top" "$tmpdir/ours" | diag_file /dev/stdin 30
		diag_file "$tmpdir/err"
	fi

	# pprof's output
	if [ -z "$pprof" ]; then
		skip "$name: output equals pprof -top's" "no Go pprof (./bootstrap builds one)"
		continue
	fi
	HOME=$tmpdir PPROF_BINARY_PATH=$tmpdir/bin \
		"$pprof" -top -nodecount=1000 -symbolize=none "$f" \
		>"$tmpdir/theirs" 2>"$tmpdir/err"
	if [ -s "$tmpdir/theirs" ] && cmp -s "$tmpdir/theirs" "$tmpdir/ours"; then
		pass "$name: output equals pprof -top's"
	else
		fail "$name: output equals pprof -top's"
		diff -u "$tmpdir/theirs" "$tmpdir/ours" | diag_file /dev/stdin 30
		[ -s "$tmpdir/theirs" ] || diag_file "$tmpdir/err"
	fi
done
finish
