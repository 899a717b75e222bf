#!/usr/bin/python3
"""Parameters name machines that share a hostname: `base-2` for `base#2`.

Two guests with one hostname are `guest1` and `guest1#2` (SPEC, Machines),
but babeltrace2's parameter syntax takes no `#` in a map key, quoted or
not: `transforms` and `vm-pids` take `guest1-2` for it. On a small
vm-workload run whose second guest is renamed `guest1` (its own clock
UUID: another machine):

- filter.vm.correlate's INFO line "To skip the synchronization next time"
  spells that machine `guest1-2` and, passed back as it is with
  sync="none", gives every event the time of the synchronized run;
- the vm-pids line beside it spells it `guest1-2` too, with the truth's
  QEMU pids;
- filter.vm.state's `vm-pids` names it `guest1-2`: with the generator's
  QEMU pids (truth), each guest's vCPU rows are on the host threads that
  truly ran its vCPUs; with a pid that runs no vCPU, the warning names
  `guest1#2` (so the key did name that machine);
- the exact name still works where a string can hold it:
  reference="guest1#2".
"""

import csv
import os
import re

import correlate_check as cc
import truthdata
import vmtest

WORKLOAD = ["--seed", 29, "--guests", 2, "--vcpus", 2, "--host-cpus", 2, "--threads", 3,
            "--duration-ms", 20, "--tcp-period-ms", 0]


def twin_traces():
    """{truth machine: CTF trace}, guest2's stub renamed `guest1`."""
    out = truthdata.generate("machine-param-names", WORKLOAD)
    twin = os.path.join(vmtest.WORK_DIR, "machine-param-names-twin")
    os.makedirs(twin, exist_ok=True)
    traces = {}
    for machine in truthdata.machines(out):
        name = machine["machine"]
        with open(os.path.join(out, name + ".stub")) as f:
            text = f.read()
        if name == "guest2":
            text, count = re.subn(r"^hostname guest2$", "hostname guest1", text,
                                  count=1, flags=re.M)
            if count != 1:
                vmtest.fail("guest2.stub has no `hostname guest2` line")
        stub = os.path.join(twin, name + ".stub")
        if not os.path.exists(stub) or open(stub).read() != text:
            with open(stub, "w") as f:
                f.write(text)
        traces[name] = vmtest.stub_to_ctf(stub, os.path.join(twin, "ctf", name))
    return out, traces


def event_times(text):
    """The time of every event message, in output order."""
    result = []
    for line in text.splitlines():
        found = cc.times(line)
        if found and "Event `" in line:
            result.append(found[0][1])
    return result


def check_suggestion(traces):
    """The suggestion, passed back, gives the same times; returns its vm-pids line."""
    paths = list(traces.values())
    first = cc.run(["--log-level=INFO"] + cc.direct_args(
        paths, 'sync-model="linear"', sink_params=cc.DETAILS_COMPACT), "synchronized")
    if not re.search(r"Machine `guest1#2`", first.stderr):
        vmtest.fail("no machine `guest1#2`:\n" + first.stderr[-3000:])
    suggested = cc.suggested_params(first.stderr)
    if not suggested:
        vmtest.fail("no suggested parameters:\n" + first.stderr[-3000:])
    if "#" in suggested or "guest1-2={" not in suggested:
        vmtest.fail("the suggestion does not spell guest1#2 `guest1-2`: " + suggested)
    again = cc.run(["--log-level=INFO"] + cc.direct_args(
        paths, 'sync="none",' + suggested, sink_params=cc.DETAILS_COMPACT),
        "suggested transforms")
    if again.stderr.count("sync transforms") < 2:
        vmtest.fail("the suggestion was not used for both guests:\n" + again.stderr[-3000:])
    before, after = event_times(first.stdout), event_times(again.stdout)
    if not before or before != after:
        moved = sum(1 for a, b in zip(before, after) if a != b)
        vmtest.fail("the suggestion %s: %d events, then %d; %d moved"
                    % (suggested, len(before), len(after), moved))
    pids = re.search(r"vm-pids=\{([^}]*)\}", first.stderr)
    if not pids or "#" in pids.group(1) or "guest1-2=" not in pids.group(1):
        vmtest.fail("the vm-pids suggestion does not spell `guest1-2`:\n"
                    + first.stderr[-3000:])
    print("suggestion: %d events at the same ns with %s; vm-pids={%s}"
          % (len(before), suggested, pids.group(1)))
    return suggested, {k: int(v) for k, v in re.findall(r"([^,=]+)=(\d+)", pids.group(1))}


