#!/bin/sh
# debuginfod: where $DEBUGINFOD_URLS is set, binaries and debug files that
# are not on this machine are fetched by build id (libdebuginfod). A
# debuginfod server started here, on 127.0.0.1 at a free port, serves
# copies of testdata's binaries; the recordings' own paths are hidden
# behind an empty --symfs root and an empty $HOME (no ~/.debug), so the
# names can only come from the server. Without the server they are
# missing; with it they are what perf script names (testdata's .folded).
# Fails instead of skipping when $PROFKIT_REQUIRE_TOOLS is set.
. "${top_srcdir:-.}/tests/test-subr.sh"

# A missing tool skips the whole test, as TAP has it ("1..0 # SKIP", exit
# 0: automake's tap-driver counts exit 77 as an error), or fails it when
# PROFKIT_REQUIRE_TOOLS is set (CI).
missing() {
	if [ -n "${PROFKIT_REQUIRE_TOOLS:-}" ]; then
		plan 1
		fail "$* (and PROFKIT_REQUIRE_TOOLS is set)"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}
command -v debuginfod >/dev/null 2>&1 ||
	missing "no debuginfod server (Debian's package debuginfod)"
command -v debuginfod-find >/dev/null 2>&1 ||
	missing "no debuginfod-find (Debian's package debuginfod)"
grep -q '^#define HAVE_DEBUGINFOD 1' "$top_builddir/config.h" 2>/dev/null ||
	missing "profkit was built without libdebuginfod (install libdebuginfod-dev, reconfigure)"

d=testdata/perf-data
bin=testdata/bin
c_fp_id=2890d92fe4cd60efeaa6b2a36912f117c14eff25	# c-fp and c-fp-stripped
unset DEBUGINFOD_URLS PROFKIT_SYMBOL_PATH
HOME=$tmpdir/home
export HOME
mkdir -p "$HOME" "$tmpdir/empty" "$tmpdir/served"
cp $bin/c-fp $bin/c-dwarf "$tmpdir/served/"

# ---- the server, stopped however the test ends ----
server=
stop_server() {
	if [ -n "$server" ]; then
		kill "$server" 2>/dev/null
		wait "$server" 2>/dev/null
		server=
	fi
}
trap 'stop_server; rm -rf "$tmpdir"' EXIT
trap 'exit 1' HUP INT TERM

# ready: it serves c-fp (each poll with a fresh client cache, as a miss
# would be cached); gone: the port was taken, try another
wait_ready() {
	n=0
	while [ $n -lt 60 ] && kill -0 "$server" 2>/dev/null; do
		n=$((n + 1))
		if DEBUGINFOD_URLS=http://127.0.0.1:$port \
		   DEBUGINFOD_CACHE_PATH=$tmpdir/poll.$n \
		   debuginfod-find executable $c_fp_id >/dev/null 2>&1 &&
		   kill -0 "$server" 2>/dev/null; then
			return 0
		fi
		sleep 1
	done
	return 1
}

start_server() {
	for try in 1 2 3 4 5; do
		port=$((20000 + ($$ * 7 + try * 3571) % 40000))
		rm -f "$tmpdir/db.sqlite"
		debuginfod -F -c 1 -g 0 -t 0 -p "$port" -d "$tmpdir/db.sqlite" \
			"$tmpdir/served" >"$tmpdir/server.log" 2>&1 &
		server=$!
		wait_ready && return 0
		stop_server
	done
	return 1
}

if ! start_server; then
	plan 1
	fail "a debuginfod server on 127.0.0.1"
	diag_file "$tmpdir/server.log"
	exit 1
fi
plan 6

# convert PERF.DATA: folded, symbols from $root; fetch: the same with the
# server, into a cache of the test's own
root=$tmpdir/empty
convert() {
	profkit-convert -q --symfs="$root" --kallsyms=$d/kallsyms --to=folded "$@"
}
fetch() {
	env DEBUGINFOD_URLS="http://127.0.0.1:$port" \
		DEBUGINFOD_CACHE_PATH="$tmpdir/cache" profkit-convert -q \
		--symfs="$root" --kallsyms=$d/kallsyms --to=folded "$@"
}

# c-fp (frame pointers) recorded as /tmp/rec/c-fp, which is not in the root
convert $d/c-fp.perf.data >"$tmpdir/none" 2>/dev/null
if [ -s "$tmpdir/none" ] && ! grep -q hot_loop "$tmpdir/none" &&
	! cmp -s "$tmpdir/none" $d/c-fp.folded; then
	pass "without DEBUGINFOD_URLS: c-fp's functions are missing"
else
	fail "without DEBUGINFOD_URLS: c-fp's functions are missing"
	diag_file "$tmpdir/none"
fi
testrun_compare "with the server: c-fp named as perf script names it" \
	$d/c-fp.folded fetch $d/c-fp.perf.data
if [ -s "$tmpdir/cache/$c_fp_id/executable" ]; then
	pass "the binary came by build id into DEBUGINFOD_CACHE_PATH"
else
	fail "the binary came by build id into DEBUGINFOD_CACHE_PATH"
	ls -R "$tmpdir/cache" 2>&1 | diag_file /dev/stdin
fi

# --call-graph dwarf: the unwinder needs the fetched binary's CFI too
testrun_compare "--call-graph dwarf: unwound and named with the fetched binary" \
	$d/c-dwarf.folded fetch $d/c-dwarf.perf.data

# A stripped binary at its recorded path, its debug file only on the
# server: the same names as with the debug file in <root>/usr/lib/debug.
mkdir -p "$tmpdir/stripped/tmp/rec2" \
	"$tmpdir/local/tmp/rec2" "$tmpdir/local/usr/lib/debug/.build-id/28"
cp $bin/c-fp-stripped "$tmpdir/stripped/tmp/rec2/"
cp $bin/c-fp-stripped "$tmpdir/local/tmp/rec2/"
cp $bin/c-fp "$tmpdir/local/usr/lib/debug/.build-id/28/${c_fp_id#28}.debug"
root=$tmpdir/local
convert $d/stripped.perf.data >"$tmpdir/local.folded" 2>/dev/null
root=$tmpdir/stripped
convert $d/stripped.perf.data >"$tmpdir/stripped.folded" 2>/dev/null
fetch $d/stripped.perf.data >"$tmpdir/fetched.folded" 2>/dev/null
if grep -q hot_loop "$tmpdir/local.folded" &&
	! grep -q hot_loop "$tmpdir/stripped.folded"; then
	pass "a stripped binary: names only with its debug file"
else
	fail "a stripped binary: names only with its debug file"
	diag_file "$tmpdir/stripped.folded"
fi
same_output "a stripped binary: its debug file from the server, as a local one" \
	"$tmpdir/local.folded" "$tmpdir/fetched.folded"
finish
