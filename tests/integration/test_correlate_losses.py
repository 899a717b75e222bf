"""filter.vm.correlate passes discarded-events messages on with their ranges
intact (converted to the reference time base), in both graph forms.

An ordinary lttng-modules loss, as src.ctf.fs reports it, has a range that
ends with the packet it precedes, after that packet's beginning: that is not
the overlap of old LTTng 2.1 packets, so no repair warning, no clamping (the
gap's place depends on the range's end), and a copy written by sink.ctf.fs
(which wants the range to end with the next packet) reads back with the same
ranges. The traces: tests/integration/losses-ctf's Python source, written to
CTF with sink.ctf.fs, so that src.ctf.fs reads real events_discarded
counters.
"""

import os
import re
import shutil
import tempfile

import truthdata
import vmtest

SOURCE_DIR = os.path.join(vmtest.SOURCE_DIR, "tests", "integration", "losses-ctf")
HOST_SHIFT = 2000
# Compact lines: [cycles ns-from-origin] for the beginning, then the end.
DISCARDED_RE = re.compile(r"^\[[\d,]+ ([\d,]+)\] \[[\d,]+ ([\d,]+)\] \{(\d+) \d+ (\d+)\} "
                          r"Discarded events \((\d+) events\)")
REPAIR_WARNING = "old LTTng"


def write_ctf(work, hostname, uuid_byte, shift):
    out = os.path.join(work, hostname)
    vmtest.babeltrace2(
        ["--component=source.vmtestlosses.machine",
         "--params=hostname=%s,uuid-byte=%d,shift-ns=%d" % (
             truthdata.quote(hostname), uuid_byte, shift),
         "--output-format=ctf", "--output=" + out],
        plugin_paths=[SOURCE_DIR], wrap=False)
    return os.path.join(out, "trace")


def ranges(details_output):
    """Sorted (begin ns, end ns, count) of every discarded-events message."""
    found = []
    for line in details_output.splitlines():
        m = DISCARDED_RE.match(line)
        if m:
            found.append((int(m.group(1).replace(",", "")),
                          int(m.group(2).replace(",", "")), int(m.group(5))))
    return sorted(found)


def details(args):
    return vmtest.babeltrace2(args + ["--component=sink.text.details",
                                      "--params=with-metadata=false,compact=true"])


work = tempfile.mkdtemp(prefix="vm-losses-")
try:
    traces = {"host": write_ctf(work, "host", 1, 0),
              "guest": write_ctf(work, "guest", 2, 5000)}
    # What src.ctf.fs itself reports: the lttng-modules layout.
    raw = {}
    for name, path in traces.items():
        raw[name] = ranges(details([path]).stdout)
    if raw["host"] != [(1600000000000001200, 1600000000000001600, 4),
                       (1600000000000001500, 1600000000000001800, 2)]:
        vmtest.fail("src.ctf.fs reports other ranges than the layout's: %r" % raw["host"])
    expected = sorted([(b + HOST_SHIFT, e + HOST_SHIFT, c) for b, e, c in raw["host"]] +
                      raw["guest"])
    correlate = [("filter.vm.correlate",
                  {"transforms": ("{host={offset-ns=%d}}" % HOST_SHIFT,)})]
    for form, make in (("run", truthdata.run_form), ("convert", truthdata.convert_form)):
        args = make(traces, correlate, "sink.text.details",
                    {"with-metadata": ("false",), "compact": ("true",)})
        proc = vmtest.babeltrace2(args)
        got = ranges(proc.stdout)
        if got != expected:
            vmtest.fail("%s form: discarded ranges %r, expected %r" % (form, got, expected))
        if REPAIR_WARNING in proc.stderr:
            vmtest.fail("%s form: an ordinary loss taken for old LTTng packets:\n%s"
                        % (form, proc.stderr))
        # A synchronized copy, read back: the same ranges.
        copy = os.path.join(work, "copy-" + form)
        args = make(traces, correlate, "sink.ctf.fs",
                    {"path": copy})
        vmtest.babeltrace2(args)
        copied = []
        for root, _, files in os.walk(copy):
            if "metadata" in files:
                copied += ranges(details([root]).stdout)
        if sorted(copied) != expected:
            vmtest.fail("%s form: the copy reads back with ranges %r, expected %r"
                        % (form, sorted(copied), expected))
    print("discarded ranges intact in both forms and through a sink.ctf.fs copy")
finally:
    shutil.rmtree(work, ignore_errors=True)
