#!/bin/sh
# Frames no file here can name are said once, at the end of a load: the
# share of samples that have such frames, the files that weigh most (each
# with its share), and what would name them. The shares are checked
# against what perf itself listed of the same recordings (perf script
# -F ...,ip,dso: one sample a paragraph, each frame's file in
# parentheses). dpkg's database is one made here ($DPKG_ADMINDIR, as
# dpkg reads it), so the packages named do not depend on this machine.
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 9
d=testdata/perf-data
empty=$tmpdir/empty
mkdir -p "$empty" "$tmpdir/dpkg/info" || exit 99
DPKG_ADMINDIR=$tmpdir/dpkg
export DPKG_ADMINDIR
# Debian 12 lists libc under /lib (merged /usr: perf records /usr/lib)
echo /lib/x86_64-linux-gnu/libc.so.6 >"$tmpdir/dpkg/info/libc6:amd64.list"
printf '/.\n/tmp\n/tmp/rec\n/tmp/rec/c-fp\n' >"$tmpdir/dpkg/info/cfp-tools.list"

# share FILE DSO...: the share of FILE's samples with a frame in any DSO
share() {
	file=$1
	shift
	awk -v dsos="$*" -f tests/samples-share.awk "$file"
}
line() { printf '  %6s  %s\n' "$(share "$text" "$1")" "$2"; }
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
ld=/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
missing="  not found here: give --symfs=DIR, a copy of the recording machine's files, or run \`perf archive FILE\` there and unpack FILE.tar.bz2 into ~/.debug here"
packages="  Debian's debug packages: the recording machine's versions; -dbgsym is Debian's name for the automatic ones (debian-debug archive), which not every source builds"
debuginfod=
grep -q '^#define HAVE_DEBUGINFOD 1' "$top_builddir/config.h" &&
	debuginfod="  or set DEBUGINFOD_URLS to a debuginfod server (https://debuginfod.debian.net for Debian's packages), which has files by build id"
tail="  (PROFKIT_DEBUG=symbols lists the paths tried)"
# the summary, one warning of several lines, from the command's stderr
summary() { sed -n '/symbolize: .* of samples have frames without names/,/PROFKIT_DEBUG=symbols/p' "$1"; }
# expected: the lines given, an empty one for the debuginfod line
expect() {
	for l in "$@"; do
		if [ -n "$l" ]; then
			echo "$l"
		elif [ -n "$debuginfod" ]; then
			echo "$debuginfod"
		fi
	done >"$tmpdir/want"
}

# c-fp: nothing of the recording machine here; libc's package by its
# /lib name, the program's by its own, ld.so's known without dpkg
text=$d/c-fp.perf-script.txt
expect "profkit-convert: warning: $d/c-fp.perf.data: symbolize: $(share $text /tmp/rec/c-fp $libc $ld) of samples have frames without names, in 3 files:" \
	"$(line $libc "$libc: not found; Debian: libc6-dbg")" \
	"$(line /tmp/rec/c-fp "/tmp/rec/c-fp: not found; Debian: cfp-tools-dbgsym")" \
	"$(line $ld "$ld: not found; Debian: libc6-dbg")" \
	"$missing" "$packages" "" "$tail"
profkit-convert --symfs="$empty" --to=folded -o "$tmpdir/out" \
	$d/c-fp.perf.data 2>"$tmpdir/warnings"
testrun_compare "c-fp without its files: one summary, shares as perf counted" \
	"$tmpdir/want" summary "$tmpdir/warnings"
[ "$(grep -c 'warning' "$tmpdir/warnings")" = 1 ] &&
	pass "and no other warning" || { fail "and no other warning"; diag_file "$tmpdir/warnings"; }

# every event's samples count: multi has cpu-clock and page-faults ones
text=$d/multi.perf-script.txt
rm -f "$tmpdir/dpkg/info/"*
expect "profkit-convert: warning: $d/multi.perf.data: symbolize: $(share $text /tmp/rec/multi $libc $ld) of samples have frames without names, in 3 files:" \
	"$(line /tmp/rec/multi "/tmp/rec/multi: not found")" \
	"$(line $libc "$libc: not found; Debian: libc6-dbg")" \
	"$(line $ld "$ld: not found; Debian: libc6-dbg")" \
	"$missing" "$packages" "" "$tail"
