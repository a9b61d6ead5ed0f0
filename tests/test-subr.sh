# Shared helpers for the command tests (sourced, POSIX sh), in the manner
# of elfutils' test-subr.sh but speaking TAP for automake's tap-driver:
#
#   . "${top_srcdir:-.}/tests/test-subr.sh"
#   plan 2
#   testrun_compare "folded of c-fp" testdata/c-fp.folded \
#       profkit-convert --to=folded testdata/c-fp.perf-script.txt
#
# Commands run from the build tree's cmd/; paths are relative to the
# source tree. A skipped script exits 77 after "1..0 # SKIP why".
#
# Checks that need a reference tool from outside (Go pprof, Graphviz
# dot, valgrind's callgrind_annotate, perf, node with speedscope and
# ajv, python3, binutils, bash) skip with the reason where it is
# missing, through skip and skip_all: "no TOOL", or "no TOOL (more)",
# as the summary at the end of make check lists them (tests/skipped.sh).
# ./bootstrap installs them all. With PROFKIT_REQUIRE_TOOLS=1 (CI sets
# it) those skips fail instead, so a tool lost from CI cannot turn its
# checks off unnoticed. skip_optional and skip_all_optional stay skips
# even then; each caller says why what it lacks is not required (not
# packaged for Debian 12, not a tool).

set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
# The tools ./bootstrap installs that are no Debian package: Go pprof in
# .tools/bin, the npm packages (speedscope, ajv, profiler-cli) in
# .tools/node_modules, of the source tree or of $PROFKIT_TOOLS. PPROF,
# NODE_PATH or PROFILER_CLI set by hand wins.
: "${PROFKIT_TOOLS:=$top_srcdir/.tools}"
: "${NODE_PATH:=$PROFKIT_TOOLS/node_modules}"
PATH="$top_builddir/cmd:$PROFKIT_TOOLS/bin:$PATH:$PROFKIT_TOOLS/node_modules/.bin"
export PATH NODE_PATH LC_ALL=C
cd "$top_srcdir" || exit 99

tap_n=0
tap_failed=0
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/profkit-test.XXXXXX") || exit 99
trap 'rm -rf "$tmpdir"' EXIT
# An empty home: no test reads or fills the user's ~/.debug build-id
# cache, ~/.cache/profkit or ~/.perfconfig (perf record, perf script and
# profkit all look there), and symbols come only from where each test
# points.
mkdir "$tmpdir/.home" || exit 99
HOME=$tmpdir/.home
PROFKIT_SYMBOL_PATH=
export HOME PROFKIT_SYMBOL_PATH
unset XDG_CACHE_HOME PROFKIT_CACHE_DIR	# plain debug copies: that home too
unset DEBUGINFOD_URLS

plan() { echo "1..$1"; }

tools_required() { [ "${PROFKIT_REQUIRE_TOOLS:-0}" = 1 ]; }

# skip_all REASON: the whole script needs a tool that is missing here
skip_all() {
	if tools_required; then
		echo "1..1"
		echo "not ok 1 - $* (required: PROFKIT_REQUIRE_TOOLS=1)"
		exit 1
	fi
	skip_all_optional "$@"
}

# skip_all_optional REASON: not run here, and never required
# exit 0: automake's tap-driver reads 77 as an error, the plan as the skip
skip_all_optional() {
	echo "1..0 # SKIP $*"
	exit 0
}

pass() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }

# skip NAME REASON: one test not run here for want of a tool, and why
skip() {
	if tools_required; then
		fail "$1 ($2; required: PROFKIT_REQUIRE_TOOLS=1)"
	else
		skip_optional "$@"
	fi
}

# skip_optional NAME REASON: one test not run here, and never required
skip_optional() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }

fail() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

# find_pprof: set pprof to Go pprof ($PPROF, else `pprof` on PATH, where
# ./bootstrap's .tools/bin comes first), or to "" without it.
# gperftools' perl pprof is not it: it has no -raw.
find_pprof() {
	pprof=
	for c in "${PPROF:-}" "$(command -v pprof 2>/dev/null)"; do
		if [ -n "$c" ] && [ -x "$c" ] && "$c" -h 2>&1 | grep -q -e -traces; then
			pprof=$c
			return 0
		fi
	done
	echo "# no Go pprof found (./bootstrap builds one): its checks are skipped"
}

# show a file as TAP diagnostics
diag_file() { sed -e 's/^/# /' "$1" | head -n "${2:-20}"; }

