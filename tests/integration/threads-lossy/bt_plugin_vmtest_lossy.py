"""source.vmtestlossy.lossy: a one-CPU kernel-like trace (hostname `lossy`)
whose tracer lost events twice between sched_switch events, for the test of
sink.vm.threads' discarded-events warning."""

import bt2

bt2.register_plugin(__name__, "vmtestlossy")

OFFSET_S = 1600000000


class _LossyIter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        stream, self._timeless = port.user_data
        self._messages = self._build(stream)

    def _discarded(self, stream, count, begin, end):
        if self._timeless:
            return self._create_discarded_events_message(stream, count)
        return self._create_discarded_events_message(stream, count, begin, end)

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
            self._discarded(stream, 3, 20, 30),
            self._event(packet, switch, 40, 100, 200),
            self._discarded(stream, 2, 40, 45),
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
        # timeless=true: discarded-events messages without clock snapshots
        timeless = bool(params["timeless"]) if "timeless" in params else False
        tc = self._create_trace_class()
        clock = self._create_clock_class(name="monotonic", frequency=1000000000,
                                         offset=bt2.ClockClassOffset(OFFSET_S, 0))
        ctx = tc.create_structure_field_class()
        ctx.append_member("cpu_id", tc.create_unsigned_integer_field_class(32))
        sc = tc.create_stream_class(default_clock_class=clock,
                                    supports_packets=True,
                                    packet_context_field_class=ctx,
                                    supports_discarded_events=True,
                                    discarded_events_have_default_clock_snapshots=not timeless)
        payload = tc.create_structure_field_class()
        for name, kind in (("prev_comm", "s"), ("prev_tid", "i"), ("prev_prio", "i"),
                           ("prev_state", "i"), ("next_comm", "s"), ("next_tid", "i"),
                           ("next_prio", "i")):
            payload.append_member(name, tc.create_string_field_class() if kind == "s"
                                  else tc.create_signed_integer_field_class(64))
        sc.create_event_class(name="sched_switch", payload_field_class=payload)
        trace = tc()
        trace.environment["hostname"] = "lossy"
        self._add_output_port("out", (trace.create_stream(sc), timeless))


# source.vmtestlossy.ctflike: discarded-events messages placed as src.ctf.fs
# places them for lttng-modules traces: right before the packet whose
# events_discarded counter grew, with the range [end of the packet before,
# end of that packet]. Two CPUs, one stream (and one output port) each; the
# test puts filter.utils.muxer after it.
#
# Each stream: a list of packets (begin, end, discarded, events) where
# `discarded` is None (no loss), an int, or "uncounted" (a message without
# count); events are ("switch", ts, prev_tid, prev_state, next_tid) or
# ("wakeup", ts, tid).
CTFLIKE_STREAMS = {
    0: [
        (0, 100, None, [("switch", 10, 0, 0, 100), ("switch", 50, 100, 0, 200)]),
        (100, 300, 4, [("switch", 150, 200, 1, 100), ("wakeup", 180, 200)]),
        (300, 500, None, [("switch", 350, 100, 1, 0), ("wakeup", 450, 100)]),
    ],
    1: [
        (0, 260, None, [("switch", 20, 0, 0, 400), ("switch", 250, 400, 0, 0)]),
        (260, 500, "uncounted", [("switch", 270, 0, 0, 400)]),
    ],
}


def _comm(tid):
    return "swapper" if tid == 0 else "t%d" % tid


class _CtfLikeIter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        stream, cpu = port.user_data
        self._messages = self._build(stream, cpu)

    def _switch(self, packet, ts, prev_tid, prev_state, next_tid):
        msg = self._create_event_message(self._classes["sched_switch"], packet, ts)
        payload = msg.event.payload_field
        payload["prev_comm"] = _comm(prev_tid)
        payload["prev_tid"] = prev_tid
        payload["prev_prio"] = 20
        payload["prev_state"] = prev_state
        payload["next_comm"] = _comm(next_tid)
        payload["next_tid"] = next_tid
        payload["next_prio"] = 20
        return msg

    def _wakeup(self, packet, ts, tid):
        msg = self._create_event_message(self._classes["sched_wakeup"], packet, ts)
        payload = msg.event.payload_field
        payload["comm"] = _comm(tid)
        payload["tid"] = tid
        payload["prio"] = 20
        payload["target_cpu"] = 0
        return msg

    def _build(self, stream, cpu):
        self._classes = {ec.name: ec for ec in stream.cls.values()}
        messages = [self._create_stream_beginning_message(stream)]
        previous_end = None
        for begin, end, discarded, events in CTFLIKE_STREAMS[cpu]:
            if discarded is not None:
                count = None if discarded == "uncounted" else discarded
                messages.append(self._create_discarded_events_message(
                    stream, count, previous_end, end))
            packet = stream.create_packet()
            packet.context_field["cpu_id"] = cpu
            messages.append(self._create_packet_beginning_message(packet, begin))
            for event in events:
                if event[0] == "switch":
                    messages.append(self._switch(packet, *event[1:]))
                else:
                    messages.append(self._wakeup(packet, *event[1:]))
            messages.append(self._create_packet_end_message(packet, end))
            previous_end = end
        messages.append(self._create_stream_end_message(stream))
        return messages

    def __next__(self):
        if not self._messages:
            raise StopIteration
        return self._messages.pop(0)


@bt2.plugin_component_class
class ctflike(bt2._UserSourceComponent, message_iterator_class=_CtfLikeIter):
    def __init__(self, config, params, obj):
        tc = self._create_trace_class()
        clock = self._create_clock_class(name="monotonic", frequency=1000000000,
                                         offset=bt2.ClockClassOffset(OFFSET_S, 0))
        ctx = tc.create_structure_field_class()
        ctx.append_member("cpu_id", tc.create_unsigned_integer_field_class(32))
        sc = tc.create_stream_class(default_clock_class=clock,
                                    supports_packets=True,
                                    packets_have_beginning_default_clock_snapshot=True,
                                    packets_have_end_default_clock_snapshot=True,
                                    packet_context_field_class=ctx,
                                    supports_discarded_events=True,
                                    discarded_events_have_default_clock_snapshots=True)
        switch = tc.create_structure_field_class()
        for name, kind in (("prev_comm", "s"), ("prev_tid", "i"), ("prev_prio", "i"),
                           ("prev_state", "i"), ("next_comm", "s"), ("next_tid", "i"),
                           ("next_prio", "i")):
            switch.append_member(name, tc.create_string_field_class() if kind == "s"
                                 else tc.create_signed_integer_field_class(64))
        sc.create_event_class(name="sched_switch", payload_field_class=switch)
        wakeup = tc.create_structure_field_class()
        for name, kind in (("comm", "s"), ("tid", "i"), ("prio", "i"),
                           ("target_cpu", "i")):
            wakeup.append_member(name, tc.create_string_field_class() if kind == "s"
                                 else tc.create_signed_integer_field_class(64))
        sc.create_event_class(name="sched_wakeup", payload_field_class=wakeup)
        trace = tc()
        trace.environment["hostname"] = "ctflike"
        for cpu in sorted(CTFLIKE_STREAMS):
            stream = trace.create_stream(sc)
            self._add_output_port("cpu%d" % cpu, (stream, cpu))
