#!/bin/sh
# Hostile JFR input: each file of testdata/bad/jfr/ (testdata/src/jfr-write.py
# wrote them, each breaking one rule of the format) fails with exit 1, a
# message naming the file, the offset and the fault, and no output; the
# same read as a stream; constant pools past --max-memory fail; and the
# recordings of testdata/jfr/ cut at many points or with bytes changed
# convert or fail cleanly, each within 10 s.
. "${top_srcdir:-.}/tests/test-subr.sh"

d=testdata/bad/jfr
good="testdata/jfr/shape.jfr testdata/jfr/async.jfr testdata/jfr/observed.jfr"

# what each file must say after "FILE: " (a basic regular expression)
expects() {
	sed -n "s/^$1	//p" <<'EOF'
cyclic-string	offset 0x853: a string constant refers to another string constant
event-size-zero	offset 0x83f: an event's size 0 is smaller than its own header
field-of-unknown-type	offset 0x117: field 'what' has a type id that no class of the metadata has
frames-past-end	offset 0x85a: an array's length runs past the end of its event
header-only	offset 0x0: the chunk header is cut short at 40 of its 68 bytes (truncated file?)
metadata-deep	offset 0x8a: the metadata's elements nest deeper than 16 levels
metadata-without-classes	offset 0x83f: an event's size 0 is smaller than its own header
metadata-past-end	offset 0x18: the metadata offset 3013 is not inside the chunk (3008 bytes)
pool-count-huge	offset 0x850: a constant pool's size runs past the end of its checkpoint event
size-past-end	offset 0x8: the chunk's size 4008 runs past the end of the file (3008 bytes are left; truncated file?)
time-overflow	offset 0x20: the chunk's start (1700000000000000046 ns since 1970) and duration (7741456862008049665 ns) are no time
trailing-garbage	offset 0xbc0: no chunk starts here (no "FLR\\0" magic): the bytes after the last chunk are not JFR
truncated-chunk	offset 0x8: the chunk's size 3008 runs past the end of the file (2005 bytes are left; truncated file?)
type-named-twice	offset 0x851: the metadata describes two types named jdk.types.Method (ids 28 and 99)
type-contains-itself	offset 0x173: types nest deeper than 32 levels (a type that contains itself?)
unfinished-chunk	offset 0x8: the chunk's size is 0: the JVM was still writing it (dump the recording with jcmd PID JFR.dump)
varint-ten-bytes	offset 0x83f: an event's size 18446744073709551615 runs past the end of its chunk (11 bytes are left)
version-1	offset 0x4: JFR version 1.0 is not supported (JDK 11 and later write 2.x)
EOF
}

# cuts and changed bytes of the good files, the same on every run (awk's
# srand): at every 97th byte of the small ones, a few points of the
# large one; 40 copies of each with 6 bytes changed
n=0
for f in $good; do
	size=$(wc -c <"$f")
	step=$(( size > 20000 ? size / 12 : 97 ))
	cut=1
	while [ $cut -lt "$size" ]; do
		n=$((n + 1))
		head -c $cut "$f" >"$tmpdir/damaged.$n"
		cut=$((cut + step))
	done
	for seed in $(seq 1 40); do
		n=$((n + 1))
		od -An -v -tu1 "$f" | tr -s ' ' '\n' | sed '/^$/d' |
		awk -v seed="$seed" -v size="$size" 'BEGIN { srand(seed); for (i = 0; i < 6; i++) flip[int(rand() * size) + 1] = 1 }
			{ b = $1; if (NR in flip) b = (b + 1 + int(rand() * 254)) % 256; printf "%c", b }' \
			>"$tmpdir/damaged.$n" 2>/dev/null
	done
done

plan $(( 2 * $(ls "$d" | wc -l) + 2 + 1 ))

for f in "$d"/*.jfr; do
	base=$(basename "$f" .jfr)
	# (testrun_fails has variables named name and want)
	msg=$(expects "$base")
	[ -n "$msg" ] || { fail "$base: no expected message here"; continue; }
	testrun_fails "$base: exit 1, $msg" 1 "^profkit-convert: $f: $msg\$" \
		timeout 10 profkit-convert --to=pprof -o "$outdir/out.pb.gz" "$f"
	# read as a stream, a chunk at a time: the same
	testrun_fails "$base, read from a pipe: exit 1, the same" 1 \
		"^profkit-convert: <stdin>: $msg\$" \
		sh -c 'cat "$1" | timeout 10 profkit-convert --from=jfr --to=pprof -o "$2/out.pb.gz"' \
		sh "$f" "$outdir"
done

testrun_fails "constant pools past --max-memory: exit 1, said so" 1 \
	"^profkit-convert: testdata/jfr/many-constants.jfr: the constant pools of chunk 1 need more than the memory limit of 300 KiB (see --max-memory)\$" \
	profkit-convert --max-memory=300K --to=pprof -o "$outdir/out.pb.gz" testdata/jfr/many-constants.jfr
testrun_status "the same within the limit: converts" 0 "" \
	profkit-convert --max-memory=1M --value=samples --to=folded testdata/jfr/many-constants.jfr

# the damaged copies: exit 0 with output, or 1 with the place, nothing left
bad=0
for f in "$tmpdir"/damaged.*; do
	rm -rf "$outdir" && mkdir "$outdir" || exit 99
	timeout 10 profkit-convert -q --from=jfr --to=pprof -o "$outdir/out.pb.gz" "$f" 2>"$tmpdir/err"
	status=$?
	left=$(ls -A "$outdir")
	case $status in
	0) [ "$left" = out.pb.gz ] && continue ;;
	1) [ -z "$left" ] && grep -E -q "^profkit-convert: $f: (offset 0x[0-9a-f]+: |no samples|no chunk)" "$tmpdir/err" &&
		continue ;;
	esac
	bad=$((bad + 1))
	echo "# $(basename "$f"): exit $status, left '$left'"
	diag_file "$tmpdir/err" 3
done
[ $bad -eq 0 ] && pass "$n damaged copies of the recordings: each converts or fails cleanly" ||
	fail "$bad of $n damaged copies did not convert or fail cleanly"
finish
