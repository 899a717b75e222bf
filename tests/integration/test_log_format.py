"""The three components log in babeltrace2's own line shape (that of its
plugins, BT_COMP_LOG()): date, time, pid, tid, level letter, the tag
PLUGIN/<class in babeltrace2's abbreviation>, function@file:line, the
component's name in brackets, the message."""

import re

import btlog
import vmtest
import threads_common as tc


def check_stock_shape():
    """The pattern is babeltrace2's: a stock plugin's lines match it."""
    traces = vmtest.scenario("one-qemu-kvm")
    proc = vmtest.babeltrace2(["--log-level=I", traces["host"], "-c", "sink.utils.dummy"],
                              plugin_paths=[])
    stock = [m for m in btlog.lines(proc.stderr) if m.group("tag").startswith("PLUGIN/SRC.")]
    if not stock:
        vmtest.fail("no src.ctf.fs INFO line matches babeltrace2's pattern:\n" +
                    proc.stderr[-3000:])


def our_lines(stderr):
    """Every line of stderr that is a log line of the vm plugin."""
    return [line for line in stderr.splitlines() if "VM." in line.split("[")[0] or
            line.startswith(("W ", "I ", "D ", "E "))]


def check_warning(args, tag, name, words):
    proc = vmtest.babeltrace2(args)
    lines = our_lines(proc.stderr)
    if not lines:
        vmtest.fail("%s logged nothing:\n%s" % (name, proc.stderr))
    for line in lines:
        if not btlog.LINE.match(line):
            vmtest.fail("%s's log line is not babeltrace2's shape:\n%s" % (name, line))
    warnings = [m for m in btlog.lines(proc.stderr, "W") if m.group("tag") == tag]
    if not warnings:
        vmtest.fail("no %s warning tagged %s:\n%s" % (name, tag, proc.stderr))
    for match in warnings:
        if match.group("component") != name:
            vmtest.fail("warning of %s names the component [%s]:\n%s" % (
                name, match.group("component"), match.group(0)))
        if not any(word in match.group("message") for word in words):
            vmtest.fail("unexpected %s warning:\n%s" % (name, match.group(0)))
        # FUNCTION@FILE:LINE, the file without its folders.
        if not re.match(r"^\w+@[\w.-]+\.c:\d+$", match.group("where")):
            vmtest.fail("source location of %s: %s" % (name, match.group("where")))


def main():
    tc.require_component("filter.vm.state")
    check_stock_shape()
    traces = vmtest.scenario("one-qemu-kvm")
    host, guest = traces["host"], traces["guest"]
    # One warning from each component, each given a name of its own.
    check_warning([host, guest, "-c", "my-correlate:filter.vm.correlate", "-p",
                   'sync="tcp"', "-c", "sink.utils.dummy"],
                  "PLUGIN/FLT.VM.CORRELATE", "my-correlate", ["synchronization pair"])
    check_warning([guest, "-c", "my-state:filter.vm.state", "-c", "sink.utils.dummy"],
                  "PLUGIN/FLT.VM.STATE", "my-state", ["No host found"])
    check_warning([guest, "-c", "my-threads:sink.vm.threads"],
                  "PLUGIN/SINK.VM.THREADS", "my-threads", ["no host found"])
    print("the three components log in babeltrace2's line shape")


main()
