"""filter.utils.trimmer after filter.vm.correlate (and filter.vm.state).

The trimmer seeks its upstream to its `begin` time: correlate and state
must accept a seek to a time given in their OUTPUT time base (the
reference machine's). What comes out after the seek must be exactly what
the unseeked output has from that time on, plus the stream and packet
beginnings of the streams that are under way at that time.

Checked, on stub scenarios (always) and on the real traces of ../shared
(when present), in both graph forms (convert: babeltrace2's muxer before
correlate; run: every source straight into correlate):

- exact suffix: a python3-bt2 sink reads the untrimmed output and the
  trimmed one (`begin`, then `begin` and `end`); the trimmed one is the
  untrimmed one cut at those times, message by message (type, stream,
  time, event name and fields), after the stream/packet beginnings the
  seek recreates, and every stream stays well formed;
- the CLI: `babeltrace2 TRACE... -c filter.vm.correlate [-c filter.vm.state]
  -c filter.utils.trimmer -p begin=...,end=...` prints (sink.text.pretty)
  exactly the untrimmed lines whose time is in the range;
- a copy: the trimmed output written by sink.ctf.fs and read back has the
  same events at the same times.
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthdata  # noqa: E402
import vmtest  # noqa: E402

# A sanitized plugin in this very process: its runtime must come first.
vmtest.sanitizer_runtime_first()

try:
    import bt2
except ImportError:
    vmtest.skip("python3-bt2 is not installed")

STRUCTURE = ("StreamBeginning", "StreamEnd", "PacketBeginning", "PacketEnd")


def has_clock_snapshot(msg):
    """Whether the message has a default clock snapshot (python3-bt2 does not
    check: reading one that is not there crashes)."""
    if hasattr(msg, "packet"):
        cls = msg.packet.stream.cls
        if "End" in type(msg).__name__:
            return cls.packets_have_end_default_clock_snapshot
        return cls.packets_have_beginning_default_clock_snapshot
    if hasattr(msg, "event"):
        return msg.event.stream.cls.default_clock_class is not None
    if hasattr(msg, "default_beginning_clock_snapshot"):
        cls = msg.stream.cls
        if "Events" in type(msg).__name__:
            return cls.discarded_events_have_default_clock_snapshots
        return cls.discarded_packets_have_default_clock_snapshots
    return True


def msg_time(msg):
    """ns from origin of the message's default clock snapshot, or None."""
    if not has_clock_snapshot(msg):
        return None
    if hasattr(msg, "default_beginning_clock_snapshot"):
        return msg.default_beginning_clock_snapshot.ns_from_origin
    try:
        return msg.default_clock_snapshot.ns_from_origin
    except Exception:  # a stream message without a known time
        return None


def stream_key(stream):
    trace = stream.trace
    hostname = trace.environment.get("hostname")
    return (str(trace.name), str(hostname) if hostname is not None else "",
            stream.cls.id, stream.id)


def describe(msg):
    """(kind, stream, time, name, fields): what must be the same."""
    kind = type(msg).__name__.lstrip("_").replace("MessageConst", "").replace("Message", "")
    stream = None
    name = fields = ""
    if hasattr(msg, "event"):
        event = msg.event
        stream = event.stream
        name = event.name
        fields = "%s|%s|%s" % (event.common_context_field, event.specific_context_field,
                               event.payload_field)
    elif hasattr(msg, "packet"):
        stream = msg.packet.stream
    elif hasattr(msg, "stream"):
        stream = msg.stream
    return (kind, stream_key(stream) if stream is not None else None,
            msg_time(msg), name, fields)


class Collect(bt2._UserSinkComponent):
    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._out = obj

    def _user_graph_is_configured(self):
        self._iterator = self._create_message_iterator(self._port)

    def _user_consume(self):
        self._out.append(describe(next(self._iterator)))


def vm_plugin():
    for plugin in bt2.find_plugins_in_path(vmtest.PLUGIN_DIR):
        if plugin.name == "vm":
            return plugin
    vmtest.fail("plugin vm not found in " + vmtest.PLUGIN_DIR)


def free_port(component):
    for port in component.input_ports.values():
        if not port.is_connected:
            return port
    vmtest.fail("no free input port")


