#!/bin/sh
# README.md's recipes, run as written: each block of the Recipes section
# (a "# comment" line and the commands under it) runs with sh -e in one
# scratch directory, in order, with testdata/bin/c-fp as ./server. It
# must succeed and every file it writes (-o FILE, > FILE) must not be
# empty. The one change made to the text: /srv/container-root becomes a
# root made here. A block whose outside tool is missing (perf that can
# record, Go pprof, flamegraph.pl, dot, gperftools' libraries) is
# skipped with the reason (failed with PROFKIT_REQUIRE_TOOLS=1, but for
# flamegraph.pl); the recordings it would have made then come from
# testdata/, their binaries in the build-id cache (~/.debug) as perf
# record leaves them, so that later blocks read them as they would
# read this machine's.
. "${top_srcdir:-.}/tests/test-subr.sh"
readme=${top_srcdir:-.}/README.md
work=$tmpdir/session
mkdir -p "$work/bin" "$work/root$work"
cp testdata/bin/c-fp "$work/server"
cp testdata/bin/c-fp "$work/root$work/server"

# the outside tools, found once
find_pprof
[ -n "$pprof" ] && ln -s "$pprof" "$work/bin/pprof"
if find_reference flamegraph/flamegraph.pl; then
	printf '#!/bin/sh\nexec perl %s "$@"\n' "$reference" >"$work/bin/flamegraph.pl"
	chmod +x "$work/bin/flamegraph.pl"
fi
can_record=
(cd "$tmpdir" && perf record -q -e cpu-clock -o probe.data true) >/dev/null 2>&1 && can_record=yes
has_lib() { ldconfig -p 2>/dev/null | grep -q "$1 " || [ -e "/usr/lib/x86_64-linux-gnu/$1" ]; }

# what a block needs that may be missing here, or nothing; "optional:"
# before a tool that is never required: flamegraph.pl is no Debian 12
# package (the FlameGraph scripts are in ../shared/reference)
nl='
'
missing() {
	case $1 in *"perf record"*) [ -n "$can_record" ] || { echo "perf cannot record here"; return; } ;; esac
	case $1 in *"${nl}pprof "*) [ -n "$pprof" ] || { echo "no Go pprof"; return; } ;; esac
	case $1 in *flamegraph.pl*) [ -f "$work/bin/flamegraph.pl" ] || { echo "$reference_missing"; return; } ;; esac
	case $1 in *"dot -T"*) command -v dot >/dev/null || { echo "no dot (graphviz)"; return; } ;; esac
	case $1 in *libprofiler.so*) has_lib libprofiler.so || { echo "no libprofiler.so (libgoogle-perftools-dev)"; return; } ;; esac
	case $1 in *libtcmalloc.so*) has_lib libtcmalloc.so || { echo "no libtcmalloc.so (libgoogle-perftools-dev)"; return; } ;; esac
}

# recordings a skipped block would have made, their binaries by build id
for b in c-fp multi c-dwarf blocking; do
	id=$(readelf -n testdata/bin/$b 2>/dev/null | sed -n 's/.*Build ID: //p')
	[ -n "$id" ] || continue
	mkdir -p "$HOME/.debug/.build-id/${id%"${id#??}"}/${id#??}" &&
		ln -s "$(pwd)/testdata/bin/$b" "$HOME/.debug/.build-id/${id%"${id#??}"}/${id#??}/elf"
done
stand_ins() {
	for f in perf.data before.data after.data; do
		[ -f "$work/$f" ] || cp testdata/perf-data/c-fp.perf.data "$work/$f"
	done
	[ -f "$work/multi.data" ] || cp testdata/perf-data/multi.perf.data "$work/multi.data"
	[ -f "$work/dwarf.data" ] || cp testdata/perf-data/c-dwarf.perf.data "$work/dwarf.data"
	[ -f "$work/sched.data" ] || cp testdata/perf-data/blocking.perf.data "$work/sched.data"
	[ -f "$work/server.prof" ] || cp testdata/gperftools/c-fp.cpu "$work/server.prof"
	[ -f "$work/server.0001.heap" ] || cp testdata/gperftools/c-fp.heap "$work/server.0001.heap"
}

run_block() {
	block=$1
	title=$(echo "$block" | sed -n '1s/^# //p')
	why=$(missing "$block")
	case $why in
	optional:*) skip_optional "$title" "${why#optional: }" ;;
	?*) skip "$title" "$why" ;;
	esac
	if [ -n "$why" ]; then
		stand_ins
		return
	fi
	echo "$block" | sed "s|/srv/container-root|$work/root|g" >"$tmpdir/block.sh"
	if (cd "$work" && PATH="$work/bin:$PATH" sh -e "$tmpdir/block.sh") >"$tmpdir/out" 2>"$tmpdir/err"; then
		empty=
		for f in $(sed -n 's/.*-o \([^ ]*\).*/\1/p; s/.*> \([^ ]*\).*/\1/p' "$tmpdir/block.sh"); do
			[ -s "$work/$f" ] || empty="$empty $f"
		done
		if [ -z "$empty" ]; then
			pass "$title"
		else
			fail "$title: empty or missing:$empty"
		fi
	else
		fail "$title (exit $?)"
		diag_file "$tmpdir/err"
	fi
	stand_ins
}

# the blocks: indented lines between "## Recipes" and the next section,
# each starting at a "# " line
sed -n '/^## Recipes/,/^## [^R]/p' "$readme" | sed -n 's/^    //p' >"$tmpdir/recipes"
[ -s "$tmpdir/recipes" ] || { fail "README.md has recipes"; finish; }
block=
while IFS= read -r line; do
	case $line in
	"# "*) [ -n "$block" ] && run_block "$block"; block=$line ;;
	*) block="$block
$line" ;;
	esac
done <"$tmpdir/recipes"
[ -n "$block" ] && run_block "$block"

plan $tap_n
finish
