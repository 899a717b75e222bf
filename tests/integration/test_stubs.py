"""Every stub of stub-traces/ becomes a CTF trace that holds exactly its events.

For each scenario folder and each .stub in it: convert with stub2ctf, decode
with plain `babeltrace2 DIR` (one line per event, no error), then read the
trace with python bt2 (src.ctf.fs) and compare every event's name, clock
value, cpu_id and payload, the field types, the environment and the clock
class with what tests/integration/stubfile.py parses from the stub. Also
checks the converter's own behaviour: messages in global time order even
when the file is not, packet sizes, the optional directives, and that bad
stubs fail with an error naming the file and line.
"""

import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import stubfile  # noqa: E402

try:
    import bt2
except ImportError:
    vmtest.skip("python3-bt2 is not installed")

# Events per scenario: guards against a stub losing lines unnoticed.
EXPECTED_EVENT_COUNTS = {
    "container-neighbour": 67,
    "containers": 15,
    "drifting-guest": 120,
    "halted-vcpu": 49,
    "noisy-neighbour": 64,
    "stray-guest-kvm": 52,
    "one-container": 23,
    "one-qemu-kvm": 35,
    "one-qemu-kvm-x86": 35,
    "old-lttng-packets": 49,
    "qemu-container": 40,
    "tcp-exchange": 24,
    "tcp-net-dev": 24,
    "two-guests": 76,
    "two-vcpus": 70,
}



def drifting_guest_to_host(guest_cycles):
    """Inverse of drifting-guest's true map g = h + floor(h / 20000)."""
    host_cycles = guest_cycles * 20000 // 20001
    while host_cycles + host_cycles // 20000 < guest_cycles:
        host_cycles += 1
    return host_cycles


# Guest clock cycles -> host clock cycles of the same instant, for the VM
# scenarios: guest events must fall in their vCPU's guest-mode periods.
VM_SCENARIO_CLOCK_MAPS = {
    "drifting-guest": drifting_guest_to_host,
    "container-neighbour": None,
    "halted-vcpu": None,
    "noisy-neighbour": None,
    "old-lttng-packets": None,
    "one-qemu-kvm": None,
    "one-qemu-kvm-x86": None,
    "qemu-container": None,
    "two-guests": None,
    "two-vcpus": None,
}

STUB2CTF = os.path.join(vmtest.SOURCE_DIR, "tests", "tools", "stub2ctf")


def scenario_folders():
    result = []
    for entry in sorted(os.listdir(vmtest.STUB_DIR)):
        folder = os.path.join(vmtest.STUB_DIR, entry)
        if os.path.isdir(folder) and any(f.endswith(".stub") for f in os.listdir(folder)):
            result.append(entry)
    return result


class _Collector(bt2._UserSinkComponent):
    """Keeps every message of each input port, port after port, in the list
    given as obj; obj[0] is the number of input ports to make."""

    def __init__(self, config, params, obj):
        self._messages = obj
        self._ports = [self._add_input_port("in%d" % i) for i in range(obj.pop())]

    def _user_graph_is_configured(self):
        self._iterators = [self._create_message_iterator(port) for port in self._ports]

    def _user_consume(self):
        while self._iterators:
            try:
                self._messages.append(next(self._iterators[0]))
                return
            except StopIteration:
                self._iterators.pop(0)
        raise bt2.Stop


def unmuxed_messages(ctf_dir):
    """Messages of src.ctf.fs, stream after stream, without babeltrace2's
    muxer (it refuses traces whose packets overlap)."""
    graph = bt2.Graph()
    source = graph.add_component(bt2.find_plugin("ctf").source_component_classes["fs"],
                                 "source", params={"inputs": [ctf_dir]})
    ports = list(source.output_ports.values())
    messages = [len(ports)]
    sink = graph.add_component(_Collector, "sink", obj=messages)
    for index, port in enumerate(ports):
        graph.connect_ports(port, sink.input_ports["in%d" % index])
    graph.run()
    return messages


def address(byte_array):
    """An IPv4 address read as 4 bytes, as one number (10.0.0.1 = 0x0a000001)."""
    value = 0
    for byte in byte_array:
        value = (value << 8) | int(byte)
    return value


