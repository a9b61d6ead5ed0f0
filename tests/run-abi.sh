#!/bin/sh
# libprofkit's ABI, checked on what `make install` installs:
#  - the shared library exports exactly the functions that the installed
#    headers declare, and lib/libprofkit.sym (the version script) lists
#    the same names; it exports no data objects (doc/abi.md);
#  - a program using the public API links through pkg-config dynamically,
#    against libprofkit.a (`--static`: libprofkit.pc's Requires.private
#    and Libs.private), and fully static where the system has the static
#    libraries, and each prints what profkit-convert prints.
# The names come from the headers and the version script, never from a
# list here: a new public function needs no change to this test.
. "${top_srcdir:-.}/tests/test-subr.sh"
: "${CC:=cc}" "${NM:=nm}" "${PKG_CONFIG:=pkg-config}"
: "${CFLAGS=}" "${LDFLAGS=}"
command -v "${PKG_CONFIG%% *}" >/dev/null 2>&1 || skip_all "no pkg-config"
plan 18

# header_names INCDIR: the functions and variables that INCDIR/profkit/*.h
# declare, one a line, sorted. The preprocessor expands the headers (so
# macros and #if count as a compiler sees them) and marks whose text is
# whose; top-level declarations of those headers are split at ';', and
# typedefs, statics and struct, union and enum definitions are left out.
header_names() {
	for h in "$1"/profkit/*.h; do
		echo "#include <profkit/${h##*/}>"
	done | $CC -E -I"$1" - | awk -v dir="$1/profkit/" '
	/^# *[0-9]+ "/ {
		f = $0; sub(/^[^"]*"/, "", f); sub(/".*/, "", f)
		mine = index(f, dir) == 1
		next
	}
	/^#/ { next }
	mine { text = text " " $0 }
	function emit(s,   name) {
		gsub(/[ \t]+/, " ", s)
		if (s ~ /^ *$/ || s ~ /(^| )(typedef|static)( |$)/ || s ~ /\{/)
			return
		if (s ~ /\(/) {
			if (match(s, /\( *\* *[A-Za-z_][A-Za-z_0-9]*/)) {
				# a pointer to a function
				name = substr(s, RSTART, RLENGTH)
				gsub(/[( *]/, "", name)
			} else {
				name = substr(s, 1, index(s, "(") - 1)
				sub(/ *$/, "", name)
				sub(/.*[^A-Za-z_0-9]/, "", name)
			}
		} else {
			# a variable, or a declaration of a tag only
			if (s ~ /^ *(extern )?(struct|union|enum) [A-Za-z_0-9]+ *$/)
				return
			sub(/=.*/, "", s)
			gsub(/\[[^]]*\]/, "", s)
			sub(/ *$/, "", s)
			name = s
			sub(/.*[^A-Za-z_0-9]/, "", name)
		}
		print name
	}
	# skip the parenthesized text that starts at text[i]; returns its end
	function skip_parens(i,   depth, c) {
		for (depth = 0; i <= n; i++) {
			c = substr(text, i, 1)
			if (c == "(") depth++
			else if (c == ")" && --depth == 0) return i
		}
		return n
	}
	END {
		n = length(text)
		depth = 0; paren = 0; s = ""
		for (i = 1; i <= n; i++) {
			c = substr(text, i, 1)
			if (c == "\"") {	# a string: extern "C" ...
				for (i++; i <= n && substr(text, i, 1) != "\""; i++)
					if (substr(text, i, 1) == "\\") i++
				continue
			}
			if (depth == 0 && substr(text, i, 13) == "__attribute__") {
				for (i += 13; substr(text, i, 1) == " "; i++)
					;
				i = skip_parens(i)
				continue
			}
			if (c == "{") {
				if (depth++ == 0) s = s "{"
				continue
			}
			if (c == "}") {
				if (--depth == 0) {
					s = s "}"
					# a function body ends a definition without ;
					if (s ~ /\) *\{\}$/) { emit(s); s = "" }
				}
				continue
			}
			if (depth > 0) continue
			if (c == "(") paren++
			if (c == ")") paren--
			if (c == ";" && paren == 0) { emit(s); s = ""; continue }
			s = s c
		}
	}' | LC_ALL=C sort -u
}

# sym_names FILE: the global names of a version script, sorted;
# sym_nodes FILE: its version nodes
sym_tokens() {
	awk '{ text = text " " $0 }
	END {
		while ((i = index(text, "/*")) > 0) {
			rest = substr(text, i + 2)
			j = index(rest, "*/")
			text = substr(text, 1, i - 1) " " (j ? substr(rest, j + 2) : "")
		}
		gsub(/[{};:]/, " & ", text)
		print text
	}' "$1" | tr -s ' \t' '\n' | sed '/^$/d'
}
sym_names() {
	sym_tokens "$1" | awk '
	$0 == "{" { node = 1; global = 1; next }
	$0 == "}" { node = 0; next }
	node && ($0 == "global" || $0 == "local") { global = $0 == "global"; next }
	node && global && $0 ~ /^[A-Za-z_][A-Za-z_0-9]*$/ { print }' | LC_ALL=C sort -u
}
sym_nodes() {
	sym_tokens "$1" | awk '$0 == "{" { print prev } { prev = $0 }' | LC_ALL=C sort -u
}

# same_names NAME WANT-FILE WANT-WHAT GOT-FILE GOT-WHAT: two name lists equal
same_names() {
	if [ -s "$2" ] && cmp -s "$2" "$4"; then
		pass "$1"
	else
		fail "$1"
		LC_ALL=C comm -23 "$2" "$4" | awk -v p="# in $3, not in $5: " '{ print p $0 }'
		LC_ALL=C comm -13 "$2" "$4" | awk -v p="# in $5, not in $3: " '{ print p $0 }'
	fi
}

# 1: the installed headers are lib/include/profkit/'s
if ! install_into "$tmpdir/inst"; then
	fail "make install into a temporary directory"
	echo "Bail out! nothing installed to check"
	exit 1
fi
(cd lib/include/profkit && ls -- *.h) >"$tmpdir/headers.src"
(cd "$inst_includedir/profkit" && ls -- *.h) >"$tmpdir/headers.inst"
same_names "make install installs every header of lib/include/profkit" \
	"$tmpdir/headers.src" "lib/include/profkit" "$tmpdir/headers.inst" \
	"the installed headers"

# 2: each one compiles on its own, in strict C99
bad=
for h in "$inst_includedir"/profkit/*.h; do
	printf '#include <profkit/%s>\n' "${h##*/}" >"$tmpdir/one.c"
	$CC -std=c99 -pedantic -Wall -Wextra -Werror -I"$inst_includedir" \
		-c "$tmpdir/one.c" -o "$tmpdir/one.o" 2>>"$tmpdir/one.err" ||
		bad="$bad ${h##*/}"
done
if [ -z "$bad" ]; then
	pass "each installed header compiles alone (C99, -Wall -Wextra -pedantic)"
else
	fail "installed headers that do not compile alone:$bad"
	diag_file "$tmpdir/one.err"
fi

# 3-5: the names
header_names "$inst_includedir" >"$tmpdir/declared"
sym_names lib/libprofkit.sym >"$tmpdir/listed"
same_names "lib/libprofkit.sym lists what the headers declare" \
	"$tmpdir/declared" "the headers" "$tmpdir/listed" "lib/libprofkit.sym"
so=$top_builddir/lib/.libs/libprofkit.so
if [ -f "$so" ]; then
	$NM -D --defined-only "$so" >"$tmpdir/nm"
	awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' "$tmpdir/nm" |
		LC_ALL=C sort -u >"$tmpdir/exported"
	same_names "libprofkit.so exports what the headers declare" \
		"$tmpdir/declared" "the headers" "$tmpdir/exported" "libprofkit.so"
	if grep -q '@' "$tmpdir/nm"; then
		sym_nodes lib/libprofkit.sym >"$tmpdir/nodes"
		awk '$2 != "A" { n = $3; sub(/^[^@]*@+/, "", n);
			print (n == $3 ? "(none)" : n) }' "$tmpdir/nm" |
			LC_ALL=C sort -u >"$tmpdir/used"
		if LC_ALL=C comm -13 "$tmpdir/nodes" "$tmpdir/used" | grep -q .; then
			fail "every export has a version node of lib/libprofkit.sym"
			LC_ALL=C comm -13 "$tmpdir/nodes" "$tmpdir/used" |
				sed 's/^/# version not in lib\/libprofkit.sym: /'
		else
			pass "every export has a version node of lib/libprofkit.sym"
		fi
	else
		skip_optional "every export has a version node" "built without a version script"
	fi
	# functions only: a variable's size and layout would be frozen
	awk '$2 ~ /^[BbDdGgRrSsVvu]$/ { print $3 }' "$tmpdir/nm" >"$tmpdir/data"
	if [ -s "$tmpdir/data" ]; then
		fail "libprofkit.so exports no data objects"
		sed 's/^/# exported data: /' "$tmpdir/data"
	else
		pass "libprofkit.so exports no data objects"
	fi
