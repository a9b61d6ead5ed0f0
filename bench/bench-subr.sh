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

# use_programs DIR: sets $bin to the directory of the commands to time.
# libtool's wrapper scripts start slower than a small file converts: in
# a built tree that is DIR/.libs, with the library's .libs on the path.
use_programs() {
	bin=$1
	if [ -x "$bin/.libs/profkit-convert" ] && [ -d "$top/lib/.libs" ]; then
		bin=$bin/.libs
		LD_LIBRARY_PATH=$top/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
	fi
}
