"""Sync messages that all go one way: a warning, not a silent identity.

Matches in one direction only (quality `incomplete`) bound a guest's clock
on one side and fit no line: the guest keeps its own clock. That used to
show only in the INFO summary (which even suggested the identity as
`transforms`). On a vm-workload trace whose host -> guest vmsync messages
are taken out of both stubs (only guest -> host remain), correlate must
warn, naming the machine and the quality, read once (the default) and
with the sync pass (`sync-model="linear"`); and the same trace with both
directions must not warn so.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402
import truthdata  # noqa: E402

WARNING = "all go one way (vm_sync_quality `incomplete`)"
OPTIONS = ["--seed", 9, "--duration-ms", 300, "--guests", 1, "--tcp-period-ms", 0,
           "--host-cpus", 2, "--threads", 3, "--guest-activity", "basic"]


def one_way_traces(out):
    """CTF traces of OUT's stubs without their host -> guest vmsync events."""
    work = os.path.join(vmtest.WORK_DIR, "sync-one-way")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    traces = []
    for machine in truthdata.machines(out):
        name = machine["machine"]
        with open(os.path.join(out, name + ".stub")) as f:
            lines = [line for line in f if " vmsync_hg_" not in line]
        stub = os.path.join(work, name + ".stub")
        with open(stub, "w") as f:
            f.write("".join(lines))
        traces.append(vmtest.stub_to_ctf(stub, os.path.join(work, "ctf", name)))
    return traces


def warnings_of(traces, params):
    """correlate's warning lines (read once by default, behind src.ctf.fs)."""
    proc = vmtest.babeltrace2(cc.direct_args(traces, params, sink="sink.utils.dummy"),
                              check=False)
    if proc.returncode != 0:
        vmtest.fail("correlate %s failed:\n%s" % (params, proc.stderr[-5000:]))
    return [line for line in proc.stderr.splitlines() if " W " in line]


def main():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    out = truthdata.generate("sync-one-way-source", OPTIONS)
    both = list(truthdata.ctf_traces(out).values())
    one_way = one_way_traces(out)
    for params in ("", 'sync-model="linear"', 'sync="vmsync"'):
        found = [w for w in warnings_of(one_way, params) if WARNING in w]
        if len(found) != 1 or "`guest1`" not in found[0]:
            vmtest.fail("one-way vmsync, %s: expected one warning naming guest1 and "
                        "`incomplete`, got %r" % (params or "defaults", found))
        print("one way, %s: %s" % (params or "defaults", found[0].split("] ", 1)[-1][:120]))
        if any(WARNING in w for w in warnings_of(both, params)):
            vmtest.fail("both ways, %s: warned of one-way matches" % (params or "defaults"))
    print("both ways: no such warning")


main()
