"""Synchronization of long traces whose guest clocks slew, against truth.

vm-workload's `--slew-ppm` makes each guest clock change frequency by up to
that many ppm every few seconds, as NTP does. For each workload below (20 to
30 s of trace, two seeds, vmsync messages or, without any message, the vCPU
entries and exits only):

1. The truth must be exact, which is checked without trusting the
   slewed clock's own inverse: slewing draws from an RNG of its own, so
   the same seed and options without `--slew-ppm` give the same run in true
   time (same host trace, same truth intervals, same guest events), and
   every guest event must map, through timemap-segments.csv, within 2 ns of
   where the unslewed twin's timemap.csv (one exact line, checked by the
   workload tests) puts the same event (each map is within 1 ns of the
   event's integer true time).
2. With `sync-model="linear"` (one line per machine) every guest must be
   measurably worse: a line cannot follow a slewed clock, so its largest
   error must be over the 10 us the piecewise model meets and over five
   times the piecewise model's largest (doc/benchmarks.md shows both).
3. With `sync-model="piecewise"` every guest's median error must be at most
   1 us and its largest at most 10 us.

Too slow under valgrind (about a million events per workload): skipped there.
In sanitized builds (vmtest.small_inputs()) one workload per method, of 8 s:
still several clock segments per guest and the same checks, on the same
code paths; the plain run checks all four at the full 20 to 30 s.
"""

import filecmp
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402
import synccheck  # noqa: E402
import truthdata  # noqa: E402

SLEW_PPM = 50
SLEW_PERIOD = "2000:6000"
PIECEWISE_MEDIAN_NS = 1000
PIECEWISE_MAX_NS = 10000
# How much worse one line per machine must be on these slewed clocks (its
# largest error against the piecewise model's).
LINEAR_WORSE_FACTOR = 5
# Twin maps are each within 1 ns of the integer true time.
TWIN_TOLERANCE_NS = 2
# Files that slewing must leave as they are: what happens in true time.
SAME_FILES = ["host.stub", "truth/machines.csv", "truth/counts.csv", "truth/threads.csv",
              "truth/vcpus.csv", "truth/exits.csv"]

VMSYNC = ["--host-cpus", "2", "--threads", "4", "--guest-activity", "basic",
          "--vmsync-period-ms", "10", "--tcp-period-ms", "20"]
VCPU = ["--host-cpus", "2", "--vmsync-period-ms", "0", "--tcp-period-ms", "0"]
# (name, seed, duration in ms, shape, sync method)
CASES = [
    ("slewed-vmsync-a", 21, 20000, VMSYNC, "vmsync"),
    ("slewed-vmsync-b", 22, 30000, VMSYNC, "vmsync"),
    ("slewed-vcpu-a", 23, 20000, VCPU, "vcpu"),
    ("slewed-vcpu-b", 24, 20000, VCPU, "vcpu"),
]
SMALL_DURATION_MS = 8000
if vmtest.small_inputs():
    # One workload per method: the second seed repeats the same code paths.
    CASES = [(name, seed, SMALL_DURATION_MS, shape, method)
             for name, seed, _, shape, method in CASES if name.endswith("-a")]


def check_twin(name, slewed, twin, duration_ms):
    """Step 1: the slewed truth against the unslewed twin's."""
    for rel in SAME_FILES:
        if not filecmp.cmp(os.path.join(slewed, rel), os.path.join(twin, rel), shallow=False):
            vmtest.fail("%s: %s differs with and without slewing: slewing changed what "
                        "happens in true time" % (name, rel))
    slewed_pieces = synccheck.truth_pieces(slewed)
    twin_pieces = synccheck.truth_pieces(twin)
    min_segments = duration_ms // int(SLEW_PERIOD.split(":")[1])
    for machine in sorted(m for m in slewed_pieces if m != "host"):
        if len(slewed_pieces[machine]) < min_segments:
            vmtest.fail("%s: %s has %d clock segments in %d ms, expected at least %d"
                        % (name, machine, len(slewed_pieces[machine]), duration_ms,
                           min_segments))
        own = synccheck.own_times(os.path.join(slewed, machine + ".stub"))
        twin_own = synccheck.own_times(os.path.join(twin, machine + ".stub"))
        if len(own) != len(twin_own):
            vmtest.fail("%s: %s has %d events slewed, %d not" % (name, machine, len(own),
                                                                 len(twin_own)))
        moved = max(abs(a - b) for a, b in zip(own, twin_own))
        if moved < 1000:
            vmtest.fail("%s: %s: slewing moved no reading by 1 us or more" % (name, machine))
        got = synccheck.true_times(slewed_pieces[machine], own)
        want = synccheck.true_times(twin_pieces[machine], twin_own)
        worst = max(abs((a - c) + (b - d)) for (a, b), (c, d) in zip(got, want))
        print("%s: %s truth: %d segments, readings moved by up to %d ns, events mapped "
              "within %.2f ns of the unslewed truth (%d events)"
              % (name, machine, len(slewed_pieces[machine]), moved, worst, len(own)))
        if worst > TWIN_TOLERANCE_NS:
            vmtest.fail("%s: %s: an event maps %.2f ns away from its unslewed twin"
                        % (name, machine, worst))


