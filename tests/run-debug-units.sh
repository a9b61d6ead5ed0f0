#!/bin/sh
# With no cache, a compressed debug file's .debug_info is inflated into
# the copy in memory only as far as the units the sampled addresses fall
# in (lib/symbolize/debug-units.h): the same lines, files and inlined
# frames as from the whole file. Here: testdata/bin/units (three
# compilation units), stripped, its debug file compressed beside it;
# gperftools CPU profiles made here sample each unit's function, and
# the copy must answer as the cache's whole copy does, for one profile,
# for several (a cut copy is replaced when a later one asks for more:
# profkit-merge), and for addresses between two units' code.
. "${top_srcdir:-.}/tests/test-subr.sh"
bin=$(pwd)/testdata/bin

command -v objcopy >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1 &&
	command -v perl >/dev/null 2>&1 ||
	skip_all "no objcopy and readelf (binutils), or no perl"
plan 12

id=$(readelf -n "$bin/units" | sed -n 's/.*Build ID: *//p')
mkdir -p "$tmpdir/sym/.build-id/${id%"${id#??}"}"
objcopy --only-keep-debug --compress-debug-sections=zlib "$bin/units" \
	"$tmpdir/sym/.build-id/${id%"${id#??}"}/${id#??}.debug" || exit 99
objcopy --strip-debug "$bin/units" "$tmpdir/units" || exit 99

# profile NAME ADDR...: a CPU profile of one sample at each link-time
# address (hex) of units, called from main, as gperftools writes them
profile() {
	name=$1
	shift
	perl -e '
		my $out = shift;
		my $base = 0x555555554000;
		open(my $f, ">", $out) or die "$out: $!";
		binmode $f;
		print $f pack("Q<*", 0, 3, 0, 10000, 0);
		print $f pack("Q<*", 1, 2, $base + hex($_), $base + 0x1060) for @ARGV;
		print $f pack("Q<*", 0, 1, 0);
		printf $f "%x-%x r--p 00000000 00:00 1 /rec/units\n", $base, $base + 0x1000;
		printf $f "%x-%x r-xp 00001000 00:00 1 /rec/units\n", $base + 0x1000, $base + 0x2000;
	' "$tmpdir/$name.cpu" "$@" || exit 99
}
# the addresses of a function and its unit's offset in .debug_info
fn() { nm "$bin/units" | sed -n "s/^0*\([0-9a-f]*\) T $1\$/\1/p"; }
at() { printf '%x' $((0x$(fn "$1") + $2)); }
profile first "$(at main_work 16)" "$(at main_work 24)"
profile mid "$(at mid_work 16)"
profile last "$(at last_work 16)"
profile gap "$(at mid_work -1)" "$(at last_work -1)"

convert() {
	profkit-convert --binary="$tmpdir/units" --symbol-path="$tmpdir/sym" \
		--to=pprof "$@"
}
# same NAME FILE...: converted (merged when several) with no cache, and
# with the cache's whole copy: the same bytes
same() {
	name=$1
	shift
	if [ $# -gt 1 ]; then
		PROFKIT_CACHE_DIR= PROFKIT_DEBUG=symbols profkit-merge \
			--binary="$tmpdir/units" --symbol-path="$tmpdir/sym" \
			--to=pprof "$@" >"$tmpdir/none.pb" 2>"$tmpdir/none.err"
		PROFKIT_CACHE_DIR=$tmpdir/cache profkit-merge -q \
			--binary="$tmpdir/units" --symbol-path="$tmpdir/sym" \
			--to=pprof "$@" >"$tmpdir/cache.pb" 2>&1
	else
		PROFKIT_CACHE_DIR= PROFKIT_DEBUG=symbols convert "$1" \
			>"$tmpdir/none.pb" 2>"$tmpdir/none.err"
		PROFKIT_CACHE_DIR=$tmpdir/cache convert -q "$1" >"$tmpdir/cache.pb" 2>&1
	fi
	same_output "$name: the same as from the whole copy" \
		"$tmpdir/cache.pb" "$tmpdir/none.pb"
}
cut_said() { grep -q "only the units its addresses need" "$tmpdir/none.err"; }

same "the first unit" "$tmpdir/first.cpu"
cut_said && pass "the first unit: the copy cut after it" ||
	{ fail "the first unit: the copy cut after it"; diag_file "$tmpdir/none.err"; }
profkit-top -q --binary="$tmpdir/units" --symbol-path="$tmpdir/sym" \
	"$tmpdir/none.pb" >"$tmpdir/top" 2>&1
grep -q main_step "$tmpdir/top" && grep -q main_work "$tmpdir/top" &&
	pass "the first unit: its inlined function named" ||
	{ fail "the first unit: its inlined function named"; diag_file "$tmpdir/top"; }
same "the second unit" "$tmpdir/mid.cpu"
cut_said && pass "the second unit: the copy cut after it" ||
	fail "the second unit: the copy cut after it"
same "the last unit" "$tmpdir/last.cpu"
! cut_said && pass "the last unit: nothing to leave out" ||
	fail "the last unit: nothing to leave out"
same "between two units' code" "$tmpdir/gap.cpu"
same "the first, then the last (merged)" "$tmpdir/first.cpu" "$tmpdir/last.cpu"
same "the last, then the first (merged)" "$tmpdir/last.cpu" "$tmpdir/first.cpu"
same "the first, then the second (merged)" "$tmpdir/first.cpu" "$tmpdir/mid.cpu"
# the copy the cache keeps is whole, as before: its .debug_info as long
# as the file's never compressed
info_size() { readelf -SW "$1" | sed -n 's/.* \.debug_info *[A-Z]* *[0-9a-f]* [0-9a-f]* \([0-9a-f]*\) .*/\1/p'; }
copy=$(ls "$tmpdir"/cache/debug/*.debug 2>/dev/null | head -n 1)
[ -n "$copy" ] && [ "$(info_size "$copy")" = "$(info_size "$bin/units")" ] &&
	pass "the cache's copy: .debug_info whole" ||
	fail "the cache's copy: .debug_info whole"
finish
