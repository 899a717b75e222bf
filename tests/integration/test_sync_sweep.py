#!/usr/bin/python3
"""Synchronization from stock KVM events over a sweep of shapes nobody tuned for.

Fifty shapes drawn from a fixed pseudo-random sequence (so that nobody
picks them): 1 to 4 guests of 1 to 3 vCPUs sharing 2 to 4 host CPUs (often
oversubscribed), guest clocks from 0.8 ms to 5 s away from the host's (both
signs), drift scales of 20 to 100 ppm, 2 to 10 threads per guest, 0.2 to
0.4 s of trace, both KVM event layouts, a quarter with lost events; no vmsync, no TCP: only the
vCPU method can place the guests. Each shape runs with both models
(`sync-model` piecewise, read once, and linear).

For every guest, against vm-workload's exact clocks (synccheck.py):

- synchronized: median |error| <= MEDIAN_NS and largest <= MAX_NS; or
- refused: correlate warns that this machine has no synchronization and
  why, and leaves it on its own clock.

Never a guest placed wrong without a word ("confidently wrong"): before
correlate refused maps with windows its matches do not pin down, guests
were 50 us to 340 ms off, reported accurate.

Then SHORT shapes of the same sequence cut to 0.12 s (those of the first
40 where a guest was 1-7 us off, reported accurate: there a 1-vCPU
guest's slope is known only to tens of ppm), until correlate bounded what
each map may be off by from its constraints alone and refused the maps
whose bound exceeds the promise (doc/sync.md, "Error bound"). Shape 78
of the full sequence (3 guests of 1 vCPU on 2 host CPUs) had a guest
5.2 us off at its start: run VM_SWEEP_SHAPES=80.

VM_SWEEP_SHAPES=N runs N shapes (by hand, for a wider sweep). Smaller
under sanitizers; not under valgrind (the same code runs there in the
smaller vCPU tests).
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btlog  # noqa: E402
import synccheck  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

MEDIAN_NS = 1000
MAX_NS = 5000
STOCK = ["--vmsync-period-ms", 0, "--tcp-period-ms", 0]


SHORT = [12, 25, 28, 32, 39]
SHORT_MS = 120


def shape(k, duration_ms=None):
    """Generator arguments of shape K (a fixed sequence), cut to
    DURATION_MS when given."""
    r = random.Random("sync-sweep-%d" % k)
    args = ["--seed", 100 + k,
            "--guests", r.choice([1, 2, 3, 3, 4, 4]),
            "--vcpus", r.choice([1, 1, 2, 2, 3]),
            "--host-cpus", r.choice([2, 2, 3, 4]),
            "--guest-offset-ns", r.choice([800000, 3000000, 48000000, 900000000,
                                           5000000000, -2000000000]),
            "--drift-ppm", r.choice([20, 40, 100]),
            "--threads", r.choice([2, 4, 6, 10]),
            "--duration-ms", r.choice([200, 300, 400]),
            "--kvm-layout", r.choice(["modern", "classic"])] + STOCK
    if r.random() < 0.25:
        args += ["--loss-rate", r.choice([3, 10]), "--loss-ms", "0.1:1"]
    if duration_ms:
        args[args.index("--duration-ms") + 1] = duration_ms
    return args


def refused(stderr, machine):
    """Whether correlate said that MACHINE is left unsynchronized."""
    return any("Machine `%s` has no synchronization" % machine in w
               for w in btlog.warnings(stderr))


def check(k, model, problems, duration_ms=None):
    args = shape(k, duration_ms)
    out = truthdata.generate("sync-sweep-%d%s" % (k, "-%dms" % duration_ms if duration_ms
                                                    else ""), args)
    traces = truthdata.ctf_traces(out)
    params = {} if model == "piecewise" else {"sync-model": model}
    proc = vmtest.babeltrace2(truthdata.run_form(
        traces, [("filter.vm.correlate", params)], "sink.text.pretty",
        {"clock-seconds": ("yes",)}))
    name = "shape %d (%s), %s" % (k, " ".join(str(a) for a in args), model)
    summaries = synccheck.summaries(out, synccheck.output_times(proc.stdout))
    refusals = 0
    for machine, (events, median, largest) in summaries.items():
        if median <= MEDIAN_NS and largest <= MAX_NS:
            continue
        if refused(proc.stderr, machine):
            refusals += 1
            continue
        problems.append("%s: %s is %.0f ns off (median; largest %.0f ns over %d events) "
                        "with no warning" % (name, machine, median, largest, events))
    return len(summaries), refusals


def main():
    vmtest.skip_under_valgrind("fifty shapes; the vCPU method runs there in smaller tests")
    count = int(os.environ.get("VM_SWEEP_SHAPES", "12" if vmtest.small_inputs() else "50"))
    problems = []
    guests = refusals = 0
    runs = [(k, None) for k in range(count)] + [(k, SHORT_MS) for k in SHORT]
    for k, duration_ms in runs:
        for model in ("piecewise", "linear"):
            g, r = check(k, model, problems, duration_ms)
            guests += g
            refusals += r
    if problems:
        vmtest.fail("confidently wrong:\n" + "\n".join(problems))
    print("%d shapes and %d short ones, both models: %d guest runs, %d refused with a warning, the others "
          "within %d ns median / %d ns largest" % (count, len(SHORT), guests, refusals, MEDIAN_NS, MAX_NS))


if __name__ == "__main__":
    main()
