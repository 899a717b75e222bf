"""sink.vm.threads on a trace whose tracer discarded events (twice), the
discarded-events messages placed between events of a packet: the states are
not carried across the losses (SPEC, Lost events) and one warning names the
machine, the CPU and the count.

The source (source.vmtestlossy.lossy, one CPU, ns after its clock offset):
10 switch 0 -> 100; 3 events lost in [20, 30]; 40 switch 100 (blocked) ->
200; 2 events lost in [40, 45]; 50 switch 200 -> 0. The stream recorded
nothing in [20, 30], so that gap is [20, 30]: thread 100 is `unknown` from
20 until the switch at 40 names it. The second range begins at the event at
40, the stream's last before 45: thread 200, current since 40, is `unknown`
from there (its `running` of no length is no interval) until the input ends
at 50, the time of the switch that names it."""

import os

import vmtest
import threads_common as tc

LOSSY_PLUGIN_DIR = os.path.join(vmtest.SOURCE_DIR, "tests", "integration", "threads-lossy")

EXPECTED = [
    "lossy,100,t100,running,1600000000000000010,1600000000000000020,,,,",
    "lossy,100,t100,unknown,1600000000000000020,1600000000000000040,,,,",
    "lossy,100,t100,blocked,1600000000000000040,1600000000000000050,,,,",
    "lossy,200,t200,unknown,1600000000000000040,1600000000000000050,,,,",
]

proc = vmtest.babeltrace2(
    ["run", "-c", "src:source.vmtestlossy.lossy", "-c", "sink:sink.vm.threads",
     "-p", 'format="csv"', "--connect", "src:sink"],
    plugin_paths=[vmtest.PLUGIN_DIR, LOSSY_PLUGIN_DIR])
rows = proc.stdout.splitlines()
if rows[0] != ",".join(tc.THREAD_KEYS) or sorted(rows[1:]) != sorted(EXPECTED):
    vmtest.fail("output of the lossy trace:\n" + proc.stdout)
warnings = tc.warnings_of(proc.stderr)
lost = [w for w in warnings if "discarded" in w]
if len(lost) != 1 or "`lossy`, CPU 0" not in lost[0] or "3 events" not in lost[0]:
    vmtest.fail("expecting one discarded-events warning naming `lossy`, CPU 0 and "
                "the first count:\n" + proc.stderr)
if len(warnings) != 2 or not [w for w in warnings if "no host" in w]:
    vmtest.fail("expecting the discarded-events and no-host warnings only:\n" +
                proc.stderr)

# The same messages without clock snapshots: each range is [time of the
# stream's message before it, time reached], here [10, 10] and [40, 40]
# (doc/lost-events.md), so the gaps start at the events before them.
TIMELESS = [
    "lossy,100,t100,unknown,1600000000000000010,1600000000000000040,,,,",
    "lossy,100,t100,blocked,1600000000000000040,1600000000000000050,,,,",
    "lossy,200,t200,unknown,1600000000000000040,1600000000000000050,,,,",
]
proc = vmtest.babeltrace2(
    ["run", "-c", "src:source.vmtestlossy.lossy", "-p", "timeless=true",
     "-c", "sink:sink.vm.threads", "-p", 'format="csv"', "--connect", "src:sink"],
    plugin_paths=[vmtest.PLUGIN_DIR, LOSSY_PLUGIN_DIR])
if sorted(proc.stdout.splitlines()[1:]) != sorted(TIMELESS):
    vmtest.fail("output of the lossy trace without discarded times:\n" + proc.stdout)
print("discarded events: one warning, states unknown across the losses")