def payload_values(payload):
    """{field: value} of a payload; for the lttng-modules >= 2.9 network
    layout, the flat line fields it was built from."""
    if "transport_header" not in payload:
        return {name: str(field) if isinstance(field, bt2._StringFieldConst) else
                tuple(int(e) for e in field) if isinstance(field, bt2._ArrayFieldConst) else
                int(field)
                for name, field in payload.items()
                # a sequence's length member (stub-traces/README.md)
                if not (name.endswith("_length") and name[:-7] in payload)}
    ipv4 = payload["network_header"].selected_option
    tcp = payload["transport_header"].selected_option
    values = {"skbaddr": int(payload["skbaddr"]), "len": int(payload["len"]),
              "name": str(payload["name"]), "saddr": address(ipv4["saddr"]),
              "daddr": address(ipv4["daddr"])}
    for name in ("source", "dest", "seq", "ack_seq", "flags", "window"):
        values[name] = int(tcp[name])
    return values


def check_net_layout(where, name, payload):
    """The payload of a `network-headers nested` event is lttng-modules'."""
    members = list(payload.cls.keys())
    expected = ["skbaddr", "len", "name", "network_header_type", "network_header",
                "transport_header_type", "transport_header"]
    if members != expected:
        vmtest.fail("%s: %s has members %s, expected %s" % (where, name, members, expected))
    checks = [
        ("network header labels", list(payload["network_header_type"].labels), ["_ipv4"]),
        ("network header options", list(payload["network_header"].cls.keys()),
         ["none", "ipv4", "ipv6"]),
        ("transport header labels", list(payload["transport_header_type"].labels), ["_tcp"]),
        ("transport header options", list(payload["transport_header"].cls.keys()),
         ["none", "tcp"]),
    ]
    ipv4 = payload["network_header"].selected_option
    for field, value in (("version", 4), ("ihl", 5), ("ttl", 64), ("protocol", 6),
                         ("tot_len", int(payload["len"]) & 0xFFFF)):
        checks.append(("ipv4 " + field, int(ipv4[field]), value))
    tcp = payload["transport_header"].selected_option
    for field, bits, base in (("source", 16, 10), ("dest", 16, 10), ("seq", 32, 16),
                              ("ack_seq", 32, 16), ("flags", 16, 16), ("window", 16, 10)):
        fc = tcp.cls[field].field_class
        checks.append(("tcp %s type" % field, (fc.field_value_range,
                                               int(fc.preferred_display_base)), (bits, base)))
    for what, actual, wanted in checks:
        if actual != wanted:
            vmtest.fail("%s: %s %s is %r, expected %r" % (where, name, what, actual, wanted))


def read_ctf(ctf_dir, muxed=True):
    """Streams of a CTF trace as read by src.ctf.fs: {cpu_id: info}."""
    streams = {}
    by_stream = {}
    messages = bt2.TraceCollectionMessageIterator(ctf_dir) if muxed else \
        unmuxed_messages(ctf_dir)
    for msg in messages:
        if isinstance(msg, bt2._StreamBeginningMessageConst):
            info = {"stream": msg.stream, "events": [], "packets": [], "contexts": []}
            by_stream[msg.stream.addr] = info
        elif isinstance(msg, bt2._PacketBeginningMessageConst):
            info = by_stream[msg.packet.stream.addr]
            cpu_id = int(msg.packet.context_field["cpu_id"])
            if streams.setdefault(cpu_id, info) is not info:
                vmtest.fail("%s: two streams have cpu_id %d" % (ctf_dir, cpu_id))
            info["cpu_id"] = cpu_id
            clock = msg.default_clock_snapshot.value \
                if msg.packet.stream.cls.default_clock_class else None
            info["packets"].append([clock, None, 0])
        elif isinstance(msg, bt2._PacketEndMessageConst):
            info = by_stream[msg.packet.stream.addr]
            if msg.packet.stream.cls.default_clock_class:
                info["packets"][-1][1] = msg.default_clock_snapshot.value
        elif isinstance(msg, bt2._EventMessageConst):
            event = msg.event
            info = by_stream[event.stream.addr]
            info["packets"][-1][2] += 1
            cycles = msg.default_clock_snapshot.value \
                if event.stream.cls.default_clock_class else None
            payload = payload_values(event.payload_field)
            context = event.common_context_field
            info["contexts"].append({k: int(v) for k, v in context.items()}
                                    if context is not None else {})
            info["events"].append((event.name, cycles, int(event.packet.context_field["cpu_id"]),
                                   payload, event.payload_field))
    return streams


