"""filter.vm.correlate sought to its beginning by its downstream.

A python3-bt2 sink reads everything, seeks the correlate iterator to its
beginning, and reads everything again: the second read must give the same
messages at the same times (the sync pass is not redone, the merge starts
over), in both graph forms.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402

if os.environ.get("VM_BT_PRELOAD") and "LD_PRELOAD" not in os.environ:
    # A sanitized plugin in this very process: its runtime must come first.
    os.execve(sys.executable, [sys.executable] + sys.argv,
              dict(os.environ, LD_PRELOAD=os.environ["VM_BT_PRELOAD"]))

try:
    import bt2
except ImportError:
    vmtest.skip("python3-bt2 is not installed")


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


def main():
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


main()