# testrun_compare NAME EXPECTED-FILE COMMAND...: stdout must equal the file
# and the command must exit 0.
testrun_compare() {
	name=$1 expected=$2
	shift 2
	if "$@" >"$tmpdir/out" 2>"$tmpdir/err"; then
		if cmp -s "$expected" "$tmpdir/out"; then
			pass "$name"
		else
			fail "$name"
			diff -u "$expected" "$tmpdir/out" | diag_file /dev/stdin 30
		fi
	else
		fail "$name (exit $?)"
		diag_file "$tmpdir/err"
	fi
}

# same_output NAME THEIRS OURS: two outputs made by the test must be
# equal, and the reference one not empty
same_output() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		pass "$1"
	else
		fail "$1"
		diff "$2" "$3" | diag_file /dev/stdin
	fi
}

# same_as_stream NAME FILE "FORMATS" [OPTIONS...]: FILE converted with
# the options to each format, read from memory in 1, 2, 3 and 7 parts
# (--threads), gives what reading it as a stream (a pipe of the same
# name) gives: the output and every message, byte for byte.
same_as_stream() {
	name=$1 file=$2 tos=$3
	shift 3
	mkdir -p "$tmpdir/fifo"
	for to in $tos; do
		extra=
		[ "$to" = pprof ] && extra=--no-gzip
		rm -f "$tmpdir/fifo/$(basename "$file")"
		mkfifo "$tmpdir/fifo/$(basename "$file")"
		cat "$file" >"$tmpdir/fifo/$(basename "$file")" &
		(cd "$tmpdir/fifo" && profkit-convert "$@" --to="$to" $extra \
			"$(basename "$file")") >"$tmpdir/want" 2>"$tmpdir/want.err"
		echo "exit $?" >>"$tmpdir/want.err"
		wait
		for t in 1 2 3 7; do
			(cd "$(dirname "$file")" && profkit-convert "$@" --threads=$t \
				--to="$to" $extra "$(basename "$file")") >"$tmpdir/got" 2>"$tmpdir/got.err"
			echo "exit $?" >>"$tmpdir/got.err"
			if ! cmp -s "$tmpdir/want" "$tmpdir/got" ||
			   ! cmp -s "$tmpdir/want.err" "$tmpdir/got.err"; then
				fail "$name: --to=$to --threads=$t as one stream"
				diff "$tmpdir/want.err" "$tmpdir/got.err" | diag_file /dev/stdin
				return
			fi
		done
	done
	pass "$name: every output and warning as from one stream"
}

# testrun_status NAME WANT-STATUS STDERR-PATTERN COMMAND...: the command
# must exit WANT-STATUS with a line matching the pattern on stderr.
testrun_status() {
	name=$1 want=$2 pattern=$3
	shift 3
	"$@" >"$tmpdir/out" 2>"$tmpdir/err"
	got=$?
	if [ "$got" -eq "$want" ] && grep -q -e "$pattern" "$tmpdir/err"; then
		pass "$name"
	else
		fail "$name (exit $got, want $want)"
		diag_file "$tmpdir/err"
	fi
}

# testrun_fails NAME WANT-STATUS STDERR-PATTERN COMMAND...: a conversion
# that must fail: exit WANT-STATUS, a line matching the pattern on stderr
# (for bad input: the input's name, the offset or line, the problem), and
# $outdir, emptied before the run for the command's -o, still empty
# after it: no output file, no temporary file beside it.
outdir=$tmpdir/outdir
testrun_fails() {
	name=$1 want=$2 pattern=$3
	shift 3
	rm -rf "$outdir" && mkdir "$outdir" || exit 99
	"$@" >"$tmpdir/out" 2>"$tmpdir/err"
	got=$?
	left=$(ls -A "$outdir")
	if [ "$got" -eq "$want" ] && grep -q -e "$pattern" "$tmpdir/err" && [ -z "$left" ]; then
		pass "$name"
	else
		fail "$name (exit $got, want $want)"
		[ -z "$left" ] || echo "# left in the output directory: $left"
		echo "# wanted on stderr: $pattern"
		diag_file "$tmpdir/err"
	fi
}

