# Off-CPU time computed from perf script's own text, to check profkit's
# against: the text of
#
#   perf script --show-switch-events --ns -F comm,tid,time,period,event,trace,ip,sym,dso
#
# has each sched_switch sample (taken in the thread as it is switched
# out, with its stack) and each PERF_RECORD_SWITCH IN. A thread is off
# the CPU from its sched_switch sample to its next switch-in; a block
# with no switch-in (the thread ended) is not counted.
#
#   awk -v show=off-cpu   folded stacks (comm;outermost;...;leaf) and ns
#       -v show=wall      the same plus each cpu-clock sample's period
#       -v show=state     ns per prev_state ("S 125571714")
#       -v show=blocks    "tid start end" per block, ns on perf's clock
#
# Frames are named as folded output names them: the symbol, or [dso]
# (its base name) for an unknown one.
function ns(t) { sub(/:$/, "", t); sub(/\./, "", t); return t + 0 }
function sample_done() {
	if (event == "sched:sched_switch:") {
		pending[tid] = line
		since[tid] = at
		blocked_state[tid] = state
	} else if (event == "cpu-clock:" && show == "wall") {
		sum[line] += period
	}
	event = ""
}
function switched_in() {
	if (!(tid in pending))
		return
	if (show == "state")
		sum[blocked_state[tid]] += at - since[tid]
	else if (show == "blocks")
		printf "%s %.0f %.0f\n", tid, since[tid], at
	else
		sum[pending[tid]] += at - since[tid]
	delete pending[tid]
}
/^\t/ {
	sym = $2
	if (sym == "[unknown]") {
		dso = $NF
		gsub(/[()]/, "", dso)
		sub(/.*\//, "", dso)
		sym = "[" dso "]"
	}
	frames = sym (frames == "" ? "" : ";" frames)
	line = comm ";" frames
	next
}
/^$/ { sample_done(); next }
{
	for (i = 2; i < NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/)
			break
	tid = $(i - 1)
	at = ns($i)
	comm = $1
	for (j = 2; j < i - 1; j++)
		comm = comm "_" $j
	if ($(i + 1) == "PERF_RECORD_SWITCH") {
		if ($(i + 2) == "IN")
			switched_in()
		next
	}
	period = $(i + 1)
	event = $(i + 2)
	state = ""
	for (j = i + 3; j <= NF; j++)
		if ($j ~ /^prev_state=/)
			state = substr($j, 12)
	frames = ""
	line = comm
}
END {
	for (s in sum)
		printf "%s %.0f\n", s, sum[s]
}
