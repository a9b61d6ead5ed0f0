#!/bin/sh
# perf.data straight to folded stacks, symbolized, against what users get
# today from `perf script | stackcollapse-perf.pl`. The recordings
# (testdata/README.md) were made here; their binaries are in
# testdata/bin. Symbols come from a root (--symfs, as perf has it) that
# holds only those binaries, node's JIT map and a copy of the recording
# kernel's kallsyms cut to the symbols the samples hit, so system
# libraries show as [libc.so.6] on every machine. X.folded is
#
#   HOME=empty perf script --symfs=ROOT --kallsyms=K -i X | stackcollapse-perf.pl
#
# except where doc/formats.md lists the perl script's faults (threads,
# tp-prog: comms; cxx-fp, cxx-dwarf*: names cut at "("), and plt-ibt, whose
# .plt.sec stubs perf 6.1 leaves [unknown].
#
# The *-dwarf recordings (--call-graph dwarf) are unwound here from their
# registers and stack copies, with their inlined functions, as perf
# script shows them: where the root lacks the system's libraries, their
# stacks end at the first library frame in both.
#
# Where perf itself runs, the same pipeline runs live with the recording's
# system libraries in the root too (their symbol tables, testdata/sysroot,
# never this machine's), and must agree with profkit-convert. perf
# script reads a JIT's symbols from this machine's /tmp/perf-PID.map
# whatever --symfs says (profkit reads ROOT/tmp/perf-PID.map), so for the
# node recording both sides get the same map: none where /tmp has none
# (both then name the JIT frames [perf-1262.map]), the recording's where
# /tmp holds an identical copy; node.folded above is perf script's
# reading with the map.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-data
bin=$(pwd)/testdata/bin
recordings="c-fp threads multi pipe tp-prog cxx-fp stripped zstd-sym node
	c-dwarf cxx-dwarf cxx-dwarf-threads plt"

# the root: each recorded path -> the file here
root=$tmpdir/root
link() { mkdir -p "$root$(dirname "$2")" && ln -s "$1" "$root$2"; }
for b in c-fp threads multi sleeper; do link "$bin/$b" /tmp/rec/$b; done
link "$bin/c-fp" /tmp/rec2/c-fp
link "$bin/cxx-threads" /tmp/rec2/cxx-threads
link "$bin/c-fp-stripped" /tmp/rec2/c-fp-stripped
link "$bin/cxx-dwarf" /tmp/rec/cxx-dwarf
link "$bin/c-dwarf" /tmp/rec3/c-dwarf
link "$bin/cxx-threads" /tmp/rec3/cxx-threads
link "$bin/plt" /tmp/rec4/plt
link "$bin/plt-ibt" /tmp/rec4/plt-ibt
link "$(pwd)/$d/perf-1262.map" /tmp/perf-1262.map
mkdir "$tmpdir/home"	# no ~/.debug build-id cache: the root only

folded() { HOME=$tmpdir/home profkit-convert -q --symfs="$root" --kallsyms=$d/kallsyms --to=folded "$@"; }

zstd=yes
profkit-convert -q --no-symbolize --to=folded $d/zstd-sym.perf.data >/dev/null 2>&1 || zstd=
for name in $recordings; do
	if [ $name = zstd-sym ] && [ -z "$zstd" ]; then
		# required in CI: bootstrap installs libzstd-dev
		skip "$name: as perf script | stackcollapse-perf.pl" "built without libzstd"
		continue
	fi
	testrun_compare "$name: as perf script | stackcollapse-perf.pl" \
		$d/$name.folded folded $d/$name.perf.data
done
# two events: the first attribute's by default (as perf report and perf
# evlist order them), the other with --event
testrun_compare "multi: the second event" $d/multi.page-faults.folded \
	folded --event=page-faults $d/multi.perf.data
testrun_compare "tp-prog: the second event" $d/tp-prog.cpu-clock.folded \
	folded --event=cpu-clock $d/tp-prog.perf.data
# perf-map-agent's unfoldall names JIT code "A->B->C": node's recording
# again, with such names in its map; perf script | stackcollapse-perf.pl
# with that map as /tmp/perf-1262.map made the expected files
root2=$tmpdir/root2
mkdir -p "$root2/tmp" && ln -s "$(pwd)/$d/perf-1262.unfoldall.map" "$root2/tmp/perf-1262.map"
testrun_compare "node, unfoldall JIT map: A;B_[i];C_[i]" $d/node-unfoldall.folded \
	env HOME="$tmpdir/home" profkit-convert -q --symfs="$root2" --kallsyms=$d/kallsyms \
	--to=folded $d/node.perf.data