# broken_copies FILE PREFIX: damaged copies of FILE, PREFIX.N, N counting
# on from $broken (set it to 0 first): cut at several points and with
# bytes flipped (awk's srand gives the same positions on every run)
broken_copies() {
	size=$(wc -c <"$1")
	for cut in 1 7 64 $((size / 3)) $((size / 2)) $((size - 1)); do
		[ "$cut" -gt 0 ] || continue
		broken=$((broken + 1))
		head -c "$cut" "$1" >"$2.$broken"
	done
	for seed in 1 2 3; do
		broken=$((broken + 1))
		od -An -v -tu1 "$1" | tr -s ' ' '\n' | sed '/^$/d' |
		awk -v seed=$seed -v size="$size" 'BEGIN { srand(seed); for (i = 0; i < 8; i++) flip[int(rand() * size) + 1] = 1 }
			{ b = $1; if (NR in flip) b = (b + 1 + int(rand() * 254)) % 256; printf "%c", b }' \
			>"$2.$broken" 2>/dev/null
	done
}

# refused_as READER: for each "NAME<TAB>MESSAGE" line of standard input,
# testdata/bad/READER/NAME read --from=READER must exit 1, write nothing
# and say exactly "profkit-convert: FILE: MESSAGE"
refused_as() {
	while IFS='	' read -r bad message; do
		f=testdata/bad/$1/$bad
		rm -rf "$outdir" && mkdir "$outdir" || exit 99
		profkit-convert -q --from="$1" --to=pprof -o "$outdir/out.pb.gz" "$f" \
			2>"$tmpdir/err"
		got=$?
		if [ $got = 1 ] && [ -z "$(ls -A "$outdir")" ] &&
			grep -F -x -q "profkit-convert: $f: $message" "$tmpdir/err"; then
			pass "$bad: refused: $message"
		else
			fail "$bad: exit $got, want 1 and: $message"
			diag_file "$tmpdir/err"
		fi
	done
}

finish() {
	[ "$tap_failed" -eq 0 ]
	exit $?
}

# install_into DIR: `make install` of this build into DIR (as DESTDIR),
# then point pkg-config and the dynamic linker there, so that
#   $CC prog.c $($PKG_CONFIG --cflags --libs libprofkit)
# compiles against the installed headers and library, and the program
# runs with the installed libprofkit.so. Sets inst_libdir and
# inst_includedir (both inside DIR). On failure it shows the end of the
# install's log as TAP diagnostics and returns non-zero.
install_into() {
	case $1 in /*) ;; *) set -- "$(pwd)/$1" ;; esac
	if ! ${MAKE:-make} -C "$top_builddir" install DESTDIR="$1" \
		>"$1.log" 2>&1; then
		tail -n 20 "$1.log" | diag_file /dev/stdin
		return 1
	fi
	inst_pc=$(find "$1" -name libprofkit.pc | head -n 1)
	[ -n "$inst_pc" ] || { echo "# no libprofkit.pc in $1"; return 1; }
	# the .pc names the configured prefix: move its paths into DIR
	destdir=$1 awk '/^(prefix|exec_prefix|libdir|includedir)=\// {
		sub(/=/, "=" ENVIRON["destdir"]) } { print }' \
		"$inst_pc" >"$inst_pc.tmp" && mv "$inst_pc.tmp" "$inst_pc" || return 1
	PKG_CONFIG_PATH=${inst_pc%/*}${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
	export PKG_CONFIG_PATH
	inst_libdir=$(${PKG_CONFIG:-pkg-config} --variable=libdir libprofkit) &&
		inst_includedir=$(${PKG_CONFIG:-pkg-config} --variable=includedir libprofkit) ||
		return 1
	LD_LIBRARY_PATH=$inst_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
}

# ---- hermetic symbols and the reference tools (tests of issue 24) ----

# link_sysroot ROOT: the recordings' system libraries (the symbol tables
# of testdata/sysroot, testdata/README.md) into a --symfs root the test
# made, each at its recorded path and by build id under /usr/lib/debug:
# no name then comes from this machine's libraries or debug packages.
link_sysroot() {
	(cd testdata/sysroot && find . ! -type d) | while read -r f; do
		f=${f#./}
		mkdir -p "$1/$(dirname "$f")" &&
			ln -s "$(pwd)/testdata/sysroot/$f" "$1/$f" || return 1
	done
}

# find_reference PATH: set reference to the reference tool PATH under
# ../shared/reference beside the source tree (FlameGraph's scripts in
# flamegraph/, gprof2dot/gprof2dot.py), or beside the clone holding it
# (make distcheck builds in a folder inside the clone);
# $PROFKIT_REFERENCE_DIR names another folder. Without it reference is
# "" and reference_missing says what is missing, for skip.
find_reference() {
	reference=
	for dir in ${PROFKIT_REFERENCE_DIR:-} "$top_srcdir/../shared/reference" \
		"$top_srcdir/../../shared/reference"; do
		if [ -f "$dir/$1" ]; then
			reference=$(cd "$(dirname "$dir/$1")" && pwd)/${1##*/}
			return 0
		fi
	done
	reference_missing="no ${PROFKIT_REFERENCE_DIR:-../shared/reference}/$1 (the reference tools beside the clone; PROFKIT_REFERENCE_DIR names another folder)"
	return 1
}

