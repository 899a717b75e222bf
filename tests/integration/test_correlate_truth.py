"""filter.vm.correlate against the ground truth of vm-workload.

A host and two guests whose clocks are milliseconds off and drift by tens
of ppm exchange vmsync hypercalls and TCP packets. Every guest event,
mapped by correlate, must land within 1 us (median) of its true host time
and never further than the smallest one-way message latency (the hull's
bound); with sync="none" (the stock alignment by realtime offsets) the
error is printed for comparison. Both graph forms print the same
sink.text.details output on this many-stream trace set too.

Under valgrind and in sanitized builds (vmtest.small_inputs()) the workload
has a quarter of the events: the same shape and the same checks, for
memory errors; the plain run checks the accuracy at full size.
"""

import csv
import decimal
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402

decimal.getcontext().prec = 60
EVENTS = 15000 if vmtest.small_inputs() else 60000
LATENCY_NS = 400
SEED = 7


def generate():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    out = os.path.join(vmtest.WORK_DIR, "correlate-truth")
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([vmtest.WORKLOAD, "--out", out, "--seed", str(SEED),
                    "--events", str(EVENTS), "--latency-ns", str(LATENCY_NS)],
                   check=True, stdout=subprocess.DEVNULL)
    traces = {}
    for name in sorted(os.listdir(out)):
        if name.endswith(".stub"):
            traces[name[:-5]] = vmtest.stub_to_ctf(os.path.join(out, name),
                                                   os.path.join(out, name[:-5] + "-ctf"))
    with open(os.path.join(out, "truth", "timemap.csv")) as f:
        timemap = {row["machine"]: (decimal.Decimal(row["slope"]),
                                    decimal.Decimal(row["offset_ns"]))
                   for row in csv.DictReader(f)}
    return traces, timemap


def own_times(trace):
    """Every event time of one trace on its own clock, sorted."""
    out = vmtest.babeltrace2([trace, "--component=sink.text.pretty",
                              "--params=" + cc.PRETTY_SECONDS], wrap=False).stdout
    return sorted(ns for ns, _, _ in cc.pretty_events(out, trace))


def errors(traces, timemap, params):
    """{guest: sorted |mapped - truth|} for one correlate run."""
    out = cc.run(cc.direct_args(list(traces.values()), params,
                                sink="sink.text.pretty",
                                sink_params=cc.PRETTY_SECONDS),
                 "workload, " + params, check=False).stdout
    mapped = {}
    for ns, host, _ in cc.pretty_events(out, "workload, " + params):
        mapped.setdefault(host, []).append(ns)
    result = {}
    for machine, (slope, offset) in timemap.items():
        if machine == "host":
            continue
        raw = own_times(traces[machine])
        got = sorted(mapped.get(machine, []))
        if len(got) != len(raw):
            vmtest.fail("%s: %d events out, %d in" % (machine, len(got), len(raw)))
        result[machine] = sorted(abs(decimal.Decimal(g) - (slope * t + offset))
                                 for g, t in zip(got, raw))
    return result


def check_forms(traces):
    """Run form and convert form, byte for byte, on many streams and ties."""
    paths = list(traces.values())
    direct = cc.run(cc.direct_args(paths), "workload, direct form").stdout
    convert = cc.run(cc.convert_args(paths), "workload, convert form").stdout
    if direct != convert:
        vmtest.fail("workload: the two graph forms print different details")
    print("workload: both graph forms identical (%d lines)" % direct.count("\n"))


def main():
    traces, timemap = generate()
    check_forms(traces)
    synced = errors(traces, timemap, "")
    stock = errors(traces, timemap, 'sync="none"')
    for machine in sorted(synced):
        err = synced[machine]
        median, worst = err[len(err) // 2], err[-1]
        stock_err = stock[machine]
        print("%s: correlate median %.0f ns, max %.0f ns; stock alignment median "
              "%.0f ns, max %.0f ns (%d events)"
              % (machine, median, worst, stock_err[len(stock_err) // 2],
                 stock_err[-1], len(err)))
        if median > 1000:
            vmtest.fail("%s: median error %.0f ns > 1 us" % (machine, median))
        if worst > LATENCY_NS:
            vmtest.fail("%s: an event is %.0f ns from its true time, more than "
                        "the smallest one-way latency (%d ns)" % (machine, worst, LATENCY_NS))


main()
