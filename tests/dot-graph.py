#!/usr/bin/env python3
"""Print the call graph a gprof2dot-style DOT file draws, one line per
node and per edge, sorted, so that two drawings of one profile compare
with diff whatever their node ids, colours and layout attributes:

    node NAME TOTAL% (SELF%)
    edge CALLER -> CALLEE PERCENT%

usage: dot-graph.py FILE.dot

NAME is the node label's lines before its total (the module, then the
function), joined with " / "; call counts ("1x") are left out, as
gprof2dot prints them only when its input has them.
"""
import re
import sys

# a DOT ID: a numeral, a bare identifier (gprof2dot writes "main" so),
# or a quoted string
ID = r'(\d+|[A-Za-z_][A-Za-z_0-9]*|"(?:[^"\\]|\\.)*")'
NODE = re.compile(r'^\s*' + ID + r' \[(.*)\];$')
EDGE = re.compile(r'^\s*' + ID + r' -> ' + ID + r' \[(.*)\];$')
ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|[^,\s]+)')
PERCENT = re.compile(r'^\d+(\.\d+)?%$')


def unquote(s):
    if not s.startswith('"'):
        return s
    return re.sub(r'\\(.)', lambda m: '\n' if m.group(1) == 'n' else
                  m.group(1), s[1:-1])


def label(attrs):
    for key, value in ATTR.findall(attrs):
        if key == 'label':
            return unquote(value)
    sys.exit('no label in [%s]' % attrs)


def graph(path):
    names, nodes, edges = {}, [], []
    with open(path, encoding='utf-8', errors='surrogateescape') as f:
        for line in f:
            line = line.rstrip('\n')
            m = EDGE.match(line)
            if m:
                edges.append((m.group(1), m.group(2), label(m.group(3))))
                continue
            m = NODE.match(line)
            if not m or m.group(1) in ('graph', 'node', 'edge'):
                continue
            parts = label(m.group(2)).split('\n')
            total = next(i for i, p in enumerate(parts) if PERCENT.match(p))
            names[m.group(1)] = ' / '.join(parts[:total])
            nodes.append('node %s %s %s' % (names[m.group(1)], parts[total],
                                            parts[total + 1]))
    edges = ['edge %s -> %s %s' % (names[a], names[b], pct.split('\n')[0])
             for a, b, pct in edges]
    return sorted(nodes) + sorted(edges)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__.split('\n\n')[2])
    out = sys.stdout.buffer
    for line in graph(sys.argv[1]):
        out.write(line.encode('utf-8', 'surrogateescape') + b'\n')
