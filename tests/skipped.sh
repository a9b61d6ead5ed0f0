#!/bin/sh
# The last line of make check: how many checks were skipped, and why.
#
#   sh tests/skipped.sh LOG...
#
# reads each test's log for the TAP skips ("ok N - name # SKIP why" and
# a whole script's "1..0 # SKIP why"). A reason that names a missing
# tool, "no TOOL", "no TOOL (...)", "no TOOL to ..." or "TOOL is not
# installed" (tests/test-subr.sh asks for these forms), is counted under
# the tool, with what installs it: ./bootstrap, or for the FlameGraph
# scripts and gprof2dot a copy of shared/ beside the clone, whose
# reference/ the tests run them from. Any other reason is counted as it
# stands. For example:
#
#   skipped 3 checks, for lack of: Go pprof (./bootstrap) 2; for other reasons: perf cannot record here 1
for log; do
	[ -f "$log" ] && cat "$log"
done | awk '
	function tool_of(why) {
		if (why ~ /^no /)
			why = substr(why, 4)
		else if (why ~ / is not installed$/)
			sub(/ is not installed$/, "", why)
		else
			return ""
		sub(/ \(.*/, "", why)
		sub(/ to .*/, "", why)
		return why
	}
	function installer(tool) {
		if (tool ~ /shared\/reference|(flamegraph|stackcollapse|difffolded)[^ ]*\.pl$|gprof2dot/)
			return "shared/ beside the clone"
		return "./bootstrap"
	}
	# count WHAT under KIND ("tool" or "other")
	function count(kind, what) {
		if (!((kind, what) in n))
			order[kind, ++seen[kind]] = what
		n[kind, what]++
		total++
	}
	/^ok .*# [Ss][Kk][Ii][Pp]/ || /^1\.\.0 # [Ss][Kk][Ii][Pp]/ {
		why = $0
		sub(/.*# [Ss][Kk][Ii][Pp][^ ]* */, "", why)
		if (why == "")
			why = "no reason given"
		tool = tool_of(why)
		if (tool != "")
			count("tool", tool " (" installer(tool) ")")
		else
			count("other", why)
	}
	function list(kind, title,    i, j, s, what) {
		if (!seen[kind])
			return ""
		# the most skipped first (an insertion sort: a few dozen at most)
		for (i = 2; i <= seen[kind]; i++)
			for (j = i; j > 1 && n[kind, order[kind, j]] > n[kind, order[kind, j - 1]]; j--) {
				what = order[kind, j]
				order[kind, j] = order[kind, j - 1]
				order[kind, j - 1] = what
			}
		s = title
		for (i = 1; i <= seen[kind]; i++) {
			what = order[kind, i]
			s = s (i > 1 ? "," : "") " " what " " n[kind, what]
		}
		return s
	}
	END {
		if (!total) {
			print "skipped: none"
			exit
		}
		tools = list("tool", "for lack of:")
		others = list("other", "for other reasons:")
		sep = tools != "" && others != "" ? "; " : ""
		printf "skipped %d check%s, %s%s%s\n", total, (total > 1 ? "s" : ""),
			tools, sep, others
	}'