def check_field_types(where, stub, name, payload_field):
    if name in stub.nested:
        check_net_layout(where, name, payload_field)
        return
    expected = stub.event_defs[name]
    actual = list(payload_field.cls.keys())
    members = []
    for field, ftype in expected:
        members += [field + "_length", field] if stubfile.is_sequence(ftype) else [field]
    if actual != members:
        vmtest.fail("%s: %s has fields %s, expected %s" % (where, name, actual, members))
    for field, ftype in expected:
        fc = payload_field.cls[field].field_class
        if stubfile.is_sequence(ftype):
            if not isinstance(fc, bt2._DynamicArrayFieldClassConst):
                vmtest.fail("%s: %s.%s is not a sequence" % (where, name, field))
            fc = fc.element_field_class
            ftype = ftype[:-2]
        if ftype == "string":
            if not isinstance(fc, bt2._StringFieldClassConst):
                vmtest.fail("%s: %s.%s is not a string" % (where, name, field))
            continue
        signed, bits, base = stubfile.INTEGER_TYPES[ftype]
        is_signed = isinstance(fc, bt2._SignedIntegerFieldClassConst)
        if (is_signed, fc.field_value_range, int(fc.preferred_display_base)) != \
                (signed, bits, base):
            vmtest.fail("%s: %s.%s is (signed=%s, %d bits, base %d), expected %s" % (
                where, name, field, is_signed, fc.field_value_range,
                int(fc.preferred_display_base), ftype))


def check_trace_meta(where, stub, stream):
    env = stream.trace.environment
    expected_env = {"hostname": stub.hostname, "domain": "kernel",
                    "tracer_name": stub.tracer_name, "tracer_major": stub.tracer[0],
                    "tracer_minor": stub.tracer[1], "sysname": "Linux"}
    for key, value in expected_env.items():
        if key not in env or env[key] != value:
            vmtest.fail("%s: env %s is %r, expected %r" % (
                where, key, env[key] if key in env else None, value))
    for key in ("tracer_major", "tracer_minor"):
        if not isinstance(env[key], bt2._SignedIntegerValueConst):
            vmtest.fail("%s: env %s is not a signed integer" % (where, key))
    clock = stream.cls.default_clock_class
    if clock is None:
        vmtest.fail("%s: no clock class" % where)
    checks = [("name", clock.name, "monotonic"), ("frequency", clock.frequency, 10 ** 9),
              ("offset seconds", clock.offset.seconds, stub.clock_offset_s),
              ("offset cycles", clock.offset.cycles, stub.clock_offset_ns),
              ("uuid", str(clock.uuid), stub.clock_uuid),
              # src.ctf.fs decides this from tracer_name lttng + clock monotonic.
              ("Unix epoch origin", clock.origin_is_unix_epoch, True)]
    for what, actual, expected in checks:
        if actual != expected:
            vmtest.fail("%s: clock %s is %r, expected %r" % (where, what, actual, expected))
    match = re.fullmatch(r".*channel0_(\d+)", stream.name or "")
    if not match:
        vmtest.fail("%s: stream name %r is not like LTTng's channel0_N" % (where, stream.name))
    return int(match.group(1))


def check_packets(where, stub, info, last_ts):
    packets = info["packets"]
    if not packets:
        vmtest.fail("%s: CPU %d has no packet" % (where, info["cpu_id"]))
    begin_index = 0
    for begin, end, count in packets:
        if count > stub.packet_size:
            vmtest.fail("%s: a packet of CPU %d holds %d events, packet-size is %d" % (
                where, info["cpu_id"], count, stub.packet_size))
        events = info["events"][begin_index:begin_index + count]
        begin_index += count
        if stub.has_clock and events and not begin <= events[0][1] <= events[-1][1] <= end:
            vmtest.fail("%s: packet [%s, %s] of CPU %d does not hold its events %d..%d" % (
                where, begin, end, info["cpu_id"], events[0][1], events[-1][1]))
    if stub.has_clock and last_ts is not None and packets[-1][1] > last_ts:
        vmtest.fail("%s: last packet of CPU %d ends after the trace's last event" % (
            where, info["cpu_id"]))


