#!/bin/sh
# --call-graph dwarf recordings beyond their stacks (those are checked
# against perf script in run-perf-data-folded.sh): what profkit-info says
# of the unwinding, --no-unwind, and damage the unwinder must survive, a
# stack copy cut short, a lost instruction pointer, garbage CFI and stack
# bytes flipped: partial stacks and a warning, never a crash.
. "${top_srcdir:-.}/tests/test-subr.sh"
command -v python3 >/dev/null 2>&1 || skip_all "no python3 to damage recordings with"
d=testdata/perf-data
bin=$(pwd)/testdata/bin
root=$tmpdir/root
mkdir -p "$root/tmp/rec3" "$tmpdir/home"
ln -s "$bin/c-dwarf" "$root/tmp/rec3/c-dwarf"
HOME=$tmpdir/home
export HOME
plan 8

convert() { profkit-convert --symfs="$root" --kallsyms=$d/kallsyms --to=folded "$@"; }

# A root with the program and not libc: every stack ends in libc, early.
profkit-info -q --symfs="$root" $d/c-dwarf.perf.data | grep dwarf-unwinding >"$tmpdir/info"
echo "  dwarf-unwinding: 0 of 173 user stacks to their root (0.0%), 173 partial, 0 not unwound" >"$tmpdir/want"
same_output "profkit-info: the share of stacks unwound to their root" "$tmpdir/want" "$tmpdir/info"

# --no-unwind: the kernel's part and the sampled user frame, nothing more
convert -q --no-unwind $d/c-dwarf.perf.data >"$tmpdir/leaf"
if awk '{ n = split($1, f, ";") } n > 3 { bad = 1 } END { exit bad || NR == 0 }' "$tmpdir/leaf" &&
	[ "$(awk '{ s += $NF } END { print s }' "$tmpdir/leaf")" = \
	  "$(awk '{ s += $NF } END { print s }' $d/c-dwarf.folded)" ]; then
	pass "--no-unwind: every sample, its user part one frame"
else
	fail "--no-unwind: every sample, its user part one frame"
	diag_file "$tmpdir/leaf"
fi

# damage DATA HOW: rewrite every sample's user registers or stack copy
damage() {
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys
src, how, dst = sys.argv[1:]
d = bytearray(open(src, 'rb').read())
attrs = struct.unpack_from('<Q', d, 24)[0]
regs_mask = struct.unpack_from('<Q', d, attrs + 80)[0]
nregs = bin(regs_mask).count('1')
stack = struct.unpack_from('<I', d, attrs + 88)[0]
pos, end = struct.unpack_from('<QQ', d, 40)
end += pos
while pos + 8 <= end:
    rtype, misc, size = struct.unpack_from('<IHH', d, pos)
    if size < 8:
        break
    # the stack copy: its size, the bytes, dyn_size (maybe more after)
    for at in range(pos + size - 16 - stack, pos + size - 32 - stack, -8):
        if rtype == 9 and at > pos and struct.unpack_from('<Q', d, at)[0] == stack:
            if how == 'short':      # the kernel copied 24 bytes only
                struct.pack_into('<Q', d, at + 8 + stack, 24)
            elif how == 'no-ip':    # the instruction pointer lost
                struct.pack_into('<Q', d, at - 8 * nregs + 8 * 8, 0)
            elif how == 'noise':    # the stack copy overwritten
                for i in range(at + 8, at + 8 + stack, 8):
                    struct.pack_into('<Q', d, i, (i * 0x9e3779b97f4a7c15) & (2**64 - 1))
            break
    pos += size
open(dst, 'wb').write(d)
EOF
}

# frames FOLDED: the frames of all samples, each counted once per sample
frames() { awk '{ n += (split($1, f, ";") - 1) * $NF } END { print n + 0 }' "$1"; }

# Each damaged copy converts (exit 0) and loses no sample; a stack copy
# cut short or a lost instruction pointer leaves shorter stacks.
whole=$(frames $d/c-dwarf.folded)
for how in short no-ip noise; do
	damage $d/c-dwarf.perf.data $how "$tmpdir/$how.perf.data"
	if convert -q "$tmpdir/$how.perf.data" >"$tmpdir/$how.out" 2>"$tmpdir/err" &&
		[ "$(awk '{ s += $NF } END { print s }' "$tmpdir/$how.out")" = \
		  "$(awk '{ s += $NF } END { print s }' $d/c-dwarf.folded)" ]; then
		pass "$how: every sample kept"
	else
		fail "$how: every sample kept"
		diag_file "$tmpdir/err"
	fi
done
for how in short no-ip; do
	got=$(frames "$tmpdir/$how.out")
	if [ "$got" -lt "$whole" ]; then
		pass "$how: stacks stop early ($got frames, $whole whole)"
	else
		fail "$how: stacks stop early ($got frames, $whole whole)"
	fi
done

# garbage CFI: the program's .eh_frame and .eh_frame_hdr overwritten
python3 - "$bin/c-dwarf" "$tmpdir/c-dwarf" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
shoff, = struct.unpack_from('<Q', d, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from('<HHH', d, 0x3a)
def sh(i):
    return struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * shentsize)
strtab = sh(shstrndx)[4]
for i in range(shnum):
    name, _, _, _, off, size = sh(i)[:6]
    n = d[strtab + name:d.index(b'\0', strtab + name)]
    if n in (b'.eh_frame', b'.eh_frame_hdr'):
        for k in range(off, off + size):
            d[k] = (k * 167 + 13) & 0xff
open(sys.argv[2], 'wb').write(d)
EOF
rm "$root/tmp/rec3/c-dwarf"
cp "$tmpdir/c-dwarf" "$root/tmp/rec3/c-dwarf"
if convert $d/c-dwarf.perf.data >"$tmpdir/out" 2>"$tmpdir/err" &&
	[ "$(awk '{ s += $NF } END { print s }' "$tmpdir/out")" = \
	  "$(awk '{ s += $NF } END { print s }' $d/c-dwarf.folded)" ]; then
	pass "garbage CFI: every sample kept"
else
	fail "garbage CFI: every sample kept"
	diag_file "$tmpdir/err"
fi
finish
