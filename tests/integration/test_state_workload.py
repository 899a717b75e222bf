"""filter.vm.state against the ground truth of vm-workload.

vm-workload simulates a KVM host running two guests with two vCPUs each and
writes, besides the stub traces, the true vCPU intervals (truth/vcpus.csv).
The vm:vcpu_state events of filter.vm.state, turned into intervals the same
way (unknown periods left out, consecutive identical ones merged, `pcpu`
empty off CPU, the exit reason only for `hypervisor`), must be exactly
those. With filter.vm.correlate in the plugin (the guests' clocks are off and
drift), the end of the input is in the host's time base and every interval
must match to the nanosecond; without it, every interval but the last of each
vCPU, whose end is the end of the input.
"""

import csv
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btlog  # noqa: E402
import vmtest  # noqa: E402
import test_state  # noqa: E402

EVENTS = 40000
SEED = 11


def generate(kvm_names):
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    out = os.path.join(vmtest.WORK_DIR, "state-workload-" + kvm_names)
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([vmtest.WORKLOAD, "--out", out, "--seed", str(SEED),
                    "--events", str(EVENTS), "--kvm-names", kvm_names],
                   check=True, stdout=subprocess.DEVNULL)
    traces = [vmtest.stub_to_ctf(os.path.join(out, name),
                                 os.path.join(out, name[:-5] + "-ctf"))
              for name in sorted(os.listdir(out)) if name.endswith(".stub")]
    with open(os.path.join(out, "truth", "vcpus.csv")) as f:
        truth = [(r["machine"], int(r["vcpu"]), r["mode"], int(r["begin_ns"]),
                  int(r["end_ns"]), int(r["host_tid"]), r["pcpu"], r["reason"])
                 for r in csv.DictReader(f)]
    return traces, truth


def has_correlate():
    proc = vmtest.babeltrace2(["help", "filter.vm.correlate"], check=False, wrap=False)
    return proc.returncode == 0


def intervals(events):
    """The rows of truth/vcpus.csv that the vm:vcpu_state events give."""
    end_of_input = max(ts for ts, _, _, _ in events)
    changes = {}
    for ts, _, name, f in events:
        if name == "vm:vcpu_state":
            changes.setdefault((f["vm"], f["vcpu"]), []).append((ts, f))
    rows = []
    for (vm, vcpu), vcpu_changes in sorted(changes.items()):
        merged = []
        for i, (ts, f) in enumerate(vcpu_changes):
            end = vcpu_changes[i + 1][0] if i + 1 < len(vcpu_changes) else end_of_input
            if f["mode"] == "unknown" or end == ts:
                continue
            row = [vm, vcpu, f["mode"], ts, end, f["host_tid"],
                   "" if f["pcpu"] < 0 else str(f["pcpu"]),
                   str(f["exit_reason"]) if f["mode"] == "hypervisor" and
                   f["exit_reason"] >= 0 else ""]
            if merged and merged[-1][2] == row[2] and merged[-1][4] == row[3] and \
                    merged[-1][5:] == row[5:]:
                merged[-1][4] = end
            else:
                merged.append(row)
        rows += [tuple(r) for r in merged]
    return rows


def without_last_ends(rows):
    last = {}
    for i, row in enumerate(rows):
        last[row[:2]] = i
    return [row[:4] + (None,) + row[5:] if last[row[:2]] == i else row
            for i, row in enumerate(rows)]


def check(kvm_names, correlate):
    traces, truth = generate(kvm_names)
    args = list(traces) + ["--clock-seconds"]
    if correlate:
        args += ["-c", "filter.vm.correlate"]
    args += ["-c", "filter.vm.state"]
    proc = vmtest.babeltrace2(args)
    warnings = test_state.warnings_of(proc.stderr)
    # vm-workload writes x86 names in lttng-modules >= 2.13's layout: its
    # entries hold pointer fragments, which SPEC has named once per host.
    expected = 1 if kvm_names == "x86" else 0
    defect = [w for w in warnings if btlog.ENTRY_ID_DEFECT in w]
    if len(warnings) != expected or len(defect) != expected:
        vmtest.fail("%s: expected %d warning(s) (the entries' pointer fragments), got:\n%s"
                    % (kvm_names, expected, proc.stderr))
    # Times since the Unix epoch: no stub offset to take away here.
    events = [(ts + test_state.OFFSET_NS, host, name, f)
              for ts, host, name, f in test_state.parse_pretty(proc.stdout)]
    got = intervals(events)
    want = sorted(truth, key=lambda r: (r[0], r[1], r[3]))
    if not correlate:
        got, want = without_last_ends(got), without_last_ends(want)
    if got != want:
        extra = [r for r in got if r not in want]
        missing = [r for r in want if r not in got]
        vmtest.fail("%s: %d intervals, truth has %d\nnot in truth: %r\nmissing: %r" % (
            kvm_names, len(got), len(want), extra[:10], missing[:10]))
    return len(got)


def main():
    correlate = has_correlate()
    for kvm_names in ("x86", "old"):
        count = check(kvm_names, correlate)
        print("%s: %d vCPU intervals match the ground truth%s" % (
            kvm_names, count, "" if correlate else " (without filter.vm.correlate)"))


if __name__ == "__main__":
    main()