else
	skip_optional "libprofkit.so exports what the headers declare" "no shared library"
	skip_optional "every export has a version node" "no shared library"
	skip_optional "libprofkit.so exports no data objects" "no shared library"
fi

# 7-18: a program of the public API, linked three ways, against
# profkit-convert: gzip'd perf script text (zlib) to folded, pprof
# (protobuf-c) and speedscope (jansson)
cat >"$tmpdir/prog.c" <<'EOF'
/* prog IN FORMAT OUT: convert IN to FORMAT in OUT */
#include <stdio.h>
#include <profkit/profkit.h>

int main(int argc, char **argv)
{
	const struct pk_writer *w = argc == 4 ? pk_writer_find(argv[2]) : NULL;
	struct pk_context *ctx = pk_context_new();
	struct pk_options *opts = pk_options_new();
	struct pk_profile *p = pk_profile_new(w ? pk_writer_profile_flags(w) : 0);
	int rc;

	if (!w || !ctx || !opts || !p)
		return 2;
	rc = pk_load(ctx, argv[1], opts, p);
	if (!rc)
		rc = pk_write(ctx, p, w, opts, argv[3]);
	if (rc)
		fprintf(stderr, "prog: %s\n", pk_context_error(ctx)->message);
	pk_profile_free(p);
	pk_options_free(opts);
	pk_context_free(ctx);
	return pk_exit_code(rc);
}
EOF
formats="folded pprof speedscope"
gzip -c testdata/perf-script/c-fp.txt >"$tmpdir/in.gz"
for f in $formats; do
	profkit-convert --to="$f" "$tmpdir/in.gz" -o "$tmpdir/want.$f" ||
		echo "# profkit-convert --to=$f failed"
