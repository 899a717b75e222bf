"""sink.vm.threads on lost events placed as src.ctf.fs places them for
lttng-modules traces (SPEC, Lost events): the discarded-events message comes
before the packet whose counter grew, its range is [end of the packet
before, end of that packet], and the gap runs from the stream's last event
before the range's end to that end.

The trace (source.vmtestlossy.ctflike, times in ns after its clock offset):
  CPU 0: packet [0, 100]: 10 switch 0 -> 100, 50 switch 100 (runnable) -> 200
         4 events lost in [100, 300]
         packet [100, 300]: 150 switch 200 (blocked) -> 100, 180 wakeup 200
         packet [300, 500]: 350 switch 100 (blocked) -> 0, 450 wakeup 100
  CPU 1: packet [0, 260]: 20 switch 0 -> 400, 250 switch 400 (runnable) -> 0
         events lost in [260, 500], no count
         packet [260, 500]: 270 switch 0 -> 400
So the gaps are [180, 300] on CPU 0 (thread 100 current) and [270, 500] on
CPU 1 (thread 400 current); the input ends at its last event, 450."""

import os

import vmtest
import threads_common as tc

LOSSY_PLUGIN_DIR = os.path.join(vmtest.SOURCE_DIR, "tests", "integration", "threads-lossy")
T0 = 1600000000 * 10**9


def row(tid, state, begin, end):
    return "ctflike,%d,t%d,%s,%d,%d,,,," % (tid, tid, state, T0 + begin, T0 + end)


EXPECTED = [
    row(100, "running", 10, 50),
    row(100, "runnable", 50, 150),
    row(100, "running", 150, 180),
    # its CPU's gap: unknown until the sched_switch that names it
    row(100, "unknown", 180, 350),
    row(100, "blocked", 350, 450),
    row(200, "running", 50, 150),
    row(200, "blocked", 150, 180),
    # woken before the gap, not on the CPU that lost events: still known
    row(200, "runnable", 180, 450),
    row(400, "running", 20, 250),
    row(400, "runnable", 250, 270),
    # nothing after CPU 1's gap decides it
    row(400, "unknown", 270, 450),
]


def run(fmt):
    return vmtest.babeltrace2(
        ["run", "-c", "src:source.vmtestlossy.ctflike", "-c", "mux:filter.utils.muxer",
         "-c", "sink:sink.vm.threads", "-p", 'format="%s"' % fmt,
         "--connect", "src:mux", "--connect", "mux:sink"],
        plugin_paths=[vmtest.PLUGIN_DIR, LOSSY_PLUGIN_DIR])


proc = run("csv")
rows = proc.stdout.splitlines()
if rows[0] != ",".join(tc.THREAD_KEYS) or sorted(rows[1:]) != sorted(EXPECTED):
    vmtest.fail("csv of the ctf-like lossy trace:\n%s\nexpected (any order):\n%s" %
                (proc.stdout, "\n".join(EXPECTED)))

warnings = tc.warnings_of(proc.stderr)
lost = [w for w in warnings if "discarded" in w]
if len(lost) != 2:
    vmtest.fail("expecting one discarded-events warning per stream:\n" + proc.stderr)
cpu0 = [w for w in lost if "CPU 0" in w]
cpu1 = [w for w in lost if "CPU 1" in w]
if not cpu0 or "4 events" not in cpu0[0] or "`ctflike`" not in cpu0[0]:
    vmtest.fail("the CPU 0 warning must name the machine and the count:\n" + proc.stderr)
if not cpu1 or "unknown number of events" not in cpu1[0]:
    vmtest.fail("the CPU 1 warning must say the count is unknown:\n" + proc.stderr)
if "%d to %d" % (T0 + 180, T0 + 300) not in cpu0[0]:
    vmtest.fail("the CPU 0 warning must give the located gap:\n" + cpu0[0])
if [w for w in warnings if w not in lost and "no host" not in w]:
    vmtest.fail("unexpected warnings:\n" + proc.stderr)

text = run("text").stdout
lines = text.splitlines()
header = [l for l in lines if l.strip().startswith("machine") and "tid" in l]
if not header or "unknown" not in header[0].split():
    vmtest.fail("the threads table has no unknown column:\n" + text)
losses = lines[lines.index(next(l for l in lines if l.startswith("Lost events"))):]
ctf_row = [l.split() for l in losses if l.strip().startswith("ctflike")]
# 4 counted + one message without count; gaps of 120 and 230 ns
if not ctf_row or ctf_row[0] != ["ctflike", "4", "+", "unknown", "count", "-", "2",
                                 "350", "ns"]:
    vmtest.fail("losses table of the text summary:\n" + text)
print("src.ctf.fs placement: gaps at the ends of their packets, csv rows exact")
