"""Issue 30, point 2 (b): filter.vm.state says "No host found" only when it
is certain: at the end of the input, never while the host's first kvm event
may still come.

The halted-vcpu stubs, with the host's events after its statedump and the
guest's whole trace moved 1.5 s later (more than the 1 s look-ahead window):
the host's kvm events start after the window. filter.vm.state must not
warn that no host exists, and must compute the guest's vCPU modes (the
stub's truth: its one vCPU is in `guest`, `hypervisor` and `blocked` mode).
The guest alone still gets the warning, at the end.
"""

import os

import btlog
import threads_common as tc
import vmtest

LATE_NS = 1500000000
NO_HOST = "No host found"


def moved_stub(name, keep_before):
    """The halted-vcpu stub NAME with every event at or after KEEP_BEFORE
    (ns) LATE_NS later; the path of the new stub."""
    source = os.path.join(vmtest.STUB_DIR, "halted-vcpu", name + ".stub")
    folder = os.path.join(vmtest.WORK_DIR, "state-late-host")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".stub")
    lines = []
    with open(source) as f:
        for line in f:
            if line[:1].isdigit():
                ts, rest = line.split(" ", 1)
                if int(ts) >= keep_before:
                    line = "%d %s" % (int(ts) + LATE_NS, rest)
            lines.append(line)
    with open(path + ".new", "w") as f:
        f.writelines(lines)
    # Rewritten only when it changes: stub_to_ctf() caches by mtime.
    if not os.path.exists(path) or open(path).read() != "".join(lines):
        os.replace(path + ".new", path)
    else:
        os.remove(path + ".new")
    return path


def run(traces):
    return vmtest.babeltrace2(traces + ["-c", "filter.vm.state", "-c", "sink.vm.threads",
                                        "-p", 'format="csv",what="vcpus"'])


# The host's statedump stays at its time (below 2000 ns); all the rest moves.
host = vmtest.stub_to_ctf(moved_stub("host", 2000))
guest = vmtest.stub_to_ctf(moved_stub("guest", 0))
proc = run([host, guest])
warnings = [w for w in btlog.warnings_but_unsynchronized(proc.stderr) if NO_HOST in w]
if warnings:
    vmtest.fail("warned that no host exists before the host's kvm events:\n"
                + "\n".join(warnings))
modes = {row["mode"] for row in tc.parse_csv(proc.stdout, "vcpus")}
if not {"guest", "hypervisor", "blocked"} <= modes:
    vmtest.fail("the guest's vCPU modes were not computed: %s" % sorted(modes))
proc = run([guest])
if not any(NO_HOST in w for w in btlog.warnings(proc.stderr)):
    vmtest.fail("no \"No host found\" warning for the guest alone:\n" + proc.stderr)
print("no early \"No host found\"; modes %s computed" % sorted(modes))
