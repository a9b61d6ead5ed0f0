#!/bin/sh
# A batch killed at any moment (SIGKILL to it and its jobs, as a CI
# runner's timeout does) leaves in its folder only whole outputs under
# their final names; the temporaries are hidden, and the next run writing
# the same outputs removes them.
. "${top_srcdir:-.}/tests/test-subr.sh"
command -v setsid >/dev/null || skip_all "no setsid (util-linux)"
plan 14
mkdir "$tmpdir/in" "$tmpdir/want"
cp testdata/perf-data/c-fp.perf.data testdata/perf-script/c-fp.txt "$tmpdir/in/"
# outputs that take a while to write (a 25 MB trace each), so that kills
# land while files are being written, not only between them
awk 'BEGIN { for (i = 0; i < 60000; i++)
	printf "main;f%d;g%d;h%d %d\n", i % 1000, i, i % 7, i % 13 + 1 }' >"$tmpdir/in/a.folded"
cp "$tmpdir/in/a.folded" "$tmpdir/in/b.folded"
inputs=$(ls "$tmpdir"/in/*)
convert() { profkit-convert -q --to=chrome-trace "$@"; }
start=$(date +%s%N)
# shellcheck disable=SC2086
convert -O "$tmpdir/want" $inputs ||
	{ echo "Bail out! the batch does not convert when left alone"; exit 1; }
# kill at fractions of the time a whole batch takes here, so that a slow
# or loaded machine is killed at the same points of the work
took=$(( ($(date +%s%N) - start) / 1000000 ))
delays=$(for percent in 5 15 30 45 60 75 90; do
	awk -v ms="$took" -v p="$percent" 'BEGIN { printf "%.3f\n", ms * p / 100000 }'
done)

# whole DIR: every visible entry is a whole output under its final name
whole() {
	for f in "$1"/*; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$tmpdir/want/${f##*/}" || { echo "not whole: ${f##*/}"; return 1; }
	done
}

for delay in $delays; do
	out=$tmpdir/out-$delay
	# its own process group, so the kill reaches the jobs too
	# shellcheck disable=SC2086
	setsid profkit-convert -q --to=chrome-trace -O "$out" -j 2 $inputs &
	pid=$!
	sleep "$delay"
	kill -KILL "-$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	whole "$out" >"$tmpdir/why" && pass "killed after ${delay}s: only whole outputs under final names" ||
		{ fail "killed after ${delay}s: only whole outputs under final names"; diag_file "$tmpdir/why"; }
done

caught=$(for delay in $delays; do ls -A "$tmpdir/out-$delay" 2>/dev/null | grep '^\.'; done | wc -l)
[ "$caught" -gt 0 ] && pass "some kills caught outputs being written ($caught temporaries left)" ||
	fail "no kill caught an output being written: the test needs longer writes"

# the next run over one of those folders finishes the job and tidies it
out=$tmpdir/out-$(echo "$delays" | sed -n 3p)
mkdir -p "$out"
: >"$out/.c-fp.txt.trace.json.tmp.999999999.0"	# a killed writer's, by its name
# shellcheck disable=SC2086
convert -O "$out" $inputs
whole "$out" >"$tmpdir/why" && [ "$(ls "$out" | wc -l)" = "$(ls "$tmpdir/want" | wc -l)" ] &&
	pass "the next run writes every output whole" || fail "the next run writes every output whole"
hidden=$(ls -A "$out" | grep '^\.' || true)
[ -z "$hidden" ] && pass "the next run removes the temporaries killed runs left" ||
	{ fail "the next run removes the temporaries killed runs left"; echo "$hidden" | sed "s/^/# /"; }
for delay in $delays; do
	out=$tmpdir/out-$delay
	# shellcheck disable=SC2086
	convert -O "$out" $inputs
done
left=$(for delay in $delays; do ls -A "$tmpdir/out-$delay" 2>/dev/null | grep '^\.'; done)
[ -z "$left" ] && pass "after every killed batch, the next run leaves no temporary" ||
	{ fail "after every killed batch, the next run leaves no temporary"; echo "$left" | sed "s/^/# /"; }

# a temporary whose writer still runs is not touched
out=$tmpdir/live
mkdir "$out"
sleep 30 &
sleeper=$!
: >"$out/.c-fp.txt.trace.json.tmp.$sleeper.0"
convert -o "$out/c-fp.txt.trace.json" "$tmpdir/in/c-fp.txt"
[ -e "$out/.c-fp.txt.trace.json.tmp.$sleeper.0" ] &&
	pass "a running writer's temporary is left alone" || fail "a running writer's temporary is left alone"
kill "$sleeper" 2>/dev/null
wait "$sleeper" 2>/dev/null
# a killed job whose parent died is a zombie until someone reaps it (never,
# under a container's first process that does not reap): its writer is gone.
# perl reaps no child it is not asked to (a shell may, before its exec)
perl -e 'defined(my $pid = fork) or die; exit 0 unless $pid;
	open my $f, ">", "$ARGV[0].new" or die; print $f "$pid\n"; close $f;
	rename "$ARGV[0].new", $ARGV[0]; sleep 30' "$tmpdir/zombie" &
reaper=$!
is_zombie() {
	[ -s "$tmpdir/zombie" ] && grep -q '^[^)]*) Z' "/proc/$(cat "$tmpdir/zombie")/stat" 2>/dev/null
}
tries=0
until is_zombie || [ $tries -ge 400 ]; do
	tries=$((tries + 1))
	sleep 0.05
done
zombie=$(cat "$tmpdir/zombie" 2>/dev/null)
: >"$out/.c-fp.txt.trace.json.tmp.$zombie.0"
convert -o "$out/c-fp.txt.trace.json" "$tmpdir/in/c-fp.txt"
is_zombie && [ ! -e "$out/.c-fp.txt.trace.json.tmp.$zombie.0" ] &&
	pass "a temporary whose writer is an unreaped zombie is removed" ||
	fail "a temporary whose writer is an unreaped zombie ($zombie) is removed"
kill "$reaper" 2>/dev/null
wait "$reaper" 2>/dev/null
# and one of another output is not this run's to remove
: >"$out/.other.trace.json.tmp.999999999.0"
convert -o "$out/c-fp.txt.trace.json" "$tmpdir/in/c-fp.txt"
[ -e "$out/.other.trace.json.tmp.999999999.0" ] &&
	pass "another output's temporary is left for its own next run" ||
	fail "another output's temporary is left for its own next run"
finish
