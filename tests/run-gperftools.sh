#!/bin/sh
# gperftools legacy profiles: the model of each testdata/gperftools/X must
# print as X.pprof-raw.txt (`pprof -raw -symbolize=none X`), conversions
# work end to end, and damaged files fail with the offset or line of the
# damage, or warn and keep whole samples when only the end is cut off.
. "${top_srcdir:-.}/tests/test-subr.sh"

d=testdata/gperftools
dump="$top_builddir/tests/t-gperftools"
# not a tool: make check builds it (this is the script run by hand)
[ -x "$dump" ] || skip_all_optional "tests/t-gperftools is not built"

# --- the model, as pprof prints it ---
for expected in "$d"/*.pprof-raw.txt; do
	input=${expected%.pprof-raw.txt}
	testrun_compare "pprof -raw of ${input#$d/}" "$expected" "$dump" --dump "$input"
done

# --- profiles recorded here, symbolized with their binaries ---
# (testdata/README.md: a C and a C++ program, threads, CPU and heap).
# Libraries are left unsymbolized (--symfs of an empty root) so that
# the expected lists do not depend on this machine's libc.
mkdir "$tmpdir/no-root"
for prof in alloc-threads.cpu alloc-threads.heap cxx-threads.cpu cxx-threads.heap; do
	bin=testdata/bin/${prof%.*}
	testrun_compare "$prof: the top functions" "$d/$prof.top" \
		profkit-top -q -n 8 --binary="$bin" --symfs="$tmpdir/no-root" "$d/$prof"
done

# With Go pprof: profkit-top prints what `pprof -top` prints of each
# legacy file, header included ("Time:" is in the local zone), frames
# unsymbolized on both sides (named "[libc.so.6]" by their mapping).
find_pprof
TZ=UTC
export TZ
top_as_pprof() {
	if [ -z "$pprof" ]; then
		skip "$1" "no Go pprof"
		return
	fi
	HOME=$tmpdir "$pprof" -top -nodecount=1000 -symbolize=none "$2" \
		>"$tmpdir/theirs" 2>/dev/null
	profkit-top -q -n 0 --symfs="$tmpdir/no-root" "$2" >"$tmpdir/ours" 2>&1
	same_output "$1" "$tmpdir/theirs" "$tmpdir/ours"
}
for input in "$d"/*; do
	case $input in *.txt|*.top|*.folded|*.pl) continue ;; esac
	top_as_pprof "${input#$d/}: profkit-top prints what pprof -top prints" "$input"
done
# The same of the legacy profiles in Debian's pprof sources, where
# golang-github-google-pprof-dev is installed.
src=/usr/share/gocode/src/github.com/google/pprof/profile/testdata
for input in cppbench.cpu cppbench.heap cppbench.growth cppbench.contention \
	cppbench.thread.all gobench.cpu gobench.heap go.crc32.cpu; do
	name="pprof's $input: profkit-top prints what pprof -top prints"
	if [ -f "$src/$input" ]; then
		top_as_pprof "$name" "$src/$input"
	else
		skip_optional "$name" "no $src (golang-github-google-pprof-dev)"
	fi
done

# With Go pprof: pprof's reading of our pprof output, symbolized here,
# lists what pprof lists from the legacy file and the binary: where libc
# has several symbols at one address, the one llvm-symbolizer, which
# pprof asks, picks (doc/formats.md).
for prof in alloc-threads.cpu alloc-threads.heap cxx-threads.cpu cxx-threads.heap; do
	bin=testdata/bin/${prof%.*}
	name="$prof: pprof -top of ours is pprof -top BINARY PROFILE"
	if [ -z "$pprof" ]; then
		skip "$name" "no Go pprof"
		continue
	fi
	"$pprof" -top -nodecount=8 "$bin" "$d/$prof" 2>/dev/null >"$tmpdir/theirs"
	profkit-convert -q --binary="$bin" --to=pprof -o "$tmpdir/ours.pb.gz" "$d/$prof" &&
		"$pprof" -top -nodecount=8 "$tmpdir/ours.pb.gz" 2>/dev/null >"$tmpdir/ours"
	same_output "$name" "$tmpdir/theirs" "$tmpdir/ours"
done

# --- end to end ---
testrun_compare "folded of be32.cpu" "$d/be32.cpu.folded" \
	profkit-convert --no-symbolize --to=folded "$d/be32.cpu"
testrun_compare "folded of v2.heap" "$d/v2.heap.folded" \
	profkit-convert --no-symbolize --to=folded "$d/v2.heap"
profkit-convert --no-symbolize --to=folded "$d/c-fp.cpu" >"$tmpdir/full" 2>&1
testrun_compare "CPU profile from a pipe" "$tmpdir/full" \
	sh -c "cat '$d/c-fp.cpu' | profkit-convert --no-symbolize --to=folded"
gzip -c "$d/c-fp.cpu" >"$tmpdir/c-fp.cpu.gz"
testrun_compare "gzipped CPU profile" "$tmpdir/full" \
	profkit-convert --no-symbolize --to=folded "$tmpdir/c-fp.cpu.gz"

# perf script text repeats a sample per count, within a budget: 8 kB of
# heap profile must not become 500 MB of text
profkit-convert --no-symbolize --addresses-only --to=perf-script "$d/cxx-threads.heap" 2>"$tmpdir/err" |
	grep -c ' 0\.000000: ' >"$tmpdir/count"
if [ "$(cat "$tmpdir/count")" -le 200000 ] && grep -q "each prints once" "$tmpdir/err"; then
	pass "perf-script output of a heap profile is bounded"
else
	fail "perf-script output of a heap profile is bounded ($(cat "$tmpdir/count") samples)"
fi

# --- damaged CPU profiles ---
# the first bytes of a file (POSIX: no head -c)
cut_at() { dd if="$1" bs=1 count="$2" 2>/dev/null; }

# 64-bit little-endian slots of small numbers
slots() {
	for n in "$@"; do
		printf "\\$(printf %03o $((n & 255)))\\$(printf %03o $((n >> 8 & 255)))"
		printf '\000\000\000\000\000\000'
	done
}
header() { slots 0 3 0 10000 0; }

cut_at "$d/c-fp.cpu" 100 >"$tmpdir/cut-record"
testrun_fails "record cut short" 1 "cut-record: offset 0x28: record depth 7 exceeds the 5 slots left" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/cut-record"
testrun_fails "record cut short, from a pipe" 1 "<stdin>: offset 0x28: record truncated: 5 of 7 addresses" \
	sh -c "cat '$tmpdir/cut-record' | profkit-convert --to=folded -o \"$outdir/x.folded\""
{ header; slots 1 300; slots 0 0 0 0; } >"$tmpdir/deep"
testrun_fails "record deeper than 254" 1 "deep: offset 0x28: record depth 300 exceeds 254" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/deep"
{ header; slots 1 0 0 1 0; } >"$tmpdir/depth0"
testrun_fails "record of depth 0" 1 "depth0: offset 0x28: record depth 0" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/depth0"
{ header; slots 1 1 4096 0 1 0; printf '\000\001 not maps\n'; } >"$tmpdir/garbage"
testrun_fails "binary data after the samples" 1 "garbage: offset 0x58: binary data in the memory map" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/garbage"
testrun_fails "not a CPU profile" 1 "app.heap: offset 0x0: not a gperftools CPU profile" \
	profkit-convert --from=gperftools-cpu --to=folded -o "$outdir/x.folded" "$d/app.heap"
{ slots 0 3 1 10000 0; slots 0 1 0; } >"$tmpdir/java"
testrun_fails "Java CPU profile" 1 "java: offset 0x10: Java CPU profiles" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/java"

# cut in the memory map: a warning, and every sample
size=$(wc -c <"$d/c-fp.cpu")
cut_at "$d/c-fp.cpu" $((size - 5)) >"$tmpdir/cut-map"
testrun_compare "memory map cut short: all samples" "$tmpdir/full" \
	profkit-convert -q --no-symbolize --to=folded "$tmpdir/cut-map"
testrun_status "memory map cut short: a warning" 0 "warning: .*cut-map: offset 0x[0-9a-f]*: the memory map ends mid-line" \
	profkit-convert --no-symbolize --to=folded "$tmpdir/cut-map"
testrun_fails "memory map cut short, --strict" 1 "cut-map: offset 0x[0-9a-f]*: the memory map ends mid-line" \
	profkit-convert --strict --no-symbolize --to=folded -o "$outdir/x.folded" "$tmpdir/cut-map"
# cut after the first record: that sample, no mappings (and, as pprof,
# without its 2 frames above the leaf, which "every" sample shares)
cut_at "$d/c-fp.cpu" 112 >"$tmpdir/no-end"
testrun_status "no end-of-data record" 0 "no-end: offset 0x70: no end-of-data record" \
	profkit-convert --no-symbolize --to=folded "$tmpdir/no-end"
echo "[unknown];[unknown];[unknown];[unknown];[unknown] 5000000" >"$tmpdir/want"
testrun_compare "no end-of-data record: the whole samples" "$tmpdir/want" \
	profkit-convert -q --no-symbolize --to=folded "$tmpdir/no-end"

# --- damaged text profiles ---
printf 'heap profile: 1: 5 [ 1: 5] @ heapprofile\n     0:     5 [     0:     5] @ 0x1\n' >"$tmpdir/zero"
testrun_fails "heap sample of 0 objects" 1 "zero: line 2: inuse count was 0 but inuse bytes was 5" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/zero"
printf 'heap profile: 1: 5 [ 1: 5] @ heap_v2/512\n     1:     5 [ 1: 5] @ 0x1\nbogus\n' >"$tmpdir/bogus"
testrun_fails "not a heap sample" 1 "bogus: line 3: not a heap sample" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/bogus"
printf 'heap profile: 1: 5 [ 1: 5] @ heap_foo/512\n' >"$tmpdir/type"
testrun_fails "unknown heap profile type" 1 "type: line 1: unknown heap profile type 'heap_foo'" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/type"
printf -- '--- contentionz 1 ---\nformat = java\n' >"$tmpdir/attr"
testrun_fails "unknown contention attribute" 1 "attr: line 2: unknown contention profile attribute 'format'" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/attr"
printf -- '--- threadz 1 ---\n--- Thread 1 stack: ---\n' >"$tmpdir/thread"
testrun_fails "bad thread header" 1 "thread: line 2: expected '--- Thread" \
	profkit-convert --to=folded -o "$outdir/x.folded" "$tmpdir/thread"
testrun_fails "binary input to the text reader" 1 "c-fp.cpu: line 1: binary data" \
	profkit-convert --from=gperftools-heap --to=folded -o "$outdir/x.folded" "$d/c-fp.cpu"
size=$(wc -c <"$d/app.heap")
cut_at "$d/app.heap" $((size - 10)) >"$tmpdir/cut-heap"
testrun_status "text cut mid-line: a warning" 0 "cut-heap: line 11: the file ends mid-line" \
	profkit-convert --no-symbolize --to=folded "$tmpdir/cut-heap"

plan $tap_n
finish
