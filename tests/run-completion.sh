#!/bin/sh
# the bash completion (made by the build) against the commands: its option list for
# each command is what --help prints, and --from= and --to= complete the
# names --list-formats prints. Runs the completion function in bash as
# readline would, with COMP_WORDS, COMP_CWORD and COMPREPLY.
. "${top_srcdir:-.}/tests/test-subr.sh"
command -v bash >/dev/null 2>&1 || skip_all "no bash"
# the commands as the dispatcher lists them (from cmd/commands.am)
commands=$(profkit --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]*\) .*/\1/p')
[ -n "$commands" ] || { echo "Bail out! profkit --help lists no commands"; exit 1; }
plan 40

# comp_reply WORD...: the replies for the last WORD, one a line, sorted
cat >"$tmpdir/complete.bash" <<'EOF'
. "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_profkit "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
EOF
comp_reply() {
	bash "$tmpdir/complete.bash" "$top_builddir/doc/profkit.bash-completion" "$@"
}

# the options --help lists: '-o' and '--output=' for '-o, --output=FILE'
help_options() {
	"$1" --help | sed -n '/^Examples:/q
s/^  \(-[A-Za-z0-9]\), \(--[a-z0-9-]*\)\(=\{0,1\}\).*/\1\
\2\3/p
s/^      \(--[a-z0-9-]*\)\(=\{0,1\}\).*/\1\2/p' | LC_ALL=C sort
}

# option lists: 8 commands x 2 (profkit-NAME and profkit NAME)
for c in $commands; do
	help_options profkit-$c >"$tmpdir/want"
	comp_reply profkit-$c - >"$tmpdir/got"
	if [ -s "$tmpdir/want" ] && cmp -s "$tmpdir/want" "$tmpdir/got"; then
		pass "profkit-$c: the options of its --help"
	else
		fail "profkit-$c: the options of its --help"
		diff "$tmpdir/want" "$tmpdir/got" | diag_file /dev/stdin
		echo "# in _profkit_options: $c) echo \"$(profkit-$c --help |
			sed -n '/^Examples:/q
s/^  \(-[A-Za-z0-9]\), \(--[a-z0-9-]*\)\(=\{0,1\}\).*/\1 \2\3/p
s/^      \(--[a-z0-9-]*\)\(=\{0,1\}\).*/\1\2/p' | tr '\n' ' ' | sed 's/ $//')\" ;;"
	fi
	comp_reply profkit $c - >"$tmpdir/got2"
	same_output "profkit $c: the same options" "$tmpdir/got" "$tmpdir/got2"
done

# a short option's value completes as its long one's does
: >"$tmpdir/pairs"
for c in $commands; do
	profkit-$c --help | sed -n 's/^  \(-[A-Za-z0-9]\), \(--[a-z0-9-]*\).*/\1 \2/p' \
		>>"$tmpdir/pairs"
done
bad=
while read -r short long; do
	got=$(bash -c '. "$1"; _profkit_long_of "$2"' sh \
		"$top_builddir/doc/profkit.bash-completion" "$short")
	[ "$got" = "$long" ] || bad="$bad $short=$got(want $long)"
done <"$tmpdir/pairs"
[ -s "$tmpdir/pairs" ] && [ -z "$bad" ] && pass "short options stand for their long ones" ||
	fail "short options:$bad"

# the dispatcher: the commands 'profkit --help' lists
profkit --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' |
	LC_ALL=C sort >"$tmpdir/want"
comp_reply profkit "" >"$tmpdir/got"
same_output "profkit: the commands of its --help" "$tmpdir/want" "$tmpdir/got"
profkit --help | sed -n 's/^ *profkit \(--[a-z]*\) | \(--[a-z]*\)$/\1\
\2/p' | LC_ALL=C sort >"$tmpdir/want"
comp_reply profkit - >"$tmpdir/got"
same_output "profkit: the options of its --help" "$tmpdir/want" "$tmpdir/got"

# formats, as bash splits --to=p into '--to' '=' 'p' and as one word
profkit-convert --list-formats >"$tmpdir/formats"
sed -n '/^Input/,/^$/s/^  \([a-z0-9-]*\) .*/\1/p' "$tmpdir/formats" |
	LC_ALL=C sort >"$tmpdir/in"
sed -n '/^Output/,/^$/s/^  \([a-z0-9-]*\) .*/\1/p' "$tmpdir/formats" |
	LC_ALL=C sort >"$tmpdir/out"
