#!/bin/sh
# OpenTelemetry profiles (--to=otlp, --to=otlp-json, --from=otlp) of every
# input of every reader under testdata, judged by tools that are not
# profkit's:
#
#   - protoc decodes our protobuf as ProfilesData with the official .proto
#     files (../shared/reference/otlp/proto, opentelemetry-proto after
#     v1.11.0);
#   - protobuf's Python runtime (Debian's python3-protobuf) over code
#     protoc generates from those files parses our JSON (tests/otlp-check.py
#     turns OTLP's hex trace and span ids into the base64 protobuf's JSON
#     mapping has) into the very message of our protobuf, and finds
#     profcheck's rules kept (written down in otlp-check.py);
#   - the stacks and weights it reads from our OTLP, for every sample type,
#     are those it reads from our pprof of the same input;
#   - our pprof of our OTLP (either encoding, found without --from) is our
#     pprof of the input, by Go pprof's -top and -raw (its samples sorted:
#     OTLP keeps their order only within a process and a sample type), for
#     each kind of recording and the first input of every reader.
# An input its reader refuses (testdata's invalid pprof files, an empty
# recording) is refused alike with --to=otlp.
#
# perf.data recordings are symbolized from a root of their binaries and
# the recording's system libraries (testdata/sysroot), never this
# machine's, so the profiles hold functions, files, lines and inlined
# frames alike everywhere.
. "${top_srcdir:-.}/tests/test-subr.sh"
d=testdata/perf-data
TZ=UTC
export TZ

# the inputs read back through pprof: each kind of recording, then the
# first input of every reader (below)
round_trips="$d/c-fp.perf.data $d/c-dwarf.perf.data $d/multi.perf.data
	$d/threads.perf.data $d/tp-fields.perf.data $d/naps.perf.data
	$d/pipe.perf.data $d/zstd-sym.perf.data $d/node.perf.data
	testdata/perf-script/c-fp.txt testdata/perf-script/multi.txt
	testdata/perf-script/tp-fields.txt
	testdata/gperftools/c-fp.cpu testdata/gperftools/cxx-threads.heap
	testdata/gperftools/app.growth testdata/gperftools/server.contention
	testdata/pprof/go-cpu.pb.gz testdata/pprof/go-allocs.pb.gz
	testdata/pprof/go-mutex.pb.gz
	testdata/folded/fractional.folded testdata/perf-script/c-fp.folded"

# Every input of every reader: the files under testdata that the rules of
# tests/t-probe.c (testdata_rules, to which that test holds the probe)
# give a reader, "READER FILE" a line. The first rule that matches wins.
rules=$(sed -n '/^static const struct rule testdata_rules/,/^};/ s/^[^{]*{ "\([^"]*\)", "\{0,1\}\([A-Za-z0-9-]*\)"\{0,1\} },.*$/\1 \2/p' \
	tests/t-probe.c)
reader_of() {
	printf '%s\n' "$rules" | while read -r pattern reader; do
		# shellcheck disable=SC2254
		case $1 in $pattern) echo "$reader"; break ;; esac
	done
}
(cd testdata && find . -name '.?*' -prune -o -type f -print) | sed 's|^\./||' |
	LC_ALL=C sort | while read -r f; do
		r=$(reader_of "$f")
		case $r in SKIP|NONE|"") ;; *) echo "$r testdata/$f" ;; esac
	done >"$tmpdir/inputs"
readers=$(profkit-convert --list-formats | sed -n '/^Input formats/,/^$/ s/^  \([a-z0-9-]*\) .*/\1/p')

