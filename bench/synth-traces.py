#!/usr/bin/python3
# synth-traces.py KIND SEED OUT MB: a large input for the chrome-trace and
# firefox readers, MB megabytes or a little more, from a small real one:
#
#   v8 TRACE.json[.gz]   a Chrome trace's V8 profile (Profile and its
#                        ProfileChunk events) over again, each copy a new
#                        profile id on one of 8 threads, its times after the
#                        last copy's: a long DevTools recording's shape
#   slices -             DevTools-shaped "X" events (top-level tasks of 40
#                        names, 8 threads, each with "args", "tts"), one a
#                        line as Chrome writes them
#   firefox PROFILE.json a processed Firefox Profiler file (our writer's, or
#                        samply's) with each thread's samples over again,
#                        timed by "timeDeltas" as samply's are
#
# Equal copies give equal stacks: the model stays small, and what the
# bench measures is the reading.
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def dump(obj):
    return json.dumps(obj, separators=(",", ":"))


def v8(seed, out, size):
    doc = load(seed)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    profile = [e for e in events if e.get("name") == "Profile"]
    if not profile:
        sys.exit("%s: no Profile event" % seed)
    pid, first_id = profile[0]["pid"], profile[0]["id"]
    mine = [e for e in events if e.get("name") in ("Profile", "ProfileChunk")
            and e.get("id") == first_id and e.get("pid") == pid]
    span = max(e["ts"] for e in mine) - min(e["ts"] for e in mine) + 1000
    out.write('{"traceEvents":[\n')
    for t in range(8):
        out.write(dump({"args": {"name": "Worker %d" % t}, "cat": "__metadata",
                        "name": "thread_name", "ph": "M", "pid": pid,
                        "tid": 100 + t}) + ",\n")
    copy = 0
    while out.tell() < size:
        for e in mine:
            e = dict(e, id="0x%x" % (copy + 1), tid=100 + copy % 8,
                     ts=e["ts"] + copy * span)
            if e["name"] == "Profile":
                data = e["args"]["data"]
                e["args"] = dict(e["args"], data=dict(
                    data, startTime=data["startTime"] + copy * span))
            out.write(dump(e) + ",\n")
        copy += 1
    out.write('{"args":{"name":"renderer"},"cat":"__metadata","name":'
              '"process_name","ph":"M","pid":%d,"tid":100}]}\n' % pid)


def slices(seed, out, size):
    out.write('{"traceEvents":[\n')
    i = 0
    while out.tell() < size:
        ts = 1000000 + i * 10
        out.write('{"args":{},"cat":"toplevel","dur":%d,"name":"task_%d",'
                  '"ph":"X","pid":4242,"tid":%d,"ts":%d,"tts":%d},\n'
                  % (5 + i % 7, i % 40, 100 + i % 8, ts, ts))
        i += 1
    out.write('{"args":{"name":"CrRendererMain"},"cat":"__metadata",'
              '"name":"thread_name","ph":"M","pid":4242,"tid":100}]}\n')


def firefox(seed, out, size):
    doc = load(seed)
    sampled = [t["samples"] for t in doc["threads"] if t["samples"]["length"]]
    if not sampled:
        sys.exit("%s: no samples" % seed)
    for s in sampled:
        # times as "timeDeltas" (as samply writes them): each copy as many
        # bytes, the first delta of each after the first the gap between
        if "time" in s:
            times = s.pop("time")
            s["timeDeltas"] = [round(b - a, 3) for a, b in zip([0.0] + times, times)]
            s["timeDeltas"][0] = 1.0
    keys = ("stack", "weight", "timeDeltas")
    seed_size = len(dump(doc))
    # a copy's bytes: its columns' elements and a comma before them
    sample_bytes = sum(len(dump(s[k])) - 1 for s in sampled for k in keys
                       if isinstance(s.get(k), list))
    copies = max(1, -(-(size - seed_size) // sample_bytes) + 1)
    for s in sampled:
        for key in keys:
            if isinstance(s.get(key), list):
                s[key] = s[key] * copies
        s["length"] *= copies
    out.write(dump(doc) + "\n")


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("v8", "slices", "firefox"):
        sys.exit("usage: synth-traces.py v8|slices|firefox SEED OUT MB")
    kind, seed, path, mb = sys.argv[1:]
    with open(path, "w") as out:
        globals()[kind](seed, out, int(mb) * 1000000)


main()
