#!/bin/sh
# The gperftools readers against pprof on profiles nobody here wrote:
# ../shared/conformance/gperftools/X (CPU, heap, growth, contention and
# thread profiles from pprof's own test data) with
#
#   X.pprof-raw.txt   `pprof -raw X`, pprof reading the legacy file;
#   X.string          pprof's dump of the parsed profile, before it
#                     drops unused mappings (the only reference for the
#                     thread.all and thread.none variants).
#
# For each X with a pprof-raw.txt: our model printed the way pprof
# prints it equals that file, and, with Go pprof at hand ($PPROF,
# `pprof` on PATH or .tools/bin/pprof), `pprof -raw` of our --to=pprof
# output equals it too: the conversion is what pprof reads from the
# legacy file itself. For the .string-only variants, the samples and
# their addresses are the same.
#
# Exits 77 (skip) when the conformance folder is absent.
. "${top_srcdir:-.}/tests/test-subr.sh"
dir=${CONFORMANCE_DIR:-$top_srcdir/../shared/conformance}/gperftools
# neither is a tool: the inputs are optional, make check builds the dumper
[ -d "$dir" ] || skip_all_optional "no conformance inputs at $dir"
dump="$top_builddir/tests/t-gperftools"
[ -x "$dump" ] || skip_all_optional "tests/t-gperftools is not built (make check builds it)"

find_pprof

# Each sample of a -raw or .string dump as "values: address...", with the
# location ids replaced by the addresses the Locations section gives them.
sample_addresses() {
	awk '
	/^Samples:/ { part = "s"; next }
	/^Locations/ { part = "l"; next }
	/^Mappings/ { part = "m"; next }
	part == "s" && /^ *-?[0-9]+[ :]/ { n++; line[n] = $0; next }
	part == "l" && $1 ~ /^[0-9]+:$/ { id = $1; sub(/:$/, "", id); addr[id] = $2 }
	END {
		for (i = 1; i <= n; i++) {
			split(line[i], halves, ":")
			values = halves[1]; gsub(/ +/, " ", values); sub(/^ /, "", values)
			k = split(halves[2], ids, " ")
			out = values ":"
			for (j = 1; j <= k; j++) out = out " " addr[ids[j]]
			print out
		}
	}' "$1"
}

for input in "$dir"/*; do
	case $input in *.txt|*.string) continue ;; esac
	base=$(basename "$input")
	if [ -f "$input.pprof-raw.txt" ]; then
		testrun_compare "$base: our model is pprof's -raw reading" \
			"$input.pprof-raw.txt" "$dump" --dump "$input"
		if [ -z "$pprof" ]; then
			skip "$base: pprof -raw of our pprof output" "no Go pprof"
			continue
		fi
		profkit-convert -q --no-symbolize --to=pprof -o "$tmpdir/$base.pb.gz" "$input"
		testrun_compare "$base: pprof -raw of our pprof output" \
			"$input.pprof-raw.txt" "$pprof" -raw -symbolize=none "$tmpdir/$base.pb.gz"
	elif [ -f "$input.string" ]; then
		"$dump" --dump "$input" >"$tmpdir/ours" 2>"$tmpdir/err" ||
			{ fail "$base: samples as pprof parses them" "$(cat "$tmpdir/err")"; continue; }
		sample_addresses "$input.string" >"$tmpdir/want"
		sample_addresses "$tmpdir/ours" >"$tmpdir/got"
		same_output "$base: samples as pprof parses them" "$tmpdir/want" "$tmpdir/got"
	fi
done

plan $tap_n
finish
