#!/usr/bin/env python3
# A large input for the JSON readers' bench, grown from a real small one
# in testdata/ by repeating its samples (or events) until the document
# holds about MB megabytes, written compact as node and py-spy write:
#
#   v8           a .cpuprofile: its nodes once, samples and timeDeltas
#                repeated (the timeline goes on: endTime moves with it)
#   sampled      a speedscope file: each profile's samples and weights
#                repeated, the shared frames first (profkit, speedscope)
#   frames-last  the same with the frames after the profiles (py-spy)
#   evented      each profile's events repeated, each copy later by the
#                profile's span, so that the events stay in time order
#
#   grow-json.py KIND SEED MB OUT
import json
import sys

COMPACT = (",", ":")


def text(value):
    return json.dumps(value, separators=COMPACT)


def copies(nbytes, mb):
    """How many copies of nbytes make about mb megabytes."""
    return max(1, int(mb * 1000000 / (nbytes + 1)))


def repeated(one, n):
    """n copies of the text of an array's elements, as one array."""
    return "[" + ",".join([one] * n) + "]"


def v8(doc, mb, out):
    samples = ",".join(map(str, doc["samples"]))
    deltas = ",".join(map(str, doc["timeDeltas"]))
    n = copies(len(samples) + len(deltas) + 1, mb)
    end = doc["startTime"] + n * sum(doc["timeDeltas"])
    out.write('{"nodes":%s,"startTime":%d,"endTime":%d,"samples":%s,'
              '"timeDeltas":%s}\n' % (text(doc["nodes"]), doc["startTime"], end,
                                       repeated(samples, n), repeated(deltas, n)))


def speedscope(doc, mb, out, kind, frames_last):
    profiles = doc["profiles"]
    key = "events" if kind == "evented" else "samples"
    one = sum(len(text(p[key])) + (len(text(p["weights"])) if key == "samples" else 0)
              for p in profiles)
    n = copies(one, mb)
    head = {k: v for k, v in doc.items() if k not in ("profiles", "shared")}
    parts = []
    for p in profiles:
        span = p["endValue"] - p["startValue"]
        fields = {k: v for k, v in p.items() if k not in ("samples", "weights", "events")}
        fields["endValue"] = p["startValue"] + n * span
        body = text(fields)[:-1]
        if key == "samples":
            body += ',"samples":%s,"weights":%s}' % (
                repeated(text(p["samples"])[1:-1], n), repeated(text(p["weights"])[1:-1], n))
        else:
            events = ",".join(
                ",".join(text(dict(e, at=e["at"] + k * span)) for e in p["events"])
                for k in range(n))
            body += ',"events":[%s]}' % events
        parts.append(body)
    shared = '"shared":%s' % text(doc["shared"])
    profiles_text = '"profiles":[%s]' % ",".join(parts)
    members = [text(head)[1:-1]] if head else []
    members += [profiles_text, shared] if frames_last else [shared, profiles_text]
    out.write("{" + ",".join(members) + "}\n")


def main(kind, seed, mb, path):
    with open(seed, encoding="utf-8") as f:
        doc = json.load(f)
    with open(path, "w", encoding="utf-8") as out:
        if kind == "v8":
            v8(doc, float(mb), out)
        elif kind in ("sampled", "frames-last", "evented"):
            speedscope(doc, float(mb), out, kind, kind == "frames-last")
        else:
            sys.exit("grow-json.py: unknown kind " + kind)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: grow-json.py v8|sampled|frames-last|evented SEED MB OUT")
    main(*sys.argv[1:])
