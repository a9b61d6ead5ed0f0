#!/bin/sh
# Options by key: each flag that --help maps onto a key ("(--width)")
# gives what -X KEY gives, stdout, stderr and exit code alike, in every
# command that has such flags; an unknown key and a bad value exit 2
# with a message naming the key and what it takes.
. "${top_srcdir:-.}/tests/test-subr.sh"

input=testdata/perf-script/c-fp.txt

# mapped COMMAND: "KEY VALUE-NAME FLAG" for each key --help maps to a
# flag ("-" for a flag's value name; a long key has its help on the next
# line)
mapped() {
	"$1" --help | sed -n '/^Options by key/,/^Examples:/p' | awk '
	/^  [a-z-]+:[a-z-]+/ { left = $1; line = $0; if (NF == 1) next }
	/^   +[^ ]/ && left { line = line " " $0 }
	left {
		if (match(line, /\(--[a-z-]+\)$/)) {
			flag = substr(line, RSTART + 3, RLENGTH - 4)
			key = left; value = "-"
			if (index(left, "=")) {
				key = substr(left, 1, index(left, "=") - 1)
				value = substr(left, index(left, "=") + 1)
			}
			print key, value, flag
		}
		left = ""
	}'
}

# value_for KEY VALUE-NAME: a value that changes the output where it can
value_for() {
	# a choice: its last word (not the default, which comes first)
	word=$(profkit-convert --list-keys | awk -v k="$1=" '$1 == k && NF > 2 { print $NF }')
	[ -n "$word" ] && { echo "$word"; return; }
	case $2 in
	RE) echo main ;;
	PID | TID) echo 4242 ;;
	SECS) echo 0.5 ;;
	PCT) echo 2 ;;
	PX) echo 1600 ;;
	N) echo 3 ;;
	TEXT) echo "A title" ;;
	NAME) echo checkout ;;
	NAME=VALUE) echo prev_state=D ;;
	*) echo "" ;;
	esac
}

# what_for COMMAND KEY: the arguments that run COMMAND's writer or test
writers=$(profkit-convert --list-formats | sed -n '/^Output formats/,$ s/^  \([a-z0-9-]*\) .*/\1/p')
is_writer() { echo "$writers" | grep -qx "$1"; }

# what_for COMMAND KEY: the --to a key's flag is tried with (a reader's
# key: folded output of an input of that format, from testdata/FORMAT/)
what_for() {
	case $1:$2 in
	profkit-convert:otlp:*) echo "--to=otlp-json" ;;	# text: "exit" on a line
	profkit-convert:*)
		if is_writer "${2%%:*}"; then
			echo "--to=${2%%:*}"
		else
			echo "--to=folded"
		fi ;;
	*) echo "" ;;
	esac
}

