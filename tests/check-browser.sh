#!/bin/sh
# profkit's speedscope output opened in the real speedscope web app, in
# headless Chromium: the app must show the recording's hot function by name
# (tests/browser-speedscope.js says where it looks), and a copy of the file
# naming another function must fail the same checks.
#
#   sh tests/check-browser.sh BUILD-DIR
#
# Needs node, chromium ($CHROMIUM, else chromium on PATH) and the speedscope
# npm package (in $NODE_PATH, else where ./bootstrap puts it: .tools/node_modules);
# without one it prints one line and succeeds, or fails when
# PROFKIT_REQUIRE_TOOLS=1 (or PROFKIT_REQUIRE_BROWSER=1), as the tests
# of tests/test-subr.sh do: CI sets it and installs them.
set -u
build=${1:?usage: check-browser.sh BUILD-DIR}
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
input=$top_srcdir/testdata/perf-script/c-fp.txt
hot=hot_loop	# 74% of c-fp's samples

skip() {
	if [ "${PROFKIT_REQUIRE_TOOLS:-0}" = 1 ] ||
		[ "${PROFKIT_REQUIRE_BROWSER:-0}" = 1 ]; then
		echo "check-browser: FAILED: $* (required: PROFKIT_REQUIRE_TOOLS=1)"
		exit 1
	fi
	echo "check-browser: skipped: $*"
	exit 0
}

command -v node >/dev/null 2>&1 || skip "no node"
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
if [ -z "$chromium" ] || [ ! -x "$chromium" ]; then
	skip "no chromium (./bootstrap installs it)"
fi
app=
save_ifs=$IFS
IFS=:
for dir in ${NODE_PATH:-} "${PROFKIT_TOOLS:-$top_srcdir/.tools}/node_modules"; do
	if [ -f "$dir/speedscope/dist/release/index.html" ]; then
		app=$dir/speedscope/dist/release
		break
	fi
done
IFS=$save_ifs
[ -n "$app" ] ||
	skip "no speedscope package (./bootstrap installs it)"

convert=$build/cmd/profkit-convert
if [ ! -x "$convert" ]; then
	echo "check-browser: no $convert: build first"
	exit 1
fi

# Chromium's profile and temporary files go here too (TMPDIR), so they go
# even when the browser is killed.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-browser.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT PIPE TERM
start=$(date +%s)

# browse FILE NAME: the JS has its own deadline (40s) and closes Chromium;
# GNU timeout, where there is one, is the backstop should node hang
# (Chromium exits when node does: it reads its commands from node's pipe).
# --foreground lets ^C reach node.
browse() {
	set -- node "$top_srcdir/tests/browser-speedscope.js" "$chromium" "$app" "$@"
	if timeout --foreground -k 1 5 true 2>/dev/null; then
		set -- timeout --foreground -k 5 50 "$@"
	fi
	TMPDIR=$tmp "$@"
}

pkg=${app%/dist/release}
version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$pkg/package.json")
echo "check-browser: speedscope ${version:-?} ($pkg)" \
	"in $("$chromium" --version 2>/dev/null)"
failed=0
if ! "$convert" --to=speedscope -o "$tmp/c-fp.json" "$input"; then
	echo "not ok - profkit-convert --to=speedscope $input"
	exit 1
fi
browse "$tmp/c-fp.json" "$hot" || failed=1

# The checks must be able to fail: with the hot function renamed they must
# report "other" where it was, and exit 1 (2 would be a browser failure).
sed "s/\"$hot\"/\"other\"/" "$tmp/c-fp.json" >"$tmp/other.json"
browse "$tmp/other.json" "$hot" >"$tmp/other.out" 2>&1
status=$?
what="the same file with $hot renamed \"other\" fails them"
if [ "$status" -eq 1 ] && grep -q '^# tooltips: .* > other$' "$tmp/other.out"
then
	echo "ok - $what"
else
	echo "not ok - $what (exit $status)"
	failed=1
fi
sed 's/^/#   /' "$tmp/other.out"

elapsed=$(($(date +%s) - start))
if [ "$failed" -eq 0 ]; then
	echo "check-browser: passed (${elapsed}s)"
else
	echo "check-browser: FAILED (${elapsed}s)"
fi
exit "$failed"
