#!/usr/bin/env python3
# The stacks and weights of a speedscope file, computed from the JSON by
# speedscope's file format specification (file-format-schema.json) and
# its importer, independently of profkit:
#
#   sampled: each stack of samples[] weighs the weight at its index
#   evented: between two events the open frames, nested (a frame closed
#            is the innermost open one), weigh the time between them
#
# Zero weights and empty stacks weigh nothing, as speedscope draws them.
# Prints "PROFILE<TAB>UNIT<TAB>frame;frame<TAB>WEIGHT" summed and sorted,
# or with --folded "PROFILE;frame;frame WEIGHT" (blanks in the profile's
# name as underscores), as profkit-convert --to=folded prints a thread;
# with --unit=UNIT only the profiles in that unit. With --names (of many
# files, say) each line begins with its file's name and a tab.
#
#   speedscope-folded.py [--folded] [--unit=UNIT] [--names] FILE...
import json
import sys
from decimal import Decimal


def stacks_of(profile):
    """(frame indexes root first, weight) of one profile."""
    if profile["type"] == "sampled":
        samples, weights = profile["samples"], profile["weights"]
        if len(samples) != len(weights):
            sys.exit("samples and weights differ in number")
        yield from zip(samples, weights)
        return
    opened, last = [], None
    for event in profile["events"]:
        at = event["at"]
        if last is not None and at < last:
            sys.exit("events out of order")
        if opened and last is not None and at > last:
            yield list(opened), at - last
        if event["type"] == "O":
            opened.append(event["frame"])
        elif not opened or opened.pop() != event["frame"]:
            sys.exit("a frame closed that is not the innermost open")
        last = at


def folded_lines(path, folded, units):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal, parse_int=Decimal)
    names = [frame["name"] for frame in doc["shared"]["frames"]]
    sums = {}
    for profile in doc["profiles"]:
        if units and profile["unit"] not in units:
            continue
        for stack, weight in stacks_of(profile):
            if not stack or not weight:
                continue
            frames = ";".join(names[int(i)] for i in stack)
            if folded:
                key = profile["name"].replace(" ", "_") + ";" + frames
            else:
                key = "%s\t%s\t%s" % (profile["name"], profile["unit"], frames)
            sums[key] = sums.get(key, Decimal(0)) + weight
    for key in sorted(sums):
        yield "%s%s%s" % (key, " " if folded else "\t",
                          "{:f}".format(sums[key].normalize()))


def main(argv):
    options = [a for a in argv[1:] if a.startswith("--")]
    paths = [a for a in argv[1:] if not a.startswith("--")]
    folded = "--folded" in options
    units = [a[len("--unit="):] for a in options if a.startswith("--unit=")]
    for path in paths:
        for line in folded_lines(path, folded, units):
            print(path + "\t" + line if "--names" in options else line)


if __name__ == "__main__":
    main(sys.argv)
