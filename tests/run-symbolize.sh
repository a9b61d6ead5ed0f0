#!/bin/sh
# The symbolizer (through tests/t-symbolize's frame printer): demangling
# and address translation on testdata/symbolize, and every instruction of
# the test programs against binutils' addr2line.
. "${top_srcdir:-.}/tests/test-subr.sh"

t=$top_builddir/tests/t-symbolize
# not a tool: make check builds it (this is the script run by hand)
[ -x "$t" ] || skip_all_optional "tests/t-symbolize is not built"
command -v nm >/dev/null 2>&1 || skip_all "nm (binutils) is not installed"
HOME=/nonexistent PROFKIT_SYMBOL_PATH=
export HOME PROFKIT_SYMBOL_PATH

plan 9

# frames BINARY START LIMIT OFFSET BIAS [OPTION...]: the functions of
# testdata/symbolize/names.c in BINARY, each looked up 2 bytes in at its
# address + BIAS in a mapping START-LIMIT of file offset OFFSET, as
# "SYMBOL NAME|SYSTEM_NAME|FILE|START_LINE|LINE".
frames() {
	bin=$1 start=$2 limit=$3 offset=$4 bias=$5
	shift 5
	nm "$bin" | awk '$2 == "T" && $3 ~ /^(_Z|_R|main$|plain_c$)/ { print $1, $3 }' |
		LC_ALL=C sort -k2 >"$tmpdir/syms"
	addrs=$(while read -r a s; do
		printf '0x%x\n' $((0x$a + bias + 2))
	done <"$tmpdir/syms")
	# shellcheck disable=SC2086
	"$t" "$@" "$bin" "$start" "$limit" "$offset" $addrs >"$tmpdir/frames" &&
		cut -d' ' -f2 <"$tmpdir/syms" | paste -d' ' - "$tmpdir/frames" |
		sed 's/^\([^ ]*\) [^ ]* /\1 /'
}

# libnames.so is ET_DYN linked at 0x10000: its text (offset 0x1000,
# vaddr 0x11000) mapped at 0x7f1234501000 puts vaddr V at V + bias.
testrun_compare "ET_DYN whose vaddrs are not its offsets, demangled" \
	testdata/symbolize/names.expected \
	frames testdata/symbolize/libnames.so 0x7f1234501000 0x7f1234502000 \
	0x1000 0x7f12344f0000

testrun_compare "ET_EXEC at its link addresses" \
	testdata/symbolize/names.expected \
	frames testdata/symbolize/names-exec 0x401000 0x402000 0x1000 0

testrun_compare "a mapping without a range holds file addresses" \
	testdata/symbolize/names.expected \
	frames testdata/symbolize/libnames.so 0 0 0 0

frames testdata/symbolize/libnames.so 0 0 0 0 --demangle=full |
	cut -d'|' -f1 >"$tmpdir/full"
if cmp -s testdata/symbolize/names-full.expected "$tmpdir/full"; then
	pass "--demangle=full keeps parameters and return types"
else
	fail "--demangle=full keeps parameters and return types"
	diff -u testdata/symbolize/names-full.expected "$tmpdir/full" | diag_file /dev/stdin 30
fi

frames testdata/symbolize/libnames.so 0 0 0 0 --demangle=none >"$tmpdir/none"
if [ -s "$tmpdir/none" ] && awk -F'|' '{ sub(/^[^ ]* /, "", $1); if ($1 != $2) exit 1 }' "$tmpdir/none"; then
	pass "--demangle=none keeps the symbol table's names"
else
	fail "--demangle=none keeps the symbol table's names"
	diag_file "$tmpdir/none"
fi

# Every instruction (but padding) against addr2line: the line numbers of
# every frame, inlined ones included, and the linkage names of inlined
# frames must agree. Names of outermost frames differ by design (the
# symbol table's "f.isra.0", as perf prints), and so do files (binutils
# misreads DWARF 5 file index 1 as the compilation unit's file).
normalize() {
	awk '
	function flush(   i, out) {
		if (addr == "")
			return
		if (first) {
			sym[addr] = name[n]
			addr = ""
			return
		}
		out = addr
		for (i = 1; i <= n; i++)
			out = out " " line[i]
		for (i = 1; i < n; i++)
			if (name[i] ~ /^_Z/ && name[i] != sym[addr])
				out = out " " name[i]
		print out
		addr = ""
	}
	FNR == 1 { flush(); first = (NR == 1) }
	/^0x[0-9a-f]+$/ { flush(); addr = $0; n = 0; next }
	/:[0-9?]+( \(discriminator [0-9]+\))?$/ {
		sub(/ \(discriminator [0-9]+\)$/, "")
		l = $0
		sub(/.*:/, "", l)
		line[n] = (l == "0" ? "?" : l)
		next
	}
	{ n++; name[n] = $0 }
	END { flush() }' "$@"
}

if ! command -v addr2line >/dev/null 2>&1 || ! command -v objdump >/dev/null 2>&1; then
	for b in c-fp cxx-dwarf multi threads; do
		skip "$b: every instruction against addr2line" "addr2line or objdump (binutils) is not installed"
	done
	finish
fi
for b in c-fp cxx-dwarf multi threads; do
	bin=testdata/bin/$b
	objdump -d --no-show-raw-insn -j .text "$bin" |
		awk '/^ *[0-9a-f]+:/ && !/nop|xchg +%ax,%ax/ { sub(":", "", $1); print "0x" $1 }' \
		>"$tmpdir/addrs"
	# shellcheck disable=SC2046
	addr2line -a -f -i -e "$bin" $(cat "$tmpdir/addrs") >"$tmpdir/a2l"
	# shellcheck disable=SC2046
	"$t" --addr2line "$bin" 0 0 0 $(cat "$tmpdir/addrs") >"$tmpdir/ours"
	normalize "$tmpdir/ours" "$tmpdir/a2l" >"$tmpdir/a2l.n"
	normalize "$tmpdir/ours" "$tmpdir/ours" >"$tmpdir/ours.n"
	n=$(wc -l <"$tmpdir/a2l.n")
	if [ "$n" -gt 50 ] && cmp -s "$tmpdir/a2l.n" "$tmpdir/ours.n"; then
		pass "$b: $n instructions agree with addr2line"
	else
		fail "$b: $n instructions, some disagree with addr2line"
		diff -u "$tmpdir/a2l.n" "$tmpdir/ours.n" | diag_file /dev/stdin 30
	fi
done
finish
