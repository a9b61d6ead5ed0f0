#!/bin/sh
# Build one libFuzzer binary per reader with clang, and one of the debug
# files' units (fuzz-debug-units.c):
#   fuzz/build.sh SRCDIR BUILDDIR "LIBS" "LIBRARY-SOURCES" READER...
# (make fuzz calls it with the configured libraries.) The library is
# compiled once with -fsanitize=fuzzer-no-link,address,undefined.
set -eu
src=$1 build=$2 libs=$3 sources=$4
shift 4
cc=${FUZZ_CC:-clang}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
out=$build/fuzz/bin
mkdir -p "$out/obj"
cflags="-g -O1 -std=gnu11 -include $build/config.h -I$src/lib/include -I$src/lib -I$build $(pkg-config --cflags jansson libprotobuf-c zlib)"
objs=
# objects named after the path (lib/formats/perf-data/model.c: lib_formats_perf-data_model.o),
# as files in different folders may share a name; an object older than its
# source or than any header is rebuilt (a struct that changed in a header
# would otherwise differ between old and new objects)
newest_header=$(ls -t $(find "$src/lib" -name "*.h") \
	"$build/config.h" | head -n 1)
for f in $(for s in $sources; do echo "$src/$s"; done) "$build"/proto/*.pb-c.c; do
	o=$out/obj/$(echo "${f#"$src"/}" | sed 's|^'"$build"'/||; s|/|_|g; s|\.c$||').o
	if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ "$newest_header" -nt "$o" ]; then
		$cc $cflags $san -fsanitize=fuzzer-no-link -c "$f" -o "$o"
	fi
	objs="$objs $o"
done
for r in "$@"; do
	$cc $cflags $san -fsanitize=fuzzer -DFUZZ_READER="\"$r\"" \
		"$src/fuzz/fuzz-reader.c" $objs $libs -o "$out/fuzz-$r"
	echo "built $out/fuzz-$r"
done
# not a reader: what debug files' aranges and units say (debug-units.c)
$cc $cflags $san -fsanitize=fuzzer "$src/fuzz/fuzz-debug-units.c" $objs $libs \
	-o "$out/fuzz-debug-units"
echo "built $out/fuzz-debug-units"
