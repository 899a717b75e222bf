"""A python3-bt2 filter that forwards its upstream's messages and cannot
seek: what filter.vm.correlate sees behind src.ctf.lttng-live; and the
graph that puts it between src.ctf.fs and correlate. Import it after bt2
(the tests that use it skip without python3-bt2)."""

import bt2

import vmtest


class _ForwardIterator(bt2._UserMessageIterator):
    """Its upstream's messages, as they come; no seeking at all."""

    def __init__(self, config, port):
        self._upstream = self._create_message_iterator(
            self._component._input_ports[port.user_data])

    def __next__(self):
        return next(self._upstream)


class NoSeekForwarder(bt2._UserFilterComponent, message_iterator_class=_ForwardIterator):
    def __init__(self, config, params, obj):
        self._add_input_port("in")
        self._add_output_port("out", "in")


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


def connect_sources(graph, traces, target, forwarded):
    """Adds src.ctf.fs (one per trace) and connects each of its ports to a
    free input port of TARGET, through a NoSeekForwarder when FORWARDED."""
    fs = bt2.find_plugin("ctf").source_component_classes["fs"]
    count = 0
    for i, trace in enumerate(traces):
        source = graph.add_component(fs, "src%d" % i, {"inputs": [trace]})
        for port in source.output_ports.values():
            if forwarded:
                forwarder = graph.add_component(NoSeekForwarder, "fwd%d" % count)
                graph.connect_ports(port, forwarder.input_ports["in"])
                port = forwarder.output_ports["out"]
            graph.connect_ports(port, free_port(target))
            count += 1


def run_correlate(traces, params, forwarded, sink_class, obj,
                  logging_level=bt2.LoggingLevel.NONE):
    """Runs src.ctf.fs (one per trace) -> filter.vm.correlate (PARAMS, its
    log at LOGGING_LEVEL) -> SINK_CLASS (given OBJ), with one
    NoSeekForwarder per source port when FORWARDED."""
    graph = bt2.Graph()
    correlate = graph.add_component(vm_plugin().filter_component_classes["correlate"],
                                    "correlate", params, logging_level=logging_level)
    connect_sources(graph, traces, correlate, forwarded)
    sink = graph.add_component(sink_class, "sink", obj=obj)
    graph.connect_ports(correlate.output_ports["out"], sink.input_ports["in"])
    graph.run()


def run_chain(traces, chain, forwarded, logging_level=bt2.LoggingLevel.NONE):
    """Runs src.ctf.fs (one per trace) -> the vm plugin's components of
    CHAIN, [(kind, name, params)] with kind "filter" or "sink" (the last one
    a sink, the first one taking every source port), with one
    NoSeekForwarder per source port when FORWARDED; the components log at
    LOGGING_LEVEL."""
    graph = bt2.Graph()
    plugin = vm_plugin()
    components = []
    for index, (kind, name, params) in enumerate(chain):
        classes = (plugin.filter_component_classes if kind == "filter"
                   else plugin.sink_component_classes)
        components.append(graph.add_component(classes[name], "%s%d" % (name, index), params,
                                              logging_level=logging_level))
    connect_sources(graph, traces, components[0], forwarded)
    for upstream, downstream in zip(components, components[1:]):
        graph.connect_ports(upstream.output_ports["out"], free_port(downstream))
    graph.run()


class EventTimes(bt2._UserSinkComponent):
    """{hostname: [ns]} of the events in output order, correlate's own vm:*
    events left out but for vm:sync, whose times go under the key
    "vm:sync"."""

    def __init__(self, config, params, obj):
        self._port = self._add_input_port("in")
        self._found = obj
        self._hosts = {}

    def _user_graph_is_configured(self):
        self._iterator = self._create_message_iterator(self._port)

    def _hostname(self, stream):
        host = self._hosts.get(stream.addr)
        if host is None:
            host = str(stream.trace.environment["hostname"])
            self._hosts[stream.addr] = host
        return host

    def _user_consume(self):
        msg = next(self._iterator)
        if type(msg) is not bt2._EventMessageConst:
            return
        name = msg.event.name
        if name == "vm:sync":
            key = name
        elif name.startswith("vm:"):
            return
        else:
            key = self._hostname(msg.event.stream)
        self._found.setdefault(key, []).append(msg.default_clock_snapshot.ns_from_origin)
