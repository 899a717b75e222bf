#!/usr/bin/python3
"""filter.vm.correlate against the workload generator's true time map, on
the paths test_correlate_truth.py does not take.

test_correlate_truth.py checks the run form with the default sync against
the truth, and the stock alignment. This one checks, event by event, the
convert form's input (babeltrace2's muxer in front of correlate, which must
then re-time and re-order one merged stream itself) and TCP-only sync:

The generator knows, for every guest event, the host (true) time at which it
happened: t_true = slope * t_guest + offset (truth/timemap.csv). Every output
guest event is paired with its stub line (same machine, same CPU, same rank,
same event name: a monotonic map keeps each CPU's order) and its corrected
time compared with the true one: the median error must be within 1 us and
no event may be further off than the smallest one-way message latency of the
workload. Host events must keep their time exactly, no event may be lost,
and output times must never decrease (Debian's library does not check it).
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthdata  # noqa: E402
import vmtest  # noqa: E402

try:
    import bt2
except ImportError:
    vmtest.fail("python3-bt2 is not importable (run with /usr/bin/python3)")

LATENCY_NS = 400
WORKLOAD_ARGS = ["--seed", 30, "--events", 100000, "--guests", 2, "--vcpus", 2,
                 "--host-cpus", 4, "--guest-offset-ns", 3000000, "--drift-ppm", 40,
                 "--latency-ns", LATENCY_NS]
MEDIAN_LIMIT_NS = 1000


def read_stub(path):
    """(hostname, {cpu: [(event name, machine ns)]}) in file order."""
    hostname = os.path.basename(path)[:-len(".stub")]
    offset_s = offset_ns = 0
    per_cpu = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            if not line[0].isdigit():
                words = line.split()
                if words[0] == "hostname":
                    hostname = words[1]
                elif words[0] == "clock-offset-s":
                    offset_s = int(words[1])
                elif words[0] == "clock-offset-ns":
                    offset_ns = int(words[1])
                continue
            ts, cpu, name = line.split(None, 3)[:3]
            per_cpu.setdefault(int(cpu), []).append((name, int(ts)))
    base = offset_s * 1000000000 + offset_ns
    return hostname, {cpu: [(n, base + ts) for n, ts in events]
                      for cpu, events in per_cpu.items()}


class _Sink(bt2._UserSinkComponent):
    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._consume_message = obj
        self._iterator = None

    def _user_graph_is_configured(self):
        self._iterator = self._create_message_iterator(self._port)

    def _user_consume(self):
        self._consume_message(next(self._iterator))


class Errors:
    """Pairs the output events with the stub lines and measures errors."""

    def __init__(self, out):
        self.timemap = truthdata.timemap(out)
        self.expected = {}
        for m in truthdata.machines(out):
            hostname, per_cpu = read_stub(os.path.join(out, m["machine"] + ".stub"))
            self.expected[hostname] = (m["machine"], per_cpu)
        self.rank = {}
        self.errors = {}            # machine -> [error ns]
        self.last_time = None
        self.backwards = 0
        self.unpaired = []

    def message(self, message):
        if not isinstance(message, bt2._EventMessageConst):
            return
        now = message.default_clock_snapshot.ns_from_origin
        if self.last_time is not None and now < self.last_time:
            self.backwards += 1
        self.last_time = now
        event = message.event
        if event.name.startswith("vm:"):
            return  # correlate's own (vm:sync), in a stream of its own
        hostname = str(event.stream.trace.environment["hostname"])
        cpu = int(event.packet.context_field["cpu_id"])
        machine, per_cpu = self.expected[hostname]
        rank = self.rank.get((hostname, cpu), 0)
        self.rank[hostname, cpu] = rank + 1
        events = per_cpu.get(cpu, [])
        if rank >= len(events) or events[rank][0] != event.name:
            self.unpaired.append((machine, cpu, rank, event.name))
            return
        slope, offset = self.timemap[machine]
        error = now - (slope * events[rank][1] + offset)
        self.errors.setdefault(machine, []).append(float(error))

    def check_complete(self):
        for hostname, (machine, per_cpu) in self.expected.items():
            for cpu, events in per_cpu.items():
                seen = self.rank.get((hostname, cpu), 0)
                if seen != len(events):
                    vmtest.fail("%s CPU %d: %d events out of correlate, %d in the trace" % (
                        machine, cpu, seen, len(events)))
        if self.unpaired:
            vmtest.fail("%d output events do not pair with their trace, first %s" % (
                len(self.unpaired), self.unpaired[:3]))
        if self.backwards:
            vmtest.fail("%d output events go back in time" % self.backwards)


def measure(out, traces, sync, muxed=False):
    """Runs correlate with sync=SYNC, its sources connected straight to it or,
    when MUXED, through a filter.utils.muxer as in the convert form; returns
    the Errors of its output."""
    vm = bt2.find_plugins_in_path(vmtest.PLUGIN_DIR)
    vm = [p for p in vm if p.name == "vm"]
    if not vm:
        vmtest.fail("no vm plugin in " + vmtest.PLUGIN_DIR)
    correlate_cls = vm[0].filter_component_classes.get("correlate")
    if correlate_cls is None:
        vmtest.fail("the vm plugin has no filter.vm.correlate")
    fs = bt2.find_plugin("ctf").source_component_classes["fs"]
    errors = Errors(out)
    graph = bt2.Graph()
    correlate = graph.add_component(correlate_cls, "correlate", {"sync": sync})
    target = correlate
    if muxed:
        target = graph.add_component(bt2.find_plugin("utils").filter_component_classes["muxer"],
                                     "muxer")
        graph.connect_ports(target.output_ports["out"], correlate.input_ports["in0"]
                            if "in0" in correlate.input_ports
                            else next(iter(correlate.input_ports.values())))
    for i, path in enumerate(traces.values()):
        source = graph.add_component(fs, "src%d" % i, {"inputs": [path]})
        for port in source.output_ports.values():
            free = [p for p in target.input_ports.values() if not p.is_connected]
            if not free:
                vmtest.fail("%s keeps no free input port" % target.name)
            graph.connect_ports(port, free[0])
    sink = graph.add_component(_Sink, "sink", obj=errors.message)
    graph.connect_ports(correlate.output_ports[next(iter(correlate.output_ports))],
                        sink.input_ports["in"])
    graph.run()
    errors.check_complete()
    return errors


def stats(values):
    magnitudes = [abs(v) for v in values]
    return statistics.median(magnitudes), max(magnitudes), statistics.mean(values)


def report(label, errors):
    figures = {}
    for machine in sorted(errors.errors):
        median, worst, mean = stats(errors.errors[machine])
        figures[machine] = (median, worst)
        print("%s %s: %d events, |error| median %.1f ns, max %.1f ns, mean error %+.1f ns"
              % (label, machine, len(errors.errors[machine]), median, worst, mean))
    return figures


def main():
    vmtest.skip_under_valgrind("python3-bt2 graphs in its own process")
    out = truthdata.generate("correlate-truth-paths", WORKLOAD_ARGS)
    traces = truthdata.ctf_traces(out)
    runs = [("sync=auto, muxer first", report("sync=auto, muxer first",
                                              measure(out, traces, "auto", muxed=True))),
            ("sync=tcp", report("sync=tcp", measure(out, traces, "tcp")))]
    ok = True
    for label, synced in runs:
        ok = check(label, synced) and ok
    if not ok:
        vmtest.fail("corrected guest times disagree with the true time map")
    print("correlate-truth-paths: guest times within %d ns median and %d ns max "
          "of the truth" % (MEDIAN_LIMIT_NS, LATENCY_NS))


def check(label, synced):
    ok = True
    for machine, (median, worst) in synced.items():
        if machine == "host":
            if worst != 0:
                print("FAIL: %s: host events moved by up to %.1f ns" % (label, worst))
                ok = False
            continue
        if median > MEDIAN_LIMIT_NS:
            print("FAIL: %s: %s median error %.1f ns > %d ns" % (
                label, machine, median, MEDIAN_LIMIT_NS))
            ok = False
        if worst > LATENCY_NS:
            print("FAIL: %s: %s error up to %.1f ns, beyond the %d ns one-way latency" % (
                label, machine, worst, LATENCY_NS))
            ok = False
    return ok


if __name__ == "__main__":
    main()
