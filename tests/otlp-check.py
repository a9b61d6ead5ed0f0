#!/usr/bin/env python3
# An independent reader of profkit's OTLP output, for tests/run-otlp.sh:
# protobuf's own Python runtime over code protoc generated from the
# official OpenTelemetry .proto files (never profkit's), and of pprof's
# profile.proto to compare with.
#
#   otlp-check.py PYDIR rules FILE         profcheck's rules; exit 1 on any broken
#   otlp-check.py PYDIR stacks FILE        "TYPE/UNIT<tab>root;...;leaf<tab>weight",
#                                          " #N" after the unit for the N-th
#                                          sample type of one type and unit
#   otlp-check.py PYDIR pprof-stacks FILE  the same of a pprof profile
#   otlp-check.py PYDIR raw-canonical FILE `pprof -raw` text in an order of
#                                          its own (samples sorted)
#   otlp-check.py PYDIR same PB JSON       the two encodings hold one message
#   otlp-check.py PYDIR judge LIST         for each line "NAME<tab>PB<tab>JSON<tab>PPROF"
#                                          of LIST, same, rules and stacks
#                                          against the pprof, a line each:
#                                          "NAME<tab>CHECK<tab>ok" or the problem
#   otlp-check.py PYDIR resource FILE      "KEY=VALUE" of each resource attribute
#   otlp-check.py PYDIR payload FILE       the original payload's format and size
#   otlp-check.py PYDIR shape FILE         "timestamps" or "aggregated", and the
#                                          frame types the locations have
#
# PYDIR holds the generated modules (profile_pb2 from a profile.proto whose
# string_table is bytes: our pprof keeps a name's bytes as the input had
# them); FILE is protobuf, or OTLP JSON (one document a line) when it
# starts with "{" (no ProfilesData does: that is field 15's group start);
# gzipped or not.
import base64
import codecs
import collections
import gzip
import json
import sys

sys.path.insert(0, sys.argv[1])
from google.protobuf import json_format  # noqa: E402
from opentelemetry.proto.profiles.v1development import profiles_pb2  # noqa: E402


def each_byte_replaced(error):
    return ("\ufffd" * (error.end - error.start), error.end)


codecs.register_error("each-byte-replaced", each_byte_replaced)


def hex_ids_to_base64(node):
    """OTLP JSON writes trace and span ids in hex, where protobuf's JSON
    mapping (which json_format follows) has base64 for bytes."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("traceId", "spanId") and isinstance(value, str):
                node[key] = base64.b64encode(bytes.fromhex(value)).decode()
            else:
                hex_ids_to_base64(value)
    elif isinstance(node, list):
        for value in node:
            hex_ids_to_base64(value)


def load(path):
    """Every message of the file (a JSON file may hold one a line)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if data[:1] == b"{":
        messages = []
        for line in data.decode("utf-8").splitlines():
            if line.strip():
                doc = json.loads(line)
                hex_ids_to_base64(doc)
                messages.append(json_format.ParseDict(doc, profiles_pb2.ProfilesData()))
        return messages
    message = profiles_pb2.ProfilesData()
    message.ParseFromString(data)
    return [message]


def profiles(message):
    for rp in message.resource_profiles:
        for sp in rp.scope_profiles:
            for prof in sp.profiles:
                yield rp, prof


