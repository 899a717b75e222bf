"""Issue 8, point 3: a guest with a few kvm_entry events (nested
virtualization, stray lines) stays a guest when correlate or state is told
host="host"; state and threads follow correlate's vm_role; exactly one
warning says which machine is the host. Read once (behind python3-bt2
forwarders that cannot seek, as behind src.ctf.lttng-live), where both
machines declare KVM entries, correlate counts them before it chooses the
host: the guest stays a guest there too. Expected values: the halted-vcpu
stub's, read off the stub by hand (test_threads_scenarios.py)."""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import threads_common as tc  # noqa: E402

# A sanitized plugin in this very process: its runtime must come first.
vmtest.sanitizer_runtime_first()

# The stray kvm lines change none of the halted-vcpu stub's intervals.
from halted_vcpu_expected import HALTED_THREAD, HALTED_VCPU


def stub_traces():
    traces = vmtest.scenario("stray-guest-kvm")
    return [traces["host"], traces["guest"]]


def host_offset():
    return tc.stub_header(os.path.join(vmtest.STUB_DIR, "stray-guest-kvm", "host.stub"))[1]


def run(chain, what):
    if chain == "read once":
        return run_read_once(what)
    proc = vmtest.babeltrace2(stub_traces() + chain + [
        "-c", "sink.vm.threads", "-p", 'format="csv",what="%s"' % what])
    return tc.parse_csv(proc.stdout, what), host_offset(), tc.warnings_of(proc.stderr)


def run_read_once(what):
    """correlate -> state -> threads behind forwarders, in a child process
    whose log this one reads."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, what + ".csv")
        proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--read-once",
                               what, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        if proc.returncode != 0:
            vmtest.fail("read once failed (%d):\n%s" % (proc.returncode, proc.stderr[-5000:]))
        with open(path) as f:
            rows = tc.parse_csv(f.read(), what)
    return rows, host_offset(), tc.warnings_of(proc.stderr)


def read_once_child(what, path):
    import bt2
    import noseek
    noseek.run_chain(stub_traces(), [
        ("filter", "correlate", {}), ("filter", "state", {}),
        ("sink", "threads", {"format": "csv", "what": what, "path": path})],
        True, bt2.LoggingLevel.WARNING)


def has_bt2():
    try:
        import bt2  # noqa: F401
    except ImportError:
        return False
    return True


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


if sys.argv[1:2] == ["--read-once"]:
    read_once_child(sys.argv[2], sys.argv[3])
    sys.exit(0)
tc.require_component("filter.vm.state")
check("correlate host=host", ["-c", "filter.vm.correlate", "-p", 'host="host"',
                              "-c", "filter.vm.state"], True)
check("correlate (the most)", ["-c", "filter.vm.correlate", "-c", "filter.vm.state"], True)
check("state host=host", ["-c", "filter.vm.state", "-p", 'host="host"'], False)
if has_bt2():
    check("correlate read once", "read once", True)
else:
    print("read once not checked: python3-bt2 is not installed")
proc = vmtest.babeltrace2(list(vmtest.scenario("stray-guest-kvm").values()) + [
    "-c", "filter.vm.state", "-p", 'host="nope"', "-c", "sink.vm.threads"], check=False)
if proc.returncode == 0 or "`host`" not in proc.stderr or "`guest`" not in proc.stderr:
    vmtest.fail("host=\"nope\" not refused with the machines listed:\n" + proc.stderr[-3000:])
print("the stray guest stays a guest, one warning")
