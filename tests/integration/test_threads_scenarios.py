"""sink.vm.threads on the stub scenarios beyond OneQemuKvm: a vCPU that
halts and blocks on the host, a guest with two vCPUs whose thread migrates
between them, and two guests on one host. Expected values are read off the
stubs by hand (t = ns after the stub clock offset)."""

import os

import btlog
import vmtest
import threads_common as tc

from halted_vcpu_expected import HALTED_THREAD, HALTED_VCPU

HALTED_EXITS = [("0", "12", "HLT", "2", "6006000", "1003000", "5003000", "3003000"),
                ("0", "18", "VMCALL", "3", "5700", "1900", "1900", "1900")]

# Thread 301 of two-vcpus: preempted with vCPU 1, later on vCPU 0.
WORKER_THREAD = [
    ("running", 12500, 25200, "1", ""), ("hypervisor", 25200, 27100, "1", "18"),
    ("running", 27100, 30000, "1", ""), ("hypervisor", 30000, 30500, "1", "1"),
    ("preempted", 30500, 41000, "1", ""), ("hypervisor", 41000, 41500, "1", "1"),
    ("running", 41500, 45200, "1", ""), ("hypervisor", 45200, 47100, "1", "18"),
    ("running", 47100, 75000, "1", ""), ("blocked", 75000, 95000, "", ""),
    ("running", 95000, 101000, "0", ""),
]

TWO_GUESTS_EXITS = [
    ("guest1", "0", "1", "EXTERNAL_INTERRUPT", "1", "21000"),
    ("guest1", "0", "18", "VMCALL", "3", "5700"),
    ("guest1", "0", "30", "IO_INSTRUCTION", "1", "5000"),
    ("guest1", "0", "48", "EPT_VIOLATION", "1", "2000"),
    ("guest2", "0", "18", "VMCALL", "3", "5700"),
    ("guest2", "0", "30", "IO_INSTRUCTION", "1", "2000"),
]


def run(name, what):
    folder = os.path.join(vmtest.STUB_DIR, name)
    offset = tc.stub_header(os.path.join(folder, "host.stub"))[1]
    traces = vmtest.scenario(name)
    proc = vmtest.babeltrace2(list(traces.values()) + [
        "-c", "filter.vm.state", "-c", "sink.vm.threads",
        "-p", 'format="csv",what="%s"' % what])
    # No correlate: its absence is warned about (the stubs' clocks are
    # aligned: the results are right all the same).
    if btlog.warnings_but_unsynchronized(proc.stderr):
        vmtest.fail("%s: unexpected warnings:\n%s" % (name, proc.stderr))
    return tc.parse_csv(proc.stdout, what), offset


def track(rows, offset, match, fields):
    return sorted((tuple(int(r[f]) - offset if f.endswith("_ns") else r[f] for f in fields)
                   for r in rows if all(r[k] == v for k, v in match.items())),
                  key=lambda t: t[1])


def expect(label, got, expected):
    if got != expected:
        vmtest.fail("%s is\n  %s\nnot\n  %s" % (label, got, expected))


def check_halted_vcpu():
    rows, offset = run("halted-vcpu", "threads")
    expect("halted-vcpu thread 300", track(rows, offset, {"tid": "300"}, (
        "state", "begin_ns", "end_ns", "vcpu", "reason")), HALTED_THREAD)
    if {r["tid"] for r in rows} != {"300"}:
        vmtest.fail("halted-vcpu: threads %s" % sorted({r["tid"] for r in rows}))
    rows, offset = run("halted-vcpu", "vcpus")
    expect("halted-vcpu vCPU 0", track(rows, offset, {"vcpu": "0"}, (
        "mode", "begin_ns", "end_ns", "pcpu", "reason")), HALTED_VCPU)
    rows, _ = run("halted-vcpu", "exits")
    expect("halted-vcpu exits", sorted(tuple(r[k] for k in tc.EXIT_KEYS[1:]) for r in rows),
           HALTED_EXITS)


def check_two_vcpus():
    rows, offset = run("two-vcpus", "threads")
    tc.check_threads_tile(rows)
    expect("two-vcpus thread 301", track(rows, offset, {"tid": "301"}, (
        "state", "begin_ns", "end_ns", "vcpu", "reason")), WORKER_THREAD)
    if {r["tid"] for r in rows} != {"300", "301", "302"}:
        vmtest.fail("two-vcpus: threads %s" % sorted({r["tid"] for r in rows}))


def check_two_guests():
    rows, offset = run("two-guests", "threads")
    tc.check_threads_tile(rows)
    threads = sorted({(r["machine"], r["tid"]) for r in rows})
    expect("two-guests threads", threads, [("guest1", "300"), ("guest1", "301"),
                                           ("guest2", "400"), ("guest2", "401")])
    preempted = track(rows, offset, {"state": "preempted"}, (
        "machine", "begin_ns", "end_ns", "tid", "vcpu"))
    expect("two-guests preemptions", preempted,
           [("guest1", 61000, 80000, "301", "0")])
    rows, _ = run("two-guests", "exits")
    expect("two-guests exits", sorted(tuple(r[k] for k in (
        "machine", "vcpu", "reason", "name", "count", "total_ns")) for r in rows),
        TWO_GUESTS_EXITS)


tc.require_component("filter.vm.state")
check_halted_vcpu()
check_two_vcpus()
check_two_guests()
print("halted-vcpu, two-vcpus and two-guests as read off the stubs")
