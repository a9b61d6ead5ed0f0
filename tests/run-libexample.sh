#!/bin/sh
# libprofkit(3)'s EXAMPLE, compiled as a user would: against the
# installed header and library, through pkg-config. It must give the
# profile profkit-convert --to=pprof gives, byte for byte, on an input of
# every reader (the commands are thin fronts for pk_load and pk_write).
. "${top_srcdir:-.}/tests/test-subr.sh"

inputs="perf-data:testdata/perf-data/c-fp.perf.data
perf-data:testdata/perf-data/cxx-fp.perf.data
perf-data:testdata/perf-data/c-dwarf.perf.data
perf-script:testdata/perf-script/c-fp.txt
gperftools-cpu:testdata/gperftools/c-fp.cpu
gperftools-heap:testdata/gperftools/cxx-threads.heap
pprof:testdata/pprof/cxx-threads.cpu.by-pprof.pb.gz
folded:testdata/folded/fractional.folded"
plan $(($(echo "$inputs" | wc -l) * 2 + 6))

# install into a private root, as `make install DESTDIR=...` does
root=$tmpdir/root
if make -s -C "$top_builddir" install DESTDIR="$root" >"$tmpdir/install.log" 2>&1; then
	pass "make install DESTDIR=..."
else
	fail "make install DESTDIR=..."
	diag_file "$tmpdir/install.log"
fi
pcdir=$(dirname "$(find "$root" -name libprofkit.pc | head -n 1)")
libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir libprofkit)

# the example as the man page prints it, troff escapes undone
sed -n '/^\.SH EXAMPLE/,/^\.SH /p' doc/libprofkit.3 | sed -n '/^\.nf/,/^\.fi/p' |
	sed -e '1d' -e '$d' -e 's/\\e/\\/g' -e 's/\\-/-/g' >"$tmpdir/example.c"
# a build without the shared library links the archive and its dependencies
static=
[ -e "$root$libdir/libprofkit.so" ] || static=--static
flags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$root \
	pkg-config $static --cflags --libs libprofkit)
# shellcheck disable=SC2086
if ${CC:-cc} ${CFLAGS:-} -o "$tmpdir/example" "$tmpdir/example.c" $flags ${LDFLAGS:-} \
	>"$tmpdir/cc.log" 2>&1; then
	pass "the EXAMPLE compiles against the installed library"
else
	fail "the EXAMPLE compiles against the installed library"
	diag_file "$tmpdir/cc.log"
fi

# the SYNOPSIS declares every call the EXAMPLE makes
sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' doc/libprofkit.3 >"$tmpdir/synopsis"
missing=
for f in $(grep -o 'pk_[a-z_]*(' "$tmpdir/example.c" | tr -d '(' | sort -u); do
	grep -q "[ *]$f(" "$tmpdir/synopsis" || missing="$missing $f"
done
[ -z "$missing" ] && pass "the SYNOPSIS declares every call of the EXAMPLE" ||
	fail "the SYNOPSIS lacks:$missing"

# the same example as C++, and every public header: the API is usable
# from a C++ program (extern "C", no C++ keywords as names)
if command -v g++ >/dev/null 2>&1; then
	# the C build's flags too (a sanitizer's library must be linked)
	# shellcheck disable=SC2086
	if g++ -x c++ ${CFLAGS:-} -Wall -Wextra -Werror -o "$tmpdir/example++" \
		"$tmpdir/example.c" -x none $flags ${LDFLAGS:-} >"$tmpdir/cxx.log" 2>&1; then
		pass "the EXAMPLE compiles and links as C++ (g++ -x c++)"
	else
		fail "the EXAMPLE compiles and links as C++ (g++ -x c++)"
		diag_file "$tmpdir/cxx.log"
	fi
	bad=
	for h in "$root$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=includedir libprofkit)"/profkit/*.h; do
		printf '#include <profkit/%s>\n' "${h##*/}" >"$tmpdir/one.cc"
		# shellcheck disable=SC2086
		g++ -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror $flags \
			-c "$tmpdir/one.cc" -o "$tmpdir/one.o" 2>>"$tmpdir/cxx-headers.log" ||
			bad="$bad ${h##*/}"
	done
	[ -z "$bad" ] && pass "each installed header compiles alone as C++11" || {
		fail "installed headers that do not compile as C++:$bad"
		diag_file "$tmpdir/cxx-headers.log"
	}
	for e in example example++; do
		LD_LIBRARY_PATH=$root$libdir "$tmpdir/$e" testdata/perf-script/c-fp.txt \
			"$tmpdir/$e.pb.gz" 2>/dev/null
	done
	same_output "the C++ EXAMPLE writes what the C one writes" \
		"$tmpdir/example.pb.gz" "$tmpdir/example++.pb.gz"
else
	skip "the EXAMPLE compiles and links as C++" "no g++"
	skip "each installed header compiles alone as C++11" "no g++"
	skip "the C++ EXAMPLE writes what the C one writes" "no g++"
fi

# symbols from the recorded programs, for both sides alike
PROFKIT_SYMBOL_PATH=$(pwd)/testdata/bin
export PROFKIT_SYMBOL_PATH
while IFS=: read -r reader input; do
	name="$reader: $(basename "$input")"
	profkit-convert -q --to=pprof -o "$tmpdir/convert.pb.gz" "$input"
	LD_LIBRARY_PATH=$root$libdir "$tmpdir/example" "$input" "$tmpdir/example.pb.gz" \
		2>"$tmpdir/err"
	same_output "$name: example IN OUT = profkit-convert --to=pprof" \
		"$tmpdir/convert.pb.gz" "$tmpdir/example.pb.gz"
	# and it is a real profile: named functions, as its reader reads it
	if profkit-info -q "$tmpdir/example.pb.gz" | grep -q "pprof profile" &&
	   profkit-convert -q --to=folded "$tmpdir/example.pb.gz" | grep -q '[a-z_]\{3,\}'; then
		pass "$name: the output is a pprof profile with names"
	else
		fail "$name: the output is a pprof profile with names"
	fi
done <<EOF_INPUTS
$inputs
EOF_INPUTS

finish
