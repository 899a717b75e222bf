"""Wrong `vm-pids` of filter.vm.state are said, never accepted silently.

One small vm-workload run (two guests of two vCPUs, no vmsync and no TCP:
filter.vm.correlate finds each guest's QEMU from the stock KVM events and
writes it as `vm_host_pid`), through SPEC's graph (correlate -> state ->
sink.vm.threads, `babeltrace2 run` form). The right QEMU of each guest is
the generator's truth (machines.csv `qemu_pid`), never the plugin's output:

- the right pids: no warning, and each guest's vCPU rows are on the host
  threads that truly ran its vCPUs (truth/vcpus.csv);
- one pid given to both guests: an initialization error naming the
  parameter, both guests, the pid and what is accepted;
- the two pids swapped: a warning per guest naming the pid given and the
  `vm_host_pid` that correlate found (the parameter still wins);
- the pid of a host process that runs no vCPU thread: a warning naming it
  and the processes that do run vCPUs.
"""

import csv
import os
import re

import btlog
import truthdata
import vmtest

WORKLOAD = ["--seed", 7, "--guests", 2, "--vcpus", 2, "--host-cpus", 2,
            "--duration-ms", 60, "--vmsync-period-ms", 0, "--tcp-period-ms", 0]


def run(traces, vm_pids):
    """The graph with `vm-pids` = {guest: pid}; the CompletedProcess."""
    state = {}
    if vm_pids:
        state["vm-pids"] = ("{%s}" % ",".join("%s=%d" % kv for kv in sorted(vm_pids.items())),)
    args = truthdata.run_form(traces, [("filter.vm.correlate", {}), ("filter.vm.state", state)],
                              "sink.vm.threads", {"what": "vcpus", "format": "csv"})
    return vmtest.babeltrace2(args, check=False)


def vcpu_threads(csv_text):
    """{guest: set of host tids} of the vCPU rows."""
    found = {}
    for row in csv.DictReader(csv_text.splitlines()):
        found.setdefault(row["machine"], set()).add(int(row["host_tid"]))
    return found


def truth_vcpu_threads(out):
    with open(os.path.join(out, "truth", "vcpus.csv"), newline="") as f:
        return vcpu_threads(f.read())


def other_process(out, qemu_pids):
    """A host process of the statedump that runs no vCPU (no QEMU)."""
    with open(os.path.join(out, "host.stub")) as stub:
        for line in stub:
            if line[:1].isdigit() and " lttng_statedump_process_state " in line:
                fields = dict(re.findall(r"(\w+)=(\S+)", line))
                pid = int(fields["pid"])
                if pid not in qemu_pids and pid > 0:
                    return pid
    vmtest.fail("the host statedump has no process besides QEMU")


def succeeds(what, proc):
    if proc.returncode != 0:
        vmtest.fail("%s: exit status %d:\n%s" % (what, proc.returncode, proc.stderr[-5000:]))
    return btlog.unexpected_warnings(proc.stderr)


def expect_warning(what, warnings, pattern):
    if not any(re.search(pattern, line) for line in warnings):
        vmtest.fail("%s: no warning matching %r:\n%s" % (what, pattern, "\n".join(warnings)))


def main():
    out = truthdata.generate("state-vm-pids", WORKLOAD)
    traces = truthdata.ctf_traces(out)
    qemu = {m["machine"]: int(m["qemu_pid"]) for m in truthdata.machines(out)
            if m["role"] == "guest"}
    guests = sorted(qemu)
    if len(guests) != 2 or len(set(qemu.values())) != 2:
        vmtest.fail("want two guests in two QEMUs: %r" % qemu)
    first, second = guests

    proc = run(traces, qemu)
    warnings = succeeds("right pids", proc)
    if warnings:
        vmtest.fail("right pids: unexpected warnings:\n" + "\n".join(warnings))
    got, want = vcpu_threads(proc.stdout), truth_vcpu_threads(out)
    if got != want:
        vmtest.fail("right pids: vCPU threads by guest %r, truth %r" % (got, want))

    proc = run(traces, {first: qemu[second], second: qemu[second]})
    if proc.returncode == 0:
        vmtest.fail("one pid for two guests: accepted")
    for word in ("`vm-pids`", "`%s` and `%s`" % (first, second),
                 "process %d" % qemu[second], "1 to 4194303", "all different"):
        if word not in proc.stderr:
            vmtest.fail("one pid for two guests: the error lacks %r:\n%s" % (word, proc.stderr))

    warnings = succeeds("swapped pids", run(traces, {first: qemu[second], second: qemu[first]}))
    for guest, other in ((first, second), (second, first)):
        expect_warning("swapped pids", warnings,
                       r"Machine `%s`: parameter `vm-pids` gives its QEMU process %d, "
                       r".*`vm_host_pid` gives %d\b" % (guest, qemu[other], qemu[guest]))

    stranger = other_process(out, set(qemu.values()))
    warnings = succeeds("no vCPU", run(traces, {first: stranger, second: qemu[second]}))
    expect_warning("no vCPU", warnings,
                   r"`vm-pids` gives guest `%s` QEMU process %d, but no thread of process "
                   r"%d runs a vCPU .* the processes that run vCPUs are: %s\." % (
                       first, stranger, stranger,
                       ", ".join(str(p) for p in sorted(qemu.values()))))
    if any("process %d" % qemu[second] in w and "no thread" in w for w in warnings):
        vmtest.fail("no vCPU: a warning about the right pid:\n" + "\n".join(warnings))
    print("vm-pids: right, duplicate, swapped and no-vCPU pids checked against the truth")


if __name__ == "__main__":
    main()