def check_stub(stub_path, out_dir=None):
    """Converts one stub and checks the trace; returns its event count."""
    where = os.path.relpath(stub_path, vmtest.SOURCE_DIR)
    stub = stubfile.parse(stub_path)
    # The source alone, under the sanitizers (a test tool: valgrind is kept
    # for runs of the product, vmtest.runs_product_code()).
    vmtest.babeltrace2(["run", "--component=stub:source.vmstub.stub",
                        "--params=path=\"%s\"" % stub_path,
                        "--component=dummy:sink.utils.dummy", "--connect=stub:dummy"],
                       plugin_paths=[vmtest.STUBGEN_PLUGIN_DIR])
    ctf_dir = vmtest.stub_to_ctf(stub_path, out_dir)
    overlapping = stub.packet_end_overlap > 0 and len(stub.events) > stub.packet_size
    proc = vmtest.babeltrace2([ctf_dir], plugin_paths=[], check=not overlapping)
    if overlapping:
        # Like real LTTng 2.1 traces: the stock muxer refuses them.
        if proc.returncode == 0:
            vmtest.fail("%s: babeltrace2 accepted overlapping packets" % where)
    elif len(proc.stdout.splitlines()) != len(stub.events):
        vmtest.fail("%s: babeltrace2 printed %d lines for %d events" % (
            where, len(proc.stdout.splitlines()), len(stub.events)))
    streams = read_ctf(ctf_dir, muxed=not overlapping)
    if sorted(streams) != list(range(stub.cpus)):
        vmtest.fail("%s: streams of CPUs %s, expected 0..%d" % (
            where, sorted(streams), stub.cpus - 1))
    expected = collections.defaultdict(list)
    for event in stub.events:
        expected[event.cpu].append((event.name, event.ts, event.cpu, event.fields))
    last_ts = max([e.ts for e in stub.events], default=None)
    for cpu, info in streams.items():
        if check_trace_meta(where, stub, info["stream"]) != cpu:
            vmtest.fail("%s: stream %s has cpu_id %d" % (where, info["stream"].name, cpu))
        actual = [(name, ts, cpu_id, payload) for name, ts, cpu_id, payload, _ in info["events"]]
        if actual != expected[cpu]:
            for index, (got, want) in enumerate(zip(actual + [None] * len(expected[cpu]),
                                                    expected[cpu] + [None] * len(actual))):
                if got != want:
                    vmtest.fail("%s: CPU %d event #%d is %r, expected %r" % (
                        where, cpu, index, got, want))
        # `event-context`: each event's context fields, 0 when not given
        contexts = [e.context for e in stub.events if e.cpu == cpu]
        if info["contexts"] != contexts:
            vmtest.fail("%s: CPU %d event contexts %s, expected %s" % (
                where, cpu, info["contexts"][:5], contexts[:5]))
        for name, _, _, _, payload_field in info["events"]:
            check_field_types(where, stub, name, payload_field)
        check_packets(where, stub, info, last_ts)
    return len(stub.events)


def guest_mode_intervals(host):
    """{(vm_uid, vcpu_id): [(entry ts, exit ts)]} of a host stub: when each
    vCPU executed guest code, its VM known from the vmsync_gh_host events of
    its host thread."""
    current = {}
    open_entry = {}
    intervals = collections.defaultdict(list)
    vm_of_thread = {}
    for event in host.ordered_events():
        tid = current.get(event.cpu)
        if event.name == "sched_switch":
            current[event.cpu] = event.fields["next_tid"]
        elif event.name in ("kvm_entry", "kvm_x86_entry"):
            open_entry[tid] = (event.ts, event.fields["vcpu_id"])
        elif event.name in ("kvm_exit", "kvm_x86_exit") and tid in open_entry:
            entry_ts, vcpu = open_entry.pop(tid)
            intervals[(tid, vcpu)].append((entry_ts, event.ts))
        elif event.name == "vmsync_gh_host":
            vm_of_thread[tid] = event.fields["vm_uid"]
    # Still in guest mode when the host trace ends.
    for tid, (entry_ts, vcpu) in open_entry.items():
        intervals[(tid, vcpu)].append((entry_ts, float("inf")))
    return {(vm_of_thread.get(tid), vcpu): spans for (tid, vcpu), spans in intervals.items()}


