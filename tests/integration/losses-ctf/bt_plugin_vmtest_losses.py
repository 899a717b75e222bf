"""source.vmtestlosses.machine: a two-CPU kernel-like trace whose tracer lost
events the way lttng-modules does (the packet that overflowed stays open and
the first event after the gap closes it, its events_discarded counter counts
them), as src.ctf.fs reports it: a discarded-events message before that
packet, with the range [end of the packet before, end of that packet] and
the count. Written with sink.ctf.fs, it is a CTF trace with real counters.

Parameters: `hostname` (string), `uuid-byte` (integer, makes the clock UUID
unique), `shift-ns` (integer, moves every time)."""

import uuid

import bt2

bt2.register_plugin(__name__, "vmtestlosses")

OFFSET_S = 1600000000

# Per CPU: packets as (begin, end, [event times], discarded before it).
LAYOUT = {
    0: [(1000, 1200, [1000, 1100, 1200], 0),
        (1210, 1600, [1210, 1300], 4),      # gap 1300 -> 1600
        (1600, 1900, [1600, 1700, 1900], 0)],
    1: [(1050, 1250, [1050, 1250], 0),
        (1260, 1500, [1260, 1400, 1450], 0),
        (1510, 1800, [1510], 2),            # gap 1510 -> 1800
        (1800, 1950, [1800, 1950], 0)],
}


class _Iter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        stream, cpu, shift = port.user_data
        self._messages = list(self._build(stream, cpu, shift))

    def _event(self, packet, event_class, ts, cpu):
        msg = self._create_event_message(event_class, packet, ts)
        msg.event.payload_field["prev_comm"] = "a"
        msg.event.payload_field["prev_tid"] = 100 + cpu
        msg.event.payload_field["prev_state"] = 0
        msg.event.payload_field["next_comm"] = "a"
        msg.event.payload_field["next_tid"] = 100 + cpu
        return msg

    def _build(self, stream, cpu, shift):
        switch = stream.cls[0]
        yield self._create_stream_beginning_message(stream)
        prev_end = None
        for begin, end, events, lost in LAYOUT[cpu]:
            if lost:
                yield self._create_discarded_events_message(
                    stream, lost, prev_end + shift, end + shift)
            packet = stream.create_packet()
            packet.context_field["cpu_id"] = cpu
            yield self._create_packet_beginning_message(packet, begin + shift)
            for ts in events:
                yield self._event(packet, switch, ts + shift, cpu)
            yield self._create_packet_end_message(packet, end + shift)
            prev_end = end
        yield self._create_stream_end_message(stream)

    def __next__(self):
        if not self._messages:
            raise StopIteration
        return self._messages.pop(0)


@bt2.plugin_component_class
class machine(bt2._UserSourceComponent, message_iterator_class=_Iter):
    def __init__(self, config, params, obj):
        hostname = str(params["hostname"])
        shift = int(params["shift-ns"]) if "shift-ns" in params else 0
        uuid_byte = int(params["uuid-byte"]) if "uuid-byte" in params else 1
        tc = self._create_trace_class()
        clock = self._create_clock_class(
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
            discarded_events_have_default_clock_snapshots=True)
        payload = tc.create_structure_field_class()
        for name, kind in (("prev_comm", "s"), ("prev_tid", "i"), ("prev_state", "i"),
                           ("next_comm", "s"), ("next_tid", "i")):
            payload.append_member(name, tc.create_string_field_class() if kind == "s"
                                  else tc.create_signed_integer_field_class(64))
        sc.create_event_class(name="sched_switch", payload_field_class=payload)
        trace = tc()
        trace.environment["hostname"] = hostname
        trace.environment["domain"] = "kernel"
        for cpu in sorted(LAYOUT):
            self._add_output_port("cpu%d" % cpu, (trace.create_stream(sc), cpu, shift))
