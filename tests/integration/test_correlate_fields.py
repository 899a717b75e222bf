"""filter.vm.correlate's output, field by field, against its input.

sink.vmtest.fields (tests/mirrortest) writes every message of a graph, one
line each: stream, kind, time, and every field with its name, class type
and value; each string is its length's worth of bytes, the truth (babeltrace2
2.0.4's src.ctf.fs leaves an empty string field with the bytes of a
recycled field in its value, which every stock sink prints), with a mark
when its value shows more. For each input, the dump of the plain source
(no correlate, no muxer) is compared stream by stream with the dump of
correlate's output, with sync on (its sync pass reads upstream a second
time) and with sync="none":

- the same streams (but correlate's own `vm-sync` stream, whose vm:sync
  events test sync-events checks), and in each the same messages in the same order, with
  the same event classes, field classes, names and values; only the
  environment entries correlate adds (`vm_*`) are ignored;
- no string of the output shows more than its length (a sink that reads
  the value would print stale bytes);
- with sync="none" and on single-machine inputs, the same times.

Inputs: every real trace of ../shared/traces (skipped when absent), stub
scenarios with variants, enumerations and static arrays (tcp-net-dev) and
overlapping packets, and a vm-workload run whose guests have threads with an
empty name next to named ones (so that recycled fields hold other names).
Under valgrind and the sanitizers the large real traces are left to the plain
run.

Then sink.vm.threads straight on a guest trace (src.ctf.fs' recycled fields,
no correlate in between) must report the unnamed threads without a name,
as the generator's truth says.
"""

import csv
import os
import re
import shutil
import sys
import tempfile
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import truthdata  # noqa: E402

MIRRORTEST_DIR = os.path.join(vmtest.BUILD_DIR, "tests", "mirrortest")
PATHS = [MIRRORTEST_DIR, vmtest.PLUGIN_DIR]
WORKLOAD_ARGS = ["--seed", 11, "--events", 40000, "--guests", 2, "--vcpus", 2,
                 "--threads", 6, "--unnamed-threads", 2]
SMALL_WORKLOAD_ARGS = ["--seed", 11, "--events", 4000, "--guests", 1, "--vcpus", 2,
                       "--threads", 4, "--unnamed-threads", 1]
VM_ENV_RE = re.compile(r' env:vm_\w+=("[^"]*"|\S+)')
STALE = "!value-shows-"


def sources(traces):
    args = []
    for i, trace in enumerate(traces):
        args += ["-c", "src%d:src.ctf.fs" % i, "-p", 'inputs=["%s"]' % trace]
    return args


def dump(what, args, path, wrap):
    """Runs babeltrace2 `args` (ending with the sink's connections) and
    reads the dump: OrderedDict {stream: [(kind, time, content)]}."""
    vmtest.babeltrace2(args, plugin_paths=PATHS, wrap=wrap)
    streams = OrderedDict()
    with open(path, encoding="ascii") as f:
        for number, line in enumerate(f, 1):
            stream, kind, time, content = line.rstrip("\n").split("\t", 3)
            streams.setdefault(stream, []).append((kind, time, content, number))
    if not streams:
        vmtest.fail("%s: nothing in the dump" % what)
    return streams


def input_dump(traces, work):
    path = os.path.join(work, "input.txt")
    args = ["run"] + sources(traces) + [
        "-c", "dump:sink.vmtest.fields", "-p", 'path="%s"' % path]
    for i in range(len(traces)):
        args += ["--connect", "src%d:dump" % i]
    return dump("input", args, path, wrap=False)


def correlate_dump(traces, params, work, convert=False):
    path = os.path.join(work, "correlate.txt")
    sink = ["-c", "dump:sink.vmtest.fields", "-p", 'path="%s"' % path]
    if convert:
        # The convert form: babeltrace2 puts its muxer before correlate.
        args = list(traces) + ["-c", "filter.vm.correlate", "-p", params] + \
            ["-c", "sink.vmtest.fields", "-p", 'path="%s"' % path]
    else:
        args = ["run"] + sources(traces) + [
            "-c", "correlate:filter.vm.correlate", "-p", params] + sink
        for i in range(len(traces)):
            args += ["--connect", "src%d:correlate" % i]
        args += ["--connect", "correlate:dump"]
    return dump("correlate", args, path, wrap=True)


def differs(what, stream, i, want, got, detail):
    vmtest.fail("%s: stream %s, message #%d: %s\n  input:     %s\n  correlate: %s"
                % (what, stream, i, detail, want, got))


# Range ends that correlate clamps on inputs whose packets overlap (old
# LTTng, documented in babeltrace2-filter.vm.correlate(7)).
CLAMPED_KINDS = ("packet-end", "discarded-events", "discarded-packets")
# The stream key (tests/mirrortest) of correlate's vm-sync trace.
SYNC_STREAM_PREFIX = "vm-sync|"