def check_physics(folder, to_host):
    """Guest events only while their vCPU runs guest code, vmsync steps in
    order; `to_host` maps guest clock cycles to host ones (None: same)."""
    to_host = to_host or (lambda cycles: cycles)
    stubs = [stubfile.parse(os.path.join(vmtest.STUB_DIR, folder, entry))
             for entry in sorted(os.listdir(os.path.join(vmtest.STUB_DIR, folder)))
             if entry.endswith(".stub")]
    hosts = [stub for stub in stubs
             if any(e.name in ("kvm_entry", "kvm_x86_entry") for e in stub.events)]
    if len(hosts) != 1:
        vmtest.fail("%s: expected one host, found %d" % (folder, len(hosts)))
    host = hosts[0]
    intervals = guest_mode_intervals(host)
    host_times = {(e.name, e.fields.get("vm_uid"), e.fields.get("cnt")): e.ts
                  for e in host.events if e.name.startswith("vmsync")}
    for guest in stubs:
        if guest is host:
            continue
        uids = {e.fields["vm_uid"] for e in guest.events if e.name.startswith("vmsync")}
        if len(uids) != 1:
            vmtest.fail("%s: %s has vm_uids %s" % (folder, guest.hostname, uids))
        uid = uids.pop()
        for event in guest.events:
            spans = intervals.get((uid, event.cpu), [])
            ts = to_host(event.ts)
            if not any(begin < ts < end for begin, end in spans):
                vmtest.fail("%s: %s line %d happens while vCPU %d is not in guest mode" % (
                    folder, guest.hostname, event.line, event.cpu))
            if event.name == "vmsync_gh_guest":
                host_ts = host_times.get(("vmsync_gh_host", uid, event.fields["cnt"]))
                ok = host_ts is not None and ts < host_ts
            elif event.name == "vmsync_hg_guest":
                host_ts = host_times.get(("vmsync_hg_host", uid, event.fields["cnt"]))
                ok = host_ts is not None and host_ts < ts
            else:
                continue
            if not ok:
                vmtest.fail("%s: %s line %d: its host side is missing or out of order" % (
                    folder, guest.hostname, event.line))


def check_scenarios():
    folders = scenario_folders()
    if sorted(folders) != sorted(EXPECTED_EVENT_COUNTS):
        vmtest.fail("scenario folders %s, expected %s (add new ones to EXPECTED_EVENT_COUNTS)"
                    % (folders, sorted(EXPECTED_EVENT_COUNTS)))
    for folder in folders:
        total = 0
        for entry in sorted(os.listdir(os.path.join(vmtest.STUB_DIR, folder))):
            if entry.endswith(".stub"):
                total += check_stub(os.path.join(vmtest.STUB_DIR, folder, entry))
        if total != EXPECTED_EVENT_COUNTS[folder]:
            vmtest.fail("scenario %s has %d events, expected %d" % (
                folder, total, EXPECTED_EVENT_COUNTS[folder]))
        if folder in VM_SCENARIO_CLOCK_MAPS:
            check_physics(folder, VM_SCENARIO_CLOCK_MAPS[folder])
        print("ok: %s (%d events)" % (folder, total))


def source_message_times(stub_path):
    """Clock values of the source's messages, in the order it emits them, and
    its INFO log (which says whether the file was streamed or sorted)."""
    proc = vmtest.babeltrace2(
        ["run", "--component=stub:source.vmstub.stub", "--log-level=INFO",
         "--params=path=\"%s\"" % stub_path,
         "--component=details:sink.text.details", "--params=with-metadata=no",
         "--connect=stub:details"], plugin_paths=[vmtest.STUBGEN_PLUGIN_DIR])
    times = [int(value) for value in re.findall(r"^\[(\d+) cycles", proc.stdout, re.M)]
    return times, proc.stderr


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as stub_file:
        stub_file.write(text)
    return path


