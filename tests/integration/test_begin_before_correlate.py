"""The convert form's --begin / --timerange: the trimmer BEFORE filter.vm.correlate.

`babeltrace2 TRACE... --begin=B -c filter.vm.correlate ...` puts the stock
muxer, then filter.utils.trimmer, before correlate (so does
bt2.TraceCollectionMessageIterator(begin=...) before its filters). The
trimmer seeks every input to B, each machine on its own clock, and the
stream and packet beginnings it recreates all carry B: correlate must still
know every machine before it sets up the synchronization (it used to take
all but the first for machines joining "late" and leave them on their own
clocks), and synchronize them with the sync messages after B.

Checked on generated workloads (vm-workload) against the trimmer after
correlate (`-c filter.vm.correlate -c filter.utils.trimmer ... -c
filter.vm.state`, the range in the reference's time base) and against the
generator's truth:

- vmsync sync (the default workload), CLI convert form, --begin and
  --timerange: no warning from correlate, and sink.vm.threads gives the same
  thread states and vCPU modes as the trimmer after correlate, leaving out
  each thread's (vCPU's) first interval, which the two cuts start at
  different times (each guest is cut at B on its own clock), and with an end
  the time after the earlier of the two end cuts of its machine; the thread
  states agree with the truth over the same time;
- the same from Python: TraceCollectionMessageIterator(begin=...) with
  correlate and state gives every host message at the same time as the
  graph with the trimmer after correlate, and every guest event within the
  synchronization tolerance (streams compared on their common suffix);
- sync from stock KVM events only (no vmsync, no TCP): the cut drops the
  host's process list (its statedump, at the beginning of its trace), which
  the vCPU method needs, so correlate cannot synchronize the guests: the run
  fails (CLI and Python) with an error that names the cut, its time and the
  trimmer after correlate; that command, run as given, synchronizes every
  guest and its thread states agree with the truth after B.
"""

import csv
import itertools
import os
import re
import shlex
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthcmp  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

# A sanitized plugin in this very process: its runtime must come first.
vmtest.sanitizer_runtime_first()

try:
    import bt2
except ImportError:
    bt2 = None

# The default shape: a host, two guests of two vCPUs, vmsync (and TCP) messages.
VMSYNC = ["--seed", 5, "--duration-ms", 100]
# Stock KVM events only: a shape the vCPU method synchronizes untrimmed.
STOCK = ["--seed", 4, "--guests", 2, "--vcpus", 2, "--host-cpus", 3,
         "--guest-offset-ns", -1000000, "--drift-ppm", 20, "--duration-ms", 150,
         "--vmsync-period-ms", 0, "--tcp-period-ms", 0]
# Thread states after the first intervals: the two graphs' maps are fitted on
# different matches (those after B only, or all), a few tens of ns apart
# (99.999% here; under valgrind, whose long double is a double, 99.995%).
MIN_SAME_PERCENT = 99.98
# Against the truth (vm-workload's own events, clocks within ~50 ns).
MIN_TRUTH_PERCENT = 99.9
# Python: a guest event's time in both graphs.
TOLERANCE_NS = 1000
CORRELATE_TROUBLE = ("first shows up", "own clock", "cannot be synchronized",
                     "no synchronization pair")


def bound(ns):
    """A trimmer bound: seconds since the origin with every nanosecond."""
    return "%d.%09d" % divmod(ns, 1000000000)


