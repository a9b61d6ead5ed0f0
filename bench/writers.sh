#!/bin/sh
# Memory and time of every writer on one large input: a ~200 MB perf
# script text made by repeating a recording (few distinct stacks) and,
# with DISTINCT=N, a folded input of N distinct stacks. A writer should
# not multiply memory: each one's peak RSS is printed beside the folded
# writer's (which holds only the model) as a ratio.
#
#   bench/writers.sh [SIZE-MB]      (run from a built tree; needs GNU time)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
convert=${PROFKIT_CONVERT:-$top/cmd/profkit-convert}
size_mb=${1:-200}
distinct=${DISTINCT:-200000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }

# every writer profkit-convert lists, beside the folded one
writers=$("$convert" --list-formats |
	awk '/^Output formats/ { out = 1; next } out && $1 != "folded" { print $1 }')
seed=$top/testdata/perf-script/c-fp.txt
while [ "$(stat -c %s "$tmp/big.txt" 2>/dev/null || echo 0)" -lt $((size_mb * 1000000)) ]; do
	cat "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" "$seed" >>"$tmp/big.txt"
done
# many distinct stacks: depth 6 over 60 names
awk -v n="$distinct" 'BEGIN { srand(7); for (i = 0; i < n; i++) {
	s = "app"; for (d = 0; d < 6; d++) s = s ";fn_" int(rand() * 60);
	print s ";leaf_" i, int(rand() * 1000) + 1 } }' >"$tmp/distinct.folded"

run() {
	input=$1
	/usr/bin/time -f '%e %M' -o "$tmp/t" "$convert" -q --to=folded "$input" >/dev/null
	set -- $(cat "$tmp/t")
	base=$2
	printf '  %-12s %7.2f s %9s KiB\n' folded "$1" "$2"
	for to in $writers; do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$convert" -q --to=$to "$input" >/dev/null
		set -- $(cat "$tmp/t")
		printf '  %-12s %7.2f s %9s KiB  %5.2fx folded\n' $to "$1" "$2" \
			"$(echo "scale=2; $2 / $base" | bc)"
	done
}

echo "$(($(stat -c %s "$tmp/big.txt") / 1000000)) MB of perf script text, few distinct stacks:"
run "$tmp/big.txt"
echo "$distinct distinct stacks ($(($(stat -c %s "$tmp/distinct.folded") / 1000000)) MB folded):"
run "$tmp/distinct.folded"
