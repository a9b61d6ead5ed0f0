#!/bin/sh
# Scaling out with GNU parallel (doc/scaling.md). COPIES copies each of
# testdata/perf-data/c-fp.perf.data and testdata/perf-script/c-fp.txt are
# converted to pprof by a serial shell loop, by parallel -jJOBS with one
# file a job, by parallel -X (many files a job, profkit-convert -O) and by
# profkit-convert -O -j JOBS alone. Then the pprof files, and the
# recordings themselves, are merged by one profkit-merge and as a tree
# (groups of GROUP merged by parallel, then the group sums). Prints the
# best of REPEAT runs of each with the ratios, and checks that every way
# gives the same files and the same merged profile.
#
#   bench/parallel.sh [COPIES]      (run from a built tree; needs GNU
#                                    parallel; JOBS=2 GROUP=8 REPEAT=3,
#                                    PROFKIT_BINDIR=DIR: the commands in DIR)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
copies=${1:-20}
jobs=${JOBS:-2}
group=${GROUP:-8}
repeat=${REPEAT:-3}
parallel --version 2>/dev/null | grep -q '^GNU parallel' || {
	echo "needs GNU parallel (apt-get install parallel; moreutils' is another tool)" >&2
	exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/bench/bench-subr.sh"
use_programs "${PROFKIT_BINDIR:-$top/cmd}"

mkdir "$tmp/in"
i=0
while [ $i -lt "$copies" ]; do
	i=$((i + 1))
	cp "$top/testdata/perf-data/c-fp.perf.data" "$tmp/in/c-fp-$i.perf.data"
	cp "$top/testdata/perf-script/c-fp.txt" "$tmp/in/c-fp-$i.txt"
done
cat "$tmp"/in/* >/dev/null	# warm the page cache

# The ways, each a script run with the output directory as $1.
cat >"$tmp/serial.sh" <<EOF
for f in "$tmp"/in/*; do
	"$bin/profkit-convert" -q --to=pprof -o "\$1/\${f##*/}.pb.gz" "\$f" || exit
done
EOF
cat >"$tmp/parallel.sh" <<EOF
parallel -j$jobs "$bin/profkit-convert" -q --to=pprof -o "\$1/{/}.pb.gz" {} ::: "$tmp"/in/*
EOF
cat >"$tmp/parallel-X.sh" <<EOF
parallel -j$jobs -X "$bin/profkit-convert" -q --to=pprof -O "\$1" {} ::: "$tmp"/in/*
EOF
cat >"$tmp/empty.sh" <<EOF
parallel -j$jobs true ::: "$tmp"/in/*
EOF
cat >"$tmp/batch.sh" <<EOF
"$bin/profkit-convert" -q --to=pprof -O "\$1" -j $jobs "$tmp"/in/*
EOF

# best WAY: the least seconds of REPEAT runs, its output in $tmp/WAY
best() {
	min='' r=0
	while [ $r -lt "$repeat" ]; do
		r=$((r + 1))
		rm -rf "${tmp:?}/$1"
		mkdir "$tmp/$1"
		t=$(measure /dev/null sh -c 'sh "$1" "$2" && touch "$2.ok"' sh \
			"$tmp/$1.sh" "$tmp/$1" || true)
		if [ ! -e "$tmp/$1.ok" ]; then
			echo "$1 failed:" >&2
			sh -x "$tmp/$1.sh" "$tmp/$1" >&2
			exit 1
		fi
		rm "$tmp/$1.ok"
		t=${t%% *}
		if [ -z "$min" ] || [ "$(echo "$t < $min" | bc)" -eq 1 ]; then
			min=$t
		fi
	done
	echo "$min"
}

# than BASE-SECONDS WAY-SECONDS: "1.5x faster" or "2.0x slower"
than() {
	if [ "$(echo "$2 <= $1" | bc)" -eq 1 ]; then
		echo "$(ratio "$1" "$2")x faster"
	else
		echo "$(ratio "$2" "$1")x slower"
	fi
}

# the same profile: the same stacks and the same totals, sample types, mappings
same() {
	"$bin/profkit-convert" -q --to=folded "$1" | LC_ALL=C sort >"$tmp/a"
	"$bin/profkit-info" "$1" | sed 1d >>"$tmp/a"
	"$bin/profkit-convert" -q --to=folded "$2" | LC_ALL=C sort >"$tmp/b"
	"$bin/profkit-info" "$2" | sed 1d >>"$tmp/b"
	[ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b" && echo yes || echo NO
}

n=$((copies * 2))
echo "$n files ($copies x c-fp.perf.data, $copies x c-fp.txt) to pprof," \
	"$(nproc) CPUs, JOBS=$jobs, best of $repeat, ${bin#"$top"/}"
serial=$(best serial)
printf '  %-38s %6.2f s\n' "serial shell loop" "$serial"
empty=$(best empty)
printf '  %-38s %6.2f s\n' "(parallel -j$jobs true: its own cost)" "$empty"
for way in parallel parallel-X batch; do
	case $way in
	parallel) what="parallel -j$jobs, a file a job" ;;
	parallel-X) what="parallel -j$jobs -X, files a job (-O)" ;;
	batch) what="profkit-convert -O -j $jobs" ;;
	esac
	s=$(best $way)
	same_files=yes
	for f in "$tmp"/serial/*; do
		cmp -s "$f" "$tmp/$way/${f##*/}" || same_files=NO
	done
	printf '  %-38s %6.2f s  %-12s  same files: %s\n' "$what" "$s" \
		"$(than "$serial" "$s")" "$same_files"
done

# merges: of the pprof files made above, and of the recordings themselves
# (each read and symbolized as it is merged)
for inputs in pprof raw; do
	case $inputs in
	pprof) files="\"$tmp/serial\"/*.pb.gz" what="the $n pprof files" ;;
	raw) files="\"$tmp/in\"/*" what="the $n recordings" ;;
	esac
	cat >"$tmp/flat.sh" <<-EOF
	"$bin/profkit-merge" -q --to=pprof -o "\$1/all.pb.gz" $files
	EOF
	cat >"$tmp/tree.sh" <<-EOF
	parallel -j$jobs -N$group "$bin/profkit-merge" -q --to=pprof \\
		-o "\$1/group-{#}.pb.gz" {} ::: $files &&
	"$bin/profkit-merge" -q --to=pprof -o "\$1/all.pb.gz" "\$1"/group-*.pb.gz
	EOF
	echo "merging $what"
	flat=$(best flat)
	printf '  %-38s %6.2f s\n' "one profkit-merge" "$flat"
	tree=$(best tree)
	printf '  %-38s %6.2f s  %-12s  same profile: %s\n' \
		"tree: groups of $group by parallel -j$jobs" "$tree" \
		"$(than "$flat" "$tree")" \
		"$(same "$tmp/flat/all.pb.gz" "$tmp/tree/all.pb.gz")"
done
