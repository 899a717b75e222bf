"""plugin/correlate stays a set of parts one can change one at a time.

- no source file of plugin/correlate is longer than 600 lines;
- the parts include each other without a circle. A part is a folder
  (mirror/, vcpu/, read-once/: files that share private state) or, at the
  top, a file's stem (x.c and x.h are part x). A circle (a.c includes b.h
  and b.c includes a.h, or longer) is what made the old core hard to
  follow: each part then needs all the others to be read.

Checks the sources, so it runs the same in every build (plain, sanitized,
valgrind)."""

import os
import re

import vmtest

DIR = os.path.join(vmtest.SOURCE_DIR, "plugin", "correlate")
MAX_LINES = 600
INCLUDE = re.compile(r'^#include "correlate/([a-z0-9/-]+\.h)"', re.M)


def source_files():
    """Paths of the sources, relative to plugin/correlate (one folder deep)."""
    found = []
    for entry in sorted(os.listdir(DIR)):
        path = os.path.join(DIR, entry)
        if os.path.isdir(path):
            found += [entry + "/" + f for f in sorted(os.listdir(path))
                      if f.endswith((".c", ".h"))]
        elif entry.endswith((".c", ".h")):
            found.append(entry)
    return found


def part_of(path):
    """The part a file belongs to: its folder, else its stem."""
    return path.split("/")[0] if "/" in path else path[:-2]


def include_graph(files):
    """part -> the other parts its files include (only plugin/correlate's headers)."""
    headers = {f for f in files if f.endswith(".h")}
    graph = {}
    for name in files:
        part = part_of(name)
        with open(os.path.join(DIR, name)) as f:
            for header in INCLUDE.findall(f.read()):
                if header not in headers:
                    vmtest.fail("%s includes correlate/%s, which does not exist" % (name, header))
                if part_of(header) != part:
                    graph.setdefault(part, set()).add(part_of(header))
    return graph


def circles(graph):
    """Every circle a depth-first search meets, as lists of parts."""
    state = {}
    stack = []
    found = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if state.get(other) == "open":
                found.append(stack[stack.index(other):] + [other])
            elif other not in state:
                visit(other)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def main():
    files = source_files()
    if len(files) < 10:
        vmtest.fail("plugin/correlate has only %d source files: wrong folder?" % len(files))

    long_files = []
    for name in files:
        with open(os.path.join(DIR, name)) as f:
            count = sum(1 for _ in f)
        if count > MAX_LINES:
            long_files.append("%s (%d lines)" % (name, count))
    if long_files:
        vmtest.fail("files of plugin/correlate over %d lines: %s" % (
            MAX_LINES, ", ".join(long_files)))

    graph = include_graph(files)
    if not any(graph.values()):
        vmtest.fail("no include between the parts of plugin/correlate: the scan is broken")
    found = circles(graph)
    if found:
        vmtest.fail("include circles between the parts of plugin/correlate:\n  " +
                    "\n  ".join(" -> ".join(c) for c in found))
    print("%d files, %d parts, no file over %d lines, no include circle" % (
        len(files), len({part_of(f) for f in files}), MAX_LINES))


main()
