#!/bin/sh
# Hostile OTLP: each file of testdata/bad/otlp (made as testdata/README.md
# says) must fail with exit 1, nothing written, and the message below,
# which names the input and where (a byte offset, a JSON path, or the
# message and the dictionary's entry); and a table too large for the
# memory limit fails as well. (tests/bad-input.sh cuts and flips bytes of
# testdata/otlp's files, as of every reader's.)
. "${top_srcdir:-.}/tests/test-subr.sh"
b=testdata/bad/otlp
plan 19

# expect FILE MESSAGE: --from=otlp fails with "FILE: MESSAGE"
expect() {
	testrun_fails "$1" 1 "^profkit-convert: $b/$1: $2" \
		profkit-convert -q --from=otlp --to=pprof -o "$outdir/out.pb.gz" "$b/$1"
}
in_sample="OTLP profiles: resource 1, scope 1, profile 1, sample 1"
expect stack-index.otlp.pb "$in_sample: stack_index 9 is out of range (the stack table has 2 entries)"
expect location-index.otlp.pb "$in_sample, stack_table\[1\]: location index 7 is out of range (the location table has 2 entries)"
expect mapping-index.otlp.pb "$in_sample, location_table\[1\]: mapping_index -3 is out of range (the mapping table has 1 entry)"
expect string-index.otlp.pb "$in_sample, function_table\[1\]: string index 40 is out of range (the string table has 4 entries)"
expect attribute-index.otlp.pb "$in_sample: attribute index 5 is out of range (the attribute table has 1 entry)"
expect string-table-0.otlp.pb 'OTLP profiles: string_table\[0\] is not ""'
expect values-timestamps.otlp.pb "$in_sample: 2 values for 3 timestamps"
expect nested-values.otlp.pb "offset 0x91: AnyValue nests deeper than the schema allows"
expect truncated-varint.otlp.pb "offset 0x0: ProfilesData.resource_profiles (17 bytes) runs past the end of the file (truncated file?)"
expect huge-length.otlp.pb "offset 0x4a: Stack.location_indices (58 bytes) runs past the end of its Stack"
expect wrong-wire-type.otlp.pb "offset 0x0: ProfilesData.dictionary is not protobuf of its type"
profiles='$.resourceProfiles\[0\].scopeProfiles\[0\].profiles\[0\]'
expect bad-base64.otlp.json "offset 65 ($profiles.profileId): expected base64"
expect bad-hex.otlp.json 'offset 39 (\$.dictionary.linkTable\[0\].traceId): expected hex digits'
expect bad-int64.otlp.json "offset 68 ($profiles.timeUnixNano): expected a whole number from 0"
expect int32-range.otlp.json "offset 78 ($profiles.samples\[0\].stackIndex): expected a 32-bit number"
expect object-for-array.otlp.json "offset 63 ($profiles.samples): expected an array"
expect nested-values.otlp.json "offset 1100 (.*): objects and arrays nested deeper than 128"
expect truncated.otlp.json 'offset 153 (\$.dictionary.stackTable): the input ends inside the document'

# 2^17 empty mappings: 2 bytes each in the file (a tag, a length of 0),
# several times that as protobuf-c's messages
printf '\n\000' >"$tmpdir/mappings"
for i in $(seq 17); do
	cat "$tmpdir/mappings" "$tmpdir/mappings" >"$tmpdir/twice" &&
		mv "$tmpdir/twice" "$tmpdir/mappings"
done
# the dictionary's tag and length (262144 as a varint), then the mappings
{ printf '\022\200\200\020' && cat "$tmpdir/mappings"; } >"$tmpdir/many.pb"
testrun_fails "a table larger than --max-memory" 1 "more than the memory limit" \
	profkit-convert -q --max-memory=2M --to=pprof -o "$outdir/out.pb.gz" "$tmpdir/many.pb"

finish
