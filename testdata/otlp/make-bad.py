# The hostile protobuf inputs of testdata/bad/otlp, each one fault in a
# small valid profile (testdata/README.md; tests/run-otlp-bad.sh says what
# each must do):
#   protoc --python_out=PYDIR -I ../shared/reference/otlp/proto \
#       $(cd ../shared/reference/otlp/proto && find opentelemetry -name '*.proto')
#   cd testdata/bad/otlp && python3 ../../otlp/make-bad.py PYDIR
import sys
sys.path.insert(0, sys.argv[1])
from opentelemetry.proto.profiles.v1development import profiles_pb2 as P  # noqa: E402

def base():
    m = P.ProfilesData()
    d = m.dictionary
    d.mapping_table.add(); d.location_table.add(); d.function_table.add()
    d.link_table.add(); d.attribute_table.add(); d.stack_table.add()
    d.string_table.extend(["", "cpu", "nanoseconds", "main"])
    d.function_table.add(name_strindex=3)
    loc = d.location_table.add(address=0x1000)
    loc.lines.add(function_index=1)
    d.stack_table.add(location_indices=[1])
    prof = m.resource_profiles.add().scope_profiles.add().profiles.add()
    prof.sample_type.type_strindex = 1
    prof.sample_type.unit_strindex = 2
    prof.samples.add(stack_index=1, values=[10])
    return m

def write(name, m):
    open(name, "wb").write(m.SerializeToString())

m = base(); m.resource_profiles[0].scope_profiles[0].profiles[0].samples[0].stack_index = 9
write("stack-index.otlp.pb", m)
m = base(); m.dictionary.stack_table[1].location_indices.append(7)
write("location-index.otlp.pb", m)
m = base(); m.dictionary.function_table[1].name_strindex = 40
write("string-index.otlp.pb", m)
m = base(); m.dictionary.location_table[1].mapping_index = -3
write("mapping-index.otlp.pb", m)
m = base(); m.resource_profiles[0].scope_profiles[0].profiles[0].samples[0].attribute_indices.append(5)
write("attribute-index.otlp.pb", m)
m = base(); m.dictionary.string_table[0] = "x"
write("string-table-0.otlp.pb", m)
m = base()
s = m.resource_profiles[0].scope_profiles[0].profiles[0].samples[0]
s.values.append(20); s.timestamps_unix_nano.extend([1, 2, 3])
write("values-timestamps.otlp.pb", m)
# attribute values holding themselves, 2000 deep
m = base()
a = m.dictionary.attribute_table.add(key_strindex=3)
v = a.value
for i in range(2000):
    v = v.array_value.values.add()
v.int_value = 1
write("nested-values.otlp.pb", m)
# cut in the middle of a varint (a length)
data = base().SerializeToString()
i = data.index(b"\x12")  # the dictionary's tag, then its length
open("truncated-varint.otlp.pb", "wb").write(data[:i + 1] + bytes([0x80 | (data[i + 1] & 0x7f)]))
# a packed array of location indexes claiming more bytes than the file has
m = base()
data = bytearray(m.SerializeToString())
open("huge-length.otlp.pb", "wb").write(bytes(data[:-2]) + b"\x3a\xff\xff\xff\xff\x0f")
# the dictionary's field as a number (wrong wire type for a message)
open("wrong-wire-type.otlp.pb", "wb").write(b"\x10\x01" + base().SerializeToString())
