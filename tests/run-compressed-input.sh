#!/bin/sh
# Compressed inputs (testdata/compressed: perf script text, folded, a
# gperftools heap profile and pprof, each made by gzip, zstd, xz and bzip2
# themselves) convert to exactly what the plain files convert to, and
# c-fp.txt to what stackcollapse-perf.pl printed for it. Streams one after
# another are one stream, as the commands decompress them; a cut file fails
# naming the file, the offset and the format. A format whose library
# profkit was built without says which configure switch adds it.
. "${top_srcdir:-.}/tests/test-subr.sh"

plan 24
d=testdata/compressed
convert() { profkit-convert -q --no-symbolize --to=folded "$@"; }

# the library a format needs, as the error names it
library_of() {
	case $1 in
	zst) echo "libzstd (configure --with-zstd)" ;;
	xz) echo "liblzma (configure --with-lzma)" ;;
	bz2) echo "libbz2 (configure --with-bzip2)" ;;
	esac
}
format_of() {
	case $1 in
	gz) echo gzip ;; zst) echo zstd ;; xz) echo xz ;; bz2) echo bzip2 ;;
	esac
}

# each input, 4 compressions; the extensions profkit was built to read
built=
for z in gz zst xz bz2; do
	for f in testdata/perf-script/c-fp.txt testdata/perf-script/c-fp.folded \
		testdata/gperftools/app.heap testdata/pprof/c-fp.pb; do
		c=$d/$(basename "$f").$z
		if [ $f = testdata/perf-script/c-fp.txt ]; then
			cp testdata/perf-script/c-fp.folded "$tmpdir/plain"
		else
			convert "$f" >"$tmpdir/plain"
		fi
		if convert "$c" >"$tmpdir/out" 2>"$tmpdir/err"; then
			same_output "$c as $(basename "$f")" "$tmpdir/plain" "$tmpdir/out"
			built="$built $z"
		elif grep -qxF "profkit-convert: $c: $(format_of $z)-compressed input, but profkit was built without $(library_of $z)" "$tmpdir/err"; then
			pass "$c: built without $(format_of $z), says so"
		else
			fail "$c (exit $?)"
			diag_file "$tmpdir/err"
		fi
	done
done
has() { case " $(echo $built) " in *" $1 "*) return 0 ;; esac; return 1; }

# two streams back to back, through a pipe: twice the weights
awk '{ n = $NF; $NF = ""; print $0 2 * n }' testdata/perf-script/c-fp.folded \
	>"$tmpdir/twice.folded"
for z in gz zst xz bz2; do
	has $z || { skip_optional "$z: streams back to back" "built without it"; continue; }
	cat $d/c-fp.folded.$z $d/c-fp.folded.$z | convert - >"$tmpdir/out"
	same_output "$z: two streams back to back are one" "$tmpdir/twice.folded" "$tmpdir/out"
done

# cut short: exit 1, saying where the data ended and what it was
for z in gz zst xz bz2; do
	has $z || { skip_optional "$z: a cut file" "built without it"; continue; }
	head -c 200 $d/c-fp.txt.$z >"$tmpdir/cut.$z"
	echo "profkit-convert: $tmpdir/cut.$z: offset 200: $(format_of $z) stream is truncated" >"$tmpdir/want"
	convert "$tmpdir/cut.$z" >/dev/null 2>"$tmpdir/err"
	status=$?
	[ $status -eq 1 ] && cmp -s "$tmpdir/want" "$tmpdir/err" &&
		pass "$z: a cut file fails where it ends" ||
		{ fail "$z: a cut file (exit $status)"; diag_file "$tmpdir/err"; }
done
finish
