"""doc/walkthrough.md shows real output: each of its output blocks must be
what the command above it prints today, on the one-qemu-kvm stub (and, for
the steal section, the noisy-neighbour stub; for the containers section,
the container-neighbour stub)."""

import os
import re

import btlog
import vmtest
import threads_common as tc

# The pretty printer shows wall-clock times in the local time zone.
os.environ["TZ"] = "UTC"


def run(args, head=None, thread=None, merge_stderr=False, start=None):
    proc = vmtest.babeltrace2(args)
    # The warning comes out at the end of the input, before the summary.
    text = (proc.stderr if merge_stderr else "") + proc.stdout
    lines = text.splitlines(True)
    if thread is not None:
        lines = [l for i, l in enumerate(lines) if i == 0 or l.split(",")[1] == thread]
    if start is not None:
        # `sed -n '/^START/,$p'`: from the first line that starts so.
        first = [i for i, l in enumerate(lines) if l.startswith(start)]
        lines = lines[first[0]:] if first else []
    return "".join(lines[:head] if head else lines)


def masked(text):
    """Log lines with what changes from run to run (time, pid, tid) or with
    the code (the source line) masked: the doc shows one real line."""
    out = []
    for line in text.splitlines(True):
        match = btlog.LINE.match(line.rstrip("\n"))
        if match:
            line = "MM-DD hh:mm:ss.mmm PID TID %s %s %s@FILE:LINE [%s] %s\n" % (
                match.group("level"), match.group("tag"),
                match.group("where").split("@")[0], match.group("component"),
                match.group("message"))
        out.append(line)
    return "".join(out)


def main():
    tc.require_component("filter.vm.state")
    traces = vmtest.scenario("one-qemu-kvm")
    both = [traces["host"], traces["guest"], "-c", "filter.vm.state"]
    sink = ["-c", "sink.vm.threads"]
    expected = [
        run(both + ["-c", "sink.text.pretty"], head=8),
        run(both + sink),
        run(both + sink + ["-p", 'format="csv"'], thread="131"),
        run(both + sink + ["-p", 'format="csv",what="vcpus"'], head=8),
        run(both + sink + ["-p", 'format="csv",what="exits"']),
        run([traces["guest"]] + sink, merge_stderr=True),
    ]
    nn = vmtest.scenario("noisy-neighbour")
    steal = [nn["host"], nn["web"], nn["batch"], "-c", "filter.vm.correlate",
             "-c", "filter.vm.state"] + sink
    expected += [
        run(steal + ["-p", 'what="steal"']),
        run(steal + ["-p", 'format="csv",what="steal"']),
    ]
    cn = vmtest.scenario("container-neighbour")
    pods = [cn["host"], cn["web"], cn["batch"], "-c", "filter.vm.correlate",
            "-c", "filter.vm.state"] + sink
    expected += [
        run(pods, start="Containers"),
        run(pods + ["-p", 'format="csv"'], thread="300", head=4),
    ]
    if vmtest.under_valgrind():
        # Valgrind computes long double in double precision: synchronized
        # times at epoch scale move by up to 256 ns, which reorders these
        # nanosecond-scale stubs' events. It checks memory here; the plain
        # and sanitized runs check the text.
        print("under valgrind: the walkthrough's commands ran; their output is "
              "compared in the plain run")
        return
    with open(os.path.join(vmtest.SOURCE_DIR, "doc", "walkthrough.md")) as f:
        blocks = re.findall(r"```\n(.*?)```", f.read(), flags=re.S)
    if len(blocks) != len(expected):
        vmtest.fail("walkthrough.md has %d output blocks, expecting %d" % (
            len(blocks), len(expected)))
    for number, (block, output) in enumerate(zip(blocks, expected), 1):
        if masked(block) != masked(output):
            vmtest.fail("walkthrough.md output block %d is stale; the command now "
                        "prints:\n%s" % (number, output))
    print("walkthrough.md matches the real output")


main()