def check_order_and_sorting(tmp):
    """A file not in global order is sorted; an ordered one streams."""
    lines = ["%d %d kvm_entry vcpu_id=%d" % (10 * i + cpu, cpu, i) for i in range(50)
             for cpu in range(3)]
    ordered = write(tmp, "ordered.stub", "cpus 3\npacket-size 7\n" + "\n".join(lines) + "\n")
    by_cpu = sorted(lines, key=lambda line: -int(line.split()[1]))
    shuffled = write(tmp, "shuffled.stub", "cpus 3\npacket-size 7\n" + "\n".join(by_cpu) + "\n")
    for path, mode in ((ordered, "streamed"), (shuffled, "not time-ordered: loaded and sorted")):
        times, log = source_message_times(path)
        if times != sorted(times) or len(times) < 150:
            vmtest.fail("%s: source messages not in time order: %s" % (path, times[:40]))
        if "150 events on 3 CPU(s), " + mode not in log:
            vmtest.fail("%s: expected the source to say `%s`:\n%s" % (path, mode, log))
        check_stub(path, path + "-ctf")
    print("ok: global order, streamed and sorted")


def check_directives(tmp):
    # A declared event, a reduced built-in one, quoting, hex, every integer size.
    path = write(tmp, "declared.stub", "\n".join([
        "hostname \"my host\"",
        "clock-offset-s -5",
        "clock-offset-ns 999999999",
        "clock-uuid 01234567-89ab-cdef-0123-456789abcdef",
        "tracer 2 13",
        "cpus 2",
        "event kvm_exit guest_rip:x64 isa:u32",
        "event custom a:s8 b:s16 c:s32 d:s64 e:u8 f:u16 g:u32 h:u64 i:x8 j:x16 k:x32 "
        "l:x64 s:string",
        "event empty",
        "1 1 kvm_exit guest_rip=0xffffffff81000000",
        "2 0 custom a=-128 b=-32768 c=-2147483648 d=-9223372036854775808 e=255 f=65535 "
        "g=4294967295 h=18446744073709551615 i=0xff j=0xffff k=0xffffffff "
        "l=0xffffffffffffffff s=\"a \\\"quoted\\\" # \\\\ = string\"",
        "3 0 custom d=9223372036854775807 s=",
        "3 1 empty  # a comment",
        ""]))
    check_stub(path, path + "-ctf")
    # Network layouts: nested, then back to flat; an `event` redefinition
    # of a nested event makes it flat.
    path = write(tmp, "layouts.stub", "\n".join([
        "network-headers nested",
        "event netif_receive_skb seq:u32",
        "network-headers flat",
        "network-headers nested",
        "event net_if_receive_skb skbaddr:x64",
        "1 0 net_dev_queue seq=4294967295 flags=0x1ff saddr=0xc0a80001 name=\"a b\"",
        "2 0 netif_receive_skb seq=7 ack_seq=8 flags=0x10",
        "3 0 net_if_receive_skb skbaddr=0x10",
        ""]))
    stub = stubfile.parse(path)
    if stub.nested != {"net_dev_queue", "netif_receive_skb"}:
        vmtest.fail("layouts.stub: stubfile sees nested events %s" % stub.nested)
    check_stub(path, path + "-ctf")
    # The event context, as `lttng add-context -k -t pid_ns` (and a second
    # field): given anywhere on a line, 0 when omitted.
    path = write(tmp, "context.stub", "\n".join([
        "event-context pid_ns:u32 prio:s8",
        "1 0 sched_switch pid_ns=4026531836 prev_tid=1 prio=-3",
        "2 1 kvm_entry vcpu_id=1",
        "3 0 lttng_statedump_start pid_ns=0xffffffff",
        ""]))
    stub = stubfile.parse(path)
    if [e.context for e in stub.events] != [{"pid_ns": 4026531836, "prio": -3},
                                            {"pid_ns": 0, "prio": 0},
                                            {"pid_ns": 0xffffffff, "prio": 0}]:
        vmtest.fail("context.stub: stubfile reads contexts %s" % [e.context for e in stub.events])
    check_stub(path, path + "-ctf")
    # No event at all: still one stream with one (empty) packet, like LTTng.
    check_stub(write(tmp, "empty.stub", "# nothing\n"), os.path.join(tmp, "empty-ctf"))
    check_stub(write(tmp, "idle.stub", "cpus 3\n"), os.path.join(tmp, "idle-ctf"))
    # Old LTTng 2.1 packets: each full packet ends after the next one begins.
    path = write(tmp, "overlap.stub", "packet-size 2\npacket-end-overlap 1500\n" +
                 "".join("%d 0 kvm_entry\n" % ts for ts in range(1, 8)))
    packets = read_ctf(vmtest.stub_to_ctf(path, path + "-ctf"), muxed=False)[0]["packets"]
    if len(packets) != 4 or any(packets[i][1] != packets[i + 1][0] + 1500
                                for i in range(len(packets) - 1)):
        vmtest.fail("overlap.stub: packets %s do not overlap by 1500 ns" % packets)
    # No clock class (a non-LTTng tracer name: src.ctf.fs needs it then).
    path = write(tmp, "noclock.stub", "tracer-name other\nclock none\ncpus 2\n"
                 "1 0 kvm_entry\n2 1 kvm_entry\n3 0 kvm_entry\n")
    ctf_dir = vmtest.stub_to_ctf(path, path + "-ctf")
    streams = read_ctf(ctf_dir)
    if any(info["stream"].cls.default_clock_class for info in streams.values()) or \
            [len(streams[0]["events"]), len(streams[1]["events"])] != [2, 1]:
        vmtest.fail("noclock.stub: expected 2 + 1 events without a clock class")
    vmtest.babeltrace2([ctf_dir], plugin_paths=[])
    print("ok: directives")