profkit-convert --symfs="$empty" --kallsyms=$d/kallsyms --to=folded \
	-o "$tmpdir/out" $d/multi.perf.data 2>"$tmpdir/warnings"
testrun_compare "multi: the samples of both events" \
	"$tmpdir/want" summary "$tmpdir/warnings"

# a file by the recorded name, of another build; a stripped one
text=$d/c-fp.perf-script.txt
root=$tmpdir/root
mkdir -p "$root/tmp/rec" "$root/tmp/rec2" || exit 99
cp testdata/bin/c-dwarf "$root/tmp/rec/c-fp"
cp testdata/bin/c-fp-stripped "$root/tmp/rec2/c-fp-stripped"
profkit-convert --symfs="$root" --to=folded -o "$tmpdir/out" \
	$d/c-fp.perf.data 2>"$tmpdir/err"
grep -qxF "$(line /tmp/rec/c-fp "/tmp/rec/c-fp: not found ($root/tmp/rec/c-fp is another build)")" \
	"$tmpdir/err" && pass "another build by the same name is said" ||
	{ fail "another build by the same name is said"; diag_file "$tmpdir/err"; }
profkit-convert --symfs="$root" --kallsyms=$d/kallsyms --to=folded \
	-o "$tmpdir/out" $d/stripped.perf.data 2>"$tmpdir/err"
grep -q "%  /tmp/rec2/c-fp-stripped: $root/tmp/rec2/c-fp-stripped has no symbols for them\$" \
	"$tmpdir/err" && pass "a stripped file: found, without symbols" ||
	{ fail "a stripped file: found, without symbols"; diag_file "$tmpdir/err"; }
grep -qxF "  without symbols: give the unstripped file or its debug file with --symbol-path=DIR" \
	"$tmpdir/err" && pass "and what would name it" ||
	{ fail "and what would name it"; diag_file "$tmpdir/err"; }

# a JIT's map
profkit-convert --symfs="$empty" --kallsyms=$d/kallsyms --to=folded \
	-o "$tmpdir/out" $d/node.perf.data 2>"$tmpdir/err"
grep -q '%  /tmp/perf-1262.map: not found$' "$tmpdir/err" &&
	grep -qxF "  a JIT's map: copy /tmp/perf-PID.map from the recording machine (into --symfs=DIR/tmp)" "$tmpdir/err" &&
	pass "a JIT's map not found, and where it is" ||
	{ fail "a JIT's map not found, and where it is"; diag_file "$tmpdir/err"; }

# PROFKIT_DEBUG=symbols: each file's search too, every place looked at
PROFKIT_DEBUG=symbols profkit-convert --symfs="$empty" --to=folded \
	-o "$tmpdir/out" $d/c-fp.perf.data 2>"$tmpdir/err"
grep -qF "symbolize: no symbols for '/tmp/rec/c-fp' (build id 2890d92fe4cd60efeaa6b2a36912f117c14eff25): tried $HOME/.debug/.build-id/28/90d92fe4cd60efeaa6b2a36912f117c14eff25/elf, " "$tmpdir/err" &&
	grep -qF "$empty/tmp/rec/c-fp, " "$tmpdir/err" &&
	[ "$(grep -c 'warning' "$tmpdir/err")" = 4 ] &&
	pass "PROFKIT_DEBUG=symbols: where each file was looked for" ||
	{ fail "PROFKIT_DEBUG=symbols: where each file was looked for"; diag_file "$tmpdir/err"; }

# -q: nothing
profkit-convert -q --symfs="$empty" --to=folded -o "$tmpdir/out" \
	$d/c-fp.perf.data 2>"$tmpdir/err"
[ ! -s "$tmpdir/err" ] && pass "-q: no summary" || fail "-q: no summary"
finish
