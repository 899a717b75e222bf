"""filter.vm.state takes a guest's QEMU from its trace's `vm_host_pid`.

Two guests, each with one vCPU thread named `CPU 0/KVM` in its own QEMU
process, no vmsync (the two-guests stub with its vmsync lines dropped):
nothing in the traces tells which QEMU runs which guest. With the guests'
environments carrying `vm_host_pid` (as correlate writes it; written here
into the CTF metadata by hand), every vCPU state lands in the right VM
without `vm-pids`. Which QEMU runs which guest is taken from the original
stub's vmsync exchanges (the vm_uid a guest sends, received by a thread of
that QEMU). An explicit `vm-pids` entry wins over the environment; when they
differ, a WARNING (shown at the default log level) names both processes.
"""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btlog  # noqa: E402
import vmtest  # noqa: E402
import stubfile  # noqa: E402

STATE_RE = re.compile(r"vm:vcpu_state: (.*)$")
FIELD_RE = re.compile(r'(\w+) = ("(?:[^"\\]|\\.)*"|-?\d+)')
GUESTS = ("guest1", "guest2")


def truth(folder):
    """({guest: QEMU pid}, {vCPU thread: guest}) from the original stubs."""
    host = stubfile.parse(os.path.join(folder, "host.stub"))
    guest_of_uid = {}
    for name in GUESTS:
        for event in stubfile.parse(os.path.join(folder, name + ".stub")).events:
            if event.name == "vmsync_gh_guest":
                guest_of_uid[event.fields["vm_uid"]] = name
    pid_of = {}
    current = {}
    vcpu_threads = {}
    for event in host.ordered_events():
        if event.name == "lttng_statedump_process_state":
            pid_of[event.fields["tid"]] = event.fields["pid"]
        elif event.name == "sched_switch":
            current[event.cpu] = event.fields["next_tid"]
        elif event.name == "vmsync_gh_host":
            vcpu_threads[current[event.cpu]] = guest_of_uid[event.fields["vm_uid"]]
    qemu = {guest: pid_of[tid] for tid, guest in vcpu_threads.items()}
    if sorted(qemu) != list(GUESTS) or len(set(qemu.values())) != 2:
        vmtest.fail("the two-guests stub no longer has two QEMUs: %r" % qemu)
    return qemu, vcpu_threads


def without_vmsync(source, target):
    with open(source, encoding="utf-8") as stub:
        kept = [line for line in stub if " vmsync_" not in line]
    with open(target, "w", encoding="utf-8") as out:
        out.writelines(kept)
    return target


def with_host_pid(trace, target, pid):
    """A copy of CTF trace `trace` whose environment has vm_host_pid = pid."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(trace, target)
    path = os.path.join(target, "metadata")
    with open(path, encoding="utf-8") as metadata:
        text = metadata.read()
    if "\nenv {\n" not in text:
        vmtest.fail("no env block in " + path)
    with open(path, "w", encoding="utf-8") as metadata:
        metadata.write(text.replace("\nenv {\n", "\nenv {\n\tvm_host_pid = %d;\n" % pid, 1))
    return target


def vcpu_states(traces, params=None):
    args = list(traces) + ["-c", "filter.vm.state"]
    if params:
        args += ["-p", params]
    args += ["-l", "I"]
    proc = vmtest.babeltrace2(args)
    states = []
    for line in proc.stdout.splitlines():
        match = STATE_RE.search(line)
        if match:
            fields = {k: v[1:-1] if v.startswith('"') else int(v)
                      for k, v in FIELD_RE.findall(match.group(1))}
            states.append(fields)
    return states, proc.stderr


def check_placement(what, states, vm_of_thread):
    placed = {}
    for state in states:
        placed.setdefault(state["host_tid"], set()).add(state["vm"])
    want = {tid: {vm} for tid, vm in vm_of_thread.items()}
    if placed != want:
        vmtest.fail("%s: vCPU threads in VMs %r, want %r" % (what, placed, want))


def main():
    folder = os.path.join(vmtest.STUB_DIR, "two-guests")
    work = os.path.join(vmtest.WORK_DIR, "state-host-pid")
    os.makedirs(work, exist_ok=True)
    qemu, vm_of_thread = truth(folder)
    plain = {name: vmtest.stub_to_ctf(without_vmsync(
        os.path.join(folder, name + ".stub"), os.path.join(work, name + ".stub")),
        os.path.join(work, name + "-ctf")) for name in ("host",) + GUESTS}

    states, _ = vcpu_states(plain.values())
    if states:
        vmtest.fail("without vmsync, vm-pids or vm_host_pid, a vCPU was placed: %r"
                    % states[:3])

    traces = [plain["host"]] + [with_host_pid(plain[g], os.path.join(work, g + "-pid"),
                                              qemu[g]) for g in GUESTS]
    states, stderr = vcpu_states(traces)
    check_placement("vm_host_pid", states, vm_of_thread)
    if "using the parameter's" in stderr:
        vmtest.fail("vm_host_pid alone: a line about vm-pids:\n" + stderr)

    # The same pids given explicitly: no conflict, nothing to say.
    states, stderr = vcpu_states(traces, "vm-pids={%s}" % ",".join(
        "%s=%d" % (g, qemu[g]) for g in GUESTS))
    check_placement("vm-pids equal to vm_host_pid", states, vm_of_thread)
    if "using the parameter's" in stderr:
        vmtest.fail("vm-pids equal to vm_host_pid: a line about it:\n" + stderr)

    # vm-pids says the opposite: it wins, and warns for each guest.
    swapped = {tid: GUESTS[1 - GUESTS.index(vm)] for tid, vm in vm_of_thread.items()}
    states, stderr = vcpu_states(traces, "vm-pids={guest1=%d,guest2=%d}"
                                 % (qemu["guest2"], qemu["guest1"]))
    check_placement("vm-pids against vm_host_pid", states, swapped)
    for guest in GUESTS:
        expect_warning("vm-pids against vm_host_pid", stderr,
                       r"Machine `%s`: parameter `vm-pids` gives its QEMU process "
                       r"%d, .*`vm_host_pid` gives %d .*: using the parameter's"
                       % (guest, qemu[swapped_guest(guest)], qemu[guest]))

    # vm-pids names one guest with the other's QEMU: that guest wins it; the
    # other's vm_host_pid, now the parameter's, is not used.
    states, stderr = vcpu_states(traces, "vm-pids={guest1=%d}" % qemu["guest2"])
    check_placement("vm-pids for one guest", states,
                    {tid: "guest1" for tid, vm in vm_of_thread.items() if vm == "guest2"})
    expect_warning("vm-pids for one guest", stderr,
                   r"Machine `guest2`: its trace environment `vm_host_pid`.* %d, "
                   r"which parameter `vm-pids` gives to `guest1`" % qemu["guest2"])
    print("ok")


def expect_warning(what, stderr, pattern):
    """A WARNING line (shown at babeltrace2's default level) matches."""
    if not any(re.search(pattern, line) for line in btlog.warnings(stderr)):
        vmtest.fail("%s: no warning matching %r:\n%s" % (what, pattern, stderr))


def swapped_guest(guest):
    return GUESTS[1 - GUESTS.index(guest)]


if __name__ == "__main__":
    main()
