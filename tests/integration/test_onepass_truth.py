"""filter.vm.correlate read once, on slewed clocks, against truth.

Behind upstreams that cannot seek (a python3-bt2 forwarder per source port,
as src.ctf.lttng-live would be), correlate reads its inputs once with its
default parameters: maps learnt as the traces are read, messages held for
the look-ahead only. On vm-workload traces whose guest clocks change rate
by up to 50 ppm every 1.5-3 s, every guest event's output time must be
within 1 us of the truth (median) and 10 us (max), for two seeds and two
look-aheads, and where the guests have a few KVM entry events too (the
host is still the machine with the most); with the sync pass and sync-model="linear" on the same traces
the errors are reported, and must be larger (one line cannot follow the
clocks). The host's events keep their times.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import synccheck  # noqa: E402
import truthdata  # noqa: E402

try:
    import bt2
except ImportError:
    vmtest.skip("python3-bt2 is not installed")

from noseek import EventTimes, run_correlate  # noqa: E402

MEDIAN_NS = 1000
MAX_NS = 10000
SHAPE = ["--host-cpus", "2", "--threads", "4", "--guest-activity", "basic",
         "--vmsync-period-ms", "10", "--tcp-period-ms", "20",
         "--slew-ppm", "50", "--slew-period-ms", "1500:3000"]
# (name, seed, duration in ms, correlate parameters read once, more generator options)
CASES = [
    ("onepass-slewed-a", 31, 8000, {}, []),
    ("onepass-slewed-b", 32, 6000, {"look-ahead-ns": 5000000}, []),
    # The guests have a few KVM entries too (a nested VM): read once must
    # still take the machine with the most as the host (the smallest name
    # is a guest's).
    ("onepass-guest-kvm", 33, 4000, {}, ["--guest-kvm-entries", 40]),
]


def output_times(traces, params, forwarded):
    """{hostname: [ns]} of correlate's output behind src.ctf.fs, or behind
    one NoSeekForwarder per source port (and the vm:sync events' times)."""
    found = {}
    run_correlate(traces, params, forwarded, EventTimes, found)
    return found


def summaries(name, label, out, times):
    result = {}
    try:
        found = synccheck.summaries(out, times)
    except synccheck.SyncCheckError as e:
        vmtest.fail("%s, %s: %s" % (name, label, e))
    for machine, (events, median, worst) in sorted(found.items()):
        print("%s: %s %s: median error %.0f ns, max %.0f ns (%d events)"
              % (name, label, machine, median, worst, events))
        result[machine] = (median, worst)
    return result


def check_host(name, out, times):
    """The reference's events keep their own times, in order."""
    own = synccheck.own_times(os.path.join(out, "host.stub"))
    got = sorted(times.get("host", []))
    if got != sorted(own):
        vmtest.fail("%s: the host's %d output times are not its %d own times"
                    % (name, len(got), len(own)))


def run_case(name, seed, duration_ms, params, options):
    out = truthdata.generate(name, ["--seed", seed, "--duration-ms", duration_ms] + SHAPE +
                             options)
    traces = list(truthdata.ctf_traces(out).values())
    label = "read once" + ("" if not params else " " + ",".join(
        "%s=%s" % item for item in sorted(params.items())))
    once = output_times(traces, params, forwarded=True)
    check_host(name, out, once)
    once_errors = summaries(name, label, out, once)
    linear_errors = summaries(name, 'sync pass, sync-model="linear"', out,
                              output_times(traces, {"sync-model": "linear"}, forwarded=False))
    for machine, (median, worst) in once_errors.items():
        if median > MEDIAN_NS or worst > MAX_NS:
            vmtest.fail("%s: %s, %s: median error %.0f ns, max %.0f ns (at most %d and %d "
                        "allowed)" % (name, label, machine, median, worst, MEDIAN_NS, MAX_NS))
        if linear_errors[machine][1] <= worst:
            vmtest.fail("%s: %s: one line (max %.0f ns) follows the slewed clock as well as "
                        "the one-pass map (max %.0f ns): the workload does not slew enough "
                        "to test anything" % (name, machine, linear_errors[machine][1], worst))


def main():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    if vmtest.under_valgrind():
        vmtest.skip("hundreds of thousands of events through Python: too slow under "
                    "valgrind (the plain run checks the results)")
    for case in CASES:
        run_case(*case)


main()
