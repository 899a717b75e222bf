#!/usr/bin/python3
"""Every vCPU in its VM, whatever method set the guests' clocks (issue 33).

Three guests, no `vm-pids`: filter.vm.state must tell which QEMU process runs
which guest from the traces alone, so that vCPU modes agree with the truth
for at least 99.9% of its time and exit counts exactly, through
src.ctf.fs -> filter.vm.correlate -> filter.vm.state -> sink.vm.threads:

- `transforms` for two guests (the truth's timemap.csv), the third
  synchronized by the vCPU method (TCP-only traces): the vCPU fit of the
  two names their QEMU too, and correlate writes it as `vm_host_pid` though
  `transforms` set their clocks; read once (the default) and with the sync
  pass (`sync-model="linear"`), both KVM layouts, basic and rich activity;
- TCP only, one guest that traced little (every 20th of its TCP events,
  nothing else): too little for its vCPU fit, so TCP sets its clock and
  nothing in its trace names its QEMU; the other two are fitted (their
  vm_host_pid), the third is the one left (elimination in filter.vm.state);
- sync="tcp", vmsync on two guests only (the third's module is missing:
  its vmsync lines are dropped): the two are named by their vm_uid, the
  third by elimination (the one guest and the one QEMU left);
- vmsync on all, `transforms` for all (nothing to fit): by vm_uid;
- TCP only, `transforms` for all: nothing tells which QEMU runs which
  guest; a warning names the three and says why, and no vm_host_pid is made
  up.

Each case is 300 ms of simulated time.
"""

import csv
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import threads_common as tc  # noqa: E402
import truthcmp  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

BASE = ["--guests", 3, "--vcpus", 2, "--duration-ms", 300]
TCP_ONLY = ["--vmsync-period-ms", 0]
MIN_PERCENT = 99.9
ALL = ("guest1", "guest2", "guest3")
# name: (generator arguments, correlate parameters, guests given
# `transforms`, {guest: what its stub loses (LOSSES)}, guests whose
# vm_host_pid correlate writes, whether filter.vm.state identifies all)
CASES = {
    "transforms-two-onepass": (
        TCP_ONLY + ["--host-cpus", 4, "--guest-activity", "basic"],
        {}, ("guest1", "guest3"), {}, ALL, True),
    "transforms-two-linear-classic": (
        TCP_ONLY + ["--host-cpus", 3, "--guest-activity", "rich", "--kvm-layout", "classic"],
        {"sync-model": "linear"}, ("guest1", "guest3"), {}, ALL, True),
    "tcp-sparse-guest": (
        TCP_ONLY + ["--host-cpus", 4, "--guest-activity", "basic"],
        {}, (), {"guest3": "sparse"}, ("guest1", "guest2"), True),
    # sync="tcp": no vCPU fit at all.
    "tcp-elimination": (
        ["--host-cpus", 4, "--guest-activity", "rich"],
        {"sync": "tcp"}, (), {"guest3": "vmsync"}, (), True),
    # transforms for every machine: no sync pass, nothing fitted.
    "vmsync-transforms-classic": (
        ["--host-cpus", 2, "--guest-activity", "basic", "--kvm-layout", "classic"],
        {}, ALL, {}, (), True),
    "tcp-transforms-all": (
        TCP_ONLY + ["--host-cpus", 4, "--guest-activity", "rich"],
        {}, ALL, {}, (), False),
}


def transforms(out, machines):
    with open(os.path.join(out, "truth", "timemap.csv"), newline="") as f:
        rows = {r["machine"]: r for r in csv.DictReader(f)}
    return "{%s}" % ",".join('%s={slope="%s",offset-ns="%s"}' % (
        m, rows[m]["slope"], rows[m]["offset_ns"]) for m in machines)


def kept_lines(losses, lines):
    """The lines of a stub that stay when its trace loses `losses`:
    `vmsync`, its vmsync events; `sparse`, all but every 20th TCP event."""
    tcp = 0
    for line in lines:
        parts = line.split(" ", 3)
        if len(parts) < 3 or not parts[0].isdigit():
            yield line
        elif losses == "vmsync":
            if not parts[2].startswith("vmsync_"):
                yield line
        elif parts[2].startswith("inet_sock_"):
            tcp += 1
            if tcp % 20 == 0:
                yield line


def ctf_traces(out, losses):
    """The CTF traces of the workload, the stubs of the guests in `losses`
    first losing what it says."""
    traces = {}
    for machine in truthdata.machines(out):
        name = machine["machine"]
        stub = os.path.join(out, name + ".stub")
        if name in losses:
            changed = os.path.join(out, "changed", name + ".stub")
            os.makedirs(os.path.dirname(changed), exist_ok=True)
            with open(stub) as src, open(changed, "w") as dst:
                dst.writelines(kept_lines(losses[name], src))
            traces[name] = vmtest.stub_to_ctf(changed, os.path.join(out, "ctf-changed", name))
        else:
            traces[name] = vmtest.stub_to_ctf(stub, os.path.join(out, "ctf", name))
    return traces