# the recordings' binaries and JIT map where they were, and their system
# libraries
root=$tmpdir/root
for link in c-fp:/tmp/rec/c-fp multi:/tmp/rec/multi threads:/tmp/rec/threads \
	threads:/tmp/rec5/threads c-dwarf:/tmp/rec3/c-dwarf naps:/tmp/rec-naps/naps \
	c-fp:/tmp/rec2/c-fp; do
	mkdir -p "$root$(dirname "${link#*:}")" &&
		ln -s "$(pwd)/testdata/bin/${link%%:*}" "$root${link#*:}" || exit 99
done
ln -s "$(pwd)/$d/perf-1262.map" "$root/tmp/perf-1262.map" || exit 99
link_sysroot "$root" || exit 99
convert() { profkit-convert -q --symfs="$root" --kallsyms=$d/kallsyms "$@"; }

find_pprof
# the official files, and what reads with them; pprof's profile.proto too
why=
if find_otlp_check; then
	sed 's/repeated string string_table/repeated bytes string_table/' \
		proto/profile.proto >"$tmpdir/profile.proto" &&
		protoc --python_out="$tmpdir/py" -I "$tmpdir" "$tmpdir/profile.proto" ||
		why="protoc could not compile proto/profile.proto"
else
	why=$otlp_missing
fi

# decoded NAME FILE: protoc reads FILE as ProfilesData
decoded() {
	if [ -n "$why" ]; then
		skip "$1" "$why"
	elif protoc -I "$otlp_proto" --decode=opentelemetry.proto.profiles.v1development.ProfilesData \
		opentelemetry/proto/profiles/v1development/profiles.proto <"$2" >"$tmpdir/decoded" 2>&1 &&
		grep -q '^dictionary {' "$tmpdir/decoded"; then
		pass "$1"
	else
		fail "$1"
		diag_file "$tmpdir/decoded"
	fi
}

# views PPROF OUT: pprof -top of PPROF, and -raw with its samples in an
# order of their own: OTLP keeps their order only within a process and a
# sample type (the reader adds timestamped samples in time order)
views() {
	"$pprof" -symbolize=none -top "$1" >"$2" 2>/dev/null &&
		"$pprof" -symbolize=none -raw "$1" >"$tmpdir/raw" 2>/dev/null &&
		otlp_check raw-canonical "$tmpdir/raw" >>"$2"
}

# round_trip NAME PPROF OTLP...: our pprof of each OTLP is PPROF, as
# pprof -top and -raw show them
round_trip() {
	name=$1 want=$2
	shift 2
	if [ -z "$pprof" ] || [ -n "$why" ]; then
		skip "$name" "${why:-no Go pprof}"
		return
	fi
	views "$want" "$tmpdir/want"
	cp "$tmpdir/want" "$tmpdir/got"
	for otlp; do
		if ! convert --to=pprof -o "$tmpdir/back.pb.gz" "$otlp" 2>"$tmpdir/err"; then
			fail "$name (reading $(basename "$otlp") back failed)"
			diag_file "$tmpdir/err"
			return
		fi
		views "$tmpdir/back.pb.gz" "$tmpdir/back"
		cmp -s "$tmpdir/want" "$tmpdir/back" || cp "$tmpdir/back" "$tmpdir/got"
	done
	same_output "$name" "$tmpdir/want" "$tmpdir/got"
}

# each input in both encodings beside its pprof: protoc decodes it here,
# the Python checks of them all run at once (their runtime takes longer to
# start than to check a profile); a reader's refusals are OTLP's alike
refused_alike() {
	rm -rf "$outdir" && mkdir "$outdir" || exit 99
	convert --to=otlp -o "$outdir/out.otlp.pb" "$2" 2>"$tmpdir/got"
	got=$?
	if [ "$got" -eq 1 ] && [ -z "$(ls -A "$outdir")" ] &&
		cmp -s "$tmpdir/want" "$tmpdir/got"; then
		pass "$1"
	else
		fail "$1 (exit $got)"
		diff "$tmpdir/want" "$tmpdir/got" | diag_file /dev/stdin
	fi
}
mkdir "$tmpdir/in" || exit 99
: >"$tmpdir/judge"
: >"$tmpdir/read"
: >"$tmpdir/round-trip-readers"
while read -r reader f; do
	n=${f#testdata/}
	out=$tmpdir/in/$(echo "$n" | tr / _)
	if ! convert --to=pprof -o "$out.pb.gz" "$f" 2>"$tmpdir/want"; then
		refused_alike "$n: refused with the pprof writer's message" "$f"
		continue
	fi
	if ! convert --to=otlp -o "$out.otlp.pb" "$f" 2>"$tmpdir/err" ||
		! convert --to=otlp-json -o "$out.otlp.json" "$f" 2>>"$tmpdir/err"; then
		fail "$n: converting failed"
		diag_file "$tmpdir/err"
		continue
	fi
	echo "$reader" >>"$tmpdir/read"
	decoded "$n: protoc decodes it with the official files" "$out.otlp.pb"
	printf '%s\t%s\t%s\t%s\n' "$n" "$out.otlp.pb" "$out.otlp.json" "$out.pb.gz" >>"$tmpdir/judge"
	case " $(echo $round_trips) " in
	*" $f "*) ;;
	*) grep -qx "$reader" "$tmpdir/round-trip-readers" ||
		round_trips="$round_trips $f" ;;
	esac
	echo "$reader" >>"$tmpdir/round-trip-readers"
