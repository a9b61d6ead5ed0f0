#!/usr/bin/env python3
# The stacks of a V8 CPU profile (.cpuprofile), counted directly from its
# samples, independently of profkit: each sample's node and the node's
# ancestors (children lists, or DevTools' parent ids), named as Chrome
# DevTools names them ("(anonymous)" for a nameless function), without
# the tree's "(root)" above them as DevTools shows stacks. Without
# samples, the nodes' hitCounts count. Prints "main;frame;frame COUNT",
# summed and sorted, as profkit-convert --to=folded --value=samples
# prints the one thread of a V8 profile.
#
#   v8-folded.py FILE
import json
import sys


def main(path):
    with open(path, encoding="utf-8") as f:
        profile = json.load(f)
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {}
    for node in profile["nodes"]:
        for child in node.get("children", []):
            parent[child] = node["id"]
        if "parent" in node:
            parent[node["id"]] = node["parent"]

    def name(node_id):
        return nodes[node_id]["callFrame"]["functionName"] or "(anonymous)"

    def stack(node_id):
        frames = [name(node_id)]
        while node_id in parent:
            node_id = parent[node_id]
            if node_id not in parent and name(node_id) == "(root)":
                break
            frames.append(name(node_id))
        return ";".join(["main"] + frames[::-1])

    counts = {}
    if "samples" in profile:
        hits = [(s, 1) for s in profile["samples"]]
    else:
        hits = [(n["id"], n.get("hitCount", 0)) for n in profile["nodes"]]
    for node_id, count in hits:
        if count:
            key = stack(node_id)
            counts[key] = counts.get(key, 0) + count
    for key in sorted(counts):
        print(key, counts[key])


if __name__ == "__main__":
    main(sys.argv[1])
