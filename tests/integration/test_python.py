"""The plugin from Python (python3-bt2), as doc/examples shows it.

- doc/examples/vm-steal.py (its own Python sink on vm:vcpu_state) answers
  --help and prints, on the stubs, the steal per vCPU that sink.vm.threads
  gives (what="vcpus": the total of the `preempted` intervals);
- the components behave the same from Python as from the CLI: for a few
  sets of parameters, a graph built with bt2 writes what `babeltrace2 run`
  writes; for wrong parameters, both fail, and every cause the components
  give bt2 is in the CLI's error output.

Under valgrind one run of the example goes through VM_BT_WRAPPER (with
CPython's suppressions); under ASan this process re-executes itself with
the sanitizer runtime preloaded, since it loads the plugin itself.
"""

import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import threads_common as tc  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

# A sanitized plugin in this very process: its runtime must come first.
vmtest.sanitizer_runtime_first()

try:
    import bt2
except ImportError:
    vmtest.skip("python3-bt2 is not installed")

EXAMPLE = os.path.join(vmtest.SOURCE_DIR, "doc", "examples", "vm-steal.py")
SUPP = os.path.join(vmtest.SOURCE_DIR, "tests", "mirrortest", "python.supp")


def example(args, wrap=False):
    env = dict(os.environ)
    if os.environ.get("VM_BT_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["VM_BT_PRELOAD"]
    cmd = ["/usr/bin/python3", EXAMPLE] + list(args)
    if wrap and vmtest.under_valgrind():
        wrapper = shlex.split(os.environ["VM_BT_WRAPPER"])
        cmd = wrapper[:1] + ["--suppressions=" + SUPP] + wrapper[1:] + cmd
        env["PYTHONMALLOC"] = "malloc"
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=env)
    if proc.returncode != 0:
        vmtest.fail("%s: exit status %d\n%s" % (" ".join(cmd), proc.returncode,
                                                 proc.stderr[-5000:]))
    return proc.stdout


def sink_steal(traces, wrap):
    """{(machine, vcpu): preempted ns} from sink.vm.threads what="vcpus",
    under valgrind only when the example ran under it too (valgrind
    computes long double as double: correlate's times move by a ns)."""
    proc = vmtest.babeltrace2(truthdata.run_form(
        {"t%d" % i: t for i, t in enumerate(traces)},
        [("filter.vm.correlate", {}), ("filter.vm.state", {})],
        "sink.vm.threads", {"format": "csv", "what": "vcpus"}), wrap=wrap)
    steal = {}
    for row in tc.parse_csv(proc.stdout, "vcpus"):
        key = (row["machine"], int(row["vcpu"]))
        length = int(row["end_ns"]) - int(row["begin_ns"])
        steal[key] = steal.get(key, 0) + (length if row["mode"] == "preempted" else 0)
    return steal


def check_example():
    usage = example(["--help"])
    if "usage:" not in usage or "TRACE_DIR" not in usage:
        vmtest.fail("vm-steal.py --help: %r" % usage)
    stolen = 0
    for index, name in enumerate(("two-guests", "halted-vcpu", "two-vcpus")):
        traces = list(vmtest.scenario(name).values())
        lines = example(["--plugin-path", vmtest.PLUGIN_DIR] + traces,
                        wrap=index == 0).splitlines()
        if not lines or lines[0] != "vm,vcpu,steal_ns":
            vmtest.fail("%s: vm-steal.py printed %r" % (name, lines))
        got = {}
        for line in lines[1:]:
            vm, vcpu, ns = line.split(",")
            got[(vm, int(vcpu))] = int(ns)
        want = sink_steal(traces, wrap=index == 0)
        if not want:
            vmtest.fail("%s: sink.vm.threads has no vCPU: nothing compared" % name)
        for key in set(got) | set(want):
            # A vCPU whose mode was never known has no vcpus row.
            if got.get(key, 0) != want.get(key, 0) or key not in got:
                vmtest.fail("%s: vm-steal.py says %r, sink.vm.threads %r" % (
                    name, got, want))
        stolen += sum(got.values())
        print("%s: vm-steal.py = sink.vm.threads: %s" % (name, sorted(got.items())))
    if not stolen:
        vmtest.fail("no steal in any scenario: the comparison is empty")


def vm_plugin():
    for plugin in bt2.find_plugins_in_path(vmtest.PLUGIN_DIR) or ():
        if plugin.name == "vm":
            return plugin
    vmtest.fail("plugin vm not found in " + vmtest.PLUGIN_DIR)


