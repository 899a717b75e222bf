"""sink.vm.threads on a trace whose tracer discarded events (twice): one
warning that names the machine, and the analysis goes on."""

import os

import vmtest
import threads_common as tc

LOSSY_PLUGIN_DIR = os.path.join(vmtest.SOURCE_DIR, "tests", "integration", "threads-lossy")

EXPECTED = [
    "lossy,100,t100,running,1600000000000000010,1600000000000000040,,",
    "lossy,100,t100,blocked,1600000000000000040,1600000000000000050,,",
    "lossy,200,t200,running,1600000000000000040,1600000000000000050,,",
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
if len(lost) != 1 or "`lossy`" not in lost[0]:
    vmtest.fail("expecting one discarded-events warning naming `lossy`:\n" + proc.stderr)
if len(warnings) != 2 or not [w for w in warnings if "no host" in w]:
    vmtest.fail("expecting the discarded-events and no-host warnings only:\n" +
                proc.stderr)
print("discarded events: one warning, states still written")
