"""source.vmteststatelosses.host / .guest: a KVM host (two CPUs) whose
tracer lost events the way lttng-modules does, and a guest beside it.

The host's CPU 0 runs vCPU 0 (thread 31 of QEMU process 30). Its second
packet overflowed: its own events are good, and the events lost come after
its last one; src.ctf.fs reports that with a discarded-events message before
that packet, of range [end of the packet before, end of that packet], and
the first event after the gap (in the next packet) is at that end. CPU 1
loses an unknown number of events while idle.

Parameter `clockless` (bool, default false): the discarded-events messages
have no clock snapshots (as no LTTng trace has, but other sources may)."""

import uuid

import bt2

bt2.register_plugin(__name__, "vmteststatelosses")

OFFSET_S = 1600000000

# (kind, time, fields)
SWITCH = "sched_switch"
ENTRY = "kvm_x86_entry"
EXIT = "kvm_x86_exit"
WAKEUP = "sched_wakeup"
DUMP = "lttng_statedump_process_state"


def switch(ts, prev_tid, prev_state, next_tid):
    return (SWITCH, ts, {"prev_comm": "p", "prev_tid": prev_tid,
                         "prev_state": prev_state, "next_comm": "n",
                         "next_tid": next_tid})


def entry(ts):
    return (ENTRY, ts, {"vcpu_id": 0})


def exit_(ts, reason):
    return (EXIT, ts, {"exit_reason": reason, "isa": 1})


# Per CPU: packets as (begin, end, events, discarded before it: count or
# None for an unknown count, 0 for none).
HOST = {
    0: [(1000, 1200, [(DUMP, 1000, {"tid": 31, "pid": 30, "ppid": 1,
                                     "name": "qemu-system-x86"}),
                      switch(1010, 1, 0, 31), entry(1020), exit_(1100, 12),
                      entry(1150)], 0),
        (1210, 1600, [exit_(1210, 48), entry(1250),
                      (WAKEUP, 1300, {"comm": "w", "tid": 99, "target_cpu": 0})], 5),
        (1600, 2000, [entry(1600), exit_(1650, 1), switch(1700, 31, 1, 0),
                      switch(1800, 0, 0, 31), entry(1850)], 0)],
    1: [(1000, 1400, [switch(1005, 2, 1, 0), switch(1390, 0, 0, 0)], 0),
        (1400, 1800, [switch(1450, 0, 0, 0)], None),
        (1800, 2000, [switch(1800, 0, 0, 0), switch(1990, 0, 0, 0)], 0)],
}

GUEST = {
    0: [(1000, 2000, [switch(1030, 0, 0, 7), switch(1990, 7, 1, 0)], 0)],
}

FIELDS = {
    SWITCH: (("prev_comm", "s"), ("prev_tid", "i"), ("prev_state", "i"),
             ("next_comm", "s"), ("next_tid", "i")),
    ENTRY: (("vcpu_id", "u"),),
    EXIT: (("exit_reason", "u"), ("isa", "u")),
    WAKEUP: (("comm", "s"), ("tid", "i"), ("target_cpu", "i")),
    DUMP: (("tid", "i"), ("pid", "i"), ("ppid", "i"), ("name", "s")),
}


class _Iter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        stream, classes, packets, clockless = port.user_data
        self._messages = list(self._build(stream, classes, packets, clockless))

    def _build(self, stream, classes, packets, clockless):
        yield self._create_stream_beginning_message(stream)
        prev_end = None
        for begin, end, events, lost in packets:
            if lost != 0 and clockless:
                yield self._create_discarded_events_message(stream, lost)
            elif lost != 0:
                yield self._create_discarded_events_message(stream, lost, prev_end, end)
            packet = stream.create_packet()
            packet.context_field["cpu_id"] = int(stream.user_attributes["cpu"])
            yield self._create_packet_beginning_message(packet, begin)
            for kind, ts, fields in events:
                msg = self._create_event_message(classes[kind], packet, ts)
                for name, value in fields.items():
                    msg.event.payload_field[name] = value
                yield msg
            yield self._create_packet_end_message(packet, end)
            prev_end = end
        yield self._create_stream_end_message(stream)

    def __next__(self):
        if not self._messages:
            raise StopIteration
        return self._messages.pop(0)


def _make(comp, hostname, uuid_byte, layout, clockless=False):
    tc = comp._create_trace_class()
    clock = comp._create_clock_class(
        name="monotonic", frequency=1000000000,
        offset=bt2.ClockClassOffset(OFFSET_S, 0), origin_is_unix_epoch=True,
        uuid=uuid.UUID(bytes=bytes([uuid_byte] * 16)))
    ctx = tc.create_structure_field_class()
    ctx.append_member("cpu_id", tc.create_unsigned_integer_field_class(32))
    sc = tc.create_stream_class(
        default_clock_class=clock, supports_packets=True,
        packets_have_beginning_default_clock_snapshot=True,
        packets_have_end_default_clock_snapshot=True,
        packet_context_field_class=ctx, supports_discarded_events=True,
        discarded_events_have_default_clock_snapshots=not clockless)
    classes = {}
    # Only the event classes the trace uses (a guest has no kvm events).
    used = {kind for packets in layout.values() for packet in packets
            for kind, _, _ in packet[2]}
    for kind, members in FIELDS.items():
        if kind not in used:
            continue
        payload = tc.create_structure_field_class()
        for name, type_ in members:
            if type_ == "s":
                fc = tc.create_string_field_class()
            elif type_ == "u":
                fc = tc.create_unsigned_integer_field_class(64)
            else:
                fc = tc.create_signed_integer_field_class(64)
            payload.append_member(name, fc)
        classes[kind] = sc.create_event_class(name=kind, payload_field_class=payload)
    trace = tc()
    trace.environment["hostname"] = hostname
    trace.environment["domain"] = "kernel"
    for cpu in sorted(layout):
        stream = trace.create_stream(sc, user_attributes={"cpu": cpu})
        comp._add_output_port("cpu%d" % cpu, (stream, classes, layout[cpu], clockless))


@bt2.plugin_component_class
class host(bt2._UserSourceComponent, message_iterator_class=_Iter):
    def __init__(self, config, params, obj):
        clockless = "clockless" in params and bool(params["clockless"])
        _make(self, "host", 1, HOST, clockless)


@bt2.plugin_component_class
class guest(bt2._UserSourceComponent, message_iterator_class=_Iter):
    def __init__(self, config, params, obj):
        _make(self, "guest", 2, GUEST)
