"""Sync messages that all go one way: no line, so another method or a warning.

Matches in one direction only (quality `incomplete`) bound a guest's clock
on one side and fit no line. On a vm-workload trace whose host -> guest
vmsync messages are taken out of both stubs (only guest -> host remain):

- with `sync="auto"` (read once, and the sync pass of
  `sync-model="linear"`), the vCPU method synchronizes the guest (the host
  traced its kvm events): no warning, and every guest event within 1 us of
  the truth (median) and 10 us (max);
- with `sync="vmsync"`, the guest keeps its own clock and correlate warns,
  naming it and the quality (it used to show only in the INFO summary,
  which even suggested the identity as `transforms`);

and the same trace with both directions warns of nothing.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402
import synccheck  # noqa: E402
import truthdata  # noqa: E402

MEDIAN_NS = 1000
MAX_NS = 10000
WARNING = "all go one way (vm_sync_quality `incomplete`)"
OPTIONS = ["--seed", 9, "--duration-ms", 300, "--guests", 1, "--tcp-period-ms", 0,
           "--host-cpus", 2, "--threads", 3, "--guest-activity", "basic"]


def one_way_workload(out):
    """A copy of workload OUT (truth included) whose stubs lack their host ->
    guest vmsync events; returns it and its CTF traces."""
    work = os.path.join(vmtest.WORK_DIR, "sync-one-way")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(out, "truth"), os.path.join(work, "truth"))
    traces = []
    for machine in truthdata.machines(out):
        name = machine["machine"]
        with open(os.path.join(out, name + ".stub")) as f:
            lines = [line for line in f if " vmsync_hg_" not in line]
        stub = os.path.join(work, name + ".stub")
        with open(stub, "w") as f:
            f.write("".join(lines))
        traces.append(vmtest.stub_to_ctf(stub, os.path.join(work, "ctf", name)))
    return work, traces


def run(traces, params):
    """(correlate's warning lines, its sink.text.pretty output)."""
    proc = vmtest.babeltrace2(cc.direct_args(traces, params, sink="sink.text.pretty",
                                             sink_params=cc.PRETTY_SECONDS), check=False)
    if proc.returncode != 0:
        vmtest.fail("correlate %s failed:\n%s" % (params, proc.stderr[-5000:]))
    return [line for line in proc.stderr.splitlines() if " W " in line], proc.stdout


def check_accuracy(work, params, text):
    errors = synccheck.errors(work, synccheck.output_times(text, ["guest1"]), ["guest1"])
    events, median, worst = synccheck.summary(errors["guest1"])
    print("one way, %s: guest1 median error %.0f ns, max %.0f ns (%d events)"
          % (params or "defaults", median, worst, events))
    if median > MEDIAN_NS or worst > MAX_NS:
        vmtest.fail("one way, %s: guest1 median error %.0f ns, max %.0f ns (at most %d "
                    "and %d allowed)" % (params or "defaults", median, worst, MEDIAN_NS,
                                         MAX_NS))


def main():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    out = truthdata.generate("sync-one-way-source", OPTIONS)
    both = list(truthdata.ctf_traces(out).values())
    work, one_way = one_way_workload(out)
    for params in ("", 'sync-model="linear"'):
        warnings, text = run(one_way, params)
        if any(WARNING in w for w in warnings):
            vmtest.fail("one way, %s: warned although the vCPU method can synchronize "
                        "the guest:\n%s" % (params or "defaults", "\n".join(warnings)))
        check_accuracy(work, params, text)
    for params in ('sync="vmsync"', 'sync="vmsync",sync-model="linear"'):
        found = [w for w in run(one_way, params)[0] if WARNING in w]
        if len(found) != 1 or "`guest1`" not in found[0]:
            vmtest.fail("one way, %s: expected one warning naming guest1 and "
                        "`incomplete`, got %r" % (params, found))
        print("one way, %s: %s" % (params, found[0].split("] ", 1)[-1][:120]))
    for params in ("", 'sync="vmsync"', 'sync-model="linear"'):
        if any(WARNING in w for w in run(both, params)[0]):
            vmtest.fail("both ways, %s: warned of one-way matches" % (params or "defaults"))
    print("both ways: no such warning")


main()
