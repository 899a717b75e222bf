"""A component of the plugin whose input port nothing feeds fails with an
error cause that names the port and what to connect, never an abort.

libbabeltrace2 aborts the process (SIGABRT) when a component asks for an
iterator on an unconnected port: filter.vm.state did.

- CLI (`babeltrace2 run`): a stub trace feeds babeltrace2's muxer and a
  dummy sink, so that the graph has a source, and filter.vm.state is
  connected downstream only (the CLI refuses a component with no
  connection at all, so the sink alone is checked from Python);
- Python (python3-bt2): filter.vm.state -> sink.vm.threads, and
  sink.vm.threads alone. Under valgrind only the CLI part runs (the Python
  graphs run in this process, which valgrind does not wrap)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402

# A sanitized plugin in this very process: its runtime must come first.
vmtest.sanitizer_runtime_first()

STATE_CAUSE = ("The input port `in` is not connected: connect the output of "
               "filter.vm.correlate (or of any source or filter) to it.")
SINK_CAUSE = ("The input port `in` is not connected: connect the output of "
              "filter.vm.state (or of any source or filter) to it.")


def check_cli():
    trace = vmtest.scenario("two-vcpus")["host"]
    args = ["run", "--component=src:src.ctf.fs", '--params=inputs=["%s"]' % trace,
            "--component=mux:filter.utils.muxer", "--component=dummy:sink.utils.dummy",
            "--connect=src:mux", "--connect=mux:dummy",
            "--component=st:filter.vm.state", "--component=out:sink.vm.threads",
            "--connect=st:out"]
    proc = vmtest.babeltrace2(args, check=False)
    if proc.returncode != 1:
        vmtest.fail("%s: exit status %d (1 expected)\n%s" % (
            " ".join(args), proc.returncode, proc.stderr[-3000:]))
    if STATE_CAUSE not in " ".join(proc.stderr.split()):
        vmtest.fail("%s: no %r in the error:\n%s" % (" ".join(args), STATE_CAUSE,
                                                     proc.stderr[-3000:]))


def python_causes(with_state):
    """The error causes of a Python graph whose first component of the
    plugin has nothing on its input port."""
    import bt2
    plugin = next((p for p in bt2.find_plugins_in_path(vmtest.PLUGIN_DIR) or ()
                   if p.name == "vm"), None)
    if plugin is None:
        vmtest.fail("plugin vm not found in " + vmtest.PLUGIN_DIR)
    graph = bt2.Graph()
    sink = graph.add_component(plugin.sink_component_classes["threads"], "threads")
    if with_state:
        state = graph.add_component(plugin.filter_component_classes["state"], "state")
        graph.connect_ports(state.output_ports["out"], sink.input_ports["in"])
    try:
        graph.run()
    except bt2._Error as error:
        return [" ".join(str(c.message).split()) for c in error]
    vmtest.fail("the graph ran although an input port is not connected")


def check_python():
    try:
        import bt2  # noqa: F401
    except ImportError:
        print("python3-bt2 is not installed: Python graphs not checked")
        return
    for with_state, cause in ((True, STATE_CAUSE), (False, SINK_CAUSE)):
        causes = python_causes(with_state)
        if cause not in causes:
            vmtest.fail("Python graph (state: %s): no %r in %s" % (with_state, cause,
                                                                 causes))


check_cli()
if not vmtest.under_valgrind():
    check_python()
print("unconnected state and sink: an error naming the port, no abort")
