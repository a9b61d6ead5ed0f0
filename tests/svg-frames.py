#!/usr/bin/env python3
"""The frames a flame graph draws, as stacks and widths, whoever drew it
(profkit or flamegraph.pl), from the SVG file or from what a browser
showed of it:

    svg-frames.py FILE.svg               print "STACK WIDTH" per frame
    ... --places                         "STACK X WIDTH": where each is
    svg-frames.py --shown FRAMES.json    the same of a browser's list
    ... --folded FILE.folded             check instead: every stack of
                                         the folded input is drawn, with
                                         its count's share of the root's
                                         width, and nothing else is

A frame's stack is its name after its parents' (";"), the root ("all")
left out: a parent is the frame one level nearer the root whose x range
holds it. FRAMES.json is a list of {"name", "x", "y", "width"}. Frames
narrower than --min-width pixels (0.1, as both draw) are not expected.
"""
import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'
SLACK = 0.15	# pixels: each side rounds to 0.1


def frames_of_svg(path):
    frames = []
    for g in ET.parse(path).iter(SVG + 'g'):
        title, rect = g.find(SVG + 'title'), g.find(SVG + 'rect')
        if title is None or rect is None:
            continue
        frames.append({'name': re.sub(r' \([^()]*\)$', '', title.text or ''),
                       'x': float(rect.get('x')), 'y': float(rect.get('y')),
                       'width': float(rect.get('width'))})
    return frames


def stacks(frames, places=None):
    """{stack: width}, the root's width, from frames with their places;
    each stack's x in places when given."""
    ys = {min(f['y'] for f in frames), max(f['y'] for f in frames)}
    root = max((f for f in frames if f['y'] in ys), key=lambda f: f['width'])
    levels = sorted({f['y'] for f in frames},
                    key=lambda y: abs(y - root['y']))
    by_level = [[f for f in frames if f['y'] == y] for y in levels]
    drawn, paths = {}, {id(root): ''}
    for depth in range(1, len(by_level)):
        for f in by_level[depth]:
            parent = next((p for p in by_level[depth - 1]
                           if p['x'] - SLACK <= f['x'] and
                           f['x'] + f['width'] <= p['x'] + p['width'] + SLACK),
                          None)
            if parent is None or id(parent) not in paths:
                sys.exit('frame %s at x=%s has no parent' % (f['name'], f['x']))
            path = paths[id(parent)] + (';' if paths[id(parent)] else '') + \
                f['name']
            paths[id(f)] = path
            drawn[path] = drawn.get(path, 0) + f['width']
            if places is not None:
                places[path] = f['x']
    return drawn, root['width']


def expected(folded, full, min_width):
    counts = {}
    for line in open(folded, encoding='utf-8', errors='surrogateescape'):
        stack, count = line.rstrip('\n').rsplit(' ', 1)
        frames = stack.split(';')
        for i in range(1, len(frames) + 1):
            key = ';'.join(frames[:i])
            counts[key] = counts.get(key, 0) + float(count)
    total = sum(c for k, c in counts.items() if ';' not in k)
    widths = {k: c / total * full for k, c in counts.items()}
    return {k: w for k, w in widths.items() if w >= min_width}


def main():
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument('file')
    ap.add_argument('--shown', action='store_true')
    ap.add_argument('--folded')
    ap.add_argument('--min-width', type=float, default=0.1)
    ap.add_argument('--places', action='store_true')
    args = ap.parse_args()
    frames = json.load(open(args.file)) if args.shown else \
        frames_of_svg(args.file)
    places = {}
    drawn, full = stacks(frames, places)
    if not args.folded:
        for path in sorted(drawn):
            if args.places:
                print('%s %.1f %.1f' % (path, places[path], drawn[path]))
            else:
                print('%s %.1f' % (path, drawn[path]))
        return 0
    want = expected(args.folded, full, args.min_width)
    bad = ['not drawn: %s (%.1f px)' % (k, w) for k, w in sorted(want.items())
           if k not in drawn]
    bad += ['drawn but not in the input: %s' % k for k in sorted(drawn)
            if k not in want]
    bad += ['%s: %.1f px, its count gives %.1f' % (k, drawn[k], want[k])
            for k in sorted(drawn) if k in want and
            abs(drawn[k] - want[k]) > SLACK]
    print('%d frames drawn, %d expected, root %.1f px wide' %
          (len(drawn), len(want), full))
    for line in bad[:20]:
        print(line)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
