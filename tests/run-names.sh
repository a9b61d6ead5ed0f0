#!/bin/sh
# Names as perf shows them, on every path (doc/formats.md, "Names"):
# Rust's v0 names ("_R...") demangled from perf.data, gperftools, pprof
# and perf script text; legacy Rust names perf left half demangled
# finished; C++ PLT stubs demangled before "@plt". The perf.data
# recordings themselves are compared with perf script in
# tests/run-perf-data-folded.sh (rusty-v0, rusty-legacy, rusty-v0-dwarf,
# pltcxx); here the same stacks come through the other paths.
. "${top_srcdir:-.}/tests/test-subr.sh"

t=$top_builddir/tests/t-demangle
[ -x "$t" ] || skip_all_optional "tests/t-demangle is not built"
d=testdata/perf-data
# the recordings' programs at their recorded paths, nothing else
root=$tmpdir/root
mkdir -p "$root/tmp/rec6" "$tmpdir/home" || exit 99
for b in rusty-v0 rusty-legacy pltcxx; do
	ln -s "$(pwd)/testdata/bin/$b" "$root/tmp/rec6/$b" || exit 99
done
convert() { HOME=$tmpdir/home profkit-convert -q --symfs="$root" "$@"; }

# v0 names of the Rust toolchain's libraries and of bin/rusty-v0, and
# what llvm-cxxfilt 14 prints for them (rustfilt's style), its
# " (.0)" for a vendor suffix left out as the v0 spec recommends
testrun_compare "v0 names as rustfilt prints them" testdata/demangle/rust-v0.expected \
	sh -c "'$t' --filter <testdata/demangle/rust-v0.txt"
if command -v llvm-cxxfilt >/dev/null 2>&1; then
	llvm-cxxfilt <testdata/demangle/rust-v0.txt | sed 's/ (\.[^)]*)$//' >"$tmpdir/llvm"
	"$t" --filter <testdata/demangle/rust-v0.txt >"$tmpdir/ours"
	same_output "v0 names: llvm-cxxfilt agrees, live" "$tmpdir/llvm" "$tmpdir/ours"
else
	skip "v0 names: llvm-cxxfilt agrees, live" "no llvm-cxxfilt (llvm)"
fi

# perf script text whose Rust names perf left: v0 ones mangled (perf
# script --no-demangle; a perf without v0 support prints the same), and
# legacy ones half demangled (the same text through `c++filt -s gnu-v3`,
# which knows C++ only, as a perf without Rust support leaves them)
testrun_compare "perf script text, v0 names left mangled" $d/rusty-v0.folded \
	profkit-convert --to=folded testdata/perf-script/rusty-v0.mangled.txt
testrun_compare "perf script text, legacy names left half demangled" \
	$d/rusty-legacy.folded \
	profkit-convert --to=folded testdata/perf-script/rusty-legacy.half.txt
profkit-convert --demangle=none --to=folded testdata/perf-script/rusty-legacy.half.txt \
	>"$tmpdir/none"
grep -q ';rusty::GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::hf8df545291847ee8 ' \
	"$tmpdir/none" && pass "--demangle=none: perf script's names as printed" ||
	fail "--demangle=none: perf script's names as printed"

# gperftools: the same program profiled by libprofiler, symbolized here
testrun_compare "gperftools CPU profile of v0 names" \
	testdata/gperftools/rusty-v0.cpu.folded convert --to=folded testdata/gperftools/rusty-v0.cpu

# pprof with names its writer left mangled (name = system name): read as
# pprof reads them, demangled in pprof's style (v0 names as above)
convert --demangle=none --to=pprof -o "$tmpdir/rusty.pb.gz" $d/rusty-v0.perf.data
testrun_compare "pprof of v0 names left mangled" $d/rusty-v0.folded \
	convert --to=folded "$tmpdir/rusty.pb.gz"
convert --demangle=none --to=pprof -o "$tmpdir/pltcxx.pb.gz" $d/pltcxx.perf.data
find_pprof
if [ -n "$pprof" ]; then
	# Go pprof demangles C++ names left mangled itself: the same traces
	convert --to=pprof -o "$tmpdir/again.pb.gz" "$tmpdir/pltcxx.pb.gz"
	HOME=$tmpdir/home "$pprof" -traces "$tmpdir/pltcxx.pb.gz" >"$tmpdir/theirs" 2>&1
	HOME=$tmpdir/home "$pprof" -traces "$tmpdir/again.pb.gz" >"$tmpdir/ours" 2>&1
	grep -q "basic_string::_M_construct$" "$tmpdir/theirs" &&
		same_output "pprof of C++ names left mangled: Go pprof's names" \
			"$tmpdir/theirs" "$tmpdir/ours" ||
		{ fail "pprof of C++ names left mangled: Go pprof's names"; diag_file "$tmpdir/theirs"; }
else
	skip "pprof of C++ names left mangled: Go pprof's names" "no Go pprof"
fi

# C++ PLT stubs in every style that names them: perf's (pltcxx.folded,
# run-perf-data-folded.sh) and c++filt's, as objdump -C names them
# (perf script text: folded output cuts names at their parameters)
convert --demangle=full --to=perf-script $d/pltcxx.perf.data |
	sed -n 's/^[[:space:]]*[0-9a-f]* \(.*@plt\) (.*)$/\1/p' | sort -u >"$tmpdir/full"
echo 'std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_construct(unsigned long, char)@plt' >"$tmpdir/want"
same_output "--demangle=full: a PLT stub as objdump -C names it" "$tmpdir/want" "$tmpdir/full"
if command -v objdump >/dev/null 2>&1; then
	objdump -dC testdata/bin/pltcxx | sed -n 's/^[0-9a-f]* <\(.*_M_construct.*@plt\)>:$/\1/p' >"$tmpdir/objdump"
	same_output "--demangle=full: objdump -C agrees, live" "$tmpdir/objdump" "$tmpdir/full"
else
	skip "--demangle=full: objdump -C agrees, live" "no objdump (binutils)"
fi

plan $tap_n
finish
