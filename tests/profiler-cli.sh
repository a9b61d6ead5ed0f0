# The Firefox Profiler's own code, through profiler-cli (npm
# @firefox-devtools/profiler-cli; $PROFILER_CLI, or on PATH: test-subr.sh
# puts ./bootstrap's .tools there), for the tests that load profiles into
# it. Sourced after test-subr.sh; profiler_cli is "" without it.
profiler_cli=${PROFILER_CLI:-$(command -v profiler-cli 2>/dev/null)}
[ -n "$profiler_cli" ] && [ -x "$profiler_cli" ] || profiler_cli=
# a daemon of our own, never symbol servers on the network
PROFILER_CLI_SESSION_DIR=$tmpdir/sessions PROFILER_CLI_NO_SYMBOLICATE=1
export PROFILER_CLI_SESSION_DIR PROFILER_CLI_NO_SYMBOLICATE
[ -z "$profiler_cli" ] ||
	trap '"$profiler_cli" stop --all >/dev/null 2>&1; rm -rf "$tmpdir"' EXIT

# profiler_load FILE: load it and list its threads into $tmpdir/threads
profiler_load() {
	"$profiler_cli" stop --all >/dev/null 2>&1
	"$profiler_cli" load "$1" >"$tmpdir/load.log" 2>&1
	# a busy machine starts the daemon after load has stopped waiting
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$profiler_cli" thread list >"$tmpdir/threads" 2>&1 && return 0
		sleep 1
	done
	diag_file "$tmpdir/load.log"
	return 1
}

# ff_functions FILE [OPTION...]: "HANDLE<TAB>FUNCTION<TAB>SELF%" per
# thread, for functions (summed by name) with 0.5% or more of their
# thread's samples; the options go to "thread functions" (--include-idle)
ff_functions() {
	profiler_load "$1" || return 1
	shift
	awk '{ h = $1 == "*" ? $2 : $1 } h ~ /^t-[0-9]+$/ { print h }' \
		"$tmpdir/threads" >"$tmpdir/handles"
	while read -r t; do
		"$profiler_cli" thread select "$t" </dev/null >/dev/null 2>&1
		"$profiler_cli" thread functions --json "$@" </dev/null 2>/dev/null |
			T=$t node -e '
			let s = ""; process.stdin.on("data", (c) => s += c);
			process.stdin.on("end", () => {
				const self = new Map();
				for (const f of JSON.parse(s).functions)
					self.set(f.name, (self.get(f.name) || 0) + f.selfPercentage);
				for (const [name, pct] of self)
					if (pct >= 0.5)
						console.log("%s\t%s\t%s", process.env.T, name, pct.toFixed(2));
			});'
	done <"$tmpdir/handles"
}

# within_points LEAST POINTS EXPECTED OURS: every function at LEAST % or
# more in either is within POINTS points in the other (absent: under 0.5%)
within_points() {
	least=$1 points=$2
	shift 2
	awk -F'\t' -v least="$least" -v points="$points" '
		NR == FNR { ref[$1 FS $2] = $3; next }
		{ ours[$1 FS $2] = $3 }
		END {
			for (k in ref) keys[k] = 1
			for (k in ours) keys[k] = 1
			for (k in keys) {
				a = ref[k] + 0; b = ours[k] + 0
				if ((a >= least || b >= least) &&
				    (a - b > points || b - a > points)) {
					printf "# %s: profiler %.2f, profkit %.2f\n", k, a, b
					bad = 1
				}
			}
			exit bad
		}' "$1" "$2"
}
