"""The correlate component's mirror, through the test-only filter.vmtest.mirror.

Every message re-created on the mirror must print like the upstream one in
sink.text.details, except for what belongs to the clock: the clock class
description (the mirror has one reference clock) and the cycle counts of the
times (the reference clock counts nanoseconds since the Unix epoch). The
times in ns from origin must be exactly the upstream ones plus `offset-ns`.
"""

import os
import re
import sys

import vmtest

MIRRORTEST_DIR = os.path.join(vmtest.BUILD_DIR, "tests", "mirrortest")
# The Python source component that emits what real traces lack.
KINDS_DIR = os.path.join(vmtest.SOURCE_DIR, "tests", "mirrortest")

TIME_RE = re.compile(r"\[(?:[\d,]+ cycles, )?(-?[\d,]+) ns from origin\]")
CYCLES_RE = re.compile(r"\[[\d,]+ cycles, (-?[\d,]+ ns from origin)\]")


def normalize(text):
    """Strips clock-class lines: the `Default clock class:` / `Clock class:`
    blocks, and the cycle counts of times (clock values of another clock)."""
    out = []
    block_indent = None
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip(" "))
        if block_indent is not None:
            if indent > block_indent:
                continue
            block_indent = None
        stripped = line.strip()
        if stripped in ("Default clock class:", "Clock class:"):
            block_indent = indent
            continue
        out.append(CYCLES_RE.sub(r"[\1]", line))
    return out


def times_ns(lines):
    return [int(m.group(1).replace(",", "")) for line in lines
            for m in TIME_RE.finditer(line)]


def without_times(lines):
    return [TIME_RE.sub("[TIME]", line) for line in lines]


def details(source_args, offset=None, extra_paths=(), mux=True):
    """sink.text.details output of source [-> muxer] [-> mirror].

    Without `mux`, the source must have a single output port: the old
    tc-synctraces packets overlap, which the stock muxer refuses."""
    args = ["run"] + source_args + ["-c", "out:sink.text.details"]
    upstream = "src"
    if mux:
        args += ["-c", "mux:filter.utils.muxer", "--connect", "src:mux"]
        upstream = "mux"
    if offset is None:
        args += ["--connect", upstream + ":out"]
    else:
        args += ["-c", "mirror:filter.vmtest.mirror",
                 "-p", "offset-ns=%d" % offset,
                 "--connect", upstream + ":mirror", "--connect", "mirror:out"]
    paths = [MIRRORTEST_DIR] + list(extra_paths)
    wrap = offset is not None
    return vmtest.babeltrace2(args, plugin_paths=paths, wrap=wrap).stdout


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "line %d:\n  upstream: %s\n  mirror:   %s" % (i + 1, x, y)
    return "lengths differ: upstream %d lines, mirror %d lines" % (len(a), len(b))


def check_source(name, source_args, extra_paths=(), mux=True):
    def run(offset):
        return normalize(details(source_args, offset, extra_paths, mux))

    upstream = run(None)
    same = run(0)
    if upstream != same:
        vmtest.fail("%s: the mirror prints differently from upstream, %s" % (
            name, first_difference(upstream, same)))

    shifted = run(1000)
    if without_times(shifted) != without_times(upstream):
        vmtest.fail("%s: offset-ns=1000 changed more than times, %s" % (
            name, first_difference(without_times(upstream), without_times(shifted))))
    before, after = times_ns(upstream), times_ns(shifted)
    if not before:
        vmtest.fail("%s: no time found in the output" % name)
    for i, (t0, t1) in enumerate(zip(before, after)):
        if t1 != t0 + 1000:
            vmtest.fail("%s: time #%d is %d with offset-ns=1000, expected %d"
                        % (name, i, t1, t0 + 1000))
    print("%s: %d lines and %d times mirrored" % (name, len(upstream), len(before)))


def check_real_traces():
    """Returns how many real traces were checked (0 without ../shared)."""
    base = vmtest.shared_dir()
    if base is None:
        return 0
    count = 0
    # (trace, several data streams: needs the muxer)
    for rel, mux in (("tc-many-threads", True),
                     ("bt-lttng-tracefile-rotation/kernel", True),
                     ("tc-synctraces/scp_src", False),
                     ("tc-synctraces/scp_dest", False)):
        path = os.path.join(base, "traces", rel)
        if not os.path.isdir(path):
            print("not present, skipped: " + path)
            continue
        check_source(rel, ["-c", "src:src.ctf.fs", "-p", 'inputs=["%s"]' % path],
                     mux=mux)
        count += 1
    return count


def main():
    checked = check_real_traces()
    if not checked:
        vmtest.skip("no trace to mirror")


if __name__ == "__main__":
    main()
    sys.exit(0)
