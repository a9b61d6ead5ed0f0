#!/bin/sh
# Do two builds write the same bytes? Every writer, and the commands'
# reports, on every input in testdata/, with the options that change
# what a writer writes:
#
#   tests/same-outputs.sh OLD-BUILD-DIR NEW-BUILD-DIR
#
# e.g. a worktree of the commit before a refactoring, built, against the
# tree after it. pprof output is compared unzipped (the deflate stream
# may differ where the profile does not). Prints one line per difference
# and a summary; exits 1 when any output differs.
set -u
old=$1 new=$2
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# nothing of the host's caches or symbol paths in either run
export PROFKIT_CACHE_DIR="$work/cache" PROFKIT_SYMBOL_PATH=
export TZ=UTC LC_ALL=C

inputs() {
	cd "$src/testdata" || exit 2
	ls perf-data/*.perf.data perf-script/*.txt \
		gperftools/*.cpu gperftools/*.heap gperftools/app.growth \
		gperftools/app.threads gperftools/*.contention gperftools/*.mutex \
		pprof/*.pb pprof/*.pb.gz folded/*.folded flamegraph/*.folded \
		speedscope/*.json v8/*.cpuprofile compressed/* 2>/dev/null
}

# run BUILD OUT-FILE ARGS...: stdout and the exit code into OUT-FILE, the
# messages into OUT-FILE.err
run() {
	build=$1 out=$2
	shift 2
	(cd "$src/testdata" && "$@") >"$out" 2>"$out.err"
	echo "exit $?" >>"$out"
	sed -i "s|$build|BUILD|g" "$out.err"
}

# compare COMMAND ARGS...: the command from both builds
compare() {
	cmd=$1
	shift
	run "$old" "$work/old" "$old/cmd/$cmd" "$@"
	run "$new" "$work/new" "$new/cmd/$cmd" "$@"
	for f in old new; do
		# gzip magic: compare what it holds
		if [ "$(head -c 2 "$work/$f" | od -An -tx1 | tr -d ' ')" = 1f8b ]; then
			gzip -dc <"$work/$f" >"$work/$f.raw" 2>/dev/null
			mv "$work/$f.raw" "$work/$f"
		fi
	done
	if ! cmp -s "$work/old" "$work/new"; then
		echo "differs: $cmd $*" | tee -a "$work/log"
	elif ! cmp -s "$work/old.err" "$work/new.err"; then
		echo "messages differ: $cmd $*" >>"$work/log"
	else
		echo same >>"$work/log"
	fi
}

writer_variants() {
	case $1 in
	folded) echo "--pid|--tid|--kernel|--jit|--addrs|--no-comm|--value=samples" ;;
	pprof) echo "--labels=none|--no-gzip" ;;
	speedscope) echo "--speedscope-evented" ;;
	perf-script) echo "--addresses-only" ;;
	flamegraph) echo "--title=T --width=1600|--colors=mem --icicle|--colors=io" ;;
	dot) echo "--node-thres=2 --edge-thres=1" ;;
	esac
}

writers=$("$new/cmd/profkit-convert" --list-formats |
	sed -n '/^Output formats/,$ s/^  \([a-z0-9-]*\) .*/\1/p')
for input in $(inputs); do
	for w in $writers; do
		compare profkit-convert --to="$w" "$input"
		writer_variants "$w" | tr '|' '\n' | while read -r v; do
			# shellcheck disable=SC2086
			compare profkit-convert --to="$w" $v "$input"
		done
	done
	compare profkit-top "$input"
	compare profkit-top --cum -n 5 "$input"
	compare profkit-info "$input"
	compare profkit-info --json "$input"
	compare profkit-filter --focus=main "$input"
	compare profkit-filter --ignore=main --to=pprof "$input"
	compare profkit-flamegraph "$input"
done
for e in off-cpu wall sched:sched_switch; do
	for w in folded pprof speedscope firefox chrome-trace; do
		compare profkit-convert --event=$e --to=$w perf-data/blocking.perf.data
	done
done
# inputs refused: the same message, offset and exit code
for input in bad/speedscope/* bad/v8/*; do
	compare profkit-convert --to=folded "$input"
done
compare profkit-merge perf-data/c-fp.perf.data perf-script/c-fp.txt
compare profkit-merge --to=pprof gperftools/c-fp.cpu gperftools/c-fp.cpu
compare profkit-diff perf-data/c-fp.perf.data perf-script/c-fp.txt
compare profkit-diff --to=pprof pprof/go-burn-1.pb.gz pprof/go-cpu.pb.gz
differ=$(grep -c '^differs' "$work/log")
echo "$(wc -l <"$work/log") outputs compared, $differ differ," \
	"$(grep -c '^messages differ' "$work/log") differ only in their messages"
[ "$differ" = 0 ]
