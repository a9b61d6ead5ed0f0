#!/usr/bin/env python3
"""Folded stacks of one event from `jfr print --json --stack-depth 4096`.

    jfr print --json --stack-depth 4096 --events E FILE | jfr-to-folded.py E [VALUE]

Each event of type E is a line "thread;root frame;...;leaf frame N",
summed over equal stacks and sorted bytewise, as profkit-convert
--to=folded prints them: the thread's Java name (its OS name when it has
none) as the root, with blanks trimmed and inner spaces made '_'; a frame
named as jdk.jfr.consumer's RecordedClass.getName() and the method's
name: "package.Class.method", each '/' of the class made '.'. An event
with neither thread nor frames has no line. N counts the events, or with
VALUE sums that field of each: a size in bytes, or "duration" in
nanoseconds (JSON gives an ISO-8601 duration, PT0.5S).
"""
import json
import re
import sys
from decimal import Decimal


def nanos(iso):
    """PT1H2M3.000000004S -> 3723000000004"""
    m = re.fullmatch(r"(-?)PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?", iso)
    if not m:
        sys.exit("jfr-to-folded: not an ISO-8601 duration: %r" % iso)
    sign, h, mi, s = m.groups()
    total = (int(h or 0) * 3600 + int(mi or 0) * 60) * 10**9
    total += int(Decimal(s or "0") * 10**9)
    return -total if sign else total


def frame_name(frame):
    method = frame.get("method")
    if method is None:
        return "[missing method]"
    cls = method.get("type")
    name = method.get("name") or ""
    if cls is None:
        return "[missing class]." + name
    cls_name = (cls.get("name") or "").replace("/", ".")
    return cls_name + "." + name if cls_name else name


def root(thread):
    if thread is None:
        return None
    name = thread.get("javaName")
    if name is None:
        name = thread.get("osName") or ""
    return name.strip(" \t").replace(" ", "_")


def main():
    event = sys.argv[1]
    value = sys.argv[2] if len(sys.argv) > 2 else None
    doc = json.load(sys.stdin)
    sums = {}
    for e in doc["recording"]["events"]:
        if e["type"] != event:
            continue
        v = e["values"]
        thread = v.get("sampledThread", v.get("eventThread"))
        parts = []
        r = root(thread)
        if r is not None:
            parts.append(r)
        stack = v.get("stackTrace")
        if stack is not None:
            for f in reversed(stack["frames"]):
                # as folding names frames: no ';', no parameter list
                # (async-profiler's C++ frames have one)
                parts.append(frame_name(f).replace(";", ":").split("(")[0])
        if value is None:
            n = 1
        elif value == "duration":
            n = nanos(v[value])
        else:
            n = int(v[value])
        if not parts:
            continue  # nothing to draw: no thread, no frames (as folding has it)
        line = ";".join(parts)
        sums[line] = sums.get(line, 0) + n
    out = sys.stdout.buffer
    for line in sorted(sums, key=lambda s: s.encode()):
        out.write(("%s %d\n" % (line, sums[line])).encode())


if __name__ == "__main__":
    main()
