#!/usr/bin/env python3
"""Make a library's symbol file for testdata/sysroot: its symbol table
and nothing else, laid out as the library itself.

usage: symbols-only.py LIBRARY DEBUG-FILE OUT

LIBRARY is the stripped library a recording names (same build id),
DEBUG-FILE its separate debug file (libc6-dbg's, under
/usr/lib/debug/.build-id). OUT gets what `eu-strip -f` splits off the
library once its DWARF is gone: .symtab and .strtab, every other section
NOBITS. eu-strip packs those NOBITS sections at made-up file offsets;
perf takes a .text offset from them (its inline lookup then names the
wrong function), so each gets its offset in the library back. The
program headers keep the library's offsets with no bytes in the file
(p_filesz 0), so no unwinder reads code or CFI that is not there. An
empty .debug_info tells binutils' addr2line (perf's inline lookup) that
this file has what DWARF there is: without one it would read this
machine's debug package for the build id, whatever --symfs says.
Needs elfutils (eu-unstrip, eu-strip) and binutils (objcopy).
"""
import os
import struct
import subprocess
import sys
import tempfile


def elf_headers(data):
    """(section headers offset, size, count), (program headers ...)."""
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        sys.exit('not a 64-bit little-endian ELF file')
    phoff, shoff = struct.unpack_from('<QQ', data, 0x20)
    phentsize, phnum, shentsize, shnum = struct.unpack_from('<HHHH', data, 0x36)
    return (shoff, shentsize, shnum), (phoff, phentsize, phnum)


def main(library, debug, out):
    with tempfile.TemporaryDirectory() as tmp:
        full, nodwarf = os.path.join(tmp, 'full'), os.path.join(tmp, 'nodwarf')
        for cmd in (['eu-unstrip', '-o', full, library, debug],
                    ['eu-strip', '-g', '--remove-comment', '-o', nodwarf, full],
                    ['objcopy', '--add-section', '.debug_info=/dev/null',
                     '--set-section-flags', '.debug_info=readonly,debug',
                     nodwarf],
                    ['eu-strip', '--remove-comment', '-f', out,
                     '-o', os.path.join(tmp, 'stripped'), nodwarf]):
            subprocess.run(cmd, check=True)
        lib = open(nodwarf, 'rb').read()
    data = bytearray(open(out, 'rb').read())
    (shoff, shentsize, shnum), (phoff, phentsize, phnum) = elf_headers(data)
    (lshoff, lshentsize, lshnum), _ = elf_headers(lib)
    if (lshentsize, lshnum) != (shentsize, shnum):
        sys.exit('the sections are not the library\'s')
    for i in range(shnum):
        sh, lsh = shoff + i * shentsize, lshoff + i * shentsize
        if struct.unpack_from('<I', data, sh + 4)[0] == 8:	# SHT_NOBITS
            data[sh + 0x18:sh + 0x20] = lib[lsh + 0x18:lsh + 0x20]
    for i in range(phnum):
        struct.pack_into('<Q', data, phoff + i * phentsize + 0x20, 0)
    open(out, 'wb').write(data)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__.split('\n\n')[1])
    main(*sys.argv[1:])