def read(traces, form, with_state, trim=None):
    """Messages out of correlate [-> state] [-> trimmer], described."""
    graph = bt2.Graph()
    plugin = vm_plugin()
    fs = bt2.find_plugin("ctf").source_component_classes["fs"]
    utils = bt2.find_plugin("utils")
    correlate = graph.add_component(plugin.filter_component_classes["correlate"],
                                    "correlate")
    target = correlate
    if form == "convert":
        target = graph.add_component(utils.filter_component_classes["muxer"], "muxer")
        graph.connect_ports(target.output_ports["out"], free_port(correlate))
    for i, trace in enumerate(traces):
        source = graph.add_component(fs, "src%d" % i, {"inputs": [trace]})
        for port in source.output_ports.values():
            graph.connect_ports(port, free_port(target))
    last = correlate
    if with_state:
        state = graph.add_component(plugin.filter_component_classes["state"], "state")
        graph.connect_ports(last.output_ports["out"], state.input_ports["in"])
        last = state
    if trim:
        trimmer = graph.add_component(utils.filter_component_classes["trimmer"],
                                      "trimmer", trim)
        graph.connect_ports(last.output_ports["out"], trimmer.input_ports["in"])
        last = trimmer
    out = []
    sink = graph.add_component(Collect, "sink", obj=out)
    graph.connect_ports(last.output_ports["out"], sink.input_ports["in"])
    try:
        graph.run()
    except bt2._Error as error:
        vmtest.fail("%s form%s, trimmer %r: the graph failed:\n%s" % (
            form, " with state" if with_state else "", trim, error))
    return out


def bound(ns):
    """A trimmer bound: seconds since the origin with every nanosecond."""
    return "%d.%09d" % divmod(ns, 1000000000)


def open_streams(prefix):
    """Streams begun and not ended, and those with an open packet, after `prefix`."""
    streams, packets = set(), set()
    for kind, stream, _, _, _ in prefix:
        if kind == "StreamBeginning":
            streams.add(stream)
        elif kind == "StreamEnd":
            streams.discard(stream)
        elif kind == "PacketBeginning":
            packets.add(stream)
        elif kind == "PacketEnd":
            packets.discard(stream)
    return streams, packets


def check_well_formed(msgs, what):
    """Every stream begins once, ends once, events within packets if it has any."""
    begun, packet = {}, set()
    for index, (kind, stream, _, _, _) in enumerate(msgs):
        if stream is None:
            continue
        if kind == "StreamBeginning":
            if stream in begun:
                vmtest.fail("%s: message %d: stream %r begins twice" % (what, index, stream))
            begun[stream] = True
        elif stream not in begun:
            vmtest.fail("%s: message %d: %s of stream %r before its beginning"
                        % (what, index, kind, stream))
        elif kind == "PacketBeginning":
            packet.add(stream)
        elif kind == "PacketEnd":
            packet.discard(stream)
        elif kind == "StreamEnd":
            if stream in packet:
                vmtest.fail("%s: stream %r ends inside a packet" % (what, stream))
            del begun[stream]
    if begun:
        vmtest.fail("%s: streams never end: %r" % (what, sorted(begun)))


def check_suffix(full, trimmed, begin, what):
    """`trimmed` (trimmer with `begin` only) against the untrimmed `full`."""
    cut = next((i for i, m in enumerate(full) if m[2] is not None and m[2] >= begin),
               len(full))
    suffix = full[cut:]
    head = trimmed[:len(trimmed) - len(suffix)]
    if trimmed[len(head):] != suffix:
        mismatch = next(i for i, (a, b) in enumerate(zip(trimmed[len(head):], suffix))
                        if a != b) if trimmed[len(head):] and suffix else 0
        vmtest.fail("%s: the trimmed output is not the untrimmed one from %d on "
                    "(%d and %d messages after the cut; first difference at %d: %r "
                    "instead of %r)" % (
                        what, begin, len(trimmed) - len(head), len(suffix), mismatch,
                        trimmed[len(head) + mismatch] if len(trimmed) > len(head) + mismatch
                        else None, suffix[mismatch] if len(suffix) > mismatch else None))
    streams, packets = open_streams(full[:cut])
    expected = sorted([("StreamBeginning", s) for s in streams] +
                      [("PacketBeginning", s) for s in packets])
    got = sorted((kind, stream) for kind, stream, _, _, _ in head)
    if got != expected:
        vmtest.fail("%s: before the cut, %r instead of the beginnings of the "
                    "streams under way, %r" % (what, got, expected))
    for kind, stream, time, _, _ in head:
        if time is not None and time != begin:
            vmtest.fail("%s: a recreated %s of %r is at %d, not at the seek time %d"
                        % (what, kind, stream, time, begin))
    check_well_formed(trimmed, what)
    return len(suffix)


