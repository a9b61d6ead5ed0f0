#!/bin/sh
# The perf.data reader against perf script on recordings nobody here
# made: ../shared/conformance/perf-data/X (Linux 3.4 to 4.16, file and
# pipe mode) with X.perf-script.txt, perf 6.1's
#
#   perf script -i X -F comm,pid,tid,time,event,ip,dso
#
# For each X, three checks on `profkit-convert --no-symbolize --addresses-only
# --to=perf-script X`:
# the number of samples of each event, the raw callchain addresses of
# each sample in order, and everything (comm, pid/tid, time, event,
# addresses and dso of each frame). Before comparing, both sides are
# normalised where perf's printing is not the data:
#
#   - runs of blanks are one space: perf pads comms and event names to
#     widths it takes from every event of the file, sampled or not;
#   - event modifiers are dropped ("cycles:ppp" -> "cycles"): they are
#     not part of the event, and the model keeps the event;
#   - a kernel module's dso is "[name]": perf prints the module's path
#     when the build-id table named it before the sample, else "[name]"
#     ("-" as "_"); the model keeps the path.
#
# Exits 77 (skip) when the conformance folder is absent.
. "${top_srcdir:-.}/tests/test-subr.sh"
dir=${CONFORMANCE_DIR:-$top_srcdir/../shared/conformance}/perf-data
# not a tool: the inputs are optional
[ -d "$dir" ] || skip_all_optional "no conformance inputs at $dir"

# one line per sample: "comm pid/tid time: event: addr (dso) ..."
canon() {
	awk '
	function flush() { if (cur != "") print cur; cur = "" }
	function module(s,    name) {
		name = s
		sub(/^.*\//, "", name)
		sub(/\.ko(\.[a-z]+)?\)$/, "", name)
		gsub(/-/, "_", name)
		return "([" name "])"
	}
	function frame(s,    n, i, t, out) {
		n = split(s, t, " ")
		for (i = 1; i <= n; i++) {
			if (t[i] ~ /^\(\/.*\.ko(\.[a-z]+)?\)$/)
				t[i] = module(t[i])
			out = out (i > 1 ? " " : "") t[i]
		}
		return out
	}
	/^[ \t]*$/ { flush(); next }
	/^\t/ { sub(/^\t */, ""); cur = cur " " frame($0); next }
	{
		flush()
		line = $0
		gsub(/[ \t]+/, " ", line); sub(/^ /, "", line); sub(/ $/, "", line)
		n = split(line, t, " ")
		for (i = 1; i < n; i++)
			if (t[i] ~ /^[0-9]+\.[0-9]+:$/) {
				sub(/:[ukhHGpPSDIWe]+:$/, ":", t[i + 1])
				break
			}
		cur = t[1]
		for (i = 2; i <= n; i++)
			cur = cur " " t[i]
		cur = frame(cur)
	}
	END { flush() }' "$1"
}

# the event of each sample line, counted
event_counts() {
	awk '{ for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { print $(i + 1); break } }' "$1" |
		sort | uniq -c
}

# the addresses of each sample line: hex words followed by "(dso)"
addresses() {
	awk '{ out = ""; for (i = 1; i < NF; i++) if ($i ~ /^[0-9a-f]+$/ && $(i + 1) ~ /^\(/) out = out " " $i; print out }' "$1"
}

inputs=$(ls "$dir" | grep -v '\.txt$')
plan $(($(echo "$inputs" | wc -l) * 3))
full=0 total=0
for x in $inputs; do
	total=$((total + 1))
	if ! profkit-convert -q --no-symbolize --addresses-only --to=perf-script "$dir/$x" >"$tmpdir/out" 2>"$tmpdir/err"; then
		fail "$x: counts (exit $?)"
		diag_file "$tmpdir/err" 5
		fail "$x: addresses"
		fail "$x: everything"
		continue
	fi
	canon "$dir/$x.perf-script.txt" >"$tmpdir/want"
	canon "$tmpdir/out" >"$tmpdir/got"
	event_counts "$tmpdir/want" >"$tmpdir/want.n"
	event_counts "$tmpdir/got" >"$tmpdir/got.n"
	if cmp -s "$tmpdir/want.n" "$tmpdir/got.n"; then
		pass "$x: samples per event ($(awk '{ printf "%s%s %s", s, $2, $1; s = ", " }' "$tmpdir/want.n"))"
	else
		fail "$x: samples per event"
		diff "$tmpdir/want.n" "$tmpdir/got.n" | diag_file /dev/stdin 10
	fi
	addresses "$tmpdir/want" >"$tmpdir/want.a"
	addresses "$tmpdir/got" >"$tmpdir/got.a"
	if cmp -s "$tmpdir/want.a" "$tmpdir/got.a"; then
		pass "$x: callchain addresses of $(wc -l <"$tmpdir/want.a") samples"
	else
		fail "$x: callchain addresses"
		diff "$tmpdir/want.a" "$tmpdir/got.a" | cut -c1-200 | diag_file /dev/stdin 10
	fi
	if cmp -s "$tmpdir/want" "$tmpdir/got"; then
		pass "$x: comm, pid/tid, time, event, addresses and dsos"
		full=$((full + 1))
	else
		fail "$x: comm, pid/tid, time, event, addresses and dsos"
		diff "$tmpdir/want" "$tmpdir/got" | cut -c1-200 | diag_file /dev/stdin 10
	fi
done
echo "# $full of $total recordings match perf script fully"
finish
