#!/bin/sh
# One escaping rule in every JSON writer (lib/util/json.h): a frame whose
# name holds a quote, a backslash, control characters, DEL, bytes that
# are not UTF-8 and a character past U+FFFF is written the same way by
# each of them, and python3's json module reads each file back and finds
# the name it should, bad bytes become U+FFFD.
#
# The JSON writers are those --list-formats describes as JSON, so a new
# one is checked here without a change.
. "${top_srcdir:-.}/tests/test-subr.sh"

command -v python3 >/dev/null 2>&1 || skip_all "no python3"

writers=$(profkit-convert --list-formats |
	awk '/^Output formats/ { out = 1; next } out && /JSON/ { print $1 }')
set -- $writers
plan $((1 + 2 * $#))

# the name: q " b \ c ^A ^H ^L ^M ^_ TAB DEL, a space, then 0xff, a lone
# lead byte 0xc3 before "(", a surrogate's UTF-8 (ED A0 80), and
# U+00E9 and U+1F600 as UTF-8
printf 'main;q\042b\134c\001\010\014\015\037\011\177 \377\303(\355\240\200\303\251\360\237\230\200 2\n' \
	>"$tmpdir/hostile.folded"
# how the one rule writes it: short escapes where JSON has them, \u00xx
# for other controls and DEL, U+FFFD as its UTF-8 for each bad byte,
# characters past U+FFFF as UTF-8 (not surrogate pairs)
printf '"q\\"b\\\\c\\u0001\\b\\f\\r\\u001f\\t\\u007f \357\277\275\357\277\275(\357\277\275\357\277\275\357\277\275\303\251\360\237\230\200"' \
	>"$tmpdir/encoded"
# and what it decodes to
expected='q"b\\c\x01\b\f\r\x1f\t\x7f \ufffd\ufffd(\ufffd\ufffd\ufffd\u00e9\U0001f600'

missing=
for known in speedscope chrome-trace gprof2dot firefox; do
	case " $* " in *" $known "*) ;; *) missing="$missing $known" ;; esac
done
[ -z "$missing" ] && pass "the JSON writers include the four of today: $*" ||
	fail "the JSON writers include the four of today: $* (not:$missing)"

for w in $writers; do
	if ! profkit-convert --to="$w" "$tmpdir/hostile.folded" \
		>"$tmpdir/$w.json" 2>"$tmpdir/err"; then
		fail "$w: the name is escaped by the one rule (exit $?)"
		diag_file "$tmpdir/err"
		fail "$w: parses as JSON and the name decodes as it should"
		continue
	fi
	if grep -qF "$(cat "$tmpdir/encoded")" "$tmpdir/$w.json"; then
		pass "$w: the name is escaped by the one rule"
	else
		fail "$w: the name is escaped by the one rule"
		grep -a 'q\\"b' "$tmpdir/$w.json" | cut -c 1-200 | od -c | diag_file /dev/stdin
	fi
	# every string of the document that starts as the name does is it
	if python3 - "$tmpdir/$w.json" "$expected" >"$tmpdir/check" 2>&1 <<'EOF'
import json, sys

want = sys.argv[2].encode().decode("unicode_escape")
with open(sys.argv[1], "rb") as f:
    doc = json.loads(f.read().decode("utf-8"))
found = []

def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(k)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
    elif isinstance(v, str) and v.startswith('q"'):
        found.append(v)

walk(doc)
if not found:
    sys.exit("the name is nowhere in the document")
for v in found:
    if v != want:
        sys.exit("decoded %r, want %r" % (v, want))
EOF
	then
		pass "$w: parses as JSON and the name decodes as it should"
	else
		fail "$w: parses as JSON and the name decodes as it should"
		diag_file "$tmpdir/check"
	fi
done
finish
