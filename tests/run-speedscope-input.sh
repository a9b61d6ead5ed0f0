#!/bin/sh
# speedscope files read (py-spy's layout with the frames last, evented
# profiles with their keys sorted, our own writer's outputs), checked
# against tests/speedscope-folded.py, which computes each profile's
# stacks and weights from the JSON by speedscope's file format
# specification:
#   - found without --from;
#   - each sample type folded as that script folds its unit;
#   - read back: the --to=speedscope output of every testdata input,
#     read and written again a sample type at a time, has the stacks and
#     weights the script finds in it;
#   - samples placed on the timeline where speedscope draws them, one
#     thread per profile in the timeline writers;
#   - the hostile inputs of testdata/bad/speedscope refused with their
#     offset and path, and a string or nesting past the bounds refused in
#     bounded memory.
. "${top_srcdir:-.}/tests/test-subr.sh"
command -v python3 >/dev/null 2>&1 || skip_all "no python3 (tests/speedscope-folded.py)"
e=testdata/speedscope
spec() { python3 tests/speedscope-folded.py "$@"; }

# every testdata input of another format, to write as speedscope
others=$(ls testdata/perf-script/*.txt testdata/perf-script/*.folded \
	testdata/folded/*.folded testdata/pprof/*.pb testdata/pprof/*.pb.gz \
	testdata/pprof/producers/*.pb.gz testdata/gperftools/*.cpu \
	testdata/gperftools/*.heap testdata/perf-data/*.perf.data \
	testdata/v8/*.cpuprofile 2>/dev/null)
ninputs=$(echo $e/*.json | wc -w)
plan $((3 * ninputs + $(echo $others | wc -w) + 4 + 18))

# type_of UNIT: the sample type the reader makes of a speedscope unit
type_of() {
	case $1 in
	none) echo samples ;;
	bytes) echo space ;;
	*) echo time ;;
	esac
}

# read_back FILE...: each FILE's stacks and weights, written again a
# sample type at a time, are the script's for it (the script reads many
# files at once: it runs twice, not twice per file)
read_back() {
	mkdir -p "$tmpdir/back" && rm -f "$tmpdir/back/"* || exit 99
	spec --names "$@" >"$tmpdir/want" || { fail "the script failed"; return; }
	for f in "$@"; do
		n=$(echo "$f" | tr / _)
		for unit in $(awk -F'\t' -v f="$f" '$1 == f { print $3 }' "$tmpdir/want" | sort -u); do
			profkit-convert -q --to=speedscope --sample-type="$(type_of "$unit")" \
				-o "$tmpdir/back/$n.$unit" "$f" || : >"$tmpdir/back/$n.$unit"
		done
	done
	spec --names "$tmpdir"/back/* >"$tmpdir/got" || { fail "the script failed"; return; }
	for f in "$@"; do
		n=$(echo "$f" | tr / _)
		awk -F'\t' -v f="$f" '$1 == f' "$tmpdir/want" | cut -f2- >"$tmpdir/want.1"
		awk -F'\t' -v f="$tmpdir/back/$n" 'substr($1, 1, length(f) + 1) == f "."' \
			"$tmpdir/got" | cut -f2- | sort >"$tmpdir/got.1"
		same_output "${f#"$tmpdir/written/"}: read back" "$tmpdir/want.1" "$tmpdir/got.1"
	done
}

for f in $e/*.json; do
	base=${f##*/}
	if profkit-info "$f" 2>&1 | grep -q "^$f: speedscope profile\$"; then
		pass "$base: found without --from"
	else
		fail "$base: found without --from"
	fi
	# folded, unit by unit, as the script folds it
	ok=1 units=$(spec "$f" | cut -f2 | sort -u)
	for unit in $units; do
		spec --folded --unit="$unit" "$f" >"$tmpdir/want"
		profkit-convert -q --to=folded --sample-type="$(type_of "$unit")" "$f" |
			LC_ALL=C sort >"$tmpdir/got"
		cmp -s "$tmpdir/want" "$tmpdir/got" || {
			ok=0
			diff "$tmpdir/want" "$tmpdir/got" | diag_file /dev/stdin
		}
	done
	[ $ok = 1 ] && [ -n "$units" ] && pass "$base: folded as the specification weighs it" ||
		fail "$base: folded as the specification weighs it"