done <"$tmpdir/inputs"

# every reader had inputs here, so that the loop above cannot pass by
# finding none
for r in $readers; do
	count=$(grep -cx "$r" "$tmpdir/read")
	if [ "$count" -gt 0 ]; then
		pass "$r: $count inputs written as OTLP"
	else
		fail "$r: no input of this reader under testdata (tests/t-probe.c's rules)"
	fi
done

check_name() {
	case $1 in
	same) echo "the JSON is the same message, by the official schema" ;;
	rules) echo "profcheck's rules" ;;
	stacks) echo "stacks and weights of every sample type are pprof's" ;;
	esac
}
[ -n "$why" ] || otlp_check judge "$tmpdir/judge" >"$tmpdir/verdicts" 2>"$tmpdir/err" ||
	diag_file "$tmpdir/err"
while IFS='	' read -r n _; do
	for c in same rules stacks; do
		if [ -n "$why" ]; then
			skip "$n: $(check_name $c)" "$why"
			continue
		fi
		verdict=$(awk -F '\t' -v n="$n" -v c="$c" '$1 == n && $2 == c { print $3 }' \
			"$tmpdir/verdicts")
		if [ "$verdict" = ok ]; then
			pass "$n: $(check_name $c)"
		else
			fail "$n: $(check_name $c)"
			echo "# ${verdict:-no verdict}"
		fi
	done
done <"$tmpdir/judge"