done

# link_prog NAME PROGRAM LIBS...: compile and link prog.c; then
# compare its output in each format with profkit-convert's
link_prog() {
	name=$1 prog=$tmpdir/$2
	shift 2
	# shellcheck disable=SC2046,SC2086
	if $CC $CFLAGS $($PKG_CONFIG --cflags libprofkit) -o "$prog" \
		"$tmpdir/prog.c" $LDFLAGS "$@" >"$tmpdir/link.err" 2>&1; then
		pass "$name: links"
	else
		fail "$name: links"
		diag_file "$tmpdir/link.err"
	fi
	for f in $formats; do
		rm -f "$tmpdir/got.$f"
		if [ -x "$prog" ] && "$prog" "$tmpdir/in.gz" "$f" "$tmpdir/got.$f" \
			2>"$tmpdir/run.err" && [ -s "$tmpdir/want.$f" ] &&
			cmp -s "$tmpdir/want.$f" "$tmpdir/got.$f"; then
			pass "$name: $f as profkit-convert writes it"
		else
			fail "$name: $f as profkit-convert writes it"
			diag_file "$tmpdir/run.err"
		fi
	done
}
# skip_prog NAME WHY: the four tests of a program that is not built here
# (not a missing tool: what the system ships decides)
skip_prog() {
	skip_optional "$1: links" "$2"
	for f in $formats; do
		skip_optional "$1: $f as profkit-convert writes it" "$2"
	done
}

# pkg-config --static --libs libprofkit as a static link needs it here:
# Debian names yajl's archive libyajl_s.a (README says so)
static_libs() {
	libs=$($PKG_CONFIG --static --libs libprofkit)
	if [ ! -f "$($CC -print-file-name=libyajl.a)" ] &&
	   [ -f "$($CC -print-file-name=libyajl_s.a)" ]; then
		libs=$(echo "$libs" | sed 's/-lyajl\( \|$\)/-lyajl_s\1/')
	fi
	echo "$libs"
}

# the -lNAME of the private libraries that have no libNAME.a here
missing_archives() {
	for l in $(static_libs); do
		case $l in
		-lprofkit) ;;
		-l*) a=$($CC -print-file-name="lib${l#-l}.a")
		     [ -f "$a" ] || printf ' lib%s.a' "${l#-l}" ;;
		esac
	done
}

if [ -f "$so" ]; then
	# shellcheck disable=SC2046
	link_prog "dynamic (pkg-config --libs)" prog-shared \
		$($PKG_CONFIG --libs libprofkit)
else
	skip_prog "dynamic (pkg-config --libs)" "no shared library"
fi

# libprofkit.a with the system's shared libraries: what the static
# library needs must come from Requires.private and Libs.private
libs=
for l in $($PKG_CONFIG --static --libs libprofkit); do
	[ "$l" = -lprofkit ] && l=$inst_libdir/libprofkit.a
	libs="$libs $l"
done
# shellcheck disable=SC2086
link_prog "libprofkit.a (pkg-config --static --libs)" prog-static-lib $libs

# all static, where the C library and the dependencies have archives
echo 'int main(void) { return 0; }' >"$tmpdir/empty.c"
# shellcheck disable=SC2086
missing=$(missing_archives)
if [ "$missing" = " libdebuginfod.a" ] &&
   $CC $CFLAGS -static -o "$tmpdir/empty" "$tmpdir/empty.c" $LDFLAGS \
	>/dev/null 2>&1; then
	# Debian ships libdebuginfod shared only: README and libprofkit(3)
	# say to build with ./configure --without-debuginfod, whose .pc
	# names no libdebuginfod (the library opens it when first needed)
	# shellcheck disable=SC2046
	link_prog "-static, as a --without-debuginfod build links" prog-static \
		-static $(static_libs | sed 's/ -ldebuginfod\( \|$\)/ /')
elif [ -n "$missing" ]; then
	skip_prog "-static (pkg-config --static --libs)" \
		"the system has no$missing"
elif $CC $CFLAGS -static -o "$tmpdir/empty" "$tmpdir/empty.c" $LDFLAGS \
	>/dev/null 2>&1; then
	# shellcheck disable=SC2046
	link_prog "-static (pkg-config --static --libs)" prog-static -static \
		$(static_libs)
else
	skip_prog "-static (pkg-config --static --libs)" \
		"no -static program links here (a sanitizer, or no libc.a)"
fi
finish