# find_otlp_check: protoc and protobuf's Python runtime over code protoc
# generates (into $tmpdir/py) from the official OTLP .proto files
# (../shared/reference/otlp/proto), for otlp_check, which runs
# tests/otlp-check.py. Sets otlp_proto to the files' root and otlp_python,
# or otlp_missing to why not, for skip.
find_otlp_check() {
	otlp_proto= otlp_python= otlp_missing=
	if ! find_reference otlp/proto/opentelemetry/proto/profiles/v1development/profiles.proto; then
		otlp_missing=$reference_missing
		return 1
	fi
	otlp_proto=${reference%/opentelemetry/*}
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import google.protobuf' 2>/dev/null; then
			otlp_python=$p
			break
		fi
	done
	if ! command -v protoc >/dev/null 2>&1; then
		otlp_missing="no protoc (apt-get install protobuf-compiler)"
	elif [ -z "$otlp_python" ]; then
		otlp_missing="no Python with google.protobuf (apt-get install python3-protobuf)"
	elif ! mkdir -p "$tmpdir/py" || ! (cd "$otlp_proto" &&
		protoc --python_out="$tmpdir/py" $(find opentelemetry -name '*.proto')); then
		otlp_missing="protoc could not compile the .proto files"
	fi
	[ -z "$otlp_missing" ]
}
otlp_check() { "$otlp_python" tests/otlp-check.py "$tmpdir/py" "$@"; }

# ---- the stacks of other outputs, as folded stacks ----

# pprof_folded RAW COLUMN: pprof -raw text as folded stacks "comm;root;
# ...;leaf value" (no comm without a comm label), summed over the samples,
# with the values of column COLUMN (1-based), sorted. Function names may
# hold blanks; inlined lines are frames of their own.
pprof_folded() {
	awk -v col="$2" '
	function frame(line) {
		sub(/^ *([0-9]+: 0x[0-9a-f]+ (M=[0-9]+ )?)?/, "", line)
		sub(/ [^ ]*:-?[0-9]+ s=-?[0-9]+$/, "", line)
		return line
	}
	/^Samples:/ { mode = "s"; getline; next }
	/^Locations/ { mode = "l"; next }
	/^Mappings/ { mode = "m"; next }
	mode == "s" && /^ *-?[0-9]+( +-?[0-9]+)*:/ {
		split($0, a, ":"); split(a[1], v, " ")
		n++; val[n] = v[col]; ids[n] = a[2]; next
	}
	mode == "s" && /comm:\[/ {
		c = $0; sub(/.*comm:\[/, "", c); sub(/\].*/, "", c)
		comm[n] = c; has_comm[n] = 1; next
	}
	mode == "l" && /^ *[0-9]+: / { id = $1 + 0; name[id] = frame($0); next }
	mode == "l" && /^             [^ ]/ { name[id] = frame($0) ";" name[id]; next }
	END {
		for (i = 1; i <= n; i++) {
			k = split(ids[i], loc, " "); s = comm[i]; first = !has_comm[i]
			for (j = k; j >= 1; j--) {
				s = first ? name[loc[j] + 0] : s ";" name[loc[j] + 0]
				first = 0
			}
			sum[s] += val[i]
		}
		for (s in sum)
			if (sum[s])
				print s, sum[s]
	}' "$1" | sort
}

# speedscope_folded FILE: the stacks of a speedscope file's sampled
# profiles (its threads) as folded stacks "root;...;leaf weight", summed
# over the profiles and sorted. Needs python3.
speedscope_folded() {
	python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
frames = [f["name"] for f in doc["shared"]["frames"]]
sums = {}
for p in doc["profiles"]:
    for stack, weight in zip(p["samples"], p["weights"]):
        key = ";".join(frames[i] for i in stack)
        sums[key] = sums.get(key, 0) + weight
for key, weight in sums.items():
    if weight:
        print("%s %s" % (key, int(weight) if weight == int(weight) else weight))
' "$1" | sort
}

# folded_sum: folded stacks on stdin summed by stack and sorted, as a
# collapse script that prints a stack as often as it meets it would
# have printed them once.
folded_sum() {
	awk '{ n = $NF; sub(/ [^ ]*$/, ""); sum[$0] += n } END { for (s in sum) print s, sum[s] }' | sort
}
