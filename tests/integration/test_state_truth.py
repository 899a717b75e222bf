#!/usr/bin/python3
"""The whole pipeline against the workload generator's ground truth.

A host and two guests of two vCPUs each, with drifting guest clocks offset by
milliseconds, go through src.ctf.fs -> filter.vm.correlate -> filter.vm.state
-> sink.vm.threads in both graph forms (`babeltrace2 run` with every source
connected to correlate, and the convert form with babeltrace2's muxer first).
The two forms must write the same files, and those must agree with the truth:
thread states for at least 99.9% of the thread-time, vCPU modes for at least
99.9% of the vCPU-time, exit counts exactly.

The large workload runs natively; a small one also goes through the
VM_BT_WRAPPER (valgrind in CI), with the old kvm event names and no vmsync
events: TCP sync, and vCPU threads mapped to their VMs by `vm-pids`.
"""

import filecmp
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthcmp  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

WORKLOAD_ARGS = ["--seed", 20, "--events", 150000, "--guests", 2, "--vcpus", 2,
                 "--host-cpus", 4, "--guest-offset-ns", 3000000, "--drift-ppm", 40]
# The small workload takes the other paths: pre-2.7 kvm event names, no
# vmsync (so TCP sync, and the VMs of the vCPU threads from `vm-pids`).
SMALL_ARGS = ["--seed", 21, "--events", 8000, "--guests", 2, "--vcpus", 2,
              "--host-cpus", 4, "--guest-offset-ns", 2000000, "--drift-ppm", -30,
              "--kvm-names", "old", "--vmsync-period-ms", 0]
MIN_PERCENT = 99.9
# Exit durations are host times and the host is the reference: no rounding.
TOTAL_TOLERANCE_NS = 0
WHATS = ("threads", "vcpus", "exits")
FORMS = {"run": truthdata.run_form, "convert": truthdata.convert_form}


def run_pipeline(traces, form, what, path, wrap, state=None):
    filters = [("filter.vm.correlate", {}), ("filter.vm.state", state or {})]
    args = FORMS[form](traces, filters, "sink.vm.threads",
                       {"format": "csv", "what": what, "path": path})
    if os.path.exists(path):
        os.remove(path)
    vmtest.babeltrace2(args, wrap=wrap)
    if not os.path.exists(path):
        vmtest.fail("sink.vm.threads wrote no %s" % path)
    return path


def check(results, label):
    ok = True
    for what in ("threads", "vcpus"):
        result = results[what]
        print("%s %s" % (label, result.summary()))
        if result.percent < MIN_PERCENT:
            print("FAIL: %s %s agreement %.4f%% < %.1f%%" % (
                label, what, result.percent, MIN_PERCENT))
            ok = False
        if result.missing_keys or result.extra_keys:
            print("FAIL: %s %s: keys differ from the truth" % (label, what))
            ok = False
    if "exits" in results:
        exits = results["exits"]
        print("%s %s" % (label, exits.summary()))
        if not exits.ok:
            print("FAIL: %s exit statistics differ from the truth" % label)
            ok = False
    return ok


def large():
    out = truthdata.generate("state-truth", WORKLOAD_ARGS)
    traces = truthdata.ctf_traces(out)
    print("workload: %d events, machines %s" % (truthdata.event_count(out),
                                                ", ".join(traces)))
    result_dir = os.path.join(out, "results")
    os.makedirs(result_dir, exist_ok=True)
    files = {}
    for form in FORMS:
        for what in WHATS:
            files[form, what] = run_pipeline(
                traces, form, what, os.path.join(result_dir, "%s-%s.csv" % (form, what)),
                wrap=False)
    ok = True
    for what in WHATS:
        if not filecmp.cmp(files["run", what], files["convert", what], shallow=False):
            print("FAIL: the run and convert forms wrote different what=%s output" % what)
            ok = False
    for form in FORMS:
        results = truthcmp.compare_dir(
            os.path.join(out, "truth"), files[form, "threads"], files[form, "vcpus"],
            files[form, "exits"], total_tolerance_ns=TOTAL_TOLERANCE_NS)
        ok = check(results, "[%s form]" % form) and ok
    return ok


def small():
    out = truthdata.generate("state-truth-small", SMALL_ARGS)
    traces = truthdata.ctf_traces(out)
    result_dir = os.path.join(out, "results")
    os.makedirs(result_dir, exist_ok=True)
    pids = ",".join("%s=%s" % (m["machine"], m["qemu_pid"])
                    for m in truthdata.machines(out) if m["role"] == "guest")
    state = {"vm-pids": ("{%s}" % pids,)}
    paths = {what: run_pipeline(traces, "convert", what,
                                os.path.join(result_dir, what + ".csv"), wrap=True,
                                state=state)
             for what in ("threads", "vcpus")}
    results = truthcmp.compare_dir(os.path.join(out, "truth"), paths["threads"],
                                   paths["vcpus"])
    print("small workload: %d events, under %s" % (
        truthdata.event_count(out), os.environ.get("VM_BT_WRAPPER") or "no wrapper"))
    return check(results, "[small]")


def main():
    ok = large()
    ok = small() and ok
    if not ok:
        vmtest.fail("the pipeline disagrees with the ground truth")
    print("state-truth: both forms agree with the ground truth")


if __name__ == "__main__":
    main()