def workload(name, args):
    """(out dir, {machine: CTF dir} host first, (begin, end) in host ns)."""
    if vmtest.small_inputs():
        # The same shape over less time: memory checks, not accuracy.
        at = args.index("--duration-ms")
        args = args[:at + 1] + [min(args[at + 1], 60)] + args[at + 2:]
        name += "-small"
    out = truthdata.generate("begin-before-correlate-" + name, args)
    traces = truthdata.ctf_traces(out)
    with open(os.path.join(out, "truth", "threads.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    first = min(int(r["begin_ns"]) for r in rows)
    last = max(int(r["end_ns"]) for r in rows)
    return out, traces, (first + (last - first) * 2 // 5, first + (last - first) * 4 // 5)


def sink_args(what):
    return ("sink.vm.threads", {"format": "csv", "what": what})


def trim_params(begin, end):
    values = {"begin": bound(begin)}
    if end is not None:
        values["end"] = bound(end)
    return values


def run_before(traces, begin, end, what, check=True):
    """--begin (--timerange with END): the trimmer before correlate."""
    args = truthdata.convert_form(traces, [("filter.vm.correlate", {}),
                                           ("filter.vm.state", {})], *sink_args(what))
    cut = ["--begin=" + bound(begin)] if end is None else \
        ["--timerange=[%s,%s]" % (bound(begin), bound(end))]
    return vmtest.babeltrace2(args[:len(traces)] + cut + args[len(traces):], check=check)


def run_after(traces, begin, end, what):
    """The trimmer after correlate (before state, as state is after it above)."""
    return vmtest.babeltrace2(truthdata.convert_form(
        traces, [("filter.vm.correlate", {}),
                 ("filter.utils.trimmer", trim_params(begin, end)),
                 ("filter.vm.state", {})], *sink_args(what)))


def check_quiet(proc, what):
    """No warning of correlate: every machine synchronized."""
    for line in proc.stderr.splitlines():
        if "FLT.VM.CORRELATE" in line or any(t in line for t in CORRELATE_TROUBLE):
            vmtest.fail("%s: correlate warns:\n%s" % (what, proc.stderr[-4000:]))


def write(directory, name, text):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def partial_windows(paths, kind, cut_ends=None):
    """{(machine, id): [(0, end of its first interval)]}, the latest over the
    files of PATHS: before it, the thread (vCPU) is unknown or in a state
    begun before a cut. With CUT_ENDS ({machine: true time of its earliest
    end cut}), also [(that time, infinity)]: after a machine's cut its
    threads stay in their last state, split by the host's vCPU modes."""
    first = {}
    for path in paths:
        for key, records in itertools.groupby(truthcmp.sorted_records(
                truthcmp.Reader(path, kind)), key=lambda r: (r[0], r[1])):
            first[key] = max(first.get(key, 0), next(records)[3])
    windows = {}
    for key, end in first.items():
        windows[key] = [(0, end)]
        if cut_ends is not None:
            cut = cut_ends[key[0]]
            windows[key] = [(0, 2 ** 63)] if cut <= end else [(0, end), (cut, 2 ** 63)]
    return windows


def clip(text, ends):
    """The CSV TEXT without the rows that begin after their machine's end in
    ENDS (a guest cut later on its own clock has more after the other cut)."""
    if ends is None:
        return text
    lines = text.splitlines(True)
    return "".join(lines[:1] + [line for line, row in zip(lines[1:], csv.DictReader(lines))
                                if int(row["begin_ns"]) < ends[row["machine"]]])


def cut_ends(out, end):
    """{machine: the true time of the earlier of the two end cuts}: the
    trimmer after correlate cuts at END in the reference's (the host's, the
    truth's) time, the one before it at END on each machine's own clock."""
    return {machine: min(end, int(slope * end + offset))
            for machine, (slope, offset) in truthdata.timemap(out).items()}


def known_only(truth_path, kind, windows):
    """WINDOWS, and the whole time of the truth's threads (vCPUs) that no
    output has: a thread with no event after the cut is unknown to both
    graphs (the comparison with the trimmer after correlate checks that
    they know the same ones)."""
    windows = dict(windows)
    for key, _ in itertools.groupby(truthcmp.sorted_records(truthcmp.Reader(
            truth_path, kind)), key=lambda r: (r[0], r[1])):
        windows.setdefault(key, [(0, 2 ** 63)])
    return windows


def agreement(what, truth_path, output_path, kind, windows, minimum, label):
    result = truthcmp.compare_intervals(what, truth_path, output_path, kind, exclude=windows)
    if result.percent < minimum or result.missing_keys or result.extra_keys or \
            result.truth_ns == 0:
        vmtest.fail("%s: %s\n(at least %.2f%% wanted)" % (label, result.summary(), minimum))
    return result


def check_cli(name, out, traces, begin, end):
    """--begin (END None) or --timerange: the same states as the trimmer after."""
    form = "--begin" if end is None else "--timerange"
    directory = tempfile.mkdtemp(prefix="vm-begin-")
    try:
        whats = (("threads", truthcmp.THREADS), ("vcpus", truthcmp.VCPUS))
        # Valgrind: the vCPU modes run the same code of correlate again.
        for what, kind in whats[:1] if vmtest.under_valgrind() else whats:
            label = "%s, %s, %s" % (name, form, what)
            ends = None if end is None else cut_ends(out, end)
            before = run_before(traces, begin, end, what)
            check_quiet(before, label)
            before_path = write(directory, "before-" + what, clip(before.stdout, ends))
            after_path = write(directory, "after-" + what,
                               clip(run_after(traces, begin, end, what).stdout, ends))
            windows = partial_windows([before_path, after_path], kind, ends)
            same = agreement(what, after_path, before_path, kind, windows, MIN_SAME_PERCENT,
                             label + ", against the trimmer after correlate")
            truth_path = os.path.join(out, "truth", what + ".csv")
            truth = agreement(what, truth_path, before_path, kind,
                              known_only(truth_path, kind, windows), MIN_TRUTH_PERCENT,
                              label + ", against the truth")
            print("%s: %.4f%% as the trimmer after correlate, %.4f%% as the truth "
                  "(%d ns over %d %s)" % (label, same.percent, truth.percent, same.truth_ns,
                                          same.keys, what))
    finally:
        shutil.rmtree(directory, ignore_errors=True)


# --- Python --------------------------------------------------------------


def vm_plugin():
    for plugin in bt2.find_plugins_in_path(vmtest.PLUGIN_DIR):
        if plugin.name == "vm":
            return plugin
    vmtest.fail("plugin vm not found in " + vmtest.PLUGIN_DIR)


def event_record(msg):
    """((machine, trace, stream id), what identifies the event, time)."""
    event = msg.event
    trace = event.stream.trace
    return ((str(trace.environment.get("hostname")), str(trace.name), event.stream.id),
            (event.name, str(event.payload_field)),
            msg.default_clock_snapshot.ns_from_origin)


def tcmi_events(traces, begin_s, filters=("correlate", "state")):
    """Events out of TraceCollectionMessageIterator(begin=BEGIN_S, filters)."""
    plugin = vm_plugin()
    sources = [bt2.ComponentSpec.from_named_plugin_and_component_class(
        "ctf", "fs", {"inputs": [trace]}) for trace in traces.values()]
    specs = [bt2.ComponentSpec(plugin.filter_component_classes[name]) for name in filters]
    iterator = bt2.TraceCollectionMessageIterator(sources, specs, begin=begin_s)
    return [event_record(msg) for msg in iterator if type(msg) is bt2._EventMessageConst]


class Collect(bt2._UserSinkComponent if bt2 else object):
    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._out = obj

    def _user_graph_is_configured(self):
        self._iterator = self._create_message_iterator(self._port)

    def _user_consume(self):
        msg = next(self._iterator)
        if type(msg) is bt2._EventMessageConst:
            self._out.append(event_record(msg))


def free_port(component):
    return next(port for port in component.input_ports.values() if not port.is_connected)


def graph_events(traces, begin_ns):
    """Events of muxer -> correlate -> trimmer(begin) -> state, in Python."""
    graph = bt2.Graph()
    plugin = vm_plugin()
    utils = bt2.find_plugin("utils")
    fs = bt2.find_plugin("ctf").source_component_classes["fs"]
    muxer = graph.add_component(utils.filter_component_classes["muxer"], "muxer")
    chain = [graph.add_component(plugin.filter_component_classes["correlate"], "correlate"),
             graph.add_component(utils.filter_component_classes["trimmer"], "trimmer",
                                 {"begin": bound(begin_ns)}),
             graph.add_component(plugin.filter_component_classes["state"], "state")]
    for i, trace in enumerate(traces.values()):
        source = graph.add_component(fs, "src%d" % i, {"inputs": [trace]})
        for port in source.output_ports.values():
            graph.connect_ports(port, free_port(muxer))
    graph.connect_ports(muxer.output_ports["out"], free_port(chain[0]))
    for a, b in zip(chain, chain[1:]):
        graph.connect_ports(a.output_ports["out"], free_port(b))
    out = []
    sink = graph.add_component(Collect, "sink", obj=out)
    graph.connect_ports(chain[-1].output_ports["out"], sink.input_ports["in"])
    graph.run()
    return out


def by_stream(records):
    streams = {}
    for stream, what, time in records:
        streams.setdefault(stream, []).append((what, time))
    return streams


def check_python(name, traces, begin_ns):
    """TraceCollectionMessageIterator(begin=) against the trimmer after correlate."""
    begin_s = begin_ns / 1e9
    # The bound as TraceCollectionMessageIterator makes it (seconds as a float).
    begin_ns = int(begin_s * 1e9)
    before = by_stream(tcmi_events(traces, begin_s))
    after = by_stream(graph_events(traces, begin_ns))
    if sorted(before) != sorted(after):
        vmtest.fail("%s, Python: streams %r, %r with the trimmer after correlate"
                    % (name, sorted(before), sorted(after)))
    worst = 0
    for stream in sorted(after):
        mine, theirs = before[stream], after[stream]
        host = stream[0] == "host"
        if host and len(mine) != len(theirs):
            vmtest.fail("%s, Python: host stream %r has %d events, %d with the trimmer "
                        "after correlate" % (name, stream, len(mine), len(theirs)))
        common = min(len(mine), len(theirs))
        if common < len(theirs) // 2:
            vmtest.fail("%s, Python: stream %r: %d events, %d with the trimmer after "
                        "correlate" % (name, stream, len(mine), len(theirs)))
        for (what, time), (other, other_time) in zip(mine[len(mine) - common:],
                                                     theirs[len(theirs) - common:]):
            gap = abs(time - other_time)
            if what != other or gap > (0 if host else TOLERANCE_NS):
                vmtest.fail("%s, Python: stream %r: %r at %d, with the trimmer after "
                            "correlate %r at %d" % (name, stream, what, time, other,
                                                    other_time))
            worst = max(worst, gap)
    print("%s, Python (TraceCollectionMessageIterator, begin=%s): every event as with "
          "the trimmer after correlate, guests within %d ns"
          % (name, bound(begin_ns), worst))


# --- stock KVM events ------------------------------------------------------


def check_error_text(text, begin, label):
    text = " ".join(text.split())
    wanted = ["cannot be synchronized", "cut at %s" % bound(begin),
              "trimmer before filter.vm.correlate", "--begin",
              "--component=filter.vm.correlate",
              "--component=filter.utils.trimmer --params='begin=\"%s\"'" % bound(begin)]
    missing = [w for w in wanted if w not in text]
    if missing:
        vmtest.fail("%s: the error does not say %r:\n%s" % (label, missing, text[-3000:]))


def suggested_command(text, traces):
    """The error's command, with the traces for TRACE... and the sink for SINK."""
    text = " ".join(text.split())
    found = re.search(r"babeltrace2 TRACE\.\.\. (.*?) --component=SINK", text)
    if not found:
        vmtest.fail("no command in the error:\n" + text[-3000:])
    # [--component=filter.vm.state] is optional: taken.
    return list(traces.values()) + shlex.split(found.group(1).replace("[", "").replace(
        "]", ""))


def check_stock(name, out, traces, begin):
    """The vCPU method cannot work after the cut: a clear error, a fix that works."""
    label = "%s, --begin" % name
    proc = run_before(traces, begin, None, "threads", check=False)
    if proc.returncode == 0:
        vmtest.fail("%s: the run succeeded, with the guests unsynchronized:\n%s"
                    % (label, proc.stderr[-3000:]))
    check_error_text(proc.stderr, begin, label)
    # The fix, as the error gives it, with filter.vm.state and the sink.
    fix = suggested_command(proc.stderr, traces)
    directory = tempfile.mkdtemp(prefix="vm-begin-")
    try:
        done = vmtest.babeltrace2(fix + ["--component=sink.vm.threads",
                                         "--params=format=\"csv\",what=\"threads\""])
        check_quiet(done, label + ", the suggested command")
        path = write(directory, "fixed-threads", done.stdout)
        truth_path = os.path.join(out, "truth", "threads.csv")
        windows = known_only(truth_path, truthcmp.THREADS,
                             partial_windows([path], truthcmp.THREADS))
        truth = agreement("threads", truth_path, path, truthcmp.THREADS, windows,
                          MIN_TRUTH_PERCENT,
                          label + ", the suggested command against the truth")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print("%s: fails naming the cut and the trimmer after correlate; the suggested "
          "command (%s) synchronizes every guest: %.4f%% as the truth"
          % (label, " ".join(fix[len(traces):]), truth.percent))
    if bt2 is None or vmtest.under_valgrind():
        return
    begin_s = begin / 1e9
    try:
        tcmi_events(traces, begin_s, ("correlate",))
    except bt2._Error as error:
        check_error_text(str(error), int(begin_s * 1e9), name + ", Python")
        print("%s, Python: TraceCollectionMessageIterator(begin=) fails with the same "
              "error" % name)
        return
    vmtest.fail("%s, Python: TraceCollectionMessageIterator(begin=) succeeded, with the "
                "guests unsynchronized" % name)


def main():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    valgrind = vmtest.under_valgrind()
    out, traces, (begin, end) = workload("vmsync", VMSYNC)
    check_cli("vmsync", out, traces, begin, None)
    if not valgrind:
        check_cli("vmsync", out, traces, begin, end)
        if bt2 is not None:
            # In this process: valgrind would not see it.
            check_python("vmsync", traces, begin)
    out, traces, (begin, _) = workload("stock", STOCK)
    check_stock("stock KVM events", out, traces, begin)


main()
