#!/usr/bin/env python3
"""callgraph.py - the floors of ptxemu, checked from the code.

Reads the call graphs gcc writes with -fcallgraph-info (one .ci file per source file: every
function it defines and every direct call it makes), folds them to a graph of files, and
checks what docs/architecture.md promises:
  - no circle of calls among the files of emu/ (tools included), none among jit/, emu/ and
    frontend/;
  - calls go down the floors only: jit/ -> emu/ -> frontend/, never frontend/ -> emu/ or jit/,
    never emu/ -> jit/;
  - no core file (emu/, not emu/tools/) calls a tool's function: tools are called through the
    observer interface (function pointers), never by name.
Prints each violation and exits 1 when there is one; --dot prints the file graph.

Usage: callgraph.py [--dot] FILE.ci...
"""
import re
import sys


def parse(paths):
    """Functions defined per file and the direct calls of each file."""
    defined, calls = {}, []
    for path in paths:
        with open(path) as f:
            text = f.read()
        m = re.search(r'graph: \{ title: "([^"]+)"', text)
        if not m:
            continue
        src = re.sub(r'\.c$', '', m.group(1))
        for n in re.finditer(r'node: \{ title: "([^"]+)" label: "[^"]*"( shape : ellipse)? \}', text):
            # nodes without "ellipse" are defined here; "file:name" titles are static ones
            if not n.group(2) and ':' not in n.group(1):
                defined[n.group(1)] = src
        for e in re.finditer(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', text):
            calls.append((src, e.group(1), e.group(2)))
    return defined, calls


def file_graph(defined, calls):
    edges, why = {}, {}
    for src, caller, callee in calls:
        dst = defined.get(callee)
        if dst and dst != src:
            edges.setdefault(src, set()).add(dst)
            why.setdefault((src, dst), '%s -> %s' % (caller.split(':')[-1], callee))
    return edges, why


def circles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    nodes = set(edges) | {t for ts in edges.values() for t in ts}
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


FLOOR = {'jit': 2, 'emu': 1, 'frontend': 0}


def floor_of(f):
    return FLOOR.get(f.split('/')[0])


def is_tool(f):
    return f.startswith('emu/tools/')


def main(argv):
    dot = '--dot' in argv
    paths = [a for a in argv if a != '--dot']
    defined, calls = parse(paths)
    edges, why = file_graph(defined, calls)
    if dot:
        print('digraph ptxemu {')
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print('  "%s" -> "%s";' % (a, b))
        print('}')
    bad = 0
    for comp in circles(edges):
        bad += 1
        print('circle of calls: ' + ' '.join(comp))
        for a in comp:
            for b in sorted(edges.get(a, ())):
                if b in comp:
                    print('    %s -> %s (%s)' % (a, b, why[(a, b)]))
    for a in sorted(edges):
        for b in sorted(edges[a]):
            fa, fb = floor_of(a), floor_of(b)
            if fa is not None and fb is not None and fb > fa:
                bad += 1
                print('call up the floors: %s -> %s (%s)' % (a, b, why[(a, b)]))
            if fa == 1 and not is_tool(a) and is_tool(b):
                bad += 1
                print('core calls a tool by name: %s -> %s (%s)' % (a, b, why[(a, b)]))
    nfiles = len(set(edges) | {t for ts in edges.values() for t in ts})
    print('%d files, %d calls between files, %d problems' %
          (nfiles, sum(len(v) for v in edges.values()), bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
