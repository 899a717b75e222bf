"""Issue 8, point 8: sink.vm.threads without filter.vm.state on a trace with
a host warns once that the vCPU modes need filter.vm.state; no such warning
with filter.vm.state before it, nor when there is no host."""

import vmtest
import threads_common as tc

WORDS = "the vCPU modes need filter.vm.state"


def count(traces, chain):
    proc = vmtest.babeltrace2(traces + chain + ["-c", "sink.vm.threads",
                                                "-p", 'format="csv"'])
    return sum(WORDS in w for w in tc.warnings_of(proc.stderr))


tc.require_component("filter.vm.state")
stub = vmtest.scenario("halted-vcpu")
both = [stub["host"], stub["guest"]]
if count(both, []) != 1:
    vmtest.fail("no (or more than one) warning without filter.vm.state")
if count(both, ["-c", "filter.vm.state"]) != 0:
    vmtest.fail("warned although filter.vm.state is there")
if count(both, ["-c", "filter.vm.correlate", "-c", "filter.vm.state"]) != 0:
    vmtest.fail("warned although filter.vm.state is there (after correlate)")
if count([stub["guest"]], []) != 0:
    vmtest.fail("warned on a trace without a host")
print("one warning without filter.vm.state, none otherwise")
