"""source.vmtestlossy.lossy: a one-CPU kernel-like trace (hostname `lossy`)
whose tracer lost events twice between sched_switch events, for the test of
sink.vm.threads' discarded-events warning."""

import bt2

bt2.register_plugin(__name__, "vmtestlossy")

OFFSET_S = 1600000000


class _LossyIter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        self._messages = self._build(port.user_data)

    def _event(self, packet, event_class, ts, prev_tid, next_tid):
        msg = self._create_event_message(event_class, packet, ts)
        msg.event.payload_field["prev_comm"] = "t%d" % prev_tid
        msg.event.payload_field["prev_tid"] = prev_tid
        msg.event.payload_field["prev_prio"] = 20
        msg.event.payload_field["prev_state"] = 1
        msg.event.payload_field["next_comm"] = "t%d" % next_tid
        msg.event.payload_field["next_tid"] = next_tid
        msg.event.payload_field["next_prio"] = 20
        return msg

    def _build(self, stream):
        switch = stream.cls[0]
        packet = stream.create_packet()
        packet.context_field["cpu_id"] = 0
        return [
            self._create_stream_beginning_message(stream),
            self._create_packet_beginning_message(packet),
            self._event(packet, switch, 10, 0, 100),
            self._create_discarded_events_message(stream, 3, 20, 30),
            self._event(packet, switch, 40, 100, 200),
            self._create_discarded_events_message(stream, 2, 40, 45),
            self._event(packet, switch, 50, 200, 0),
            self._create_packet_end_message(packet),
            self._create_stream_end_message(stream),
        ]

    def __next__(self):
        if not self._messages:
            raise StopIteration
        return self._messages.pop(0)


@bt2.plugin_component_class
class lossy(bt2._UserSourceComponent, message_iterator_class=_LossyIter):
    def __init__(self, config, params, obj):
        tc = self._create_trace_class()
        clock = self._create_clock_class(name="monotonic", frequency=1000000000,
                                         offset=bt2.ClockClassOffset(OFFSET_S, 0))
        ctx = tc.create_structure_field_class()
        ctx.append_member("cpu_id", tc.create_unsigned_integer_field_class(32))
        sc = tc.create_stream_class(default_clock_class=clock,
                                    supports_packets=True,
                                    packet_context_field_class=ctx,
                                    supports_discarded_events=True,
                                    discarded_events_have_default_clock_snapshots=True)
        payload = tc.create_structure_field_class()
        for name, kind in (("prev_comm", "s"), ("prev_tid", "i"), ("prev_prio", "i"),
                           ("prev_state", "i"), ("next_comm", "s"), ("next_tid", "i"),
                           ("next_prio", "i")):
            payload.append_member(name, tc.create_string_field_class() if kind == "s"
                                  else tc.create_signed_integer_field_class(64))
        sc.create_event_class(name="sched_switch", payload_field_class=payload)
        trace = tc()
        trace.environment["hostname"] = "lossy"
        self._add_output_port("out", trace.create_stream(sc))
