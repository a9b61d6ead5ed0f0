#!/bin/sh
# Broken inputs: the fuzz crashers in testdata/bad/READER/ (read with
# --from=READER, as the fuzzer fed them), and truncations and
# bit flips of every kind of input under testdata/, made here with a fixed
# seed. Each conversion must exit 0 or 1, say why on stderr when 1, leave
# no output file when 1, and finish within 10 seconds.
. "${top_srcdir:-.}/tests/test-subr.sh"

inputs="testdata/perf-script/c-fp.txt testdata/perf-script/cxx-dwarf.txt
	testdata/perf-script/c-fp.folded testdata/folded/diff.folded"
for f in testdata/perf-data/c-fp.perf.data testdata/perf-data/pipe.perf.data \
	testdata/perf-data/zstd-sym.perf.data testdata/gperftools/*.cpu testdata/gperftools/*.heap \
	testdata/gperftools/app.growth testdata/gperftools/app.threads \
	testdata/gperftools/server.contention testdata/pprof/*.pb*; do
	[ -f "$f" ] && inputs="$inputs $f"
done

# broken copies: cut at several points and with bytes flipped (awk's
# srand gives the same positions on every run)
n=0
for f in $inputs; do
	size=$(wc -c <"$f")
	for cut in 1 7 64 $((size / 3)) $((size / 2)) $((size - 1)); do
		[ "$cut" -gt 0 ] || continue
		n=$((n + 1))
		head -c "$cut" "$f" >"$tmpdir/broken.$n"
	done
	for seed in 1 2 3; do
		n=$((n + 1))
		od -An -v -tu1 "$f" | tr -s ' ' '\n' | sed '/^$/d' |
		awk -v seed=$seed -v size="$size" 'BEGIN { srand(seed); for (i = 0; i < 8; i++) flip[int(rand() * size) + 1] = 1 }
			{ b = $1; if (NR in flip) b = (b + 1 + int(rand() * 254)) % 256; printf "%c", b }' \
			>"$tmpdir/broken.$n" 2>/dev/null
	done
done
cases="$(ls testdata/bad/*/*) $(ls "$tmpdir"/broken.*)"

# the reader a crasher was found through, as --from
from_of() {
	case $1 in
	testdata/bad/*) echo "--from=$(basename "$(dirname "$1")")" ;;
	*) echo "--from=auto" ;;
	esac
}
plan $(( $(echo $cases | wc -w) + $(echo $inputs | wc -w) + 1 ))

for f in $cases; do
	rm -f "$tmpdir/out.pb.gz"
	timeout 10 profkit-convert -q $(from_of "$f") --to=pprof -o "$tmpdir/out.pb.gz" "$f" 2>"$tmpdir/err"
	status=$?
	name="$(basename "$f") ($(wc -c <"$f") bytes)"
	case $status in
	0) [ -s "$tmpdir/out.pb.gz" ] && pass "$name converts" || fail "$name: exit 0 without output" ;;
	1) if [ -e "$tmpdir/out.pb.gz" ] || ls "$tmpdir" | grep -q 'out.pb.gz.tmp'; then
		fail "$name: exit 1 left an output file"
	   elif [ ! -s "$tmpdir/err" ]; then
		fail "$name: exit 1 without a message"
	   else
		pass "$name fails cleanly: $(head -c 100 "$tmpdir/err")"
	   fi ;;
	124) fail "$name: still running after 10 s" ;;
	*) fail "$name: exit $status"; diag_file "$tmpdir/err" ;;
	esac
done

# cut mid-line or mid-record: what is whole converts (exit 0, a warning)
# or nothing does (exit 1); with --strict it is always exit 1, no output
for f in $inputs; do
	cut=$(( $(wc -c <"$f") / 2 ))
	head -c "$cut" "$f" >"$tmpdir/half"
	[ "$(tail -c 1 "$tmpdir/half" | od -An -tu1 | tr -d ' ')" = 10 ] &&
		head -c $((cut + 1)) "$f" >"$tmpdir/half"
	rm -f "$tmpdir/out.pb.gz"
	timeout 10 profkit-convert --strict --to=pprof -o "$tmpdir/out.pb.gz" "$tmpdir/half" 2>"$tmpdir/err"
	status=$?
	if [ $status -eq 1 ] && [ -s "$tmpdir/err" ] && [ ! -e "$tmpdir/out.pb.gz" ]; then
		pass "$(basename "$f") cut in half, --strict: exit 1"
	else
		fail "$(basename "$f") cut in half, --strict: exit $status"
		diag_file "$tmpdir/err"
	fi
done

# the same inputs through every other writer, to stdout
plan_writers=0
for f in $cases; do
	for to in folded perf-script speedscope callgrind dot flamegraph gprof2dot; do
		timeout 10 profkit-convert -q $(from_of "$f") --to=$to "$f" >/dev/null 2>"$tmpdir/err2"
		s=$?
		[ $s -le 1 ] && continue
		plan_writers=$((plan_writers + 1))
		echo "# $(basename "$f") --to=$to: exit $s"
		diag_file "$tmpdir/err2"
	done
done
[ $plan_writers -eq 0 ] && pass "every writer: exit 0 or 1 on every case" ||
	fail "every writer: $plan_writers runs crashed or hung"
finish
