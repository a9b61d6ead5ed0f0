#!/bin/sh
# -o naming something that is not a file (/dev/null, a FIFO) writes to
# it in place: the temporary-and-rename of files would replace a device
# or a FIFO with a regular file (as root, /dev/null itself).
. "${top_srcdir:-.}/tests/test-subr.sh"
plan 3
in=testdata/perf-script/c-fp.txt
mkfifo "$tmpdir/fifo" || { echo "Bail out! no mkfifo"; exit 1; }
cat "$tmpdir/fifo" >"$tmpdir/read" &
reader=$!
profkit-convert --to=folded -o "$tmpdir/fifo" "$in"
# a build that renamed over the FIFO never opened it: free its reader
[ -p "$tmpdir/fifo" ] || kill "$reader" 2>/dev/null
wait "$reader"
[ -p "$tmpdir/fifo" ] && pass "-o FIFO: still a FIFO" || fail "-o FIFO: still a FIFO"
testrun_compare "-o FIFO: its reader gets the output" "$tmpdir/read" \
	profkit-convert --to=folded "$in"
# /dev/null itself only where the FIFO showed writing in place works: a
# build that renames over it would break the machine for what follows
if [ -p "$tmpdir/fifo" ]; then
	profkit-convert --to=folded -o /dev/null "$in"
	[ -c /dev/null ] && pass "-o /dev/null: still a device" ||
		fail "-o /dev/null: still a device (repair: mknod -m 666 /dev/null.new c 1 3 && mv /dev/null.new /dev/null)"
else
	fail "-o /dev/null: not tried, since a FIFO was replaced"
fi
finish