def check_rules(message):
    """profcheck's rules (go.opentelemetry.io/collector's profile
    validator, which needs a newer Go than Debian has), as written here:
    every table present with its zero value at index 0, every index in
    range, mappings' start at most their limit, timestamps within the
    profile's time and duration, one value shape per profile, attribute
    keys in the string table and unique where a message lists them."""
    errors = []
    d = message.dictionary
    tables = {
        "mapping_table": d.mapping_table, "location_table": d.location_table,
        "function_table": d.function_table, "link_table": d.link_table,
        "attribute_table": d.attribute_table, "stack_table": d.stack_table,
    }
    for name, table in tables.items():
        if len(table) == 0:
            errors.append("%s has no entry 0" % name)
        elif name == "link_table":
            if any(table[0].trace_id) or any(table[0].span_id):
                errors.append("link_table[0] is not zero")
        elif table[0].ByteSize() != 0:
            errors.append("%s[0] is not the zero value" % name)
    if len(d.string_table) == 0 or d.string_table[0] != "":
        errors.append('string_table[0] is not ""')

    def index(value, table, what):
        if not 0 <= value < len(table):
            errors.append("%s %d out of range (%d entries)" % (what, value, len(table)))

    def attributes(indices, what):
        keys = set()
        for a in indices:
            index(a, d.attribute_table, what + " attribute")
            if 0 <= a < len(d.attribute_table):
                key = d.attribute_table[a].key_strindex
                index(key, d.string_table, what + " attribute key")
                if 0 < key < len(d.string_table):
                    if not d.string_table[key]:
                        errors.append("%s attribute %d has an empty key" % (what, a))
                    if key in keys:
                        errors.append("%s repeats attribute key %s" % (what, d.string_table[key]))
                    keys.add(key)

    for i, a in enumerate(d.attribute_table[1:], 1):
        index(a.key_strindex, d.string_table, "attribute %d key" % i)
        index(a.unit_strindex, d.string_table, "attribute %d unit" % i)
        if a.value.WhichOneof("value") == "string_value_strindex":
            index(a.value.string_value_strindex, d.string_table, "attribute %d value" % i)
    for i, m in enumerate(d.mapping_table):
        if m.memory_start > m.memory_limit:
            errors.append("mapping %d starts past its limit" % i)
        index(m.filename_strindex, d.string_table, "mapping %d file" % i)
        attributes(m.attribute_indices, "mapping %d" % i)
    for i, loc in enumerate(d.location_table):
        index(loc.mapping_index, d.mapping_table, "location %d mapping" % i)
        for line in loc.lines:
            index(line.function_index, d.function_table, "location %d function" % i)
        attributes(loc.attribute_indices, "location %d" % i)
    for i, f in enumerate(d.function_table):
        for field in ("name_strindex", "system_name_strindex", "filename_strindex"):
            index(getattr(f, field), d.string_table, "function %d %s" % (i, field))
    for i, s in enumerate(d.stack_table):
        for loc in s.location_indices:
            index(loc, d.location_table, "stack %d location" % i)
    for n, (rp, prof) in enumerate(profiles(message)):
        what = "profile %d" % n
        index(prof.sample_type.type_strindex, d.string_table, what + " type")
        index(prof.sample_type.unit_strindex, d.string_table, what + " unit")
        attributes(prof.attribute_indices, what)
        shapes = set()
        end = prof.time_unix_nano + prof.duration_nano
        for k, s in enumerate(prof.samples):
            index(s.stack_index, d.stack_table, "%s sample %d stack" % (what, k))
            index(s.link_index, d.link_table, "%s sample %d link" % (what, k))
            attributes(s.attribute_indices, "%s sample %d" % (what, k))
            if not s.values and not s.timestamps_unix_nano:
                errors.append("%s sample %d has no values or timestamps" % (what, k))
            if s.values and s.timestamps_unix_nano and \
                    len(s.values) != len(s.timestamps_unix_nano):
                errors.append("%s sample %d: values and timestamps differ" % (what, k))
            shapes.add((bool(s.values), bool(s.timestamps_unix_nano),
                        len(s.values) if not s.timestamps_unix_nano else None))
            for t in s.timestamps_unix_nano:
                if not prof.time_unix_nano <= t <= end:
                    errors.append("%s sample %d: timestamp %d outside [%d, %d]"
                                  % (what, k, t, prof.time_unix_nano, end))
        if len(shapes) > 1:
            errors.append("%s has samples of %d shapes" % (what, len(shapes)))
    return errors


