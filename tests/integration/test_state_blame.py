"""Issue 30, point 2 (a): sink.vm.threads tells "filter.vm.state is not in
the graph" from "filter.vm.state is there but computed no vCPU mode", and
blames the second on its real cause (no host vCPU thread mapped to a guest),
never asking to add a filter.vm.state that is already there.

- the host's trace alone (halted-vcpu stub): its vCPU thread runs a VM that
  no trace given identifies. Without filter.vm.state: "add it"; with it:
  no "add it", but a warning that it computed no mode, pointing at the
  guests' traces and `vm-pids`;
- two generated guests without vmsync, TCP or filter.vm.correlate: nothing
  maps a vCPU thread to either guest, so each guest (and no other
  machine) is named in a warning pointing at `vm-pids` and doc/tracing.md.
"""

import btlog
import truthdata
import vmtest

ADD_STATE = "Add `-c filter.vm.state` before the sink"
NO_MODE = "filter.vm.state computed no vCPU mode"
NO_MODE_GUEST = "filter.vm.state computed no vCPU mode for this guest"
WORKLOAD = ["--seed", 3, "--guests", 2, "--vcpus", 1, "--host-cpus", 2, "--threads", 2,
            "--duration-ms", 20, "--vmsync-period-ms", 0, "--tcp-period-ms", 0]


def sink_warnings(traces, chain):
    proc = vmtest.babeltrace2(traces + chain + ["-c", "sink.vm.threads",
                                                "-p", 'format="csv",what="vcpus"'])
    return [w for w in btlog.warnings(proc.stderr) if "[sink.vm.threads]" in w]


def expect(what, warnings, present, absent):
    for words in present:
        if not any(words in w for w in warnings):
            vmtest.fail("%s: no warning with %r:\n%s" % (what, words, "\n".join(warnings)))
    for words in absent:
        if any(words in w for w in warnings):
            vmtest.fail("%s: a warning with %r:\n%s" % (what, words, "\n".join(warnings)))


def host_alone():
    host = [vmtest.scenario("halted-vcpu")["host"]]
    expect("host alone, no filter.vm.state", sink_warnings(host, []), [ADD_STATE], [NO_MODE])
    warnings = sink_warnings(host, ["-c", "filter.vm.state"])
    expect("host alone, filter.vm.state", warnings, [NO_MODE, "vm-pids"], [ADD_STATE])


def guests_unmapped():
    out = truthdata.generate("state-blame", WORKLOAD)
    traces = truthdata.ctf_traces(out)
    guests = [m["machine"] for m in truthdata.machines(out) if m["role"] == "guest"]
    warnings = sink_warnings(list(traces.values()), ["-c", "filter.vm.state"])
    expect("unmapped guests", warnings, [NO_MODE_GUEST, "vm-pids", "doc/tracing.md"],
           [ADD_STATE])
    named = sorted(m for m in traces
                   if any("Machine `%s`: %s" % (m, NO_MODE_GUEST) in w for w in warnings))
    if named != sorted(guests):
        vmtest.fail("warned of %s, not of the guests %s:\n%s" % (named, guests,
                                                                "\n".join(warnings)))


host_alone()
guests_unmapped()
print("no mode blamed on the mapping, never on a missing filter.vm.state")