def compare(what, want, got, same_times, clamped=False):
    """Fails at the first difference; returns (messages, strings, empty strings)."""
    # Correlate's own stream of vm:sync events (a map of several segments,
    # read once) has no input counterpart; test sync-events checks it.
    got = {stream: records for stream, records in got.items()
           if not stream.startswith(SYNC_STREAM_PREFIX)}
    if list(want) != list(got) and sorted(want) != sorted(got):
        vmtest.fail("%s: streams differ:\n  input:     %s\n  correlate: %s"
                    % (what, sorted(want), sorted(got)))
    messages = strings = empty = 0
    for stream, records in want.items():
        out = got[stream]
        for i, (a, b) in enumerate(zip(records, out)):
            kind_a, time_a, content_a, _ = a
            kind_b, time_b, content_b, line = b
            if STALE in content_b:
                differs(what, stream, i, content_a, content_b,
                        "a string's value shows more than its length (dump line %d)" % line)
            if kind_b == "stream-beginning":
                content_b = VM_ENV_RE.sub("", content_b)
            if STALE in content_a:
                content_a = re.sub(STALE + r"\d+-bytes", "", content_a)
            if (kind_a, content_a) != (kind_b, content_b):
                differs(what, stream, i, a[:3], b[:3], "fields differ")
            if same_times and time_a != time_b and not (
                    clamped and kind_a in CLAMPED_KINDS):
                differs(what, stream, i, a[:3], b[:3], "times differ")
            messages += 1
            strings += content_a.count('=str:"')
            empty += content_a.count('=str:""')
        if len(records) != len(out):
            vmtest.fail("%s: stream %s has %d messages in the input, %d out of correlate"
                        % (what, stream, len(records), len(out)))
    return messages, strings, empty


def check(what, traces, forms=("direct",), clamped=False):
    work = tempfile.mkdtemp(prefix="correlate-fields-")
    try:
        want = input_dump(traces, work)
        stale = sum(STALE in r[2] for records in want.values() for r in records)
        for form in forms:
            for params in ('sync="auto"', 'sync="none"'):
                got = correlate_dump(traces, params, work, convert=form == "convert")
                same_times = params == 'sync="none"' or len(traces) == 1
                messages, strings, empty = compare(
                    "%s, %s form, %s" % (what, form, params), want, got, same_times,
                    clamped)
        print("%s: %d messages, %d strings (%d empty; %d with stale bytes in the input) "
              "identical out of correlate, forms %s, sync auto and none"
              % (what, messages, strings, empty, stale, "/".join(forms)))
        return empty
    finally:
        shutil.rmtree(work, ignore_errors=True)


def check_real_traces():
    base = vmtest.shared_dir()
    if base is None:
        print("../shared is not present: real traces skipped")
        return
    real = [("tc-many-threads", ["tc-many-threads"], ("direct", "convert"), False),
            ("bt-lttng-tracefile-rotation", ["bt-lttng-tracefile-rotation/kernel"],
             ("direct", "convert"), False),
            # Its packets overlap: the convert form's muxer refuses them.
            ("tc-synctraces", ["tc-synctraces/scp_src", "tc-synctraces/scp_dest"],
             ("direct",), True)]
    for name, parts, forms, clamped in real:
        paths = [os.path.join(base, "traces", p) for p in parts]
        if not all(os.path.isdir(p) for p in paths):
            print("not present, skipped: " + name)
            continue
        if vmtest.small_inputs() and name != "bt-lttng-tracefile-rotation":
            # Valgrind and the sanitizers look for memory errors: the small
            # real trace shows them on the same code paths.
            print("small inputs, skipped (checked by the plain run): " + name)
            continue
        check(name, paths, forms, clamped)


def check_stubs():
    for name, forms, clamped in (("tcp-net-dev", ("direct", "convert"), False),
                                 ("two-guests", ("direct", "convert"), False),
                                 ("old-lttng-packets", ("direct",), True)):
        check("stub-traces/" + name, list(vmtest.scenario(name).values()), forms, clamped)


def unnamed_tids(out):
    """{(machine, tid)} of the truth's threads that never have a name."""
    names = {}
    with open(os.path.join(out, "truth", "threads.csv"), newline="") as f:
        for row in csv.DictReader(f):
            names.setdefault((row["machine"], row["tid"]), set()).add(row["comm"])
    return {key for key, comms in names.items() if comms == {""}}, names


def check_threads_names(out, traces, guest):
    """sink.vm.threads on src.ctf.fs alone: every thread named as in the truth."""
    unnamed, truth = unnamed_tids(out)
    if not any(machine == guest for machine, _ in unnamed):
        vmtest.fail("the workload has no unnamed thread on %s" % guest)
    work = tempfile.mkdtemp(prefix="correlate-fields-")
    try:
        path = os.path.join(work, "threads.csv")
        vmtest.babeltrace2([traces[guest], "-c", "sink.vm.threads", "-p",
                            'what="threads",format="csv",path="%s"' % path])
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    checked = 0
    for row in rows:
        key = (guest, row["tid"])
        if key in truth and row["comm"] not in truth[key]:
            vmtest.fail("sink.vm.threads names thread %s of %s `%s`; the truth has %r"
                        % (row["tid"], guest, row["comm"], sorted(truth[key])))
        checked += key in unnamed
    if not checked:
        vmtest.fail("sink.vm.threads reported no interval of the unnamed threads")
    print("sink.vm.threads: %d intervals of unnamed threads of %s, all without a name"
          % (checked, guest))


def check_workload():
    args = SMALL_WORKLOAD_ARGS if vmtest.small_inputs() else WORKLOAD_ARGS
    out = truthdata.generate("correlate-fields" + ("-small" if vmtest.small_inputs() else ""),
                             args)
    traces = truthdata.ctf_traces(out)
    empty = check("vm-workload " + " ".join(str(a) for a in args), list(traces.values()),
                  ("direct", "convert"))
    if not empty:
        vmtest.fail("the workload has no empty string: the check above proves little")
    check_threads_names(out, traces, "guest1")


def main():
    if not os.path.isdir(MIRRORTEST_DIR):
        vmtest.fail("no vmtest plugin at " + MIRRORTEST_DIR)
    check_stubs()
    check_workload()
    check_real_traces()


main()