# input_for KEY: the input a key is tried on
input_for() {
	scope=${1%%:*}
	case $1 in
	flamegraph:diff) echo testdata/flamegraph/diff.folded ;;
	*:*) if [ -d "testdata/$scope" ] && ! is_writer "$scope"; then
		ls "testdata/$scope"/*."$scope" 2>/dev/null | head -n 1
	     else
		echo "$input"
	     fi ;;
	*) echo "$input" ;;
	esac
}

# run NAME COMMAND ARGS...: stdout, stderr and exit code into $tmpdir/NAME
run() {
	name=$1
	shift
	"$@" >"$tmpdir/$name" 2>"$tmpdir/$name.err"
	echo "exit $?" >>"$tmpdir/$name"
	cat "$tmpdir/$name.err" >>"$tmpdir/$name"
}

commands="profkit-convert profkit-flamegraph profkit-filter"
n=0
for c in $commands; do
	mapped "$c" >"$tmpdir/$c.map"
	n=$((n + $(wc -l <"$tmpdir/$c.map")))
done
plan $((n + 3 + 7))

for c in $commands; do
	[ -s "$tmpdir/$c.map" ] || { fail "$c --help maps no flag onto a key"; continue; }
	while read -r key value_name flag; do
		to=$(what_for "$c" "$key")
		in=$(input_for "$key")
		if [ "$value_name" = - ]; then
			run flag "$c" $to "--$flag" "$in"
			run key "$c" $to -X "$key" "$in"
			what="--$flag"
		else
			value=$(value_for "$key" "$value_name")
			[ -n "$value" ] || { fail "$c: no test value for $key=$value_name"; continue; }
			run flag "$c" $to "--$flag=$value" "$in"
			run key "$c" $to -X "$key=$value" "$in"
			what="--$flag=$value"
		fi
		if cmp -s "$tmpdir/flag" "$tmpdir/key" && grep -q '^exit 0$' "$tmpdir/key"; then
			pass "$c: $what is -X $key"
		else
			fail "$c: $what is -X $key"
			diff "$tmpdir/flag" "$tmpdir/key" | diag_file /dev/stdin
		fi
	done <"$tmpdir/$c.map"
done

# the flags that are two keys, and the long form of -X
run flag profkit-convert --to=folded --all testdata/perf-data/c-fp.perf.data
run key profkit-convert --to=folded -X folded:kernel -X folded:jit=1 \
	testdata/perf-data/c-fp.perf.data
same_output "profkit-convert: --all is folded:kernel and folded:jit" \
	"$tmpdir/flag" "$tmpdir/key"
run flag profkit-convert --to=pprof --no-gzip --labels=none "$input"
run key profkit-convert --to=pprof --option=pprof:gzip=0 --option=pprof:labels=none "$input"
same_output "profkit-convert: --no-gzip --labels=none is --option=pprof:gzip=0 ..." \
	"$tmpdir/flag" "$tmpdir/key"
# a scoped key changes the output (not every writer ignores it)
run plain profkit-convert --to=flamegraph "$input"
run key profkit-convert --to=flamegraph -X flamegraph:width=1600 "$input"
if ! cmp -s "$tmpdir/plain" "$tmpdir/key" && grep -q 'width="1600"' "$tmpdir/key"; then
	pass "profkit-convert -X flamegraph:width=1600 draws 1600 pixels wide"
else
	fail "profkit-convert -X flamegraph:width=1600 draws 1600 pixels wide"
fi

# what a wrong key or value says
testrun_status "an unknown scoped key: exit 2, the key and its scope's keys" 2 \
	"unknown option 'flamegraph:widht' (flamegraph takes title, colors, width, icicle, diff, max-depth)" \
	profkit-convert --to=flamegraph -X flamegraph:widht=1600 "$input"
testrun_status "a format's key without its scope: exit 2, the scoped key" 2 \
	"unknown option 'gzip' (did you mean pprof:gzip?)" \
	profkit-convert --to=pprof -X gzip=0 "$input"
testrun_status "an unknown scope: exit 2" 2 "unknown option 'nope:pid': 'nope' has no options" \
	profkit-convert --to=folded -X nope:pid "$input"
testrun_status "a bad value by key: exit 2, the key and what it takes" 2 \
	"pprof:labels: expected 'all' or 'none', not 'some'" \
	profkit-convert --to=pprof -X pprof:labels=some "$input"
testrun_status "a bad value by flag: exit 2, the flag and what it takes" 2 \
	"profkit-flamegraph: --width: '50' is not a whole number from 200 to 1000000" \
	profkit-flamegraph --width=50 "$input"
testrun_status "a bad flag value by key: exit 2" 2 \
	"folded:pid: expected '1' or '0', not 'maybe'" \
	profkit-convert --to=folded -X folded:pid=maybe "$input"
testrun_status "profkit-filter --pid takes a number: exit 2" 2 \
	"profkit-filter: --pid: 'x' is not a whole number from 0" \
	profkit-filter --pid=x "$input"
finish