def vcpu_threads(csv_text):
    """{machine: frozenset of host tids} of the vCPU rows."""
    found = {}
    for row in csv.DictReader(csv_text.splitlines()):
        found.setdefault(row["machine"], set()).add(int(row["host_tid"]))
    return {k: frozenset(v) for k, v in found.items()}


def run_vm_pids(traces, suggested, vm_pids):
    """correlate (the suggestion, no sync pass) -> state with `vm-pids` -> vCPU rows."""
    correlate = {"sync": "none"}
    for key, value in re.findall(r'(reference|transforms)=("[^"]*"|\{.*\})', suggested):
        correlate[key] = (value,)
    state = {"vm-pids": ("{%s}" % ",".join("%s=%d" % kv for kv in sorted(vm_pids.items())),)}
    args = truthdata.run_form(traces, [("filter.vm.correlate", correlate),
                                       ("filter.vm.state", state)],
                              "sink.vm.threads", {"what": "vcpus", "format": "csv"})
    proc = vmtest.babeltrace2(args, check=False)
    if proc.returncode != 0:
        vmtest.fail("vm-pids %r: status %d:\n%s" % (vm_pids, proc.returncode, proc.stderr[-3000:]))
    return vcpu_threads(proc.stdout), proc


def check_vm_pids(out, traces, suggested, suggested_pids):
    qemu = {m["machine"]: int(m["qemu_pid"]) for m in truthdata.machines(out)
            if m["role"] == "guest"}
    with open(os.path.join(out, "truth", "vcpus.csv"), newline="") as f:
        truth = vcpu_threads(f.read())
    # Which truth guest is `guest1#2`: the one whose vCPU threads it got with
    # the right pids, checked below to be the truth's either way round.
    for second in ("guest2", "guest1"):
        first = "guest1" if second == "guest2" else "guest2"
        right = run_vm_pids(traces, suggested, {"guest1": qemu[first],
                                                "guest1-2": qemu[second]})[0]
        if right == {"guest1": truth[first], "guest1#2": truth[second]}:
            break
    else:
        vmtest.fail("vm-pids with guest1-2: vCPU threads %r, truth %r" % (right, truth))
    # Valgrind computes long doubles as doubles: a vCPU fit may fail there.
    want = {"guest1": qemu[first], "guest1-2": qemu[second]}
    if vmtest.under_valgrind():
        want = {k: v for k, v in want.items() if k in suggested_pids}
    if suggested_pids != want:
        vmtest.fail("suggested vm-pids %r, truth guest1=%d, guest1-2=%d"
                    % (suggested_pids, qemu[first], qemu[second]))
    stranger = 4000000
    warning = (r"`vm-pids` gives guest `guest1#2` QEMU process %d, but no thread of "
               r"process %d runs a vCPU" % (stranger, stranger))
    proc = run_vm_pids(traces, suggested, {"guest1": qemu[first], "guest1-2": stranger})[1]
    if not re.search(warning, proc.stderr):
        vmtest.fail("vm-pids guest1-2=%d: no warning naming `guest1#2`:\n%s"
                    % (stranger, proc.stderr[-3000:]))
    print("vm-pids: guest1-2 names guest1#2 (truth %s): its vCPU threads with the right "
          "pid, a warning with a pid that runs no vCPU" % second)


def check_exact_reference(traces):
    proc = vmtest.babeltrace2(cc.direct_args(list(traces.values()), 'reference="guest1#2"',
                                             sink="sink.utils.dummy"), check=False)
    if proc.returncode != 0:
        vmtest.fail('reference="guest1#2": status %d:\n%s' % (proc.returncode, proc.stderr[-3000:]))
    print('reference="guest1#2" accepted')


def main():
    out, traces = twin_traces()
    suggested, suggested_pids = check_suggestion(traces)
    check_vm_pids(out, traces, suggested, suggested_pids)
    check_exact_reference(traces)
    print("PASS")


if __name__ == "__main__":
    main()