def python_run(traces, correlate_params, state_params, sink_params):
    """(output, None) of the graph built with bt2, or (None, error causes)."""
    plugin = vm_plugin()
    fd, out = tempfile.mkstemp(prefix="vm-python-")
    os.close(fd)
    try:
        graph = bt2.Graph()
        fs = bt2.find_plugin("ctf").source_component_classes["fs"]
        correlate = graph.add_component(plugin.filter_component_classes["correlate"],
                                        "correlate", correlate_params)
        for i, trace in enumerate(traces):
            source = graph.add_component(fs, "src%d" % i, {"inputs": [trace]})
            for port in source.output_ports.values():
                free = next(p for p in correlate.input_ports.values()
                            if not p.is_connected)
                graph.connect_ports(port, free)
        state = graph.add_component(plugin.filter_component_classes["state"], "state",
                                    state_params)
        sink = graph.add_component(plugin.sink_component_classes["threads"], "threads",
                                   dict(sink_params, path=out))
        graph.connect_ports(correlate.output_ports["out"], state.input_ports["in"])
        graph.connect_ports(state.output_ports["out"], sink.input_ports["in"])
        graph.run()
        with open(out) as f:
            return f.read(), None
    except bt2._Error as error:
        return None, [" ".join(str(c.message).split()) for c in error
                      if hasattr(c, "component_class_name")]
    finally:
        os.unlink(out)


def cli_params(values):
    """The CLI form of a parameter map: strings quoted, integers as text."""
    return {k: v if isinstance(v, str) else (str(v),) for k, v in values.items()}


def cli_run(traces, correlate_params, state_params, sink_params):
    return vmtest.babeltrace2(truthdata.run_form(
        {"t%d" % i: t for i, t in enumerate(traces)},
        [("filter.vm.correlate", cli_params(correlate_params)),
         ("filter.vm.state", cli_params(state_params))],
        "sink.vm.threads", cli_params(sink_params)), check=False,
        wrap=False)  # like the bt2 graph of this process (see sink_steal)


SAME_OUTPUT = [
    ({}, {}, {"format": "csv"}),
    ({"sync": "none"}, {}, {"format": "json", "what": "vcpus"}),
    ({"sync": "tcp", "host": "host"}, {"model": "kvm", "host": "host"},
     {"format": "csv", "what": "exits"}),
    ({"reference": "guest1"}, {}, {"format": "text"}),
]

# (parameters, the parameter the causes must name)
ERRORS = [
    (({"sync": "bogus"}, {}, {}), "sync"),
    (({}, {}, {"format": "x"}), "format"),
    (({}, {"model": "nope"}, {}), "model"),
    (({}, {}, {"colour": "red"}), "colour"),
    (({"host": 123}, {}, {}), "host"),
    (({"reference": "no-such-machine"}, {}, {}), "reference"),
]


def check_same_as_cli():
    traces = list(vmtest.scenario("two-guests").values())
    for params in SAME_OUTPUT:
        got, causes = python_run(traces, *params)
        if got is None:
            vmtest.fail("%r: the bt2 graph failed: %s" % (params, causes))
        proc = cli_run(traces, *params)
        if proc.returncode != 0:
            vmtest.fail("%r: the CLI failed:\n%s" % (params, proc.stderr[-3000:]))
        if got != proc.stdout or not got:
            vmtest.fail("%r: bt2 wrote\n%s\nthe CLI\n%s" % (params, got[:2000],
                                                         proc.stdout[:2000]))
        print("%r: same %d lines from bt2 and the CLI" % (params, len(got.splitlines())))
    for params, key in ERRORS:
        got, causes = python_run(traces, *params)
        if got is not None or not causes:
            vmtest.fail("%r: the bt2 graph did not fail with a cause (%r)" % (params, got))
        proc = cli_run(traces, *params)
        if proc.returncode != 1:
            vmtest.fail("%r: CLI exit status %d, expected 1:\n%s" % (
                params, proc.returncode, proc.stderr[-3000:]))
        cli_text = " ".join(proc.stderr.split())
        for cause in causes:
            if cause not in cli_text:
                vmtest.fail("%r: the cause %r from bt2 is not in the CLI's error:\n%s"
                            % (params, cause, proc.stderr[-3000:]))
        if not any("`%s`" % key in cause for cause in causes):
            vmtest.fail("%r: no cause names parameter `%s`: %r" % (params, key, causes))
        print("%r: the same %d cause(s) from bt2 and the CLI: %s" % (
            params, len(causes), causes[0][:90]))


check_example()
check_same_as_cli()
