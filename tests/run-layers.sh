#!/bin/sh
# The layers of lib/ (doc/architecture.md) read off the #include lines:
# each file includes only its own folder and the layers below its own,
# a format nothing of another format, and the commands only the public
# headers. One test per folder; a failure names the file, the line and
# the rule it breaks.
. "${top_srcdir:-.}/tests/test-subr.sh"

cd "$top_srcdir" || exit 99

# allowed FOLDER: the folders a file in FOLDER may include from, besides
# its own; system and public (<profkit/...>) headers are always allowed
allowed() {
	case $1 in
	util) echo "" ;;
	core) echo "util" ;;
	symbolize | transforms) echo "util core" ;;
	formats) echo "util core symbolize transforms" ;;
	pipeline) echo "util core symbolize transforms formats" ;;
	esac
}

# check FOLDER: print "FILE:LINE: RULE" for each include that breaks a rule
check() {
	layer=$1
	find "lib/$layer" -name '*.[ch]' | sort | while read -r file; do
		dir=$(dirname "$file")
		# the format (its file, or its folder under lib/formats/)
		unit=$(echo "$file" | sed -n 's|^lib/formats/\([^/.]*\).*|\1|p')
		grep -n '^#include "' "$file" | sed 's/^\([0-9]*\):#include "\(.*\)".*/\1 \2/' |
		while read -r line path; do
			case $path in
			proto/*.pb-c.h)	# the wire schemas, generated
				continue ;;
			*/*) ;;
			*)	# unqualified: its own folder's
				[ -f "$dir/$path" ] ||
					echo "$file:$line: \"$path\" is not in $dir/: name its folder"
				continue ;;
			esac
			top=${path%%/*}
			if [ "$top" = "$layer" ]; then
				# within formats, a format includes only itself and
				# the list of formats (formats/registry.h)
				if [ "$layer" = formats ] && [ "$path" != formats/registry.h ]; then
					other=$(echo "$path" | sed 's|^formats/\([^/.]*\).*|\1|')
					[ "$other" = "$unit" ] ||
						echo "$file:$line: a format includes another format ($path)"
				fi
				continue
			fi
			case " $(allowed "$layer") " in
			*" $top "*) ;;
			*) echo "$file:$line: $layer includes $top ($path): only $(allowed "$layer" | sed 's/^$/nothing of profkit/') may be included" ;;
			esac
		done
	done
}

layers="util core symbolize transforms formats pipeline"
plan 8
for layer in $layers; do
	check "$layer" >"$tmpdir/$layer"
	if [ -s "$tmpdir/$layer" ]; then
		sed 's/^/# /' "$tmpdir/$layer"
		fail "lib/$layer/ includes only what its layer may"
	else
		pass "lib/$layer/ includes only what its layer may"
	fi
done

# every folder of lib/ with sources is a layer above (or the public headers)
extra=$(cd lib && for d in */; do
	d=${d%/}
	[ -n "$(find "$d" -name '*.[ch]' | head -n 1)" ] || continue
	case " $layers include " in *" $d "*) ;; *) echo "$d" ;; esac
done)
[ -z "$extra" ] && pass "every folder of lib/ is a layer" ||
	fail "every folder of lib/ is a layer (not: $extra; add it to doc/architecture.md and here)"

# the commands see the public API only
grep -n '^#include "' cmd/*.c cmd/*.h |
	grep -v '"cmd\.h"\|"parse-options\.h"\|"cmd/command-list\.h"' >"$tmpdir/cmd"
[ ! -s "$tmpdir/cmd" ] && pass "cmd/ includes only <profkit/...> and its own headers" || {
	sed 's/^/# /' "$tmpdir/cmd"
	fail "cmd/ includes only <profkit/...> and its own headers"
}
finish
