# The share of the samples of perf script text (-F ...,ip,dso: one sample
# a paragraph, each frame's file in parentheses) that have a frame in any
# of the files dsos lists (separated by spaces), rounded down to a tenth
# of a percent as profkit's summary of unnamed frames prints it:
#   awk -v dsos="/tmp/rec/c-fp /usr/lib/x86_64-linux-gnu/libc.so.6" -f samples-share.awk TEXT
BEGIN { RS = ""; n = split(dsos, want, " ") }
{
	total++
	for (i = 1; i <= n; i++)
		if (index($0, "(" want[i] ")")) { hit++; break }
}
END {
	t = int(1000 * hit / total)
	if (hit >= total) print "100%"
	else if (hit > 0 && t == 0) print "<0.1%"
	else printf "%d.%d%%\n", t / 10, t % 10
}
