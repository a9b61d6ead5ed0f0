#!/bin/sh
# Other profilers' exports (issue 26) broken on purpose: every input of
# testdata/{macos-sample,instruments,vtune,vsprof,pprof-raw,ljp,ghc-prof,
# xctrace} cut at several points and with bytes flipped (a fixed seed),
# read with its own --from. Each conversion exits 0 or 1 within 10
# seconds; on 1 it says on stderr which input, where in it ("line N: ",
# "offset N: ") or that nothing of the format was found, and leaves
# nothing in the output directory. Hand-made faults, one each, are in
# testdata/bad/FORMAT/ (tests/bad-input.sh). A call tree 200000 levels
# deep (6 MB) stays within --max-memory and --max-stack.
. "${top_srcdir:-.}/tests/test-subr.sh"

formats="macos-sample instruments vtune vsprof pprof-raw ljp ghc-prof xctrace"
broken=0
for fmt in $formats; do
	for f in testdata/$fmt/*; do
		case $f in *.folded | *.diff) continue ;; esac
		broken_copies "$f" "$tmpdir/$fmt"
	done
done
plan $((broken + 3))

# what a failure names: the place, or that the input holds none of it
where='((offset|line) [0-9]+: [^ ]|no call graph|no call tree rows|no header line|no cost-centre tree|no traces|no rows|the text ends before its Locations)'
for c in "$tmpdir"/*.[0-9]*; do
	fmt=$(basename "$c" | sed 's/\.[0-9]*$//')
	rm -rf "$outdir" && mkdir "$outdir" || exit 99
	timeout 10 profkit-convert -q --from="$fmt" --to=pprof -o "$outdir/out.pb.gz" "$c" 2>"$tmpdir/err"
	status=$?
	left=$(ls -A "$outdir")
	name="$fmt $(basename "$c") ($(wc -c <"$c") bytes)"
	case $status in
	0) [ "$left" = out.pb.gz ] && pass "$name converts" ||
		fail "$name: exit 0 with '$left' in the output directory" ;;
	1) if [ -n "$left" ]; then
		fail "$name: exit 1 left $left in the output directory"
	   elif ! grep -E -q "^profkit-convert: $c: $where" "$tmpdir/err"; then
		fail "$name: exit 1 without a message naming the input and the place"
		diag_file "$tmpdir/err"
	   else
		pass "$name fails cleanly: $(sed -n "s|^profkit-convert: $c: ||p" "$tmpdir/err" | head -n 1 | cut -c1-80)"
	   fi ;;
	124) fail "$name: still running after 10 s" ;;
	*) fail "$name: exit $status"; diag_file "$tmpdir/err" ;;
	esac
done

# a chain as deep as it has lines, each node with samples of its own:
# every stack is cut to --max-stack frames, and the memory limit holds
awk 'BEGIN { print "Level,Function Name,Inclusive Samples,Exclusive Samples,Module Name,"
	for (i = 1; i <= 200000; i++) printf "%d,\"f%d\",%d,1,\"x.exe\",\n", i, i % 7, 200001 - i }' \
	>"$tmpdir/deep.csv"
testrun_fails "a call tree 200000 deep: --max-memory=64M holds" 1 \
	"deep.csv: the profile needs more than the memory limit of 64 MiB" \
	timeout 10 profkit-convert --max-memory=64M --to=pprof -o "$outdir/out.pb.gz" "$tmpdir/deep.csv"
testrun_status "a call tree 200000 deep: --max-stack=64 cuts it" 0 \
	"199936 stacks were deeper than 64 frames" \
	timeout 10 profkit-convert --max-stack=64 --to=folded -o "$tmpdir/deep.folded" "$tmpdir/deep.csv"
# xctrace nested as deep as the tokenizer allows, and one deeper
awk 'BEGIN { printf "<?xml version=\"1.0\"?>\n<trace-query-result>"
	for (i = 0; i < 100000; i++) printf "<row>"; for (i = 0; i < 100000; i++) printf "</row>"
	print "</trace-query-result>" }' >"$tmpdir/deep.xml"
testrun_fails "xctrace 100000 elements deep: refused at the limit" 1 \
	"deep.xml: offset [0-9]*: elements nested too deep" \
	timeout 10 profkit-convert --to=pprof -o "$outdir/out.pb.gz" "$tmpdir/deep.xml"
finish