def frames(d, stack_index):
    """A stack root first, a location's inlined functions outermost first;
    a location without lines is its address."""
    out = []
    for li in reversed(d.stack_table[stack_index].location_indices):
        loc = d.location_table[li]
        if loc.lines:
            out += [d.string_table[d.function_table[line.function_index].name_strindex]
                    for line in reversed(loc.lines)]
        else:
            out.append("0x%x" % loc.address)
    return ";".join(out)


def print_stacks(weights):
    for (kind, stack), weight in sorted(weights.items()):
        if weight:
            print("%s\t%s\t%d" % (kind, stack, weight))


def otlp_kinds(message):
    """Each profile with its kind: its type and unit, numbered as pprof's
    columns are when a scope has profiles of one type and unit that their
    attributes tell apart (as JFR's durations of two events); profiles
    that nothing tells apart are one kind, their weights summed."""
    d = message.dictionary
    for rp in message.resource_profiles:
        for sp in rp.scope_profiles:
            seen = {}
            for prof in sp.profiles:
                kind = "%s/%s" % (d.string_table[prof.sample_type.type_strindex],
                                  d.string_table[prof.sample_type.unit_strindex])
                identity = sorted(d.attribute_table[a].SerializeToString(deterministic=True)
                                  for a in prof.attribute_indices)
                identities = seen.setdefault(kind, [])
                if identity not in identities:
                    identities.append(identity)
                n = identities.index(identity) + 1
                yield prof, kind if n == 1 else "%s #%d" % (kind, n)


def otlp_weights(messages):
    weights = collections.Counter()
    for message in messages:
        d = message.dictionary
        for prof, kind in otlp_kinds(message):
            for s in prof.samples:
                weight = sum(s.values) if s.values else len(s.timestamps_unix_nano)
                weights[(kind, frames(d, s.stack_index))] += weight
    return weights


def pprof_weights(path):
    """The same of a pprof profile (gzipped), read by code generated from
    proto/profile.proto, which has pprof's field numbers."""
    import profile_pb2
    with open(path, "rb") as f:
        data = f.read()
    p = profile_pb2.Profile()
    p.ParseFromString(gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data)
    # as our OTLP has them: each byte of no UTF-8 character is U+FFFD
    st = [s.decode("utf-8", "each-byte-replaced") for s in p.string_table]
    functions = {f.id: st[f.name] for f in p.function}
    locations = {loc.id: loc for loc in p.location}
    kinds, seen = [], collections.Counter()
    for t in p.sample_type:
        kind = "%s/%s" % (st[t.type], st[t.unit])
        seen[kind] += 1
        kinds.append(kind if seen[kind] == 1 else "%s #%d" % (kind, seen[kind]))
    weights = collections.Counter()
    for s in p.sample:
        out = []
        for i in reversed(s.location_id):
            loc = locations[i]
            if loc.line:
                out += [functions[line.function_id] for line in reversed(loc.line)]
            else:
                out.append("0x%x" % loc.address)
        for kind, value in zip(kinds, s.value):
            weights[(kind, ";".join(out))] += value
    return weights


def stacks_differ(ours, theirs):
    """The first stack whose weight differs ("" when none does)."""
    for key in sorted(set(ours) | set(theirs)):
        if ours[key] != theirs[key]:
            return "%s %s: OTLP %d, pprof %d" % (key[0], key[1], ours[key], theirs[key])
    return ""


def judge(list_path):
    """same, rules and stacks of many inputs in one process (protobuf's
    Python runtime takes longer to start than to check a profile)."""
    with open(list_path) as f:
        lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    for name, pb, js, pprof in lines:
        try:
            ours = load(pb)
            results = [
                ("same", "" if ours == load(js) else "the JSON holds another message"),
                ("rules", "; ".join([e for m in ours for e in check_rules(m)][:5])),
                ("stacks", stacks_differ(otlp_weights(ours), pprof_weights(pprof))),
            ]
        except Exception as e:  # a file that does not parse is a failure
            results = [(c, "%s: %s" % (type(e).__name__, e)) for c in ("same", "rules", "stacks")]
        for check, problem in results:
            print("%s\t%s\t%s" % (name, check, problem or "ok"))
        sys.stdout.flush()


