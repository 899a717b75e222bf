"""Lost events in a stream's first packet, before its CPU's first
sched_switch (SPEC "Lost events": a discarded-events message without count
is placed like any other).

The halted-vcpu scenario, its host's first sched_switch (10000, which
switched the vCPU thread 1001 in) left out and 3 events lost on host CPU 0
between the kvm_entry at 22100 and the kvm_exit at 31000, in the stream's
first packet: src.ctf.fs then gives a discarded-events message without
count spanning that packet. The events before the gap are whole: by SPEC's
trace-start rule they belong to the first sched_switch's prev_tid (1001, at
32000, after the gap), so vCPU 0 is known from its first kvm_entry (11000)
to the gap's start, the stream's last event before the range's end
(22100); it is unknown from there to the switch at 32000 that names its
thread. The vCPU's modes before the gap used to be dropped (its first 11 us
unknown). Checked through a sink.ctf.fs / src.ctf.fs copy of the stub: the
message is src.ctf.fs' own."""

import os

import vmtest
import btlog
import threads_common as tc

T0 = 1600000000 * 10**9
# (mode, begin, end, host_tid, pcpu, reason) of the guest's vCPU 0.
EXPECTED = [
    ("guest", 11000, 20200, "1001", "0", ""),
    ("hypervisor", 20200, 22100, "1001", "0", "18"),
    ("blocked", 32000, 5033000, "1001", "", ""),
    ("hypervisor", 5033000, 5034000, "1001", "0", ""),
]


def host_stub():
    with open(os.path.join(vmtest.STUB_DIR, "halted-vcpu", "host.stub")) as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        if line.startswith("10000 0 sched_switch"):
            continue
        if line.startswith("31000 0 kvm_exit"):
            out.append("25000 0 !lost 3")
        out.append(line)
    folder = os.path.join(vmtest.WORK_DIR, "first-packet-loss")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "host.stub")
    text = "\n".join(out) + "\n"
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)
    return vmtest.stub_to_ctf(path)


host = host_stub()
guest = vmtest.scenario("halted-vcpu")["guest"]
proc = vmtest.babeltrace2([host, guest, "-c", "filter.vm.correlate", "-c", "filter.vm.state",
                           "-c", "sink.vm.threads", "-p", 'format="csv",what="vcpus"'])
losses = [w for w in btlog.warnings(proc.stderr) if "lost an unknown number" in w]
if len(losses) != 1 or "from %d to" % (T0 + 22100) not in losses[0]:
    vmtest.fail("no warning of one count-less loss from 22100 (the first packet's "
                "message):\n" + proc.stderr)
rows = [(r["mode"], int(r["begin_ns"]) - T0, int(r["end_ns"]) - T0, r["host_tid"], r["pcpu"],
         r["reason"]) for r in tc.parse_csv(proc.stdout, "vcpus") if r["vcpu"] == "0"]
if rows[:len(EXPECTED)] != EXPECTED:
    vmtest.fail("vCPU 0's first modes\n got %s\nwant %s" % (rows[:len(EXPECTED)], EXPECTED))
print("a loss in the first packet, before the first switch: vCPU 0 known until the "
      "gap's start (22100), unknown to the switch at 32000")