BAD_STUBS = [
    # (name, text, line, words the message must hold)
    ("unknown-field", "1 0 kvm_entry vcpu=1\n", 1, ["unknown field `vcpu`", "vcpu_id"]),
    ("unknown-event", "cpus 1\n1 0 kvm_entryx\n", 2,
     ["unknown event `kvm_entryx`", "kvm_x86_entry, kvm_exit"]),
    ("decreasing", "5 0 kvm_entry\n3 1 kvm_entry\n4 0 kvm_entry\n", 3,
     ["timestamp 4 of CPU 0 is before 5 (line 1)"]),
    ("bad-directive", "hostnam x\n", 1, ["unknown directive `hostnam`", "hostname"]),
    ("bad-value", "1 0 kvm_entry vcpu_id=-1\n", 1, ["bad value `-1`", "unsigned 32-bit"]),
    ("too-big", "1 0 sched_switch prev_tid=2147483648\n", 1, ["bad value `2147483648`"]),
    ("unterminated", "1 0 sched_switch prev_comm=\"abc\n", 1, ["unterminated"]),
    ("bad-type", "event e a:u33\n", 1, ["unknown type `u33`", "x64"]),
    ("late-directive", "1 0 kvm_entry\ncpus 2\n", 2, ["directive `cpus` after an event"]),
    ("cpu-range", "cpus 2\n1 2 kvm_entry\n", 2, ["CPU 2 is out of range"]),
    ("bad-uuid", "clock-uuid 1234\n", 1, ["clock-uuid"]),
    ("incomplete", "1 0\n", 1, ["incomplete event line"]),
    ("bad-layout", "network-headers deep\n", 1, ["bad value `deep`", "nested"]),
    ("nested-field", "network-headers nested\n1 0 net_dev_queue sk=1\n", 2,
     ["unknown field `sk`", "saddr"]),
    ("binary", "\x01\x02\n", 1, ["unknown directive"]),
    ("sequence-element", "event e v:s32[]\n1 0 e v=[1,x]\n", 2,
     ["bad value `[1,x]`", "[V,V,...]"]),
    ("sequence-brackets", "event e v:s32[]\n1 0 e v=1,2\n", 2, ["bad value `1,2`"]),
    ("sequence-range", "event e v:s32[]\n1 0 e v=[2147483648]\n", 2,
     ["signed 32-bit"]),
    ("sequence-string", "event e a:string[]\n", 1, ["unknown type `string[]`"]),
    ("context-string", "event-context c:string\n", 1, ["context field `c` must be an integer"]),
    ("context-sequence", "event-context c:u8[]\n", 1, ["must be an integer"]),
    ("context-empty", "event-context\n", 1, ["`event-context` expects"]),
    ("context-clash", "event-context tid:s32\n1 0 sched_wakeup tid=3\n", 2,
     ["field `tid` of event `sched_wakeup` is also an event context field"]),
    ("context-range", "event-context pid_ns:u32\n1 0 kvm_entry pid_ns=4294967296\n", 2,
     ["bad value `4294967296`", "unsigned 32-bit"]),
    ("context-unknown", "event-context pid_ns:u32\n1 0 kvm_entry pidns=1\n", 2,
     ["unknown field `pidns`", "context fields: pid_ns"]),
]


