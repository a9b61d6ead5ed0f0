#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a file against what gprof2dot's JSON input (gprof2dot -f json) needs.

usage: check-gprof2dot-json.py [--profkit] [--dot FILE] [--node-thres PCT]
                               [--edge-thres PCT] [--largest-self NAME] FILE

gprof2dot is not packaged everywhere, so this re-states the checks its
JsonParser and schema.json rely on: the file is UTF-8 JSON; "version" is
0; "costs" is a non-empty list of {"description", "unit"} strings;
"functions" are objects with a string "name" and optional string
"module" and "process"; "events" are objects whose "callchain" is a
non-empty list of function indexes in range (leaf first) and whose "cost"
is a list of numbers, one per entry of "costs" (the parser reads cost[0]).

--profkit adds what profkit's writer promises on top: functions are
distinct (name, module) pairs, callchains are distinct, no cost is 0.

--dot FILE re-derives the call graph from the JSON, counting each event
once per function and once per call on its chain, and checks the DOT that
profkit-convert --to=dot drew from the same input: the node and edge
labels, and that exactly the nodes and edges over the thresholds are
drawn. --largest-self NAME checks which function has the most self cost.

Prints "ok" or the problems, one a line; exits 0 when there are none.
"""
import argparse
import json
import math
import re
import sys

problems = []


def problem(msg):
    problems.append(msg)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def check_keys(where, obj, allowed):
    for key in obj:
        if key not in allowed:
            problem("%s: unexpected key %r (schema.json allows %s)"
                    % (where, key, ", ".join(sorted(allowed))))


def check_costs(doc):
    costs = doc.get("costs")
    if not isinstance(costs, list) or not costs:
        problem("costs: want a non-empty list")
        return 0
    for i, c in enumerate(costs):
        if not isinstance(c, dict):
            problem("costs[%d]: want an object" % i)
            continue
        check_keys("costs[%d]" % i, c, {"description", "unit"})
        for key in ("description", "unit"):
            if key in c and not isinstance(c[key], str):
                problem("costs[%d].%s: want a string" % (i, key))
    return len(costs)


def check_functions(doc):
    fns = doc.get("functions")
    if not isinstance(fns, list):
        problem("functions: want a list")
        return []
    for i, f in enumerate(fns):
        if not isinstance(f, dict):
            problem("functions[%d]: want an object" % i)
            continue
        check_keys("functions[%d]" % i, f, {"name", "module", "process"})
        if not isinstance(f.get("name"), str):
            problem("functions[%d].name: want a string" % i)
        for key in ("module", "process"):
            if key in f and not isinstance(f[key], str):
                problem("functions[%d].%s: want a string" % (i, key))
    return fns


def check_event(i, ev, nfns, ncosts):
    if not isinstance(ev, dict):
        problem("events[%d]: want an object" % i)
        return False
    check_keys("events[%d]" % i, ev, {"callchain", "cost"})
    chain, cost = ev.get("callchain"), ev.get("cost")
    good = True
    if not isinstance(chain, list) or not chain:
        problem("events[%d].callchain: want a non-empty list "
                "(JsonParser reads callchain[0])" % i)
        good = False
    else:
        for j, fn in enumerate(chain):
            if not is_int(fn) or not 0 <= fn < nfns:
                problem("events[%d].callchain[%d]: %r is not a function "
                        "index below %d" % (i, j, fn, nfns))
                good = False
    if not isinstance(cost, list) or not cost:
        problem("events[%d].cost: want a non-empty list "
                "(JsonParser reads cost[0])" % i)
        return False
    if len(cost) != ncosts:
        problem("events[%d].cost: %d values for %d costs"
                % (i, len(cost), ncosts))
    for j, v in enumerate(cost):
        if not is_number(v):
            problem("events[%d].cost[%d]: %r is not a finite number"
                    % (i, j, v))
            good = False
    return good


def check_gprof2dot(doc):
    """What gprof2dot's JsonParser and schema.json need; returns the events
    usable for the graph checks."""
    if not isinstance(doc, dict):
        problem("top level: want an object")
        return [], []
    check_keys("top level", doc, {"version", "costs", "functions", "events"})
    if not is_int(doc.get("version")) or doc.get("version") != 0:
        problem("version: want 0, got %r" % (doc.get("version"),))
    ncosts = check_costs(doc)
    fns = check_functions(doc)
    events = doc.get("events")
    if not isinstance(events, list):
        problem("events: want a list")
        return fns, []
    good = [ev for i, ev in enumerate(events)
            if check_event(i, ev, len(fns), ncosts)]
    return fns, good


def check_profkit(fns, events):
    seen = {}
    for i, f in enumerate(fns):
        key = (f.get("name"), f.get("module"))
        if key in seen:
            problem("functions[%d] repeats functions[%d] %r"
                    % (i, seen[key], key))
        seen[key] = i
    chains = {}
    for i, ev in enumerate(events):
        key = tuple(ev["callchain"])
        if key in chains:
            problem("events[%d] repeats the callchain of events[%d]"
                    % (i, chains[key]))
        chains[key] = i
        if ev["cost"][0] == 0:
            problem("events[%d]: cost 0" % i)


def exact_graph(nfns, events):
    """Self, total and call sums, each event counted once per function and
    once per (caller, callee) pair on its chain."""
    self_ = [0] * nfns
    total = [0] * nfns
    calls = {}
    grand = 0
    for ev in events:
        chain, cost = ev["callchain"], ev["cost"][0]
        grand += cost
        self_[chain[0]] += cost
        for fn in set(chain):
            total[fn] += cost
        for pair in set(zip(chain[1:], chain)):
            calls[pair] = calls.get(pair, 0) + cost
    return self_, total, calls, grand


def share(part, whole):
    if not whole:
        return 1.0
    return min(max(float(part) / float(whole), 0.0), 1.0)


NODE_RE = re.compile(r'^\t(\d+) \[.*label="(.*)"\];$')
EDGE_RE = re.compile(r'^\t(\d+) -> (\d+) \[.*label="([^"]*)".*\];$')


def read_dot(path):
    nodes, edges = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            m = EDGE_RE.match(line)
            if m:
                edges[(int(m.group(1)), int(m.group(2)))] = m.group(3)
                continue
            m = NODE_RE.match(line)
            if m:
                nodes[int(m.group(1))] = m.group(2)
    return nodes, edges


def dot_escape(s):
    """A label line as gprof2dot's DotWriter cuts and escapes it."""
    if len(s) >= 4096:
        s = s[:4095] + "\u2026"
    for a, b in (("\\", "\\\\"), ("\n", "\\n"), ("\t", "\\t"), ('"', '\\"')):
        s = s.replace(a, b)
    return s


