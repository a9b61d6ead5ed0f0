#!/bin/sh
# make demo: convert the bundled recording into every output format.
#   tests/demo.sh INPUT BUILD-DIR OUT-DIR
set -eu
input=$1
build=$2
out=$3
mkdir -p "$out"
convert="$build/cmd/profkit-convert"

echo "Converting $input (perf script output of testdata/src/c-fp.c) into $out/:"
"$convert" --list-formats | sed -n '/^Output formats/,$p' | sed 1d |
while read -r fmt description; do
	[ -n "$fmt" ] || continue
	case $fmt in
	folded) file=cpu.folded how="flamegraph.pl $out/cpu.folded > cpu.svg (or inferno-flamegraph)" ;;
	pprof) file=cpu.pb.gz how="pprof -http=: $out/cpu.pb.gz   or   pprof -top $out/cpu.pb.gz" ;;
	speedscope) file=cpu.speedscope.json how="open $out/cpu.speedscope.json in https://www.speedscope.app" ;;
	gprof2dot) file=cpu.gprof2dot.json how="gprof2dot -f json $out/cpu.gprof2dot.json | dot -Tsvg > graph.svg" ;;
	dot) file=cpu.dot how="dot -Tsvg $out/cpu.dot > graph.svg" ;;
	callgrind) file=callgrind.out.cpu how="kcachegrind $out/callgrind.out.cpu   or   callgrind_annotate $out/callgrind.out.cpu" ;;
	perf-script) file=cpu.perf-script.txt how="less $out/cpu.perf-script.txt" ;;
	flamegraph) file=cpu.svg how="open $out/cpu.svg in a web browser: click to zoom, Ctrl-F to search" ;;
	firefox) file=cpu.firefox.json.gz how="https://profiler.firefox.com: Load a profile from file, $out/cpu.firefox.json.gz" ;;
	chrome-trace) file=cpu.trace.json how="https://ui.perfetto.dev: Open trace file, $out/cpu.trace.json (or chrome://tracing)" ;;
	*) file=cpu.$fmt how="(see doc/formats.md)" ;;
	esac
	"$convert" -q --to="$fmt" -o "$out/$file" "$input"
	printf '  %-24s %s\n' "$out/$file" "$how"
done
# profiles read from other profilers' formats, recorded here where the
# profiler is installed
src=$(cd "$(dirname "$0")/.." && pwd)

# V8's, where node is at hand
if command -v node >/dev/null 2>&1 &&
	(cd "$out" && node --cpu-prof --cpu-prof-name node.cpuprofile "$src/testdata/src/shape.js" 300); then
	echo "Recorded testdata/src/shape.js with node --cpu-prof into $out/node.cpuprofile:"
	"$convert" -q --to=flamegraph -o "$out/node.svg" "$out/node.cpuprofile"
	"$convert" -q --to=pprof -o "$out/node.pb.gz" "$out/node.cpuprofile"
	printf '  %-24s %s\n' "$out/node.svg" "its flame graph: open it in a web browser" \
		"$out/node.pb.gz" "pprof -top $out/node.pb.gz (wall time; -sample_index=samples counts)"
else
	echo "(no node here: no V8 CPU profile recorded to convert)"
fi

# valgrind's call graph: recorded here where valgrind is installed
cg=$src/testdata/callgrind/callgraph.callgrind
if command -v valgrind >/dev/null 2>&1 &&
	valgrind --tool=callgrind --callgrind-out-file="$out/callgraph.callgrind" \
		"$src/testdata/bin/callgraph" 20 10 >/dev/null 2>&1; then
	cg=$out/callgraph.callgrind
	echo "Recorded $cg (valgrind --tool=callgrind of testdata/src/callgraph.c), converted:"
else
	echo "Converting $cg (valgrind --tool=callgrind of testdata/src/callgraph.c):"
fi
"$convert" -q --to=pprof -o "$out/callgraph.pb.gz" "$cg"
"$convert" -q --to=flamegraph -o "$out/callgraph.svg" "$cg"
printf '  %-24s %s\n' "$out/callgraph.pb.gz" "pprof -top $out/callgraph.pb.gz (sample type Ir: instructions)"
printf '  %-24s %s\n' "$out/callgraph.svg" "open $out/callgraph.svg in a web browser"
echo "A flame graph of any profile, in one step: profkit-flamegraph PROFILE > cpu.svg"

# Java: a Flight Recorder file of testdata/src/JfrShape.java, recorded now
# where java is installed, else the one recorded for the tests
jfr=$src/testdata/jfr/shape.jfr
if command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1; then
	mkdir -p "$out/java"
	javac -d "$out/java" "$src/testdata/src/JfrShape.java" &&
		(cd "$out/java" && java -XX:StartFlightRecording=filename=shape.jfr,settings=profile \
			JfrShape 2000 >/dev/null 2>&1) && jfr=$out/java/shape.jfr
fi
echo "Converting $jfr (Java Flight Recorder, JfrShape.java):"
"$convert" -q --jit --to=flamegraph -o "$out/java-cpu.svg" "$jfr"
printf '  %-24s %s\n' "$out/java-cpu.svg" "CPU samples, frames marked _[j] JIT compiled, _[i] inlined, _[0] interpreted"
"$convert" -q --event=jdk.ObjectAllocationSample --to=flamegraph -o "$out/java-alloc.svg" "$jfr"
printf '  %-24s %s\n' "$out/java-alloc.svg" "bytes allocated (jdk.ObjectAllocationSample)"
"$convert" -q --event=jdk.ThreadPark --to=pprof -o "$out/java-park.pb.gz" "$jfr"
printf '  %-24s %s\n' "$out/java-park.pb.gz" "time parked (jdk.ThreadPark): pprof -top $out/java-park.pb.gz"

# the other profilers' files whose producer does not run here (a browser's
# recording, Firefox's, py-spy's): the ones recorded for the tests
echo "Converting profiles recorded elsewhere (testdata/, see testdata/README.md):"
for f in chrome-trace/chromium-v8.trace.json.gz firefox/gecko.json \
	speedscope/frames-last.speedscope.json; do
	name=$(basename "$f" | sed 's/\..*//')
	"$convert" -q --to=pprof -o "$out/$name.pb.gz" "$src/testdata/$f"
	printf '  %-24s %s\n' "$out/$name.pb.gz" "pprof -top $out/$name.pb.gz (from $f)"
done
