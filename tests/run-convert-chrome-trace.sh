#!/bin/sh
# --to=chrome-trace, read back by the Firefox Profiler's own Chrome
# importer through its command line, profiler-cli (npm package
# @firefox-devtools/profiler-cli; $PROFILER_CLI or profiler-cli on PATH).
# For each input, per thread, the functions with the most self samples
# as profiler-cli lists them:
#   - equal testdata/chrome-trace/NAME.functions (made by profiler-cli,
#     testdata/README.md), and
#   - agree with profkit-top's flat% of the same thread within 2 points
#     (the profiler resamples at 0.5 ms, so a 2 kHz recording loses some).
# The perf.data recordings have times; pprof and gperftools inputs get
# the synthetic timeline doc/formats.md describes.
. "${top_srcdir:-.}/tests/test-subr.sh"
pcli=${PROFILER_CLI:-$(command -v profiler-cli 2>/dev/null)}
[ -n "$pcli" ] && [ -x "$pcli" ] ||
	skip_all "no profiler-cli (npm install @firefox-devtools/profiler-cli)"
command -v node >/dev/null 2>&1 || skip_all "no node to read profiler-cli's JSON"
plan 12
d=testdata/perf-data
e=testdata/chrome-trace
bin=$(pwd)/testdata/bin

# the recordings' programs, where they were recorded (run-perf-data-folded.sh)
root=$tmpdir/root
link() { mkdir -p "$root$(dirname "$2")" && ln -s "$1" "$root$2"; }
link "$bin/c-fp" /tmp/rec/c-fp
link "$bin/cxx-dwarf" /tmp/rec/cxx-dwarf
link "$bin/c-dwarf" /tmp/rec3/c-dwarf
link "$bin/cxx-threads" /tmp/rec3/cxx-threads
sym="--symfs=$root --kallsyms=$d/kallsyms"

# profiler-cli runs a daemon: this test's own, in its own home, stopped at exit
mkdir "$tmpdir/pcli"
pcli() { HOME=$tmpdir/pcli "$pcli" "$@"; }
trap 'pcli stop --all >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT

json() { node -e 'let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
	const j = JSON.parse(s); '"$1"' })' "${2:-}"; }

# functions FILE: "tid<TAB>function<TAB>self samples<TAB>self %" for every
# function with self samples, per thread, as profiler-cli sorts them
functions() {
	pcli load "$1" >/dev/null 2>&1
	i=0
	until pcli status >/dev/null 2>&1 || [ $i -ge 60 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	pcli thread list --json | json 'for (const t of j.threads)
		console.log(t.threadHandle, String(t.tid).replace(/.*:/, ""))' |
	while read -r handle tid; do
		pcli thread functions --thread "$handle" --limit 0 --json |
			json 'for (const f of j.functions) if (f.selfSamples)
			console.log([process.argv[1], f.name, f.selfSamples,
				     f.selfPercentage.toFixed(1)].join("\t"))' "$tid"
	done
	pcli stop --all >/dev/null 2>&1
}

# agree NAME FUNCTIONS TOP: each of profkit-top's rows is in profiler-cli's
# list, its share within 2 points; the profiler keeps an inlined copy of a
# function apart from the function (another file or line): summed here,
# as profkit-top names them
agree() {
	if [ -s "$2" ] && [ -s "$3" ] && awk -F '\t' 'NR == FNR { got[$1 "\t" $2] += $4; next }
		$3 > 0 {
			k = $1 "\t" $2
			d = (k in got) ? got[k] - $3 : 100
			if (d < -2 || d > 2) {
				printf "# %s: profkit-top %s%%, profiler-cli %s\n", k, $3,
					(k in got) ? got[k] "%" : "nothing"
				bad = 1
			}
		}
		END { exit bad }' "$2" "$3"; then
		pass "$1"
	else
		fail "$1"
	fi
}

# check NAME THREADED TOP-ARGS...: convert, read back, compare
check() {
	name=$1 threaded=$2
	shift 2
	profkit-convert -q --to=chrome-trace -o "$tmpdir/$name.json" "$@" &&
		functions "$tmpdir/$name.json" >"$tmpdir/$name.functions"
	awk -F '\t' 'n[$1]++ < 3' "$tmpdir/$name.functions" >"$tmpdir/$name.top3"
	same_output "$name: profiler-cli's hottest functions per thread" \
		$e/$name.functions "$tmpdir/$name.top3"
	for tid in $(cut -f 1 "$tmpdir/$name.functions" | sort -u); do
		if [ "$threaded" = yes ]; then
			profkit-filter -q --tid="$tid" --to=pprof -o "$tmpdir/t.pb.gz" "$@" &&
				top_percent "$tid" profkit-top -q -n 3 --no-symbolize "$tmpdir/t.pb.gz"
		else
			top_percent "$tid" profkit-top -q -n 3 "$@"
		fi
	done >"$tmpdir/$name.top"
	agree "$name: self shares within 2 points of profkit-top's" \
		"$tmpdir/$name.functions" "$tmpdir/$name.top"
}

# top_percent TID COMMAND...: profkit-top's rows as "tid<TAB>function<TAB>flat %"
top_percent() {
	tid=$1
	shift
	"$@" | awk -v tid="$tid" '
		/^ *flat  flat%/ { rows = 1; next }
		rows {
			pct = $2
			sub(/%$/, "", pct)
			sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+  /, "")
			sub(/ \(inline\)$/, "")
			print tid "\t" $0 "\t" pct
		}'
}

check c-fp yes $sym $d/c-fp.perf.data
check c-dwarf yes $sym $d/c-dwarf.perf.data
check cxx-dwarf yes $sym $d/cxx-dwarf.perf.data
check cxx-dwarf-threads yes $sym $d/cxx-dwarf-threads.perf.data
check go-cpu no testdata/pprof/go-cpu.pb.gz
check gperftools-c-fp no --binary=testdata/bin/c-fp testdata/gperftools/c-fp.cpu
finish