done
read_back $e/*.json

# our writer's output of every other input, read back
mkdir "$tmpdir/written" || exit 99
written=
for f in $others; do
	w=$tmpdir/written/$(echo "${f#testdata/}" | tr / _)
	if profkit-convert --to=speedscope -o "$w" "$f" 2>"$tmpdir/err" &&
	   grep -q ": no samples in the input" "$tmpdir/err"; then
		# an empty input's empty profile: the script finds no stack in it
		[ -s "$w" ] && [ -z "$(spec --names "$w")" ] &&
			pass "${f#testdata/}: no samples, a profile without any" ||
			fail "${f#testdata/}: no samples, a profile without any"
	elif [ -s "$w" ]; then
		written="$written $w"
	elif grep -q ": no samples: " "$tmpdir/err"; then
		pass "${f#testdata/}: no samples, nothing to write"
	else
		fail "${f#testdata/}: --to=speedscope"
		diag_file "$tmpdir/err"
	fi
done
read_back $written

# the timeline, in the Firefox writer's milliseconds from the first
# time known (60 microseconds: "writer" starts at 0, which the model
# reads as no time): an evented profile's samples where its intervals
# begin (1075.25 microseconds: 1.01525), a sampled profile's where the
# weights before them end (the empty sample and the weight of 0 take no
# place of their own)
ff_times() {
	profkit-convert -q --to=firefox "$@" | python3 -c '
import json, sys
for t in json.load(sys.stdin)["threads"]:
    print(t["name"] + ":", " ".join("%g" % x for x in t["samples"]["time"]))'
}
ff_times $e/evented.speedscope.json >"$tmpdir/times"
cat >"$tmpdir/times.want" <<'EOF'
main thread: 0.94 0.9505 0.99 1 1.01525 1.04 1.06 1.14 1.24 1.29
writer: 0 0
EOF
same_output "evented: samples at their intervals' beginnings" "$tmpdir/times.want" "$tmpdir/times"
ff_times --sample-type=time $e/frames-last.speedscope.json >"$tmpdir/times"
cat >"$tmpdir/times.want" <<'EOF'
MainThread: 0 7.5 7.75 22.75 42.75
Thread-2 (worker): 0 7 14
EOF
same_output "sampled: samples where the weights before them end" "$tmpdir/times.want" "$tmpdir/times"
# profiles without thread ids stay apart in the timeline writers
profkit-convert -q --to=firefox $e/evented.speedscope.json | python3 -c '
import json, sys
print(" ".join(sorted(t["name"] for t in json.load(sys.stdin)["threads"])))' >"$tmpdir/threads"
echo "main thread writer" >"$tmpdir/threads.want"
same_output "a Firefox thread per profile" "$tmpdir/threads.want" "$tmpdir/threads"
profkit-convert -q --to=chrome-trace $e/evented.speedscope.json |
	grep -c '"name":"thread_name"' >"$tmpdir/threads"
echo 2 >"$tmpdir/threads.want"
same_output "a Chrome trace thread per profile" "$tmpdir/threads.want" "$tmpdir/threads"

# hostile inputs: exit 1, nothing written, the offset, path and problem
refused_as speedscope <<'EOF'
bad-unit	offset 166 ($.profiles[0].unit): expected a unit: none, nanoseconds, microseconds, milliseconds, seconds or bytes
close-not-innermost	offset 272 ($.profiles[0].events[2]): frame 0 closed while another is the innermost open
deep-nesting-extra	offset 348 ($.profiles[0].extra[0][0][0][0][0]...(112 more)...[0][0][0][0][0][0][0][0]): objects and arrays nested deeper than 128
evented-with-samples	offset 114 ($.profiles[0]): an evented profile with samples
events-back-in-time	offset 242 ($.profiles[0].events[1]): an event at 3, before the one before it (5)
frame-index-2-32	offset 216 ($.profiles[0].samples[0][1]): expected a whole number from 0 to 4294967295, not 4294967296
frame-out-of-range	offset 216 ($.profiles[0].samples[0][1]): frame 7 is out of range: shared.frames has 2
frame-out-of-range-late	offset 166 ($.profiles[0].samples[1][1]): frame 9 is out of range: shared.frames has 2
huge-weight	offset 231 ($.profiles[0].weights[0]): expected a number from 0 to 9223372036854775807, not 1e+300
negative-weight	offset 231 ($.profiles[0].weights[0]): expected a number from 0 to 9223372036854775807, not -5
no-type	offset 130 ($.profiles[0]): expected the profile's "type": "sampled" or "evented"
sample-not-array	offset 213 ($.profiles[0].samples[0]): expected an array, not a number
samples-and-events	offset 224 ($.profiles[0].events): events in a profile with samples
samples-weights-differ	offset 130 ($.profiles[0]): samples and weights differ in number (3 and 2)
truncated-in-name	offset 161 ($.profiles[0].name): the input ends inside the document (truncated?)
weights-past-2-63	offset 249 ($.profiles[0].weights[2]): the weights of a unit add up past 2^63
EOF

# past the bounds, in 100 MB of address space: a 20 MB name (strings
# stop at 16 MiB) and arrays nested a million deep (at 128)
schema='"$schema":"https://www.speedscope.app/file-format-schema.json"'
{
	printf '{%s,"shared":{"frames":[{"name":"' "$schema"
	head -c 20000000 /dev/zero | tr '\0' a
	printf '"}]},"profiles":[]}'
} >"$tmpdir/long.json"
awk -v s="$schema" 'BEGIN { printf "{%s,\"x\":", s
	for (i = 0; i < 1000000; i++) printf "[" }' >"$tmpdir/deep.json"
# 100 MB of address space, where the build's sanitizer (which reserves
# terabytes of it for its shadow) lets a limit be set: the message is
# checked in both builds, the bound where it can be
vm_limit=100000
bound="in bounded memory"
grep -q -a __asan_init "$top_builddir/cmd/profkit-convert" \
	"$top_builddir"/lib/.libs/libprofkit.so 2>/dev/null &&
	vm_limit=unlimited bound="(a sanitizer's build: memory not bounded)"
bounded() {
	(ulimit -v $vm_limit && exec profkit-convert -q --to=folded "$tmpdir/$1.json") \
		>/dev/null 2>"$tmpdir/err"
	status=$?
	if [ $status = 1 ] && grep -F -q "$tmpdir/$1.json: $2" "$tmpdir/err"; then
		pass "$1: refused $bound: $2"
	else
		fail "$1: exit $status, want 1 and: $2"
		diag_file "$tmpdir/err"
	fi
}
bounded long 'offset 91 ($.shared.frames[0].name): no value ends within 16777216 bytes: a string, number or white space over the limit'
bounded deep 'offset 195 ($.x[0][0][0][0][0][0][0]...(112 more)...[0][0][0][0][0][0][0][0]): objects and arrays nested deeper than 128'
finish