def timed_items(msgs, begin=None, end=None):
    """Messages that are not stream structure, with their time in range."""
    return [m for m in msgs if m[0] not in STRUCTURE and m[2] is not None and
            (begin is None or m[2] >= begin) and (end is None or m[2] <= end)]


def check_range(full, trimmed, begin, end, what):
    """`trimmed` (trimmer with `begin` and `end`): the same items in range."""
    want = timed_items(full, begin, end)
    got = timed_items(trimmed)
    if got != want:
        vmtest.fail("%s: [%d, %d]: %d items trimmed, %d in the untrimmed output "
                    "in that range, or different ones" % (what, begin, end, len(got),
                                                            len(want)))
    check_well_formed(trimmed, what)
    return len(got)


def pick_bounds(full):
    """A begin time between two event times, and an end time further on."""
    times = sorted({m[2] for m in full if m[0] == "Event"})
    if len(times) < 8:
        vmtest.fail("too few event times to trim: %d" % len(times))
    begin = times[len(times) // 3] - 1   # just before an event
    end = times[2 * len(times) // 3]     # right at one
    return begin, end


def check_graphs(label, traces, with_state, forms=("convert", "run")):
    """Returns the bounds of the last form's check (its untrimmed output read
    again would give the same: the callers reuse them)."""
    for form in forms:
        what = "%s, %s form%s" % (label, form, ", with state" if with_state else "")
        full = read(traces, form, with_state)
        begin, end = pick_bounds(full)
        kept = check_suffix(full, read(traces, form, with_state, {"begin": bound(begin)}),
                            begin, what)
        ranged = check_range(full, read(traces, form, with_state,
                                        {"begin": bound(begin), "end": bound(end)}),
                             begin, end, what)
        print("%s: begin=%s: the last %d of %d messages; with end=%s: %d items"
              % (what, bound(begin), kept, len(full), bound(end), ranged))
        if with_state and not any(m[3] == "vm:vcpu_state" for m in timed_items(
                full, begin, end)):
            vmtest.fail("%s: no vm:vcpu_state event in the trimmed range: "
                        "the state stream is not tested" % what)
    return begin, end


PRETTY = {"clock-seconds": ("yes",), "color": "never", "no-delta": ("yes",)}
CLI_FORMS = {"convert": truthdata.convert_form, "run": truthdata.run_form}


def cli_args(form, traces, filters, trim, sink, sink_params):
    """The command line of FORM: correlate, FILTERS, the trimmer if TRIM."""
    chain = [("filter.vm.correlate", {})] + [(name, {}) for name in filters]
    if trim:
        chain.append(("filter.utils.trimmer", trim))
    named = {"t%d" % i: trace for i, trace in enumerate(traces)}
    return CLI_FORMS[form](named, chain, sink, sink_params)


def line_ns(line):
    """The time of a sink.text.pretty line printed with clock-seconds."""
    seconds, fraction = line[1:line.index("]")].split(".")
    return int(seconds) * 1000000000 + int(fraction.ljust(9, "0"))


def check_cli(label, form, traces, filters, begin, end):
    """The CLI, as a user types it: the trimmed lines are the lines in range."""
    full = vmtest.babeltrace2(cli_args(form, traces, filters, None, "sink.text.pretty",
                                       PRETTY)).stdout.splitlines()
    trim = {"begin": bound(begin), "end": bound(end)}
    lines = vmtest.babeltrace2(cli_args(form, traces, filters, trim, "sink.text.pretty",
                                        PRETTY)).stdout.splitlines()
    want = [line for line in full if begin <= line_ns(line) <= end]
    label = "%s, %s form" % (label, form)
    if lines != want:
        vmtest.fail("%s (CLI): %d lines trimmed to [%s, %s], %d in the untrimmed "
                    "output in that range, or different ones"
                    % (label, len(lines), bound(begin), bound(end), len(want)))
    if not want:
        vmtest.fail("%s (CLI): nothing in [%s, %s]" % (label, bound(begin), bound(end)))
    print("%s (CLI): %d of %d lines in [%s, %s]" % (label, len(want), len(full),
                                                   bound(begin), bound(end)))
    return want


def check_copy(label, form, traces, filters, begin, end, want):
    """sink.ctf.fs after the trimmer; the copy read back has the same events."""
    out = tempfile.mkdtemp(prefix="vm-trim-copy-")
    try:
        vmtest.babeltrace2(cli_args(form, traces, filters,
                                    {"begin": bound(begin), "end": bound(end)},
                                    "sink.ctf.fs", {"path": out}))
        back = vmtest.babeltrace2([out, "--component=sink.text.pretty",
                                   "--params=" + truthdata.params(PRETTY)],
                                  plugin_paths=[]).stdout.splitlines()
        if sorted(back) != sorted(want):
            vmtest.fail("%s, %s form: the copy written by sink.ctf.fs after the "
                        "trimmer reads back %d events, not the %d trimmed ones"
                        % (label, form, len(back), len(want)))
        print("%s, %s form: the sink.ctf.fs copy reads back the same %d events"
              % (label, form, len(want)))
    finally:
        shutil.rmtree(out, ignore_errors=True)


def check_cli_forms(label, traces, filters, begin, end, forms=("convert", "run")):
    for form in forms:
        want = check_cli(label, form, traces, filters, begin, end)
        check_copy(label, form, traces, filters, begin, end, want)


def check_issue_command():
    """The command of the issue, on tc-many-threads: it used to fail at once."""
    base = vmtest.shared_dir()
    trace = base and os.path.join(base, "traces", "tc-many-threads")
    if not trace or not os.path.isdir(trace) or vmtest.small_inputs():
        print("tc-many-threads: skipped (absent, or small inputs: valgrind, sanitizers)")
        return
    begin = 1457113583 * 1000000000
    full = read([trace], "convert", False)
    trimmed = read([trace], "convert", False, {"begin": "1457113583.0"})
    kept = check_suffix(full, trimmed, begin, "tc-many-threads")
    print("tc-many-threads: begin=1457113583.0 keeps the last %d of %d messages"
          % (kept, len(full)))
    times = sorted({m[2] for m in full if m[0] == "Event"})
    end = times[3 * len(times) // 4]
    # Each chain in one graph form (8 runs over the trace instead of 16):
    # the stub scenarios above check every chain in both.
    check_cli_forms("tc-many-threads", [trace], [], begin, end, forms=("convert",))
    check_cli_forms("tc-many-threads + state", [trace], ["filter.vm.state"], begin, end,
                    forms=("run",))


def real_traces():
    base = vmtest.shared_dir()
    if base is None or vmtest.small_inputs():
        return {}
    found = {}
    synctraces = os.path.join(base, "traces", "tc-synctraces")
    if os.path.isdir(synctraces):
        found["tc-synctraces"] = [os.path.join(synctraces, name)
                                  for name in sorted(os.listdir(synctraces))
                                  if os.path.isdir(os.path.join(synctraces, name))]
    return found


def main():
    stubs = {
        "two-guests": list(vmtest.scenario("two-guests").values()),
        "drifting-guest": list(vmtest.scenario("drifting-guest").values()),
    }
    for label, traces in stubs.items():
        # The exact-suffix checks run their graphs in this Python process:
        # under valgrind they would only repeat the plain run (the CLI and
        # copy checks below are valgrind's).
        if not vmtest.under_valgrind():
            for with_state in (False, True):
                check_graphs(label, traces, with_state)
        full = read(traces, "convert", True)
        begin, end = pick_bounds(full)
        for filters in ([], ["filter.vm.state"]):
            check_cli_forms(label + (" + state" if filters else ""), traces, filters,
                            begin, end)
    # Old LTTng packets that overlap stop babeltrace2's muxer: run form only.
    for label, traces in real_traces().items():
        # No host there: state only passes the messages on (CLI check below).
        # Its bounds: those of its untrimmed output, read once (the biggest read).
        begin, end = check_graphs(label, traces, False, forms=("run",))
        check_cli_forms(label + " + state", traces, ["filter.vm.state"], begin, end,
                        forms=("run",))
    check_issue_command()


main()