def run(traces, filters, sink, params):
    proc = vmtest.babeltrace2(truthdata.run_form(traces, filters, sink, params),
                              check=False, wrap=False)
    if proc.returncode != 0:
        vmtest.fail("the pipeline failed (%d):\n%s" % (proc.returncode, proc.stderr[-4000:]))
    return proc


def identities(out, traces, correlate):
    """{guest: (vm_host_pid of its output trace or None, vm_sync_method)},
    from a CTF copy."""
    copy = os.path.join(out, "identity-copy")
    shutil.rmtree(copy, ignore_errors=True)
    run(traces, [("filter.vm.correlate", correlate)], "sink.ctf.fs",
        {"path": copy, "quiet": ("true",)})
    found = {}
    for root, _, files in os.walk(copy):
        if "metadata" not in files:
            continue
        with open(os.path.join(root, "metadata")) as f:
            text = f.read()
        machine = re.search(r'vm_machine = "([^"]+)";', text)
        pid = re.search(r"vm_host_pid = (\d+);", text)
        method = re.search(r'vm_sync_method = "([^"]+)";', text)
        if machine:
            found[machine.group(1)] = (pid.group(1) if pid else None,
                                       method.group(1) if method else None)
    return found


def check_modes(label, out, traces, filters):
    """Problems of the vCPU modes and exit counts against the truth, and the
    warnings of the run."""
    truth_dir = os.path.join(out, "truth")
    result_dir = os.path.join(out, "identity-results")
    os.makedirs(result_dir, exist_ok=True)
    problems = []
    vcpus_csv = os.path.join(result_dir, "vcpus.csv")
    exits_csv = os.path.join(result_dir, "exits.csv")
    proc = run(traces, filters, "sink.vm.threads",
               {"format": "csv", "what": "vcpus", "path": vcpus_csv})
    run(traces, filters, "sink.vm.threads", {"format": "csv", "what": "exits",
                                             "path": exits_csv})
    vcpus = truthcmp.compare_vcpus(os.path.join(truth_dir, "vcpus.csv"), vcpus_csv)
    exits = truthcmp.compare_exits(os.path.join(truth_dir, "exits.csv"), exits_csv)
    print("[%s] %s" % (label, vcpus.summary().splitlines()[0]))
    print("[%s] %s" % (label, exits.summary().splitlines()[0]))
    if vcpus.percent < MIN_PERCENT or vcpus.missing_keys:
        problems.append("vCPU modes agree for %.4f%% (missing %s)" % (
            vcpus.percent, sorted(vcpus.missing_keys)[:4]))
    if not exits.ok:
        problems.append("exit counts differ from the truth")
    return problems, tc.warnings_of(proc.stderr)


def run_case(index, name):
    args, correlate, given, losses, with_pid, identified = CASES[name]
    out = truthdata.generate("vm-identity-%s" % name, ["--seed", 700 + index] + BASE + args)
    traces = ctf_traces(out, losses)
    correlate = dict(correlate)
    if given:
        correlate["transforms"] = (transforms(out, given),)
    qemu = {m["machine"]: m["qemu_pid"] for m in truthdata.machines(out)
            if m["role"] == "guest"}
    problems = []
    found = identities(out, traces, correlate)
    pids = {guest: found.get(guest, (None, None))[0] for guest in ALL}
    want = {guest: qemu[guest] if guest in with_pid else None for guest in ALL}
    if pids != want:
        problems.append("vm_host_pid %r, want %r" % (pids, want))
    for guest, what in losses.items():
        # The guest that traced little is synchronized by TCP all the same.
        if what == "sparse" and found.get(guest, (None, None))[1] != "tcp":
            problems.append("%s: vm_sync_method %r, want tcp" % (guest, found.get(guest)))
    modes, warnings = check_modes(name, out, traces, [("filter.vm.correlate", correlate),
                                                      ("filter.vm.state", {})])
    unknown = [w for w in warnings if "runs a vCPU of a VM that no trace identifies" in w]
    if identified:
        problems += modes + ["unexpected warning: " + w for w in unknown]
    elif len(unknown) != 1 or "Not identified: guests `guest1`, `guest2`, `guest3` (" \
            not in unknown[0] or "vm-pids" not in unknown[0]:
        problems.append("expected one warning naming the three guests, got:\n  " +
                        "\n  ".join(warnings))
    return ["[%s] %s" % (name, p) for p in problems]


def main():
    vmtest.skip_under_valgrind("unwrapped pipelines on generated workloads")
    problems = []
    for index, name in enumerate(CASES):
        problems += run_case(index, name)
    if problems:
        vmtest.fail("VMs not identified as they should be:\n  " + "\n  ".join(problems))
    print("vm-identity: %d cases, every vCPU in its VM" % len(CASES))


if __name__ == "__main__":
    main()
