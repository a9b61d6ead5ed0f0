#!/usr/bin/env python3
"""Folded stacks of one event from `jfr print --json --stack-depth 4096`.

    jfr print --json --stack-depth 4096 --events E FILE |
        jfr-to-folded.py [--marks=jit|all] E [VALUE]
    jfr print --json ... | jfr-to-folded.py --blocks E:[VALUE]...

Each event of type E is a line "thread;root frame;...;leaf frame N",
summed over equal stacks and sorted bytewise, as profkit-convert
--to=folded prints them: the thread's Java name (its OS name when it has
none) as the root, with blanks trimmed and inner spaces made '_'; a frame
named as jdk.jfr.consumer's RecordedClass.getName() and the method's
name: "package.Class.method", each '/' of the class made '.'. An event
with neither thread nor frames has no line. N counts the events, or with
VALUE sums that field of each: a size in bytes, or "duration" in
nanoseconds (JSON gives an ISO-8601 duration, PT0.5S).

--blocks prints the folded stacks of each E:VALUE (":" alone counts)
after a line "== E VALUE" ("== E samples"), from one reading of the JSON.

--marks=jit ends each name with the mark of its frame type as
async-profiler's converters make them (FRAME_SUFFIX of jfr2flame),
profkit-convert --jit; --marks=all marks kernel frames too (--all).
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


# async-profiler's suffix of each frame type; Native and C++ have none
MARKS = {"Interpreted": "_[0]", "JIT compiled": "_[j]", "Inlined": "_[i]",
         "C1 compiled": "_[1]", "Kernel": "_[k]"}


def mark(frame, marks):
    kind = frame.get("type")
    if marks is None or kind not in MARKS or (kind == "Kernel" and marks != "all"):
        return ""
    return MARKS[kind]


def root(thread):
    if thread is None:
        return None
    name = thread.get("javaName")
    if name is None:
        name = thread.get("osName") or ""
    return name.strip(" \t").replace(" ", "_")


def folded(events, event, value, marks):
    """The folded lines of one event, sorted bytewise."""
    sums = {}
    for e in events:
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
                parts.append(frame_name(f).replace(";", ":").split("(")[0]
                             + mark(f, marks))
        if not parts:
            continue  # nothing to draw: no thread, no frames (as folding has it)
        if value is None:
            n = 1
        elif value == "duration":
            n = nanos(v[value])
        else:
            n = int(v[value])
        line = ";".join(parts)
        sums[line] = sums.get(line, 0) + n
    return ["%s %d\n" % (line, sums[line])
            for line in sorted(sums, key=lambda s: s.encode())]


def main():
    args = sys.argv[1:]
    marks = None
    if args and args[0].startswith("--marks="):
        marks = args.pop(0).split("=", 1)[1]
    events = json.load(sys.stdin)["recording"]["events"]
    out = []
    if args and args[0] == "--blocks":
        for spec in args[1:]:
            event, value = spec.split(":", 1)
            out.append("== %s %s\n" % (event, value or "samples"))
            out += folded(events, event, value or None, marks)
    else:
        out = folded(events, args[0], args[1] if len(args) > 1 else None, marks)
    sys.stdout.buffer.write("".join(out).encode())


if __name__ == "__main__":
    main()