def correlate(name, out, traces, params):
    """(errors per guest or None when babeltrace2 fails, its stderr) of one
    correlate run."""
    proc = cc.run(cc.direct_args(list(traces.values()), params, sink="sink.text.pretty",
                                 sink_params=cc.PRETTY_SECONDS),
                  "%s, %s" % (name, params), check=False)
    if proc.returncode != 0:
        return None, proc.stderr
    try:
        guests = sorted(m for m in synccheck.truth_pieces(out) if m != "host")
        return (synccheck.errors(out, synccheck.output_times(proc.stdout, guests), guests),
                proc.stderr)
    except synccheck.SyncCheckError as e:
        vmtest.fail("%s, %s: %s" % (name, params, e))


def report(name, label, errs):
    for machine, err in sorted(errs.items()):
        events, median, worst = synccheck.summary(err)
        print("%s: %s %s: median error %.0f ns, max %.0f ns (%d events)"
              % (name, label, machine, median, worst, events))


def run_case(name, seed, duration_ms, shape, method):
    """Checks one workload: its truth, then correlate's two models on it."""
    args = ["--seed", seed, "--duration-ms", duration_ms] + shape
    twin = truthdata.generate(name + "-twin", args)
    out = truthdata.generate(name, args + ["--slew-ppm", SLEW_PPM,
                                           "--slew-period-ms", SLEW_PERIOD])
    check_twin(name, out, twin, duration_ms)
    # 100 to 200 MB each, and quicker to make again than to keep
    shutil.rmtree(twin, ignore_errors=True)
    traces = truthdata.ctf_traces(out)
    sync = 'sync="%s"' % method
    piecewise, stderr_piecewise = correlate(name, out, traces, sync + ',sync-model="piecewise"')
    if piecewise is None:
        vmtest.fail("%s: correlate failed with sync-model=\"piecewise\":\n%s"
                    % (name, stderr_piecewise[-5000:]))
    linear_params = sync + ',sync-model="linear"'
    linear, stderr = correlate(name, out, traces, linear_params)
    if linear is None:
        vmtest.fail("%s: correlate failed with %s:\n%s" % (name, linear_params, stderr[-5000:]))
    report(name, 'sync-model="linear"', linear)
    for line in stderr.splitlines():
        if " W PLUGIN/FLT.VM.CORRELATE " in line:
            print("%s: linear: %s" % (name, line.split("] ", 1)[-1][:160]))
    report(name, 'sync-model="piecewise"', piecewise)
    for machine, err in sorted(piecewise.items()):
        _, median, worst = synccheck.summary(err)
        if median > PIECEWISE_MEDIAN_NS or worst > PIECEWISE_MAX_NS:
            vmtest.fail("%s: sync-model=\"piecewise\", %s: median error %.0f ns, max %.0f ns "
                        "(at most %d and %d allowed)" % (name, machine, median, worst,
                                                        PIECEWISE_MEDIAN_NS, PIECEWISE_MAX_NS))
        _, _, linear_worst = synccheck.summary(linear[machine])
        if linear_worst <= max(PIECEWISE_MAX_NS, LINEAR_WORSE_FACTOR * worst):
            vmtest.fail("%s, %s: sync-model=\"linear\" is off by %.0f ns at most, not "
                        "measurably worse than the piecewise model's %.0f ns: is the "
                        "workload's clock slewed?" % (name, machine, linear_worst, worst))


def check_options():
    """Bad slewing options exit with 2; a seed gives the same bytes twice."""
    base = os.path.join(vmtest.WORK_DIR, "slewed-options")
    for bad in (["--slew-ppm", "-1"], ["--slew-ppm", "10001"], ["--slew-period-ms", "5:2"],
                ["--slew-period-ms", "0:3"], ["--slew-period-ms", "7"],
                ["--slew-period-ms", "a:b"]):
        proc = subprocess.run([vmtest.WORKLOAD, "--out", base + "-bad"] + bad,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 2 or "slew" not in proc.stderr:
            vmtest.fail("vm-workload %s: exit %d, %r (expected 2 and a message)"
                        % (" ".join(bad), proc.returncode, proc.stderr))
    trees = []
    for copy in ("1", "2"):
        out = base + copy
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([vmtest.WORKLOAD, "--out", out, "--seed", "9", "--duration-ms", "300",
                        "--slew-ppm", "30", "--slew-period-ms", "20:60"], check=True)
        trees.append(out)
    for rel in ["guest1.stub", "guest2.stub", "truth/timemap-segments.csv"]:
        if not filecmp.cmp(os.path.join(trees[0], rel), os.path.join(trees[1], rel),
                           shallow=False):
            vmtest.fail("slewed: one seed gave two different %s" % rel)
    print("slewed: bad options refused, one seed gives the same bytes twice")


def main():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    check_options()
    if vmtest.under_valgrind():
        vmtest.skip("about a million events per workload: too slow under valgrind "
                    "(the plain run checks the results)")
    for case in CASES:
        run_case(*case)


main()