comp_reply profkit-convert --to = >"$tmpdir/got"
same_output "--to=: the output formats" "$tmpdir/out" "$tmpdir/got"
comp_reply profkit-convert --from = >"$tmpdir/got"
same_output "--from=: the input formats" "$tmpdir/in" "$tmpdir/got"
sed 's/^/--to=/' "$tmpdir/out" >"$tmpdir/want"
comp_reply profkit-convert -q --to= >"$tmpdir/got"
same_output "--to= as one word" "$tmpdir/want" "$tmpdir/got"
comp_reply profkit-convert --to "" >"$tmpdir/got"
same_output "--to FMT" "$tmpdir/out" "$tmpdir/got"
grep '^p' "$tmpdir/out" >"$tmpdir/want"
comp_reply profkit convert --to = p >"$tmpdir/got"
same_output "profkit convert --to=p" "$tmpdir/want" "$tmpdir/got"
grep '^gperftools' "$tmpdir/in" >"$tmpdir/want"
comp_reply profkit-top --from = gperf >"$tmpdir/got"
same_output "profkit-top --from=gperf" "$tmpdir/want" "$tmpdir/got"
for c in merge diff filter symbolize; do
	comp_reply profkit-$c --to = >"$tmpdir/got"
	same_output "profkit-$c --to=: the output formats" "$tmpdir/out" "$tmpdir/got"
done

# the values --help names in quotes
help_values() {
	profkit-$1 --help | sed -n "s/^      --$2=[A-Z]* *//p" |
		grep -o "'[a-z]*'" | tr -d "'" | LC_ALL=C sort
}
for cv in convert:value convert:demangle convert:labels diff:value; do
	c=${cv%:*} v=${cv#*:}
	help_values $c $v >"$tmpdir/want"
	comp_reply profkit-$c --$v = >"$tmpdir/got"
	same_output "profkit-$c --$v=: what --help names" "$tmpdir/want" "$tmpdir/got"
done

# -X: the keys --help lists by key (profkit-convert the formats',
# profkit-filter its own), and the words of a choice
help_keys() {
	"$1" --help | sed -n '/^Options by key/,/^Examples:/s/^  \([a-z-]*:[a-z-]*\)\(=\{0,1\}\).*/\1\2/p'
}
{ help_keys profkit-convert; help_keys profkit-filter; } | LC_ALL=C sort >"$tmpdir/want"
comp_reply profkit-convert -X "" | grep : >"$tmpdir/got"
same_output "-X: the keys of the formats and the transforms" "$tmpdir/want" "$tmpdir/got"
profkit-convert --help | sed -n "s/^  pprof:labels=[A-Z]* *//p" | grep -o "'[a-z]*'" |
	tr -d "'" | LC_ALL=C sort >"$tmpdir/want"
comp_reply profkit-convert -X pprof : labels = >"$tmpdir/got"
same_output "-X pprof:labels=: what --help names" "$tmpdir/want" "$tmpdir/got"
printf 'labels=\n' >"$tmpdir/want"
comp_reply profkit-merge --option = pprof : la >"$tmpdir/got"
same_output "--option=pprof:la as one word" "$tmpdir/want" "$tmpdir/got"

# files and directories: after -o, after -O, as operands, after --
mkdir "$tmpdir/d" "$tmpdir/d/sub"
: >"$tmpdir/d/a.txt"
printf '%s\n' "$tmpdir/d/a.txt" "$tmpdir/d/sub" >"$tmpdir/want"
comp_reply profkit-convert -o "$tmpdir/d/" >"$tmpdir/got"
same_output "-o: files" "$tmpdir/want" "$tmpdir/got"
echo "$tmpdir/d/sub" >"$tmpdir/want"
comp_reply profkit-convert --output-dir = "$tmpdir/d/" >"$tmpdir/got"
same_output "--output-dir=: directories" "$tmpdir/want" "$tmpdir/got"
echo "$tmpdir/d/a.txt" >"$tmpdir/want"
comp_reply profkit-merge --to=pprof "$tmpdir/d/a" >"$tmpdir/got"
same_output "operands: files" "$tmpdir/want" "$tmpdir/got"
comp_reply profkit-convert --to = -- "$tmpdir/d/a" >"$tmpdir/got"
same_output "after --: files" "$tmpdir/want" "$tmpdir/got"
finish