testrun_compare "node, unfoldall JIT map, --jit" $d/node-unfoldall.jit.folded \
	env HOME="$tmpdir/home" profkit-convert -q --symfs="$root2" --kallsyms=$d/kallsyms \
	--to=folded --jit $d/node.perf.data

# PLT stubs in .plt.sec (IBT): perf names them "malloc@plt" since 6.3,
# as objdump does; perf 6.1 made plt-ibt.folded's stub frames [plt-ibt]
testrun_compare "plt-ibt: .plt.sec stubs named as perf 6.3 names them" \
	$d/plt-ibt.folded folded $d/plt-ibt.perf.data
testrun_compare "--inline: inlined functions as frames" $d/cxx-fp.inline.folded \
	folded --inline $d/cxx-fp.perf.data
# summed in one profile, each recording keeps its own kind of stacks: the
# frame-pointer one gets no inlined frames for following a dwarf one
profkit-merge -q --to=folded $d/cxx-dwarf.folded $d/cxx-fp.folded >"$tmpdir/both"
testrun_compare "a dwarf and a frame-pointer recording summed" "$tmpdir/both" \
	folded $d/cxx-dwarf.perf.data $d/cxx-fp.perf.data

# with the recording's system libraries, whose symbols name their frames
# (unwound stacks end at the first of them: the root keeps no CFI). At
# one address libc has several symbols: perf picks one itself for the
# frames it is given (plt: malloc), and names the frames it unwinds as
# binutils' addr2line answers, the largest, then the first in the table
# (c-dwarf: __memmove_avx512_unaligned_erms; cxx-dwarf-threads:
# __GI___libc_malloc)
link_sysroot "$root" || exit 99
testrun_compare "plt with the system's symbols: libc's aliases as perf picks" \
	$d/plt.sysroot.folded folded $d/plt.perf.data
for name in c-dwarf cxx-dwarf-threads; do
	testrun_compare "$name with the system's symbols: libc's aliases as addr2line picks" \
		$d/$name.sysroot.folded folded $d/$name.perf.data
done

# live, where perf runs
jit_map=
if [ ! -e /tmp/perf-1262.map ]; then
	rm "$root/tmp/perf-1262.map"
	jit_map=" (no JIT map on either side)"
elif cmp -s /tmp/perf-1262.map $d/perf-1262.map; then
	jit_map=" (the recording's JIT map on both sides)"
fi
if ! perf script --help >/dev/null 2>&1 && ! command -v perf >/dev/null; then
	for name in $recordings; do skip "$name: live perf script agrees" "no perf (linux-perf)"; done
else
	for name in $recordings; do
		[ $name = zstd-sym ] && [ -z "$zstd" ] && { skip "$name: live perf script agrees" "no libzstd"; continue; }
		if [ $name = node ] && [ -z "$jit_map" ]; then
			# not a missing tool: another program's file that perf
			# script would read, and nothing a test may replace
			skip_optional "$name: live perf script agrees" \
				"/tmp/perf-1262.map here is not the recording's"
			continue
		fi
		# perf script's text is in time order: it leads with the event
		# sampled first, so name perf evlist's first on both sides
		event=--event=$(perf evlist -i $d/$name.perf.data 2>/dev/null | head -n 1)
		HOME=$tmpdir/home perf script --symfs="$root" --kallsyms=$d/kallsyms -i $d/$name.perf.data \
			2>/dev/null | profkit-convert -q --to=folded "$event" >"$tmpdir/theirs"
		folded "$event" $d/$name.perf.data >"$tmpdir/ours"
		[ $name = node ] && name=$name$jit_map
		same_output "$name: live perf script agrees" "$tmpdir/theirs" "$tmpdir/ours"
	done
fi

if perf script --help >/dev/null 2>&1 || command -v perf >/dev/null; then
	HOME=$tmpdir/home perf script --symfs="$root" --kallsyms=$d/kallsyms -i $d/plt-ibt.perf.data \
		2>/dev/null | profkit-convert -q --to=folded >"$tmpdir/theirs"
	folded $d/plt-ibt.perf.data >"$tmpdir/ours"
	if ! grep -q '@plt' "$tmpdir/theirs"; then
		# perf before 6.3: every .plt.sec stub is [unknown]
		sed 's/;[^;]*@plt \([0-9]*\)$/;[plt-ibt] \1/' "$tmpdir/ours" |
			profkit-convert -q --from=folded --to=folded >"$tmpdir/ours.old"
		mv "$tmpdir/ours.old" "$tmpdir/ours"
	fi
	same_output "plt-ibt: live perf script agrees" "$tmpdir/theirs" "$tmpdir/ours"
else
	skip "plt-ibt: live perf script agrees" "no perf (linux-perf)"
fi

plan $tap_n
finish
