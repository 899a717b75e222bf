#!/usr/bin/python3
"""The whole pipeline on a workload whose guest clocks slew, against truth.

vm-workload --slew-ppm makes each guest clock's rate step every 1.5-3 s, as
NTP does. Through src.ctf.fs -> filter.vm.correlate -> filter.vm.state ->
sink.vm.threads, with the default sync-model="piecewise", guest thread
states and vCPU modes must agree with the truth for at least 99.99% of the
time and exit statistics (host events alone) must be exact.
sync-model="linear" on the same traces is run too and its agreement only
reported: one line per machine is the model that cannot follow the clocks.

Skipped under valgrind; in sanitized builds (vmtest.small_inputs()) the
workload lasts 5 s instead of 8 (still several clock rate steps), with the
same checks; the plain run checks the full 8 s.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthcmp  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

ARGS = ["--seed", 33, "--duration-ms", 8000, "--guests", 2, "--vcpus", 2, "--host-cpus", 3,
        "--vmsync-period-ms", 10, "--tcp-period-ms", 0, "--slew-ppm", 50,
        "--slew-period-ms", "1500:3000"]
if vmtest.small_inputs():
    ARGS[ARGS.index("--duration-ms") + 1] = 5000
MIN_PERCENT = 99.99
WHATS = ("threads", "vcpus", "exits")


def run(traces, correlate, what, path):
    filters = [("filter.vm.correlate", correlate), ("filter.vm.state", {})]
    args = truthdata.run_form(traces, filters, "sink.vm.threads",
                              {"format": "csv", "what": what, "path": path})
    if os.path.exists(path):
        os.remove(path)
    proc = vmtest.babeltrace2(args, check=False, wrap=False)
    if proc.returncode != 0 or not os.path.exists(path):
        vmtest.fail("the pipeline failed (%d) on what=%s:\n%s" % (
            proc.returncode, what, proc.stderr[-5000:]))


def compare(out, traces, model):
    truth_dir = os.path.join(out, "truth")
    result_dir = os.path.join(out, "results-" + model)
    os.makedirs(result_dir, exist_ok=True)
    files = {}
    for what in WHATS:
        files[what] = os.path.join(result_dir, what + ".csv")
        run(traces, {"sync": "vmsync", "sync-model": model}, what, files[what])
    threads = truthcmp.compare_threads(os.path.join(truth_dir, "threads.csv"),
                                       files["threads"])
    vcpus = truthcmp.compare_vcpus(os.path.join(truth_dir, "vcpus.csv"), files["vcpus"])
    exits = truthcmp.compare_exits(os.path.join(truth_dir, "exits.csv"), files["exits"])
    for result in (threads, vcpus):
        print("[%s] %s" % (model, result.summary()))
    print("[%s] %s" % (model, exits.summary()))
    return threads, vcpus, exits


def main():
    if vmtest.under_valgrind():
        vmtest.skip("an 8 s workload: the plain run checks it")
    out = truthdata.generate("threads-truth-slewed", ARGS)
    traces = truthdata.ctf_traces(out)
    compare(out, traces, "linear")
    threads, vcpus, exits = compare(out, traces, "piecewise")
    problems = []
    for result in (threads, vcpus):
        if result.percent < MIN_PERCENT:
            problems.append("%s agreement %.4f%% < %.2f%%" % (result.what, result.percent,
                                                            MIN_PERCENT))
        if result.missing_keys or result.extra_keys:
            problems.append("%s: keys differ from the truth" % result.what)
    if not exits.ok:
        problems.append("exit statistics differ from the truth")
    if problems:
        vmtest.fail("slewed clocks, sync-model=\"piecewise\":\n  " + "\n  ".join(problems))
    print("slewed clocks: the pipeline agrees with the truth")


main()
