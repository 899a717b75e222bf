"""filter.vm.state, or sink.vm.threads without it, on a host and a guest
that did not go through filter.vm.correlate warns once that their clocks are
not synchronized and names the fix; no such warning after correlate, nor on
one machine.

Without correlate, babeltrace2's muxer aligns the traces by their realtime
offsets only: the threads' states then disagree with the truth about half
of the time, and nothing said so."""

import vmtest
import threads_common as tc

WORDS = "their clocks are not synchronized"
FIX = "Add `-c filter.vm.correlate` before"


def count(traces, chain):
    proc = vmtest.babeltrace2(traces + chain + ["-c", "sink.vm.threads",
                                                "-p", 'format="csv"'])
    found = [w for w in tc.warnings_of(proc.stderr) if WORDS in w]
    if any(FIX not in " ".join(w.split()) for w in found):
        vmtest.fail("the warning does not name the fix: %r" % found)
    return len(found)


tc.require_component("filter.vm.state")
stub = vmtest.scenario("halted-vcpu")
both = [stub["host"], stub["guest"]]
for chain, expected in (
        (["-c", "filter.vm.state"], 1),
        ([], 1),
        (["-c", "filter.vm.correlate", "-c", "filter.vm.state"], 0),
        (["-c", "filter.vm.correlate"], 0)):
    got = count(both, chain)
    if got != expected:
        vmtest.fail("host + guest, %s: %d warnings, %d expected" % (
            " ".join(chain) or "sink alone", got, expected))
for alone in (stub["host"], stub["guest"]):
    if count([alone], ["-c", "filter.vm.state"]) != 0:
        vmtest.fail("warned on one machine (%s)" % alone)
print("one warning without filter.vm.correlate, none otherwise")
