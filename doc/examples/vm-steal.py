#!/usr/bin/python3
"""Steal time per vCPU of KVM guests, from a babeltrace2 graph built in Python.

    vm-steal.py [--plugin-path DIR] HOST_TRACE GUEST_TRACE...

The graph is the vm plugin's pipeline with a sink of our own:

    src.ctf.fs (one per trace) -> filter.vm.correlate -> filter.vm.state
        -> StealSink (below)

filter.vm.state emits a `vm:vcpu_state` event at every mode change of a
vCPU (fields `vm`, `vcpu`, `mode`, ...). A vCPU is `preempted` while its
host thread is runnable but not running: the guest believes it runs, the
host gives its time to someone else, which is steal time. The sink adds up,
per vCPU, the time from each `preempted` event to the vCPU's next mode
change; a vCPU still preempted at the end counts until the last event of
the whole input, as sink.vm.threads does (its what="vcpus" output gives
the same totals).

Run it with /usr/bin/python3 (Debian's python3-bt2 lives there).
"""

import argparse
import sys

import bt2


class StealSink(bt2._UserSinkComponent):
    """Sums the `preempted` time of each (VM, vCPU); `obj` gets the result."""

    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._result = obj
        self._mode = {}     # (vm, vcpu) -> (mode, since ns)
        self._last = None   # time of the last event of the whole input

    def _user_graph_is_configured(self):
        self._iterator = self._create_message_iterator(self._port)

    def _user_consume(self):
        try:
            msg = next(self._iterator)
        except StopIteration:
            self._finish()
            raise
        if type(msg) is not bt2._EventMessageConst:
            return
        if msg.event.stream.cls.default_clock_class is None:
            return
        now = msg.default_clock_snapshot.ns_from_origin
        self._last = now if self._last is None else max(self._last, now)
        if msg.event.name == "vm:vcpu_state":
            payload = msg.event.payload_field
            self._change((str(payload["vm"]), int(payload["vcpu"])),
                         str(payload["mode"]), now)

    def _change(self, vcpu, mode, now):
        before = self._mode.get(vcpu)
        if before is not None and before[0] == "preempted":
            self._add(vcpu, now - before[1])
        self._result.setdefault(vcpu, 0)
        self._mode[vcpu] = (mode, now)

    def _add(self, vcpu, ns):
        self._result[vcpu] = self._result.get(vcpu, 0) + ns

    def _finish(self):
        for vcpu, (mode, since) in self._mode.items():
            if mode == "preempted" and self._last is not None:
                self._add(vcpu, self._last - since)


def vm_plugin(paths):
    """The vm plugin: from --plugin-path, else babeltrace2's own search."""
    for path in paths:
        for plugin in bt2.find_plugins_in_path(path) or ():
            if plugin.name == "vm":
                return plugin
    plugin = None if paths else bt2.find_plugin("vm")
    if plugin is None:
        sys.exit("vm-steal: the vm plugin is not in %s; give its directory with "
                 "--plugin-path" % (":".join(paths) or "babeltrace2's plugin path"))
    return plugin


def steal(traces, plugin):
    """{(vm, vcpu): steal ns} of the traces."""
    graph = bt2.Graph()
    fs = bt2.find_plugin("ctf").source_component_classes["fs"]
    correlate = graph.add_component(plugin.filter_component_classes["correlate"],
                                    "correlate")
    for index, trace in enumerate(traces):
        source = graph.add_component(fs, "source-%d" % index, {"inputs": [trace]})
        for port in source.output_ports.values():
            # correlate always keeps one free input port for the next one.
            free = next(p for p in correlate.input_ports.values() if not p.is_connected)
            graph.connect_ports(port, free)
    state = graph.add_component(plugin.filter_component_classes["state"], "state")
    result = {}
    sink = graph.add_component(StealSink, "steal", obj=result)
    graph.connect_ports(correlate.output_ports["out"], state.input_ports["in"])
    graph.connect_ports(state.output_ports["out"], sink.input_ports["in"])
    graph.run()
    return result


def main():
    parser = argparse.ArgumentParser(
        description="Steal time per vCPU (time its host thread was preempted) "
        "of the KVM guests in the given traces, in the host's time base.")
    parser.add_argument("traces", metavar="TRACE_DIR", nargs="+",
                        help="the host's and the guests' CTF trace directories")
    parser.add_argument("--plugin-path", metavar="DIR", action="append", default=[],
                        help="directory of the vm plugin (babeltrace-plugin-vm.so)")
    args = parser.parse_args()
    try:
        result = steal(args.traces, vm_plugin(args.plugin_path))
    except bt2._Error as error:
        causes = [" ".join(str(c.message).split()) for c in error]
        sys.exit("vm-steal: the graph failed: " + " / ".join(causes))
    print("vm,vcpu,steal_ns")
    for (vm, vcpu), ns in sorted(result.items()):
        print("%s,%d,%d" % (vm, vcpu, ns))


if __name__ == "__main__":
    main()