def raw_canonical(path):
    """`pprof -raw` text with each sample's location ids replaced by the
    locations (their mappings' ids by the mappings), samples sorted: a
    profile's text whatever the order of its samples, which OTLP keeps
    only within a process and a sample type."""
    head, samples, locations, mappings, section = [], [], {}, {}, None
    for text in open(path, encoding="utf-8", errors="replace"):
        text = text.rstrip("\n")
        if text in ("Samples:", "Locations", "Mappings"):
            section = text
            head.append(text)
        elif section is None or (section == "Samples:" and head[-1] == "Samples:"):
            head.append(text)	# the header, then the sample types
        elif section == "Samples:" and text.startswith(" " * 16):
            samples[-1].append(text.strip())
        elif section == "Samples:":
            samples.append([text])
        elif section == "Locations" and text[:6].strip().isdigit():
            location, rest = text.split(": ", 1)
            location = int(location)
            locations[location] = [rest]
        elif section == "Locations":
            locations[location].append(text.strip())
        elif section == "Mappings":
            mapping, rest = text.split(": ", 1)
            mappings[mapping] = rest

    def location_text(i):
        lines = locations[int(i)]
        first = " ".join("M=" + mappings.get(w[2:], w[2:]) if w.startswith("M=") else w
                         for w in lines[0].split(" "))
        return " | ".join([first] + lines[1:])

    blocks = []
    for sample in samples:
        values, ids = sample[0].split(":", 1)
        blocks.append("\n".join([values.strip() + ": " +
                                 " <- ".join(location_text(i) for i in ids.split())]
                                + sample[1:]))
    print("\n".join(h for h in head if h not in ("Locations", "Mappings")))
    print("\n".join(sorted(blocks)))


def resource(path):
    for message in load(path):
        for rp in message.resource_profiles:
            print(" ".join("%s=%s" % (a.key, getattr(a.value, a.value.WhichOneof("value")))
                           for a in rp.resource.attributes))


def payload(path):
    for message in load(path):
        for rp, prof in profiles(message):
            if prof.original_payload_format or prof.original_payload:
                print(prof.original_payload_format, len(prof.original_payload))


def shape(path):
    for message in load(path):
        d = message.dictionary
        timed = any(s.timestamps_unix_nano for rp, prof in profiles(message)
                    for s in prof.samples)
        types = set()
        for loc in d.location_table:
            for a in loc.attribute_indices:
                attr = d.attribute_table[a]
                if d.string_table[attr.key_strindex] == "profile.frame.type":
                    types.add(d.string_table[attr.value.string_value_strindex])
        print("timestamps" if timed else "aggregated", " ".join(sorted(types)))


def main():
    what, args = sys.argv[2], sys.argv[3:]
    if what == "rules":
        errors = [e for m in load(args[0]) for e in check_rules(m)]
        for e in errors[:20]:
            print(e)
        sys.exit(1 if errors else 0)
    elif what == "stacks":
        print_stacks(otlp_weights(load(args[0])))
    elif what == "pprof-stacks":
        print_stacks(pprof_weights(args[0]))
    elif what == "judge":
        judge(args[0])
    elif what == "raw-canonical":
        raw_canonical(args[0])
    elif what == "same":
        a, b = load(args[0]), load(args[1])
        sys.exit(0 if a == b else 1)
    elif what == "resource":
        resource(args[0])
    elif what == "payload":
        payload(args[0])
    elif what == "shape":
        shape(args[0])
    else:
        sys.exit("otlp-check.py: unknown check " + what)


main()