def node_label(fn, self_share, total_share):
    lines = [fn["module"]] if "module" in fn else []
    lines += [fn["name"], "%.2f%%" % (total_share * 100),
              "(%.2f%%)" % (self_share * 100)]
    return "\\n".join(dot_escape(line) for line in lines)


def percent(text):
    """"12.34%" or "(12.34%)" as a number, or None."""
    m = re.match(r"^\(?(\d+\.\d\d)%\)?$", text)
    return float(m.group(1)) if m else None


def check_dot_sums(nodes, edges):
    """What the drawing must say whatever the input: self <= total <= 100
    for a node, and a call under the totals of both its ends."""
    totals = {}
    for fn, label in nodes.items():
        lines = label.split("\\n")
        total, self_ = percent(lines[-2]), percent(lines[-1])
        if total is None or self_ is None:
            problem("dot: node %d: label %r does not end in total%% and "
                    "(self%%)" % (fn, label))
            continue
        totals[fn] = total
        if not 0 <= self_ <= total <= 100:
            problem("dot: node %d: self %.2f%%, total %.2f%%"
                    % (fn, self_, total))
    for (caller, callee), label in edges.items():
        weight = percent(label)
        if weight is None:
            problem("dot: edge %d -> %d: label %r is no percentage"
                    % (caller, callee, label))
        elif caller in totals and callee in totals and \
                weight > min(totals[caller], totals[callee]):
            problem("dot: edge %d -> %d: %s is more than an end's total"
                    % (caller, callee, label))


def check_dot(path, fns, events, node_thres, edge_thres):
    self_, total, calls, grand = exact_graph(len(fns), events)
    nodes, edges = read_dot(path)
    shown = set()
    for fn in range(len(fns)):
        t = share(total[fn], grand)
        if t < node_thres / 100.0:
            if fn in nodes:
                problem("dot: node %d (%.2f%%) is under --node-thres"
                        % (fn, t * 100))
            continue
        shown.add(fn)
        want = node_label(fns[fn], share(self_[fn], grand), t)
        if fn not in nodes:
            problem("dot: node %d (%.2f%%) is missing" % (fn, t * 100))
        elif nodes[fn] != want:
            problem("dot: node %d is %r, want %r" % (fn, nodes[fn], want))
    for pair, cost in sorted(calls.items()):
        w = share(cost, grand)
        drawn = (pair[0] in shown and pair[1] in shown and
                 w >= edge_thres / 100.0)
        if drawn and edges.get(pair) != "%.2f%%" % (w * 100):
            problem("dot: edge %d -> %d says %r, want %.2f%%"
                    % (pair + (edges.get(pair), w * 100)))
        elif not drawn and pair in edges:
            problem("dot: edge %d -> %d should be pruned" % pair)
    for pair in edges:
        if pair not in calls:
            problem("dot: edge %d -> %d is no call in the JSON" % pair)
    check_dot_sums(nodes, edges)
    if len(nodes) != len(shown):
        problem("dot: %d nodes drawn, want %d" % (len(nodes), len(shown)))


def check_largest_self(name, fns, events):
    self_, _, _, _ = exact_graph(len(fns), events)
    if not fns:
        problem("--largest-self: no functions")
        return
    top = max(range(len(fns)), key=lambda fn: self_[fn])
    if fns[top]["name"] != name:
        problem("largest self cost: %r, not %r" % (fns[top]["name"], name))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--profkit", action="store_true")
    ap.add_argument("--dot")
    ap.add_argument("--node-thres", type=float, default=0.5)
    ap.add_argument("--edge-thres", type=float, default=0.1)
    ap.add_argument("--largest-self")
    args = ap.parse_args()

    try:
        # gprof2dot opens its input as UTF-8 text
        with open(args.file, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: %s" % (args.file, e))
        return 1
    fns, events = check_gprof2dot(doc)
    if args.profkit and not problems:
        check_profkit(fns, events)
    if args.dot and not problems:
        check_dot(args.dot, fns, events, args.node_thres, args.edge_thres)
    if args.largest_self and not problems:
        check_largest_self(args.largest_self, fns, events)
    for p in problems:
        print("%s: %s" % (args.file, p))
    if not problems:
        print("ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