def check_bad_stubs(tmp):
    for name, text, line, words in BAD_STUBS:
        path = write(tmp, name + ".stub", text)
        out = os.path.join(tmp, name + "-ctf")
        proc = subprocess.run([STUB2CTF, path, out], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ,
                                       VM_STUBGEN_PLUGIN_DIR=vmtest.STUBGEN_PLUGIN_DIR))
        message = re.sub(r"\s+", " ", proc.stderr)
        if proc.returncode == 0:
            vmtest.fail("%s: stub2ctf accepted a bad stub" % name)
        for word in ["%s:%d:" % (path, line)] + words:
            if word not in message:
                vmtest.fail("%s: error lacks %r:\n%s" % (name, word, proc.stderr[-3000:]))
    # A bad parameter names it and what is accepted.
    proc = vmtest.babeltrace2(["run", "--component=stub:source.vmstub.stub",
                               "--params=file=\"x\"", "--component=d:sink.utils.dummy",
                               "--connect=stub:d"], check=False,
                              plugin_paths=[vmtest.STUBGEN_PLUGIN_DIR])
    if proc.returncode == 0 or "`path`" not in proc.stderr:
        vmtest.fail("a missing `path` parameter is not reported:\n" + proc.stderr[-3000:])
    print("ok: bad stubs fail naming the line")


def check_generated_files(tmp):
    """The committed stubs are what their generators write (tc2stub only when
    the Trace Compass XML of ../shared is there)."""
    tools = os.path.join(vmtest.SOURCE_DIR, "tests", "tools")
    runs = [[os.path.join(tools, "gen-scenarios")]]
    shared = vmtest.shared_dir()
    if shared and os.path.isdir(os.path.join(shared, "tc-stubs")):
        runs.append([os.path.join(tools, "tc2stub"), os.path.join(shared, "tc-stubs")])
    for run in runs:
        out = os.path.join(tmp, "generated-" + os.path.basename(run[0]))
        subprocess.run(["/usr/bin/python3"] + run + [out], check=True)
        for folder in sorted(os.listdir(out)):
            for entry in sorted(os.listdir(os.path.join(out, folder))):
                with open(os.path.join(out, folder, entry)) as generated, \
                        open(os.path.join(vmtest.STUB_DIR, folder, entry)) as committed:
                    if generated.read() != committed.read():
                        vmtest.fail("stub-traces/%s/%s differs from what %s writes" % (
                            folder, entry, os.path.basename(run[0])))
    print("ok: committed stubs match their generators (%s)" % ", ".join(
        os.path.basename(run[0]) for run in runs))


def main():
    if not os.path.isdir(vmtest.STUBGEN_PLUGIN_DIR):
        vmtest.fail("no vmstub plugin in " + vmtest.STUBGEN_PLUGIN_DIR)
    check_scenarios()
    with tempfile.TemporaryDirectory() as tmp:
        check_order_and_sorting(tmp)
        check_directives(tmp)
        check_bad_stubs(tmp)
        check_generated_files(tmp)


if __name__ == "__main__":
    main()
