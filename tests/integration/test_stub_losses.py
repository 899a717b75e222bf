"""Loss lines of the stub format (stub-traces/README.md, `!lost`): the stub
source emits the discarded-events messages that src.ctf.fs makes of an
lttng-modules trace that lost events, and the same ones after a round trip
through sink.ctf.fs and src.ctf.fs."""

import os

import bt2

import vmtest

# packet-size 3. CPU 0: 3 events fill a packet, the 4th opens the packet
# that the loss (7 + 1 events, two loss lines in a row) closes at 60;
# CPU 1: a loss in its first packet (no count then), another one at the
# end (the packet ends with the trace); CPU 2: a loss before its first
# event (an empty first packet from the loss line); CPU 3: a full packet
# that the loss directly follows stays open until the next event.
STUB = """hostname lossy
cpus 4
packet-size 3
5 2 !lost 3
10 0 kvm_entry vcpu_id=0
12 1 kvm_entry vcpu_id=1
14 3 kvm_entry vcpu_id=3
15 2 kvm_entry vcpu_id=2
16 3 kvm_entry vcpu_id=3
18 3 kvm_entry vcpu_id=3
19 3 !lost 5
20 0 kvm_entry vcpu_id=0
30 0 kvm_entry vcpu_id=0
35 1 !lost 4
40 0 kvm_entry vcpu_id=0
45 0 !lost 7
46 0 !lost 1
50 1 kvm_entry vcpu_id=1
55 3 kvm_entry vcpu_id=3
60 0 kvm_entry vcpu_id=0
62 1 !lost 2
70 0 kvm_entry vcpu_id=0
80 0 kvm_entry vcpu_id=0
"""

# Per CPU: (begin, end, count or None), from the rules of the format: the
# range runs from the end of the packet before (else the packet's own
# beginning, without a count) to the end of the packet the loss closes.
EXPECTED = {
    0: [(30, 60, 8)],
    1: [(12, 50, None), (50, 80, 2)],
    2: [(5, 15, None)],
    3: [(14, 55, None)],
}
# Per CPU: the packets' (begin, end, events).
EXPECTED_PACKETS = {
    0: [(10, 30, 3), (40, 60, 1), (60, 80, 3)],
    1: [(12, 50, 1), (50, 80, 1)],
    2: [(5, 15, 0), (15, 80, 1)],
    3: [(14, 55, 3), (55, 80, 1)],
}


def collect(messages):
    """{cpu: {"discarded": [...], "packets": [...], "order": [...]}} of a message flow."""
    streams, by_stream, last = {}, {}, None
    for msg in messages:
        if isinstance(msg, (bt2._EventMessageConst, bt2._PacketBeginningMessageConst,
                            bt2._PacketEndMessageConst)):
            if last is not None and msg.default_clock_snapshot.ns_from_origin < last:
                vmtest.fail("messages go back in time at %r" % msg)
            last = msg.default_clock_snapshot.ns_from_origin
        if isinstance(msg, bt2._StreamBeginningMessageConst):
            by_stream[msg.stream.addr] = {"discarded": [], "packets": [], "order": []}
        elif isinstance(msg, bt2._DiscardedEventsMessageConst):
            info = by_stream[msg.stream.addr]
            info["discarded"].append((msg.beginning_default_clock_snapshot.value,
                                      msg.end_default_clock_snapshot.value, msg.count))
            info["order"].append("discarded")
            last = msg.beginning_default_clock_snapshot.ns_from_origin
        elif isinstance(msg, bt2._PacketBeginningMessageConst):
            info = by_stream[msg.packet.stream.addr]
            streams[int(msg.packet.context_field["cpu_id"])] = info
            info["packets"].append([msg.default_clock_snapshot.value, None, 0])
            info["order"].append("packet")
        elif isinstance(msg, bt2._PacketEndMessageConst):
            info = by_stream[msg.packet.stream.addr]
            info["packets"][-1][1] = msg.default_clock_snapshot.value
        elif isinstance(msg, bt2._EventMessageConst):
            by_stream[msg.event.stream.addr]["packets"][-1][2] += 1
    for info in streams.values():
        info["packets"] = [tuple(p) for p in info["packets"]]
    return streams


def stub_source_messages(path):
    plugins = bt2.find_plugins_in_path(vmtest.STUBGEN_PLUGIN_DIR)
    plugin = [p for p in plugins if p.name == "vmstub"]
    if not plugin:
        vmtest.skip("the stub converter plugin is not built")
    spec = bt2.ComponentSpec(plugin[0].source_component_classes["stub"], {"path": path})
    return bt2.TraceCollectionMessageIterator(spec)


def check(where, streams):
    for cpu, wanted in EXPECTED.items():
        got = streams[cpu]["discarded"]
        if got != wanted:
            vmtest.fail("%s: CPU %d discarded events %r, expected %r" % (where, cpu, got, wanted))
        if streams[cpu]["packets"] != EXPECTED_PACKETS[cpu]:
            vmtest.fail("%s: CPU %d packets %r, expected %r" % (
                where, cpu, streams[cpu]["packets"], EXPECTED_PACKETS[cpu]))


def main():
    work = os.path.join(vmtest.WORK_DIR, "stub-losses")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "lossy.stub")
    with open(path, "w") as stub:
        stub.write(STUB)
    direct = collect(stub_source_messages(path))
    check("stub source", direct)
    ctf = vmtest.stub_to_ctf(path, os.path.join(work, "ctf"))
    read_back = collect(bt2.TraceCollectionMessageIterator(ctf))
    check("after sink.ctf.fs and src.ctf.fs", read_back)
    if direct != read_back:
        vmtest.fail("the round trip changes the messages:\n%r\n%r" % (direct, read_back))
    print("loss lines: %d discarded-events messages, the same after a CTF round trip" %
          sum(len(v) for v in EXPECTED.values()))


main()
