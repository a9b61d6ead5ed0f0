# Shared by the bench/ scripts (sourced; they set $tmp first).

# measure OUT COMMAND...: prints "seconds peak-RSS-KiB" of the command,
# its stdout in OUT; from GNU time when present ("?" for the RSS if not).
measure() {
	out=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" >"$out" 2>/dev/null
		cat "$tmp/t"
	else
		start=$(date +%s.%N)
		"$@" >"$out" 2>/dev/null
		end=$(date +%s.%N)
		echo "$(echo "$end - $start" | bc) ?"
	fi
}

# ratio A B: A / B to one decimal
ratio() {
	echo "scale=1; $1 / $2" | bc
}
