#!/bin/sh
# The perf.data reader against perf itself: each recording in
# testdata/perf-data converted with --to=perf-script --addresses-only must print what
#
#   perf script -F comm,pid,tid,time,event,ip,dso -i X.perf.data
#
# printed (saved as X.perf-script.txt). pipe.perf-script.txt has the symbol
# names removed: on pipe-mode input perf prints them whatever -F says.
# threads-be.perf.data is threads.perf.data rewritten big-endian ("2ELIFREP",
# checked with perf script too); zstd.perf.data was recorded with -z and
# has records cut between two compressed records; exec.perf.data has
# samples inside execve, whose user stack is still the old program's.
#
# Then damaged input: cut short anywhere, a record of size 0, absurd sizes,
# overwritten bytes. Each must exit 0 (converting what is whole, with a
# warning) or 1 with a message naming the file and an offset; never crash
# or hang.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 33
d=testdata/perf-data
# no symbols: the writer prints addresses, and the test is of the reader
script() { profkit-convert --no-symbolize --addresses-only --to=perf-script "$@"; }

for name in c-fp multi threads pipe tp-prog exec; do
	testrun_compare "$name.perf.data as perf script prints it" \
		$d/$name.perf-script.txt script $d/$name.perf.data
done
testrun_compare "big-endian file (2ELIFREP)" $d/threads.perf-script.txt \
	script $d/threads-be.perf.data
testrun_compare "file mode from stdin (read into memory)" \
	$d/c-fp.perf-script.txt \
	sh -c "cat $d/c-fp.perf.data | profkit-convert --no-symbolize --addresses-only --to=perf-script"
testrun_compare "pipe mode from stdin" $d/pipe.perf-script.txt \
	sh -c "cat $d/pipe.perf.data | profkit-convert --no-symbolize --addresses-only --to=perf-script"
gzip -c $d/tp-prog.perf.data >"$tmpdir/tp-prog.perf.data.gz"
testrun_compare "gzip-compressed file" $d/tp-prog.perf-script.txt \
	script "$tmpdir/tp-prog.perf.data.gz"

# perf record -z: libzstd is optional at build time
if script $d/zstd.perf.data >"$tmpdir/zstd.out" 2>"$tmpdir/zstd.err"; then
	cmp -s $d/zstd.perf-script.txt "$tmpdir/zstd.out" &&
		pass "perf record -z (zstd)" || fail "perf record -z (zstd)"
elif grep -q "rebuild profkit with libzstd" "$tmpdir/zstd.err"; then
	pass "perf record -z: built without zstd, says so"
else
	fail "perf record -z"
	diag_file "$tmpdir/zstd.err"
fi

testrun_fails "an empty recording says why" 1 \
	"empty.perf.data: no samples: the recording is empty" \
	script -o "$outdir/x.txt" $d/empty.perf.data
testrun_fails "a perf stat recording says why" 1 \
	"stat.perf.data: no samples: the events were counted, not sampled (perf stat record?)" \
	script -o "$outdir/x.txt" $d/stat.perf.data
testrun_fails "perf script text forced through the perf.data reader" 1 \
	"c-fp.txt: not a perf.data file (no PERFILE2 magic)" \
	script --from=perf-data -o "$outdir/x.txt" testdata/perf-script/c-fp.txt

# bytes at an offset of a copy: patch FILE OFFSET OCTAL-ESCAPES
patch() {
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# A damaged input must end in exit 0 with a warning or exit 1 naming the
# file and an offset; 124 is timeout's, anything else a crash.
damaged() {
	name=$1 file=$2
	timeout 60 profkit-convert --no-symbolize --addresses-only --to=perf-script "$file" \
		>"$tmpdir/out" 2>"$tmpdir/err"
	got=$?
	base=$(basename "$file")
	if { [ $got -eq 0 ] && grep -q "warning: .*$base" "$tmpdir/err"; } ||
	   { [ $got -eq 1 ] && grep -q "$base: offset 0x[0-9a-f]*: " "$tmpdir/err"; }; then
		pass "$name"
	else
		fail "$name (exit $got)"
		diag_file "$tmpdir/err" 5
	fi
}

# cut in the header, the attributes, the data, between records and in
# the feature sections at the end
for n in 16 60 130 264 300 4000 60000 107000 107376 109000; do
	head -c $n $d/c-fp.perf.data >"$tmpdir/cut-$n.perf.data"
	damaged "file mode cut at byte $n" "$tmpdir/cut-$n.perf.data"
done
for n in 20 3000 20000; do
	head -c $n $d/pipe.perf.data >"$tmpdir/pcut-$n.perf.data"
	damaged "pipe mode cut at byte $n" "$tmpdir/pcut-$n.perf.data"
done

# the first record (at 0x108) of size 0, then of size 4
cp $d/c-fp.perf.data "$tmpdir/size0.perf.data"
patch "$tmpdir/size0.perf.data" 270 '\000\000'
testrun_fails "a record of size 0" 1 \
	"size0.perf.data: offset 0x108: record of type [0-9]* has size 0" \
	script -o "$outdir/x.txt" "$tmpdir/size0.perf.data"
cp $d/c-fp.perf.data "$tmpdir/size4.perf.data"
patch "$tmpdir/size4.perf.data" 270 '\004\000'
testrun_fails "a record of size 4" 1 "size4.perf.data: offset 0x108: .* has size 4" \
	script -o "$outdir/x.txt" "$tmpdir/size4.perf.data"

# attr_size (offset 16) of 4 GiB
cp $d/c-fp.perf.data "$tmpdir/attrsize.perf.data"
patch "$tmpdir/attrsize.perf.data" 16 '\000\000\000\000\001\000\000\000'
testrun_fails "a huge attribute size" 1 \
	"attrsize.perf.data: offset 0x10: attribute size 4294967296" \
	script -o "$outdir/x.txt" "$tmpdir/attrsize.perf.data"

# a callchain claiming 2^60 entries in the first sample (at 0x3f0:
# header, ip, pid/tid, time, period, then nr)
cp $d/c-fp.perf.data "$tmpdir/chain.perf.data"
patch "$tmpdir/chain.perf.data" $((0x3f0 + 40)) '\000\000\000\000\000\000\000\020'
damaged "a callchain longer than its record" "$tmpdir/chain.perf.data"

# a data section claiming to reach past the end of the file
cp $d/c-fp.perf.data "$tmpdir/datasize.perf.data"
patch "$tmpdir/datasize.perf.data" 48 '\377\377\377\377\377\377\377\177'
damaged "a data size past the end of the file" "$tmpdir/datasize.perf.data"

# 0xff over 8 bytes at offsets all through the file: any outcome but a
# crash or a hang will do
bad=0
for off in 0 8 24 40 56 72 120 136 170 200 264 272 300 400 600 1000 1320 \
	   2000 5000 9000 20000 40000 80000 107380 107400 107600 108000 110000; do
	cp $d/c-fp.perf.data "$tmpdir/ff.perf.data"
	patch "$tmpdir/ff.perf.data" $off '\377\377\377\377\377\377\377\377'
	timeout 60 profkit-convert --no-symbolize --addresses-only --to=perf-script "$tmpdir/ff.perf.data" \
		>/dev/null 2>"$tmpdir/err"
	got=$?
	if [ $got -gt 1 ]; then
		bad=$((bad + 1))
		echo "# offset $off: exit $got"
		diag_file "$tmpdir/err" 5
	fi
done
[ $bad -eq 0 ] && pass "bytes overwritten at 28 offsets: no crash, no hang" ||
	fail "bytes overwritten: $bad crashes or hangs"
finish
