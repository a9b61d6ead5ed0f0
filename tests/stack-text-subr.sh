# Checks shared by the tests of stack text from other tools
# (run-stack-counts.sh, run-stack-dumps.sh; sourced after test-subr.sh):
# our reading against FlameGraph's collapse script for the format, run
# live from ../shared/reference/flamegraph/, and the same stacks through
# pprof -raw and speedscope.

find_pprof
have_python=$(command -v python3 >/dev/null && echo yes || echo no)

# like_script NAME "OUR-ARGS" SCRIPT "SCRIPT-ARGS" [SED-ARGS...]: our
# folded output (read with no --from) equals the script's, summed and
# sorted; the sed arguments, when given, first put right what the
# script gets wrong (doc/formats.md names each place).
like_script() {
	name=$1 ours=$2 script=$3 theirs=$4
	shift 4
	if ! find_reference "flamegraph/$script"; then
		skip "$name" "$reference_missing"
		return
	fi
	# shellcheck disable=SC2086
	perl "$reference" $theirs 2>/dev/null >"$tmpdir/script.out" ||
		{ fail "$name (the script failed)"; return; }
	if [ $# -gt 0 ]; then
		sed "$@" "$tmpdir/script.out" | folded_sum >"$tmpdir/script"
	else
		folded_sum <"$tmpdir/script.out" >"$tmpdir/script"
	fi
	# shellcheck disable=SC2086
	profkit-convert -q --to=folded $ours >"$tmpdir/ours" 2>"$tmpdir/err" ||
		{ fail "$name (exit $?)"; diag_file "$tmpdir/err"; return; }
	same_output "$name" "$tmpdir/script" "$tmpdir/ours"
}

# writers_agree NAME INPUT [OPTIONS...]: pprof -raw (Go pprof) and
# speedscope show the stacks and counts our folded output shows, each
# thread's in pprof (its comm label), all threads' summed in speedscope
# (a profile per thread, not named as folded names them). pprof keeps no
# sample without a frame: a thread's name alone (jstack's "Notification
# Thread") is left out of its comparison, and speedscope's too.
writers_agree() {
	name=$1 input=$2
	shift 2
	profkit-convert -q --to=folded "$@" "$input" >"$tmpdir/folded" &&
		profkit-convert -q --no-comm --to=folded "$@" "$input" |
		folded_sum >"$tmpdir/folded-nocomm" || { fail "$name: folded"; return; }
	if [ -z "$pprof" ]; then
		skip "$name: pprof -raw" "no pprof"
	elif profkit-convert -q --to=pprof -o "$tmpdir/w.pb.gz" "$@" "$input" &&
		"$pprof" -raw -symbolize=none "$tmpdir/w.pb.gz" >"$tmpdir/w.raw" 2>"$tmpdir/err"; then
		pprof_folded "$tmpdir/w.raw" 1 >"$tmpdir/pprof"
		# the lines with a frame: with a comm, after its ';'
		if grep -q -F 'comm:[' "$tmpdir/w.raw"; then
			grep ';' "$tmpdir/folded" >"$tmpdir/framed"
		else
			cp "$tmpdir/folded" "$tmpdir/framed"
		fi
		same_output "$name: pprof -raw" "$tmpdir/framed" "$tmpdir/pprof"
	else
		fail "$name: pprof -raw"
		diag_file "$tmpdir/err"
	fi
	if [ "$have_python" = no ]; then
		skip "$name: speedscope" "no python3"
	elif profkit-convert -q --to=speedscope -o "$tmpdir/w.json" "$@" "$input"; then
		speedscope_folded "$tmpdir/w.json" | grep -v '^ ' >"$tmpdir/speedscope"
		same_output "$name: speedscope" "$tmpdir/folded-nocomm" "$tmpdir/speedscope"
	else
		fail "$name: speedscope"
	fi
}

# like_file NAME EXPECTED ARGS...: our folded output equals the file
like_file() {
	name=$1 expected=$2
	shift 2
	testrun_compare "$name" "$expected" profkit-convert -q --to=folded "$@"
}

# script_gives NAME SCRIPT INPUT WANT-FILE: what the script makes of an
# input where ours differs (the fault doc/formats.md names), summed
script_gives() {
	name=$1 script=$2 input=$3 want=$4
	if find_reference "flamegraph/$script"; then
		perl "$reference" "$input" 2>/dev/null | folded_sum >"$tmpdir/script"
		if cmp -s "$want" "$tmpdir/script"; then
			pass "$name"
		else
			fail "$name"
			diff "$want" "$tmpdir/script" | diag_file /dev/stdin
		fi
	else
		skip "$name" "$reference_missing"
	fi
}

# bad_inputs_fail MESSAGE FILE...: each testdata/bad/READER/FILE read
# with --from=READER exits 1 with "FILE: MESSAGE" (a pattern) and writes
# nothing
bad_inputs_fail() {
	message=$1
	shift
	for f in "$@"; do
		reader=${f#testdata/bad/}
		reader=${reader%%/*}
		testrun_fails "$reader: $(basename "$f")" 1 "^profkit-convert: $f: $message" \
			profkit-convert --from="$reader" --to=pprof -o "$outdir/out.pb.gz" "$f"
	done
}

# frame_placed NAME INPUT ADDRESS FUNCTION MODULE: in pprof -raw of the
# input, the frame FUNCTION has its location at ADDRESS (hex, no 0x) in
# the mapping of MODULE: what the tool printed beside the name is kept
frame_placed() {
	name=$1
	if [ -z "$pprof" ]; then
		skip "$name" "no pprof"
		return
	fi
	profkit-convert -q --to=pprof -o "$tmpdir/placed.pb.gz" "$2" &&
		"$pprof" -raw -symbolize=none "$tmpdir/placed.pb.gz" >"$tmpdir/placed.raw" 2>&1
	if awk -v addr="0x$3" -v func="$4" -v module="$5" '
		/^Mappings/ { maps = 1; next }
		!maps && $2 == addr && $4 == func { sub(/^M=/, "", $3); want = $3 }
		maps && $1 == want ":" && $3 == module { found = 1 }
		END { exit !found }' "$tmpdir/placed.raw"; then
		pass "$name"
	else
		fail "$name"
		diag_file "$tmpdir/placed.raw" 40
	fi
}
