"""Issue 8, point 3: a guest with a few kvm_entry events (nested
virtualization, stray lines) stays a guest when correlate or state is told
host="host"; state and threads follow correlate's vm_role; exactly one
warning says which machine is the host. Expected values: the halted-vcpu
stub's, read off the stub by hand (test_threads_scenarios.py)."""

import os

import vmtest
import threads_common as tc

# The stray kvm lines change none of the halted-vcpu stub's intervals.
from halted_vcpu_expected import HALTED_THREAD, HALTED_VCPU


def run(chain, what):
    traces = vmtest.scenario("stray-guest-kvm")
    proc = vmtest.babeltrace2([traces["host"], traces["guest"]] + chain + [
        "-c", "sink.vm.threads", "-p", 'format="csv",what="%s"' % what])
    rows = tc.parse_csv(proc.stdout, what)
    offset = tc.stub_header(os.path.join(vmtest.STUB_DIR, "stray-guest-kvm", "host.stub"))[1]
    return rows, offset, tc.warnings_of(proc.stderr)


def track(rows, offset, match, fields):
    return sorted((tuple(int(r[f]) - offset if f.endswith("_ns") else r[f] for f in fields)
                   for r in rows if all(r[k] == v for k, v in match.items())),
                  key=lambda t: t[1])


def check(label, chain, guest_shifted):
    """guest_shifted: correlate moves the guest's times onto the host's
    (vmsync): the thread's states are compared without their times."""
    rows, offset, warnings = run(chain, "threads")
    got = track(rows, offset, {"tid": "300"}, ("state", "begin_ns", "end_ns", "vcpu", "reason"))
    expected = HALTED_THREAD
    if guest_shifted:
        got = [(t[0], t[3], t[4]) for t in got]
        expected = [(t[0], t[3], t[4]) for t in HALTED_THREAD]
    if got != expected:
        vmtest.fail("%s: thread 300 is\n  %s\nnot\n  %s" % (label, got, expected))
    host_warnings = [w for w in warnings if "hypervisor (kvm entry) events" in w]
    if len(host_warnings) != 1 or "`guest` (3)" not in host_warnings[0]:
        vmtest.fail("%s: expected one host warning, got:\n%s" % (label, "\n".join(warnings)))
    rows, offset, _ = run(chain, "vcpus")
    got = track(rows, offset, {"vcpu": "0"}, ("mode", "begin_ns", "end_ns", "pcpu", "reason"))
    if got != HALTED_VCPU:
        vmtest.fail("%s: vCPU 0 is\n  %s\nnot\n  %s" % (label, got, HALTED_VCPU))


tc.require_component("filter.vm.state")
check("correlate host=host", ["-c", "filter.vm.correlate", "-p", 'host="host"',
                              "-c", "filter.vm.state"], True)
check("correlate (the most)", ["-c", "filter.vm.correlate", "-c", "filter.vm.state"], True)
check("state host=host", ["-c", "filter.vm.state", "-p", 'host="host"'], False)
proc = vmtest.babeltrace2(list(vmtest.scenario("stray-guest-kvm").values()) + [
    "-c", "filter.vm.state", "-p", 'host="nope"', "-c", "sink.vm.threads"], check=False)
if proc.returncode == 0 or "`host`" not in proc.stderr or "`guest`" not in proc.stderr:
    vmtest.fail("host=\"nope\" not refused with the machines listed:\n" + proc.stderr[-3000:])
print("the stray guest stays a guest, one warning")
