"""filter.vm.correlate read once, with guest clocks far from the host's.

Read once, correlate reads its upstreams in the order of their own clocks
and fixes each map `look-ahead-ns` behind what was read. A guest whose
clock is D behind the host's is then read D further in true time than the
host, and its matches in that stretch only come as the host is read: its
map must be fixed behind the host's reading, in the guest's own clock, or
it follows the line of its last matches over D without them. And a guest
whose whole trace is read before the host's first event must still wait
for its matches rather than take the first two that come.

On vm-workload traces whose guests are seconds to an hour away from the
host (`--guest-offset-ns`; the truth says by how much, and each case
checks that a guest is behind by more than the look-ahead, or than its
trace is long), with vmsync and slewed clocks, with vmsync on a trace
shorter than the offset, and with the vCPU method alone: every guest
event's output time must be within 1 us of the truth (median) and 10 us
(max), behind src.ctf.fs and behind forwarders that cannot seek (the
sync pass cannot take over there), and every vm:sync event must fall
within the traces' time (a map fixed on the wrong clock announced its
segments a minute after the end).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import synccheck  # noqa: E402
import truthdata  # noqa: E402

# A sanitized plugin in this very process: its runtime must come first.
vmtest.sanitizer_runtime_first()

try:
    import bt2
except ImportError:
    vmtest.skip("python3-bt2 is not installed")

from noseek import EventTimes, run_correlate  # noqa: E402

MEDIAN_NS = 1000
MAX_NS = 10000
LOOK_AHEAD_NS = 50000000
BASIC = ["--host-cpus", "2", "--threads", "4", "--guest-activity", "basic"]
# (name, generator options, how far behind a guest must be: "look-ahead" or "trace")
CASES = [
    # Guests 4 s ahead and 6 s behind, clocks slewed: matches every 10 ms.
    ("offsets-slewed", ["--seed", 12, "--duration-ms", 6000, "--guest-offset-ns", 4000000000,
                        "--slew-ppm", 50, "--slew-period-ms", "1500:3000",
                        "--vmsync-period-ms", 10, "--tcp-period-ms", 20] + BASIC, "look-ahead"),
    # An hour ahead and an hour and a half behind, on a trace of 300 ms.
    ("offsets-short", ["--seed", 3, "--duration-ms", 300, "--guest-offset-ns", 3600000000000,
                       "--drift-ppm", 400] + BASIC, "trace"),
    # The vCPU method alone, a minute ahead and 1.5 minutes behind, with the
    # guests' rich activity (the map has segments, announced by vm:sync).
    ("offsets-vcpu", ["--seed", 6, "--duration-ms", 2000, "--guest-offset-ns", 60000000000,
                      "--vmsync-period-ms", 0, "--tcp-period-ms", 0], "look-ahead"),
]


def offsets(out):
    """{guest: own time - true time at its first event, ns}."""
    result = {}
    pieces = synccheck.truth_pieces(out)
    for machine in sorted(m for m in pieces if m != "host"):
        own = synccheck.own_times(os.path.join(out, machine + ".stub"))
        (anchor, fraction), = synccheck.true_times(pieces[machine], own[:1])
        result[machine] = own[0] - (anchor + round(fraction))
    return result


def check_shape(name, out, behind):
    """The case tests what it says: a guest behind by more than `behind`."""
    own = synccheck.own_times(os.path.join(out, "host.stub"))
    span = own[-1] - own[0]
    need = LOOK_AHEAD_NS if behind == "look-ahead" else span
    found = offsets(out)
    print("%s: guest clocks minus the host's: %s (trace of %d ms)" % (
        name, ", ".join("%s %+.3f s" % (m, d / 1e9) for m, d in sorted(found.items())),
        span // 1000000))
    if not any(d < -need for d in found.values()):
        vmtest.fail("%s: no guest is behind the host by more than %d ns: the case "
                    "tests nothing" % (name, need))


def check_run(name, out, traces, forwarded):
    label = "behind forwarders that cannot seek" if forwarded else "behind src.ctf.fs"
    found = {}
    try:
        run_correlate(traces, {}, forwarded, EventTimes, found)
    except bt2._Error as error:
        vmtest.fail("%s, %s: the graph failed:\n%s" % (name, label, error))
    syncs = found.pop("vm:sync", [])
    try:
        summaries = synccheck.summaries(out, found)
    except synccheck.SyncCheckError as e:
        vmtest.fail("%s, %s: %s" % (name, label, e))
    for machine, (events, median, worst) in sorted(summaries.items()):
        print("%s, %s: %s: median error %.0f ns, max %.0f ns (%d events)"
              % (name, label, machine, median, worst, events))
        if median > MEDIAN_NS or worst > MAX_NS:
            vmtest.fail("%s, %s: %s: median error %.0f ns, max %.0f ns (at most %d and %d "
                        "allowed)" % (name, label, machine, median, worst, MEDIAN_NS, MAX_NS))
    first = min(min(times) for times in found.values())
    last = max(max(times) for times in found.values())
    outside = [t for t in syncs if t < first or t > last]
    print("%s, %s: %d vm:sync events, %d outside the events' time"
          % (name, label, len(syncs), len(outside)))
    if outside:
        vmtest.fail("%s, %s: %d vm:sync events outside [%d, %d], the first at %d"
                    % (name, label, len(outside), first, last, outside[0]))


def main():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    if vmtest.under_valgrind():
        vmtest.skip("tens of thousands of events through Python: too slow under valgrind "
                    "(the plain run and the sanitizers check the results)")
    for name, options, behind in CASES:
        out = truthdata.generate(name, options)
        check_shape(name, out, behind)
        traces = list(truthdata.ctf_traces(out).values())
        for forwarded in (True, False):
            check_run(name, out, traces, forwarded)


main()
