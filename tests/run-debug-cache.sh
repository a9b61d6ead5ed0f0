#!/bin/sh
# Debug files with compressed DWARF (as Debian's dbgsym and *-dbg packages
# ship them) are copied once, inflated, into the cache directory
# ($PROFKIT_CACHE_DIR, else $XDG_CACHE_HOME/profkit or ~/.cache/profkit)
# under their build id, and read from there afterwards. Here: c-fp's debug
# file, made with objcopy and compressed, beside the stripped recording's
# binary; every way through names the same frames as with no cache at all.
# A conversion that needs no DWARF (names alone, no inlined frames) makes
# no copy: the symbol table, not compressed, names every frame.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-data
bin=$(pwd)/testdata/bin
c_fp_id=2890d92fe4cd60efeaa6b2a36912f117c14eff25	# c-fp and c-fp-stripped

command -v objcopy >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 ||
	skip_all "no objcopy and readelf (binutils)"
plan 19

root=$tmpdir/root
mkdir -p "$root/tmp/rec2" "$tmpdir/sym/.build-id/28"
ln -s "$bin/c-fp-stripped" "$root/tmp/rec2/c-fp-stripped"
debug=$tmpdir/sym/.build-id/28/${c_fp_id#28}.debug
objcopy --only-keep-debug --compress-debug-sections=zlib "$bin/c-fp" "$debug" ||
	exit 99
cache=$tmpdir/cache
plain=$cache/debug/$c_fp_id.debug

# perf script text: every frame named, inlined ones too (DWARF is read)
names_only() {
	profkit-convert -q --symfs="$root" --symbol-path="$tmpdir/sym" \
		--kallsyms=$d/kallsyms --to=perf-script "$@" $d/stripped.perf.data
}
convert() { names_only --inline "$@"; }
compressed() { readelf -SW "$1" 2>/dev/null | grep -c ' \.debug_[a-z]* .* [A-Z]*C[A-Z]* ' ; }

PROFKIT_CACHE_DIR= convert >"$tmpdir/none" 2>&1
if grep -q ' main ' "$tmpdir/none" && [ "$(compressed "$debug")" -gt 0 ]; then
	pass "no cache: the compressed debug file names main"
else
	fail "no cache: the compressed debug file names main"
	diag_file "$tmpdir/none"
fi
[ ! -e "$cache" ] && pass "no cache: nothing written" || fail "no cache: nothing written"

PROFKIT_CACHE_DIR= names_only >"$tmpdir/names.none" 2>&1
PROFKIT_CACHE_DIR=$cache names_only >"$tmpdir/names.cache" 2>&1
same_output "names only: the same frames with a cache" "$tmpdir/names.none" \
	"$tmpdir/names.cache"
[ ! -e "$cache" ] && pass "names only: no copy made" ||
	fail "names only: no copy made"

PROFKIT_CACHE_DIR=$cache convert >"$tmpdir/cold" 2>&1
same_output "cold cache: the same frames" "$tmpdir/none" "$tmpdir/cold"
if [ -f "$plain" ] && [ "$(compressed "$plain")" = 0 ]; then
	pass "cold cache: a plain copy under the build id"
else
	fail "cold cache: a plain copy under the build id"
	ls -lR "$cache" | diag_file /dev/stdin
fi
PROFKIT_CACHE_DIR=$cache convert >"$tmpdir/warm" 2>&1
same_output "warm cache: the same frames" "$tmpdir/none" "$tmpdir/warm"

# the default place, with $XDG_CACHE_HOME or without
XDG_CACHE_HOME=$tmpdir/xdg convert >"$tmpdir/xdg.out" 2>&1
if cmp -s "$tmpdir/none" "$tmpdir/xdg.out" &&
   [ -f "$tmpdir/xdg/profkit/debug/$c_fp_id.debug" ]; then
	pass "\$XDG_CACHE_HOME/profkit by default"
else
	fail "\$XDG_CACHE_HOME/profkit by default"
fi

# a file at the copy's name that is not one is made anew
echo "not an ELF file" >"$plain"
PROFKIT_CACHE_DIR=$cache convert >"$tmpdir/bad" 2>&1
if cmp -s "$tmpdir/none" "$tmpdir/bad" && [ "$(compressed "$plain")" = 0 ]; then
	pass "a damaged copy is replaced"
else
	fail "a damaged copy is replaced"
fi

# a copy cut short (a crash before the data reached the disk) too
size=$(wc -c <"$plain")
head -c 4096 "$plain" >"$tmpdir/short" && mv "$tmpdir/short" "$plain"
PROFKIT_CACHE_DIR=$cache convert >"$tmpdir/short.out" 2>&1
if cmp -s "$tmpdir/none" "$tmpdir/short.out" && [ "$(wc -c <"$plain")" = "$size" ]; then
	pass "a copy cut short is made again"
else
	fail "a copy cut short is made again"
fi

# nowhere to write: converted as without a cache
: >"$tmpdir/file"
PROFKIT_CACHE_DIR=$tmpdir/file/cache convert >"$tmpdir/ro" 2>&1
same_output "a cache that cannot be made: the same frames" "$tmpdir/none" "$tmpdir/ro"
PROFKIT_CACHE_DIR=$cache convert --to=pprof >"$tmpdir/a.pb" 2>&1 &&
	PROFKIT_CACHE_DIR= convert --to=pprof >"$tmpdir/b.pb" 2>&1
same_output "pprof (lines and files): the same with and without" \
	"$tmpdir/b.pb" "$tmpdir/a.pb"

# With no cache, DWARF to read is inflated into a copy in memory (not by
# libdw): the same lines, files and inlined frames as from the debug file
# never compressed, and nothing left behind in $TMPDIR
mkdir "$tmpdir/tmp"
mv "$debug" "$tmpdir/zlib-kept.debug"
objcopy --only-keep-debug "$bin/c-fp" "$debug" || exit 99
PROFKIT_CACHE_DIR= convert --to=pprof >"$tmpdir/plain.pb" 2>&1
mv "$tmpdir/zlib-kept.debug" "$debug"
TMPDIR=$tmpdir/tmp PROFKIT_CACHE_DIR= convert --to=pprof >"$tmpdir/memory.pb" 2>&1
same_output "no cache: inflated in memory as the file never compressed" \
	"$tmpdir/plain.pb" "$tmpdir/memory.pb"
[ -z "$(ls -A "$tmpdir/tmp")" ] &&
	pass "no cache: nothing left in \$TMPDIR" ||
	fail "no cache: nothing left in \$TMPDIR"

# Unwound (--call-graph dwarf) to folded stacks: names alone, so the copy
# in memory of cxx-dwarf's compressed debug file, begun while unwinding,
# leaves out the line programs; the inlined frames are those its own
# DWARF gives (perf-data/cxx-dwarf.folded, as run-perf-data-folded.sh)
id=$(readelf -n "$bin/cxx-dwarf" | sed -n 's/.*Build ID: *//p')
mkdir -p "$root/tmp/rec" "$tmpdir/sym/.build-id/${id%"${id#??}"}"
objcopy --strip-debug "$bin/cxx-dwarf" "$root/tmp/rec/cxx-dwarf" &&
	objcopy --only-keep-debug --compress-debug-sections=zlib "$bin/cxx-dwarf" \
		"$tmpdir/sym/.build-id/${id%"${id#??}"}/${id#??}.debug" || exit 99
testrun_compare "unwound, names only: the inlined frames without line programs" \
	$d/cxx-dwarf.folded env HOME="$tmpdir" PROFKIT_CACHE_DIR= profkit-convert -q \
	--symfs="$root" --symbol-path="$tmpdir/sym" --kallsyms=$d/kallsyms \
	--to=folded $d/cxx-dwarf.perf.data

# Files no copy would serve are not copied at all, not written and then
# thrown away on every run. Built from the zlib file: its .debug_loclists
# section made larger inflated than the 1 GiB a copy may take (its
# Elf64_Chdr's ch_size, 8 bytes into the section), or replaced by the
# same section compressed with zstd, which the copy would keep compressed.
# section_at FILE NAME: "offset size" of the section, in decimal
section_at() {
	readelf -SW "$1" | sed -n "s/.* $2 *[A-Z]* *[0-9a-f]* \([0-9a-f]*\) \([0-9a-f]*\) .*/\1 \2/p" |
		{ read -r off size && echo "$((0x$off)) $((0x$size))"; }
}
# refused NAME: converted as with no cache, and nothing in the cache
refused() {
	mv "$tmpdir/odd.debug" "$debug"
	rm -rf "$cache"
	PROFKIT_CACHE_DIR= convert >"$tmpdir/odd.none" 2>&1
	PROFKIT_CACHE_DIR=$cache convert >"$tmpdir/odd.cache" 2>&1
	same_output "$1: the same frames as with no cache" "$tmpdir/odd.none" "$tmpdir/odd.cache"
	if [ ! -e "$cache" ]; then
		pass "$1: nothing written in the cache"
	else
		fail "$1: nothing written in the cache"
		ls -lR "$cache" | diag_file /dev/stdin
	fi
}
zlib=$tmpdir/zlib.debug
cp "$debug" "$zlib"
set -- $(section_at "$zlib" .debug_loclists)
cp "$zlib" "$tmpdir/odd.debug"
# ch_size 0x50000000, little-endian (as c-fp is)
printf '\000\000\000\120\000\000\000\000' |
	dd of="$tmpdir/odd.debug" bs=1 seek=$(($1 + 8)) conv=notrunc 2>/dev/null
refused "inflated beyond 1 GiB"

if objcopy --only-keep-debug --compress-debug-sections=zstd "$bin/c-fp" \
	"$tmpdir/zstd.debug" 2>/dev/null &&
   set -- $(section_at "$tmpdir/zstd.debug" .debug_loclists) &&
   dd if="$tmpdir/zstd.debug" of="$tmpdir/loclists.zst" bs=1 skip="$1" \
	count="$2" 2>/dev/null &&
   objcopy --update-section .debug_loclists="$tmpdir/loclists.zst" \
	"$zlib" "$tmpdir/odd.debug" &&
   readelf -tW "$tmpdir/odd.debug" 2>/dev/null | grep -q ZSTD; then
	refused "a zstd section beside zlib ones"
else
	skip "a zstd section beside zlib ones: the same frames" "no objcopy with zstd"
	skip "a zstd section beside zlib ones: nothing written" "no objcopy with zstd"
fi
finish