# read back through pprof
for f in $round_trips; do
	n=${f#testdata/}
	out=$tmpdir/in/$(echo "$n" | tr / _)
	round_trip "$n: read back, both encodings give pprof's -top and -raw" \
		"$out.pb.gz" "$out.otlp.pb" "$out.otlp.json"
done

# what the profile says of itself: timestamps where the input has a wall
# clock (perf.data) and values aggregated where not, the frame types of
# the semantic conventions, and the processes as resources
shape() {
	convert --to=otlp -o "$tmpdir/shape.pb" "$1" && otlp_check shape "$tmpdir/shape.pb"
}
if [ -n "$why" ]; then
	for i in 1 2 3 4 5; do skip "shapes and resources" "$why"; done
else
	echo "timestamps native" >"$tmpdir/want"
	shape $d/c-fp.perf.data >"$tmpdir/got"
	same_output "c-fp.perf.data: timestamps, native frames" "$tmpdir/want" "$tmpdir/got"
	echo "aggregated native" >"$tmpdir/want"
	shape testdata/perf-script/c-fp.txt >"$tmpdir/got"
	same_output "perf script text (no wall clock): aggregated" "$tmpdir/want" "$tmpdir/got"
	echo "timestamps kernel native v8js" >"$tmpdir/want"
	shape $d/node.perf.data >"$tmpdir/got"
	same_output "node.perf.data: kernel, native and V8 (JIT map) frames" "$tmpdir/want" "$tmpdir/got"
	echo "aggregated go" >"$tmpdir/want"
	shape testdata/pprof/go-cpu.pb.gz >"$tmpdir/got"
	same_output "go-cpu.pb.gz: Go frames" "$tmpdir/want" "$tmpdir/got"
	echo "process.pid=4011 process.executable.path=/tmp/rec/c-fp" \
		"process.executable.name=c-fp host.name=vm" >"$tmpdir/want"
	convert --to=otlp -o "$tmpdir/res.pb" $d/c-fp.perf.data &&
		otlp_check resource "$tmpdir/res.pb" >"$tmpdir/got"
	same_output "c-fp.perf.data: the process as the resource" "$tmpdir/want" "$tmpdir/got"
fi

# the options: a service name, resource attributes (repeated; the last
# value of a key wins), the original pprof bytes only when asked
if [ -n "$why" ]; then
	for i in 1 2; do skip "options" "$why"; done
else
	echo "process.pid=4011 process.executable.path=/tmp/rec/c-fp" \
		"process.executable.name=c-fp host.name=h2 service.name=checkout" \
		"deployment.environment.name=prod k8s.pod.name=a=b" >"$tmpdir/want"
	convert --to=otlp -o "$tmpdir/res.pb" --service-name=checkout \
		--resource=deployment.environment.name=prod --resource=host.name=h2 \
		-X otlp:resource=k8s.pod.name=a=b $d/c-fp.perf.data &&
		otlp_check resource "$tmpdir/res.pb" >"$tmpdir/got"
	same_output "--service-name, --resource repeated" "$tmpdir/want" "$tmpdir/got"
	gzip -dc testdata/pprof/go-cpu.pb.gz | wc -c | sed 's/^/pprof /' >"$tmpdir/want"
	convert --to=otlp --original-payload -o "$tmpdir/payload.pb" testdata/pprof/go-cpu.pb.gz &&
		otlp_check payload "$tmpdir/payload.pb" >"$tmpdir/got"
	same_output "--original-payload: the pprof input, once" "$tmpdir/want" "$tmpdir/got"
fi
testrun_fails "--resource needs NAME=VALUE" 2 "otlp:resource: expected NAME=VALUE, not 'env'" \
	convert --to=otlp --resource=env -o "$outdir/x" testdata/perf-script/c-fp.txt
testrun_status "--original-payload without a pprof input: a warning" 0 \
	"otlp:original-payload: the profile was not read from a pprof file: no original payload" \
	profkit-convert --to=otlp --original-payload testdata/perf-script/c-fp.txt

# another producer's OTLP: protobuf encoded here by protoc from text, and
# JSON lines as the collector's file exporter writes them (keys in both
# cases, 64-bit numbers as numbers too, unknown keys, a dictionary each)
if [ -n "$why" ]; then
	skip "another producer's protobuf" "$why"
else
	grep -v '^#' testdata/otlp/foreign.txtpb | (cd "$otlp_proto" && protoc \
		--encode=opentelemetry.proto.profiles.v1development.ProfilesData \
		opentelemetry/proto/profiles/v1development/profiles.proto) >"$tmpdir/foreign.pb"
	convert --to=folded --sample-type=cpu "$tmpdir/foreign.pb" >"$tmpdir/got"
	same_output "another producer's protobuf" testdata/otlp/foreign.folded "$tmpdir/got"
fi
testrun_compare "another producer's JSON lines" testdata/otlp/foreign.folded \
	convert --to=folded --sample-type=cpu testdata/otlp/foreign.otlp.json
testrun_compare "  timestamps alone count one each" testdata/otlp/foreign.samples.folded \
	convert --to=folded --sample-type=samples testdata/otlp/foreign.otlp.json

# gzipped by name; several documents are summed
convert --to=otlp-json -o "$tmpdir/c-fp.otlp.json.gz" testdata/perf-script/c-fp.txt
convert --to=folded testdata/perf-script/c-fp.txt |
	awk '{ $NF = 2 * $NF; print }' >"$tmpdir/twice"
gzip -dc "$tmpdir/c-fp.otlp.json.gz" >"$tmpdir/once.json" &&
	cat "$tmpdir/once.json" "$tmpdir/once.json" >"$tmpdir/two.json"
testrun_compare "a .gz name is gzipped; two documents are summed" "$tmpdir/twice" \
	convert --to=folded "$tmpdir/two.json"
plan "$tap_n"
finish
