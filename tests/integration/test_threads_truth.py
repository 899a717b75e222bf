"""sink.vm.threads against the ground truth of vm-workload.

The simulator writes a host and two guests as stub traces together with the
true state intervals of every guest thread and vCPU (SPEC's CSV schemas,
host time). Behind filter.vm.correlate and filter.vm.state, the sink must
report the same threads, and at the middle of every true interval longer
than twice the tolerance, the same state, vCPU, exit reason and name; the
same for vCPU modes, host thread, host CPU and reason. Exit statistics
come from host events alone and must be exactly the true ones. The tolerance
covers the clock synchronization error: a guest event that happens a few
nanoseconds after a host event may be mapped a few nanoseconds before it.
"""

import bisect
import csv
import os
import shutil
import subprocess

import vmtest
import threads_common as tc

SEED = 3
DURATION_MS = 30
TOLERANCE_NS = 1000


def generate():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    out = os.path.join(vmtest.WORK_DIR, "threads-truth")
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([vmtest.WORKLOAD, "--out", out, "--seed", str(SEED),
                    "--duration-ms", str(DURATION_MS)], check=True,
                   stdout=subprocess.DEVNULL)
    traces = [vmtest.stub_to_ctf(os.path.join(out, name),
                                 os.path.join(out, name[:-5] + "-ctf"))
              for name in sorted(os.listdir(out)) if name.endswith(".stub")]
    truth = {}
    for what in ("threads", "vcpus", "exits"):
        with open(os.path.join(out, "truth", what + ".csv")) as f:
            truth[what] = list(csv.DictReader(f))
    return traces, truth


THREAD_ID = ("machine", "tid")
THREAD_VALUE = ("state", "vcpu", "reason", "comm")
VCPU_ID = ("machine", "vcpu")
VCPU_VALUE = ("mode", "host_tid", "pcpu", "reason")


def by_track(rows, ids):
    tracks = {}
    for row in rows:
        tracks.setdefault(tuple(row[k] for k in ids), []).append(row)
    for intervals in tracks.values():
        intervals.sort(key=lambda r: int(r["begin_ns"]))
    return tracks


def value_at(intervals, begins, ts, fields):
    i = bisect.bisect_right(begins, ts) - 1
    if i < 0 or int(intervals[i]["end_ns"]) <= ts:
        return None
    return tuple(intervals[i][k] for k in fields)


def compare_vcpus(got, truth):
    if set(got) != set(truth):
        vmtest.fail("vCPUs reported %s, true vCPUs %s" % (sorted(got), sorted(truth)))
    checked = 0
    for key, true_rows in truth.items():
        rows = got[key]
        begins = [int(r["begin_ns"]) for r in rows]
        for row in true_rows:
            begin, end = int(row["begin_ns"]), int(row["end_ns"])
            if end - begin <= 2 * TOLERANCE_NS:
                continue
            middle = (begin + end) // 2
            expected = tuple(row[k] for k in VCPU_VALUE)
            found = value_at(rows, begins, middle, VCPU_VALUE)
            if found != expected:
                vmtest.fail("vCPU %s at %d: %s, truth %s" % (key, middle, found, expected))
            checked += 1
    return checked


def compare(got, truth):
    if set(got) != set(truth):
        vmtest.fail("threads reported %s, true threads %s" % (sorted(got), sorted(truth)))
    checked = 0
    for key, true_rows in truth.items():
        rows = got[key]
        begins = [int(r["begin_ns"]) for r in rows]
        for edge, true_edge in ((begins[0], int(true_rows[0]["begin_ns"])),
                                (int(rows[-1]["end_ns"]), int(true_rows[-1]["end_ns"]))):
            if abs(edge - true_edge) > TOLERANCE_NS:
                vmtest.fail("thread %s spans to %d, truth %d" % (key, edge, true_edge))
        for row in true_rows:
            begin, end = int(row["begin_ns"]), int(row["end_ns"])
            if end - begin <= 2 * TOLERANCE_NS:
                continue
            middle = (begin + end) // 2
            expected = tuple(row[k] for k in THREAD_VALUE)
            found = value_at(rows, begins, middle, THREAD_VALUE)
            if found != expected:
                vmtest.fail("thread %s at %d: %s, truth %s (true interval [%d, %d))" % (
                    key, middle, found, expected, begin, end))
            checked += 1
    return checked


def sorted_items(row):
    return sorted(row.items())


def main():
    tc.require_component("filter.vm.correlate")
    tc.require_component("filter.vm.state")
    traces, truth = generate()
    outputs = {}
    for what in ("threads", "vcpus", "exits"):
        proc = vmtest.babeltrace2(traces + [
            "-c", "filter.vm.correlate", "-c", "filter.vm.state", "-c", "sink.vm.threads",
            "-p", 'format="csv",what="%s"' % what])
        outputs[what] = tc.parse_csv(proc.stdout, what)
    tc.check_threads_tile(outputs["threads"])
    threads = compare(by_track(outputs["threads"], THREAD_ID),
                      by_track(truth["threads"], THREAD_ID))
    vcpus = compare_vcpus(by_track(outputs["vcpus"], VCPU_ID),
                          by_track(truth["vcpus"], VCPU_ID))
    if sorted(map(sorted_items, outputs["exits"])) != sorted(map(sorted_items,
                                                                 truth["exits"])):
        vmtest.fail("exits are\n%s\nnot\n%s" % (outputs["exits"], truth["exits"]))
    if threads < 500 or vcpus < 500 or len(truth["exits"]) < 10:
        vmtest.fail("only %d thread and %d vCPU intervals checked: the workload is too "
                    "small" % (threads, vcpus))
    print("%d true thread intervals, %d vCPU intervals and %d exit rows match" % (
        threads, vcpus, len(truth["exits"])))


main()
