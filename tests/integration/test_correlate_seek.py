"""filter.vm.correlate and seeking.

- Sought to its beginning by its downstream: a python3-bt2 sink reads
  everything, seeks the correlate iterator to its beginning, and reads
  everything again: the second read must give the same messages at the
  same times (the sync pass is not redone, the merge starts over), in both
  graph forms.
- An upstream that cannot seek: with the defaults (sync-model="piecewise",
  read once), correlate works behind a python3-bt2 filter that forwards
  src.ctf.fs's messages and cannot seek, and gives exactly what it gives
  behind src.ctf.fs itself; sync-model="linear" needs its sync pass, so
  message iterator initialization fails and says to pass
  sync-model="piecewise" or `transforms`; with `sync="none"` the inputs are
  read once.
- Trace Compass's real TCP pair (../shared, when present), whose first
  matches come 14 s after its first events: read once, it gives exactly
  what it gives behind src.ctf.fs (SPEC: a trace that fits one line gets
  the linear result), where the sync pass takes over after a second
  without any match (INFO line).
- Read once, a machine that nothing can pair with the reference (no vmsync
  or TCP event declared) is not held: the warning says why.
- Read once is the default behind src.ctf.fs too: on a generated workload
  of slewed clocks (several segments, where the sync pass, which sees the
  whole trace first, gives other ones), correlate gives the same messages
  at the same times behind src.ctf.fs and behind forwarders that cannot
  seek, and its map has several segments (vm:sync events).
- Guests that only the vCPU method can synchronize (no vmsync, no TCP,
  slewed clocks) are read once too: both synchronized by vcpu, no sync
  pass taking over, and the same messages at the same times behind
  src.ctf.fs and behind forwarders that cannot seek. A guest whose clock
  is 30 s behind the host's (its whole trace read before the host's first
  event): behind src.ctf.fs the sync pass takes over after 4 s of it, with
  an INFO line that says why, and synchronizes it; behind forwarders the
  vCPU tries go on while the host is read, and it is synchronized read
  once.
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import correlate_check as cc  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

# A sanitized plugin in this very process: its runtime must come first.
vmtest.sanitizer_runtime_first()

try:
    import bt2
except ImportError:
    vmtest.skip("python3-bt2 is not installed")

from noseek import free_port, run_correlate, vm_plugin  # noqa: E402


def describe(msg):
    """What identifies a message in the comparison."""
    kind = type(msg).__name__
    time = None
    if hasattr(msg, "default_clock_snapshot"):
        try:
            time = msg.default_clock_snapshot.ns_from_origin
        except Exception:  # stream messages without a known time
            time = None
    name = msg.event.name if hasattr(msg, "event") else ""
    return (kind, time, name)


class ReadTwice(bt2._UserSinkComponent):
    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._iterator = None
        self.reads = obj

    def _user_graph_is_configured(self):
        self._iterator = self._create_message_iterator(self._port)

    def _user_consume(self):
        first = [describe(m) for m in self._iterator]
        if not self._iterator.can_seek_beginning:
            raise RuntimeError("correlate says it cannot seek to its beginning")
        self._iterator.seek_beginning()
        second = [describe(m) for m in self._iterator]
        self.reads.extend([first, second])
        raise bt2.Stop


def read_twice(traces, muxed):
    graph = bt2.Graph()
    correlate = graph.add_component(vm_plugin().filter_component_classes["correlate"],
                                    "correlate")
    fs = bt2.find_plugin("ctf").source_component_classes["fs"]
    sources = [graph.add_component(fs, "src%d" % i, {"inputs": [trace]})
               for i, trace in enumerate(traces)]
    target = correlate
    if muxed:
        muxer = graph.add_component(bt2.find_plugin("utils").filter_component_classes["muxer"],
                                    "muxer")
        graph.connect_ports(muxer.output_ports["out"], free_port(correlate))
        target = muxer
    for source in sources:
        for port in source.output_ports.values():
            graph.connect_ports(port, free_port(target))
    reads = []
    sink = graph.add_component(ReadTwice, "sink", obj=reads)
    graph.connect_ports(correlate.output_ports["out"], sink.input_ports["in"])
    graph.run()
    return reads


class _OnceIterator(bt2._UserMessageIterator):
    """Three events, and no seeking at all."""

    def __init__(self, config, port):
        event_class, stream = port.user_data
        self._messages = [self._create_stream_beginning_message(stream)]
        for t in (100, 200, 300):
            self._messages.append(self._create_event_message(
                event_class, stream, default_clock_snapshot=t))
        self._messages.append(self._create_stream_end_message(stream))

    def __next__(self):
        if not self._messages:
            raise StopIteration
        return self._messages.pop(0)


class OnceSource(bt2._UserSourceComponent, message_iterator_class=_OnceIterator):
    def __init__(self, config, params, obj):
        trace_class = self._create_trace_class()
        clock_class = self._create_clock_class(frequency=1000000000,
                                               origin_is_unix_epoch=True)
        stream_class = trace_class.create_stream_class(default_clock_class=clock_class)
        event_class = stream_class.create_event_class(name="tick")
        trace = trace_class(environment={"hostname": "once"})
        self._add_output_port("out", (event_class, trace.create_stream(stream_class)))


class ReadOnce(bt2._UserSinkComponent):
    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self.reads = obj

    def _user_graph_is_configured(self):
        self._iterator = self._create_message_iterator(self._port)

    def _user_consume(self):
        self.reads.extend(describe(m) for m in self._iterator)
        raise bt2.Stop


def read_direct(traces, params, forwarded, logging_level=bt2.LoggingLevel.NONE):
    """describe() of correlate's output behind src.ctf.fs, or behind one
    NoSeekForwarder per source port."""
    reads = []
    run_correlate(traces, params, forwarded, ReadOnce, reads, logging_level)
    return reads


def check_forwarded(traces):
    """The defaults behind upstreams that cannot seek: as behind src.ctf.fs."""
    seekable = read_direct(traces, {}, False)
    forwarded = read_direct(traces, {}, True)
    if forwarded != seekable:
        vmtest.fail("behind upstreams that cannot seek, correlate gives %d messages, "
                    "%d behind src.ctf.fs, or other times" % (len(forwarded), len(seekable)))
    try:
        read_direct(traces, {"sync-model": "linear"}, True)
        vmtest.fail('sync-model="linear" over upstreams that cannot seek was accepted')
    except bt2._Error as error:
        text = " ".join(str(error).split())
        if "cannot seek" not in text or 'sync-model="piecewise"' not in text:
            vmtest.fail("the error does not name sync-model=\"piecewise\":\n" + str(error))
    print("upstreams that cannot seek: the defaults give the same %d messages as behind "
          "src.ctf.fs; sync-model=\"linear\" is refused naming sync-model=\"piecewise\""
          % len(seekable))


def read_unseekable(params):
    graph = bt2.Graph()
    correlate = graph.add_component(vm_plugin().filter_component_classes["correlate"],
                                    "correlate", params)
    source = graph.add_component(OnceSource, "once")
    graph.connect_ports(source.output_ports["out"], free_port(correlate))
    reads = []
    sink = graph.add_component(ReadOnce, "sink", obj=reads)
    graph.connect_ports(correlate.output_ports["out"], sink.input_ports["in"])
    graph.run()
    return reads


def check_unseekable():
    reads = read_unseekable({"sync": "none"})
    if [name for _, _, name in reads if name] != ["tick"] * 3:
        vmtest.fail("sync=none over an upstream that cannot seek: %r" % reads)
    print("upstream that cannot seek: read once with sync=\"none\"")


def check_real_pair():
    base = vmtest.shared_dir()
    pair = os.path.join(base, "traces", "tc-synctraces") if base else None
    if not pair or not os.path.isdir(pair):
        print("../shared/traces/tc-synctraces absent: the real pair read once not checked")
        return
    traces = [os.path.join(pair, name) for name in sorted(os.listdir(pair))]
    seekable = read_direct(traces, {}, False)
    forwarded = read_direct(traces, {}, True)
    if forwarded != seekable or not seekable:
        vmtest.fail("tc-synctraces read once: %d messages, %d behind src.ctf.fs, or "
                    "other times" % (len(forwarded), len(seekable)))
    if vmtest.under_valgrind():
        print("tc-synctraces read once: the same %d messages as behind src.ctf.fs (its "
              "196,540 messages under valgrind are left to the plain run)" % len(seekable))
        return
    # Behind src.ctf.fs, no match in its first second: the sync pass takes
    # over instead of holding 14 s of messages for the first matches.
    args = ["--log-level=INFO"] + cc.direct_args(traces, sink="sink.utils.dummy")
    text = " ".join(vmtest.babeltrace2(args).stderr.split())
    if "reads its inputs again" not in text or "46 matches" not in text:
        vmtest.fail("tc-synctraces behind src.ctf.fs: the sync pass did not take over "
                    "after a second without matches, or not with the 46 matches:\n"
                    + text[-3000:])
    print("tc-synctraces read once: the same %d messages as behind src.ctf.fs, where "
          "the sync pass takes over after a second without matches" % len(seekable))


def check_unpairable():
    """Read once in a child process, whose log this one reads."""
    traces = [vmtest.scenario("containers")["host"], vmtest.scenario("tcp-exchange")["client"]]
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--read-once"] + traces,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    text = " ".join(proc.stderr.split())
    if proc.returncode != 0 or "no synchronization pair" not in text or \
            "declares no vmsync or TCP event" not in text:
        vmtest.fail("read once, a machine without any sync event: exit %d, and not the "
                    "warning that says so:\n%s" % (proc.returncode, proc.stderr[-5000:]))
    print("read once, a machine without any sync event: warned at once")


# Slewed guest clocks, vmsync and TCP (as test onepass-truth's workloads).
SLEWED = ["--seed", 34, "--host-cpus", 2, "--threads", 4, "--guest-activity", "basic",
          "--vmsync-period-ms", 10, "--tcp-period-ms", 20,
          "--slew-ppm", 50, "--slew-period-ms", "1000:2000"]
# Guests that only the vCPU method can synchronize, their clocks slewed.
VCPU_ONLY = ["--seed", 35, "--host-cpus", 2, "--threads", 4, "--guest-activity", "basic",
             "--vmsync-period-ms", 0, "--tcp-period-ms", 0,
             "--slew-ppm", 50, "--slew-period-ms", "1000:2000"]


def same_behind_forwarders(traces, label):
    """correlate's output behind src.ctf.fs, which must be the one behind
    forwarders that cannot seek, and its count of vm:sync events."""
    seekable = read_direct(traces, {}, False)
    forwarded = read_direct(traces, {}, True)
    if forwarded != seekable or not seekable:
        vmtest.fail("%s: %d messages behind forwarders that cannot seek, %d behind "
                    "src.ctf.fs, or other times" % (label, len(forwarded), len(seekable)))
    return seekable, sum(1 for _, _, name in seekable if name == "vm:sync")


def check_generated_read_once():
    duration = 1500 if vmtest.small_inputs() else 4000
    out = truthdata.generate("correlate-seek-slewed", SLEWED + ["--duration-ms", duration])
    traces = list(truthdata.ctf_traces(out).values())
    seekable, segments = same_behind_forwarders(traces, "slewed workload")
    if segments < 2:
        vmtest.fail("slewed workload: %d vm:sync events; a slewed clock read once needs "
                    "several segments" % segments)
    print("slewed workload (%d ms), read once by default: the same %d messages (%d vm:sync "
          "events) behind src.ctf.fs and behind forwarders" % (duration, len(seekable),
                                                               segments))


def check_vcpu_read_once():
    """vCPU-only guests: read once too (no sync pass taking over), both
    synchronized by vcpu, the same output behind src.ctf.fs and behind
    forwarders that cannot seek (Python graphs: not under valgrind)."""
    duration = 1500 if vmtest.small_inputs() else 4000
    out = truthdata.generate("correlate-seek-vcpu", VCPU_ONLY + ["--duration-ms", duration])
    traces = list(truthdata.ctf_traces(out).values())
    args = ["--log-level=INFO"] + cc.direct_args(traces, sink="sink.utils.dummy")
    proc = vmtest.babeltrace2(args, check=False)
    text = " ".join(proc.stderr.split())
    synced = re.findall(r"Machine `(guest\d)`: role guest, sync vcpu, quality accurate", text)
    if proc.returncode != 0 or "reads its inputs again" in text or len(synced) != 2:
        vmtest.fail("vCPU-only guests behind src.ctf.fs: exit %d, the sync pass took over, "
                    "or not both guests synchronized by vcpu (%r):\n%s"
                    % (proc.returncode, synced, proc.stderr[-4000:]))
    if vmtest.under_valgrind():
        print("vCPU-only guests (%d ms, slewed) behind src.ctf.fs: %s synchronized by vcpu, "
              "read once" % (duration, " and ".join(sorted(synced))))
        return
    seekable, segments = same_behind_forwarders(traces, "vCPU-only workload")
    print("vCPU-only guests (%d ms, slewed), read once: %s synchronized by vcpu, the same "
          "%d messages (%d vm:sync events) behind src.ctf.fs and behind forwarders"
          % (duration, " and ".join(sorted(synced)), len(seekable), segments))


# A guest whose clock is 30 s behind the host's: its whole trace is read
# (in the order of the clocks) before the host's first event.
VCPU_BEHIND = ["--seed", 36, "--guests", 1, "--host-cpus", 1, "--guest-activity", "basic",
               "--vmsync-period-ms", 0, "--tcp-period-ms", 0,
               "--guest-offset-ns", -30000000000]


def check_vcpu_far_behind():
    """Behind src.ctf.fs, the vCPU tries give up after 4 s of the guest's
    trace without any host interval read, and the sync pass takes over
    (INFO line saying why) and synchronizes it; behind forwarders that
    cannot seek, the tries go on while the host is read, and the guest is
    synchronized read once (no warning; a Python graph: not under valgrind)."""
    duration = 4500
    out = truthdata.generate("correlate-seek-behind", VCPU_BEHIND + ["--duration-ms", duration])
    traces = list(truthdata.ctf_traces(out).values())
    args = ["--log-level=INFO"] + cc.direct_args(traces, sink="sink.utils.dummy")
    proc = vmtest.babeltrace2(args, check=False)
    text = " ".join(proc.stderr.split())
    if proc.returncode != 0 or "reads its inputs again" not in text or \
            "no guest-mode interval of host `host` was read" not in text or \
            "Machine `guest1`: role guest, sync vcpu, quality accurate" not in text:
        vmtest.fail("guest 30 s behind, behind src.ctf.fs: exit %d, or no sync pass taking "
                    "over with its reason, or guest1 not synchronized by vcpu:\n%s"
                    % (proc.returncode, proc.stderr[-4000:]))
    if vmtest.under_valgrind():
        print("guest 30 s behind its host: behind src.ctf.fs the sync pass takes over after "
              "4 s of its trace")
        return
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--read-once"] + traces,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0 or "no synchronization pair" in proc.stderr:
        vmtest.fail("guest 30 s behind, read once behind forwarders: exit %d, or warned:\n%s"
                    % (proc.returncode, proc.stderr[-4000:]))
    print("guest 30 s behind its host: behind src.ctf.fs the sync pass takes over after "
          "4 s of its trace; behind forwarders it is synchronized read once")


def main():
    if sys.argv[1:2] == ["--read-once"]:
        read_direct(sys.argv[2:], {}, True, bt2.LoggingLevel.WARNING)
        return
    if vmtest.under_valgrind():
        # Most checks here run their graphs in this Python process (or a
        # child of it): under valgrind they would only repeat the plain run.
        check_vcpu_read_once()
        check_vcpu_far_behind()
        return
    traces = list(vmtest.scenario("drifting-guest").values())
    for muxed in (False, True):
        form = "convert" if muxed else "direct"
        first, second = read_twice(traces, muxed)
        events = sum(1 for kind, _, _ in first if "Event" in kind)
        if events != 120:
            vmtest.fail("%s form: %d events in the first read, 120 expected" % (form, events))
        if first != second:
            vmtest.fail("%s form: the read after the seek differs (%d then %d messages)"
                        % (form, len(first), len(second)))
        print("%s form: %d messages, the same after seeking to the beginning"
              % (form, len(first)))
    check_forwarded(traces)
    check_unseekable()
    check_real_pair()
    check_unpairable()
    check_generated_read_once()
    check_vcpu_read_once()
    check_vcpu_far_behind()


main()
