#!/bin/sh
# perf script text with any -F field set perf prints, read without --from.
#
# Fixtures (no perf needed): testdata/perf-script/threads-*.txt are
# `perf script` of testdata/perf-data/threads.perf.data with other field
# sets (the command is the first line of each); their .folded files were
# checked against the default fields' stacks: the same stacks without the
# comm (-F ip,sym,dso), with [unknown] for [dso] (no dso printed), and the
# leaf alone (-G, no callchain).
#
# The matrix (perf needed, run live because perf's text changes with its
# version): for each recording and each field set perf accepts for it,
# `perf script -F SET | profkit-convert --to=folded` must give the leaf
# functions (the last frame of each folded line, weights summed over
# every event) that the default fields give, with no line refused.
# Without perf the matrix is skipped, or fails when PROFKIT_REQUIRE_TOOLS
# is set.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-data
s=testdata/perf-script

for f in threads-F-ip-sym-dso threads-F-comm-tid-ip-sym-srcline threads-G-comm-ip-sym-dso; do
	testrun_compare "$f: found without --from, read as by hand" $s/$f.folded \
		profkit-convert --to=folded $s/$f.txt
	if grep -q "not a perf script line" "$tmpdir/err"; then
		fail "$f: every line understood"
		diag_file "$tmpdir/err"
	else
		pass "$f: every line understood"
	fi
done

recordings="c-fp multi threads cxx-dwarf tp-prog"
# -G: no callchain, the frame ends the header line; its leaf is the
# sample's own function, as in a callchain without inlined frames
sets="comm,tid,time,event,ip,sym
ip,sym
comm,ip,sym,dso
comm,tid,ip,sym,srcline
comm,pid,tid,cpu,time,period,event,ip,sym,dso,symoff
comm,pid,tid,time,period,event,ip,sym,dso,symoff
tid,ip,sym
time,ip,sym,dso
comm,ip,sym,srcline
ip,sym,dso,brstack
event,ip,sym
period,ip,sym
-G comm,tid,ip,sym
-G ip,sym,dso"

have_perf=yes
command -v perf >/dev/null 2>&1 || have_perf=
if [ -z "$have_perf" ]; then
	[ -n "${PROFKIT_REQUIRE_TOOLS:-}" ] && { echo "Bail out! perf is required"; exit 1; }
	for name in $recordings; do
		echo "$sets" | sed "s/^-G /-G -F /; t; s/^/-F /" |
			sed "s/^/ok - $name: perf script /; s/\$/ # SKIP no perf/"
	done >"$tmpdir/matrix"
	cat "$tmpdir/matrix"
	plan $((tap_n + $(grep -c '^ok' "$tmpdir/matrix")))
	finish
fi

# the root perf reads the recorded binaries from, as run-perf-data-folded.sh
root=$tmpdir/root
bin=$(pwd)/testdata/bin
link() { mkdir -p "$root$(dirname "$2")" && ln -s "$1" "$root$2"; }
for b in c-fp threads multi sleeper cxx-dwarf; do link "$bin/$b" /tmp/rec/$b; done
link_sysroot "$root" || exit 99	# the recordings' libc and ld.so
mkdir "$tmpdir/home"

# leaves FILE: "leaf weight" lines, summed over the events of the profile
leaves() {
	events=$(profkit-info "$1" | sed -n 's/^  event \(.*\): [0-9]* samples$/\1/p')
	{
		if [ -z "$events" ]; then
			profkit-convert -q --to=folded --value=samples "$1"
		else
			echo "$events" | while read -r e; do
				profkit-convert -q --to=folded --value=samples --event="$e" "$1"
			done
		fi
	} | awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";"); sum[f[k]] += n }
		END { for (l in sum) print l, sum[l] }' | sort
}

run_perf() {
	HOME=$tmpdir/home perf script --symfs="$root" --kallsyms=$d/kallsyms "$@"
}

for name in $recordings; do
	run_perf -i $d/$name.perf.data >"$tmpdir/default.txt" 2>/dev/null
	leaves "$tmpdir/default.txt" >"$tmpdir/want-F"
	run_perf -i $d/$name.perf.data --no-inline >"$tmpdir/default.txt" 2>/dev/null
	leaves "$tmpdir/default.txt" >"$tmpdir/want-G"
	echo "$sets" | while read -r set; do
		case $set in
		-G*) args="-G -F ${set#-G }" want=$tmpdir/want-G ;;
		*) args="-F $set" want=$tmpdir/want-F ;;
		esac
		what="$name: perf script $args: the default fields' leaves"
		# shellcheck disable=SC2086
		if ! run_perf -i $d/$name.perf.data $args >"$tmpdir/set.txt" 2>"$tmpdir/perf-err" ||
		   ! [ -s "$tmpdir/set.txt" ]; then
			echo "ok - $what # SKIP perf refuses: $(head -n 1 "$tmpdir/perf-err")"
			continue
		fi
		if ! profkit-convert --to=folded "$tmpdir/set.txt" >/dev/null 2>"$tmpdir/err" ||
		   grep -q "not a perf script line" "$tmpdir/err"; then
			echo "not ok - $what: not read whole"
			diag_file "$tmpdir/err" 5
			sed -n 1,8p "$tmpdir/set.txt" | diag_file /dev/stdin
			continue
		fi
		leaves "$tmpdir/set.txt" >"$tmpdir/got"
		if [ -s "$want" ] && cmp -s "$want" "$tmpdir/got"; then
			echo "ok - $what"
		else
			echo "not ok - $what"
			diff "$want" "$tmpdir/got" | diag_file /dev/stdin
		fi
	done
done >"$tmpdir/matrix"
cat "$tmpdir/matrix"
tap_n=$((tap_n + $(grep -c '^ok\|^not ok' "$tmpdir/matrix")))
plan $tap_n
! grep -q '^not ok' "$tmpdir/matrix" && finish
exit 1
