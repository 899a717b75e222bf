"""src.vmtestkinds.kinds: a source that emits what real LTTng traces lack.

Every field class kind of babeltrace2 2.0 (booleans, bit arrays, integers
with ranges and display bases, enumerations, reals, strings, static and
dynamic arrays with and without length field, options and variants with and
without selectors, length and selector fields reached through an array
element and an option content), user attributes, event class log levels and
EMF URIs, and every message type: packets, discarded events and packets
with and without times, message iterator inactivity, stream beginning/end
with known and unknown times, and a stream class without any clock.

The clock runs at 1 MHz with an offset, so that converting its values to
the mirror's 1 GHz Unix-epoch clock is not the identity.

Parameters: `with-option-paths` (boolean, default false): see
_payload_class(); `clock-offset-s` (integer, default 1700000000): the clock's
offset in seconds.

Test-only: loaded with `babeltrace2 --plugin-path=tests/mirrortest`.
"""

import uuid

import bt2

bt2.register_plugin(__name__, "vmtestkinds")

U = bt2.UnsignedIntegerRangeSet
S = bt2.SignedIntegerRangeSet


def _payload_class(tc, option_paths):
    """One structure with a member of every kind.

    With `option_paths`, also a selector field reached through an option's
    content, a field path that sink.text.details 2.0 cannot print (it
    aborts): test that one with sink.text.pretty."""
    fc = tc.create_structure_field_class(user_attributes={"why": "all kinds"})
    fc.append_member("flag", tc.create_bool_field_class())
    fc.append_member("bits", tc.create_bit_array_field_class(13))
    fc.append_member("u8", tc.create_unsigned_integer_field_class(
        8, bt2.IntegerDisplayBase.HEXADECIMAL))
    fc.append_member("s17", tc.create_signed_integer_field_class(
        17, bt2.IntegerDisplayBase.OCTAL), user_attributes={"unit": "none"})
    fc.append_member("s64", tc.create_signed_integer_field_class(64))
    fc.append_member("ubin", tc.create_unsigned_integer_field_class(
        5, bt2.IntegerDisplayBase.BINARY))
    uenum = tc.create_unsigned_enumeration_field_class(32)
    uenum.add_mapping("low", U([(0, 0), (5, 9)]))
    uenum.add_mapping("mid", U([(3, 7)]))
    uenum.add_mapping("high", U([(1 << 31, (1 << 32) - 1)]))
    fc.append_member("uenum", uenum)
    senum = tc.create_signed_enumeration_field_class(
        16, bt2.IntegerDisplayBase.HEXADECIMAL)
    senum.add_mapping("negative", S([(-32768, -1)]))
    senum.add_mapping("zero", S([(0, 0)]))
    fc.append_member("senum", senum)
    fc.append_member("f32", tc.create_single_precision_real_field_class())
    fc.append_member("f64", tc.create_double_precision_real_field_class())
    fc.append_member("str", tc.create_string_field_class())
    fc.append_member("static", tc.create_static_array_field_class(
        tc.create_unsigned_integer_field_class(16), 3))
    length = tc.create_unsigned_integer_field_class(8)
    fc.append_member("len", length)
    fc.append_member("dyn", tc.create_dynamic_array_field_class(
        tc.create_string_field_class(), length))
    fc.append_member("dyn_nolen", tc.create_dynamic_array_field_class(
        tc.create_signed_integer_field_class(32)))
    fc.append_member("opt", tc.create_option_without_selector_field_class(
        tc.create_string_field_class()))
    bool_sel = tc.create_bool_field_class()
    fc.append_member("bool_sel", bool_sel)
    fc.append_member("opt_bool", tc.create_option_with_bool_selector_field_class(
        tc.create_unsigned_integer_field_class(8), bool_sel))
    fc.append_member("opt_bool_rev", tc.create_option_with_bool_selector_field_class(
        tc.create_string_field_class(), bool_sel, selector_is_reversed=True))
    u_sel = tc.create_unsigned_integer_field_class(8)
    fc.append_member("u_sel", u_sel)
    fc.append_member("opt_u", tc.create_option_with_integer_selector_field_class(
        tc.create_double_precision_real_field_class(), u_sel, U([(1, 3), (7, 7)])))
    s_sel = tc.create_signed_integer_field_class(8)
    fc.append_member("s_sel", s_sel)
    fc.append_member("opt_s", tc.create_option_with_integer_selector_field_class(
        tc.create_bool_field_class(), s_sel, S([(-5, -1)])))
    var = tc.create_variant_field_class()
    var.append_option("number", tc.create_unsigned_integer_field_class(32))
    var.append_option("text", tc.create_string_field_class(),
                      user_attributes={"option": "text"})
    fc.append_member("var", var)
    var_u = tc.create_variant_field_class(u_sel)
    var_u.append_option("small", tc.create_signed_integer_field_class(8), U([(0, 3)]))
    var_u.append_option("large", tc.create_string_field_class(), U([(4, 255)]))
    fc.append_member("var_u", var_u)
    var_s = tc.create_variant_field_class(s_sel)
    var_s.append_option("neg", tc.create_string_field_class(), S([(-128, -1)]))
    var_s.append_option("pos", tc.create_bit_array_field_class(4), S([(0, 127)]))
    fc.append_member("var_s", var_s)
    # Length and selector fields inside an array element (and an option).
    elem = tc.create_structure_field_class()
    n = tc.create_unsigned_integer_field_class(8)
    elem.append_member("n", n)
    elem.append_member("items", tc.create_dynamic_array_field_class(
        tc.create_unsigned_integer_field_class(8), n))
    fc.append_member("elems", tc.create_static_array_field_class(elem, 2))
    if not option_paths:
        return fc
    inner = tc.create_structure_field_class()
    inner_sel = tc.create_unsigned_integer_field_class(8)
    inner.append_member("sel", inner_sel)
    inner_var = tc.create_variant_field_class(inner_sel)
    inner_var.append_option("a", tc.create_string_field_class(), U([(0, 0)]))
    inner_var.append_option("b", tc.create_signed_integer_field_class(64), U([(1, 1)]))
    inner.append_member("which", inner_var)
    fc.append_member("boxed", tc.create_option_without_selector_field_class(inner))
    return fc


def _fill_payload(payload, i):
    """Values that change with i, so that options and variants take both paths."""
    payload["flag"] = i % 2 == 0
    payload["bits"].value_as_integer = (0x1ABC + i) & 0x1FFF
    payload["u8"] = (0xA5 + i) & 0xFF
    payload["s17"] = -65536 + i
    payload["s64"] = -(1 << 63) if i == 0 else (1 << 63) - i
    payload["ubin"] = i & 0x1F
    payload["uenum"] = [0, 5, 3, 1 << 31, 42][i % 5]
    payload["senum"] = [-32768, 0, 17][i % 3]
    payload["f32"] = 1.5 + i
    payload["f64"] = -2.25 * (i + 1) + 1e-6
    payload["str"] = "value %d: héllo" % i
    payload["static"] = [i, i + 1, 65535]
    items = ["s%d" % k for k in range(i % 4)]
    payload["len"] = len(items)
    payload["dyn"] = items
    payload["dyn_nolen"] = list(range(-i, 0))
    if i % 2:
        payload["opt"].value = "present"
    else:
        payload["opt"].has_field = False
    payload["bool_sel"] = i % 3 == 0
    # Every option is set: babeltrace2 recycles event messages with their fields.
    if i % 3 == 0:
        payload["opt_bool"].value = i
        payload["opt_bool_rev"].has_field = False
    else:
        payload["opt_bool"].has_field = False
        payload["opt_bool_rev"].value = "reversed"
    u_sel = [0, 2, 7, 9][i % 4]
    payload["u_sel"] = u_sel
    if u_sel in (2, 7):
        payload["opt_u"].value = 0.125 * i
    else:
        payload["opt_u"].has_field = False
    s_sel = [-3, 5][i % 2]
    payload["s_sel"] = s_sel
    if s_sel < 0:
        payload["opt_s"].value = True
    else:
        payload["opt_s"].has_field = False
    payload["var"].selected_option_index = i % 2
    payload["var"].value = 7 * i if i % 2 == 0 else "text %d" % i
    payload["var_u"].selected_option_index = 0 if u_sel <= 3 else 1
    payload["var_u"].value = -i if u_sel <= 3 else "large %d" % u_sel
    if s_sel < 0:
        payload["var_s"].selected_option_index = 0
        payload["var_s"].value = "negative"
    else:
        payload["var_s"].selected_option_index = 1
        payload["var_s"].selected_option.value_as_integer = 0xA
    for k, elem in enumerate(payload["elems"]):
        values = list(range(k + i % 3))
        elem["n"] = len(values)
        elem["items"] = values
    if "boxed" not in payload:
        return
    if i % 2:
        boxed = payload["boxed"]
        boxed.has_field = True
        boxed.field["sel"] = i % 2
        boxed.field["which"].selected_option_index = i % 2
        boxed.field["which"].value = -123456789 * i
    else:
        payload["boxed"].has_field = False


class _KindsIterator(bt2._UserMessageIterator):
    # Messages are made one at a time: some metadata appears mid-stream.
    def __init__(self, config, output_port):
        self._make_messages = output_port.user_data
        self._messages = self._make_messages(self)

    def _user_can_seek_beginning(self):
        return True

    def _user_seek_beginning(self):
        # The same streams again, with new packets, as src.ctf.fs does.
        self._messages = self._make_messages(self)

    def __next__(self):
        return next(self._messages)


@bt2.plugin_component_class
class _KindsSource(bt2._UserSourceComponent,
                   message_iterator_class=_KindsIterator,
                   name="kinds"):
    def __init__(self, config, params, obj):
        option_paths = params.get("with-option-paths")
        option_paths = bool(option_paths) if option_paths is not None else False
        offset_s = params.get("clock-offset-s")
        offset_s = int(offset_s) if offset_s is not None else 1700000000
        tc = self._create_trace_class(user_attributes={"source": "kinds"},
                                      assigns_automatic_stream_class_id=False)
        clock = self._create_clock_class(
            frequency=1000000, name="kinds-clock",
            offset=bt2.ClockClassOffset(offset_s, 250000),
            origin_is_unix_epoch=True)
        packet_context = tc.create_structure_field_class()
        packet_context.append_member("cpu", tc.create_unsigned_integer_field_class(32))
        packet_context.append_member("packet_bits", tc.create_bit_array_field_class(8))
        common_context = tc.create_structure_field_class()
        common_context.append_member("tid", tc.create_signed_integer_field_class(32))
        self._timed_class = tc.create_stream_class(
            id=3, name="timed", default_clock_class=clock,
            user_attributes={"stream class": 1},
            assigns_automatic_event_class_id=False,
            assigns_automatic_stream_id=False,
            packet_context_field_class=packet_context,
            event_common_context_field_class=common_context,
            supports_packets=True,
            packets_have_beginning_default_clock_snapshot=True,
            packets_have_end_default_clock_snapshot=True,
            supports_discarded_events=True,
            discarded_events_have_default_clock_snapshots=True,
            supports_discarded_packets=True,
            discarded_packets_have_default_clock_snapshots=True)
        specific_context = tc.create_structure_field_class()
        specific_context.append_member("seq", tc.create_unsigned_integer_field_class(64))
        self._all_kinds = self._timed_class.create_event_class(
            id=17, name="all_kinds", log_level=bt2.EventClassLogLevel.DEBUG_LINE,
            emf_uri="https://example.org/all_kinds",
            user_attributes={"event class": "all kinds"},
            specific_context_field_class=specific_context,
            payload_field_class=_payload_class(tc, option_paths))
        self._bare = self._timed_class.create_event_class(id=2, name="bare")
        # No clock, no packets: messages without any time.
        untimed_class = tc.create_stream_class(
            id=8, name="untimed", assigns_automatic_event_class_id=False,
            assigns_automatic_stream_id=False,
            supports_discarded_events=True)
        self._untimed_event = untimed_class.create_event_class(
            id=0, name="untimed_event", payload_field_class=_payload_class(tc, option_paths))
        self._clock = clock
        trace = tc(name="kinds-trace", uuid=uuid.UUID("01234567-89ab-cdef-0123-456789abcdef"),
                   environment={"hostname": "kinds-host", "cpus": 4,
                                "negative": -12, "tracer_name": "kinds"},
                   user_attributes={"trace": "attrs"})
        self._timed = trace.create_stream(self._timed_class, id=5, name="timed-5",
                                          user_attributes={"stream": 1})
        self._untimed = trace.create_stream(untimed_class, id=9, name="untimed-9")
        self._trace = trace
        # Created during the iteration, after the mirror copied the rest.
        self._late_class = None
        self._late_stream = None
        self._add_output_port("out", self._messages)

    def _event(self, it, packet, when, i):
        msg = it._create_event_message(self._all_kinds, packet, when)
        msg.event.common_context_field["tid"] = 100 + i
        msg.event.specific_context_field["seq"] = i
        _fill_payload(msg.event.payload_field, i)
        return msg

    def _late_messages(self, it):
        """An event class and a stream that appear mid-iteration (as with
        LTTng live), and stream beginning/end messages with unknown times."""
        if self._late_class is None:
            payload = self._trace.cls.create_structure_field_class()
            payload.append_member("late", self._trace.cls.create_string_field_class())
            self._late_class = self._timed_class.create_event_class(
                id=40, name="late", payload_field_class=payload)
            self._late_stream = self._trace.create_stream(
                self._timed_class, id=6, name="timed-6")
        stream = self._late_stream
        yield it._create_stream_beginning_message(stream)
        packet = stream.create_packet()
        packet.context_field["cpu"] = 2
        packet.context_field["packet_bits"].value_as_integer = 0x42
        yield it._create_packet_beginning_message(packet, 1031)
        msg = it._create_event_message(self._late_class, packet, 1032)
        msg.event.common_context_field["tid"] = 9
        msg.event.payload_field["late"] = "created mid-iteration"
        yield msg
        yield it._create_packet_end_message(packet, 1033)
        yield it._create_stream_end_message(stream)

    def _messages(self, it):
        timed, untimed = self._timed, self._untimed
        yield it._create_stream_beginning_message(timed, 1000)
        yield it._create_stream_beginning_message(untimed)
        packet = timed.create_packet()
        packet.context_field["cpu"] = 3
        packet.context_field["packet_bits"].value_as_integer = 0x81
        yield it._create_packet_beginning_message(packet, 1000)
        for i in range(6):
            yield self._event(it, packet, 1010 + i, i)
            msg = it._create_event_message(self._untimed_event, untimed)
            _fill_payload(msg.event.payload_field, i + 6)
            yield msg
        bare = it._create_event_message(self._bare, packet, 1020)
        bare.event.common_context_field["tid"] = 7
        yield bare
        yield it._create_message_iterator_inactivity_message(self._clock, 1025)
        yield it._create_discarded_events_message(timed, 12, 1020, 1030)
        yield it._create_discarded_events_message(untimed, 3)
        bare = it._create_event_message(self._bare, packet, 1030)
        bare.event.common_context_field["tid"] = 8
        yield bare
        yield from self._late_messages(it)
        yield it._create_packet_end_message(packet, 1040)
        yield it._create_discarded_packets_message(timed, 2, 1040, 1050)
        packet = timed.create_packet()
        packet.context_field["cpu"] = 1
        packet.context_field["packet_bits"].value_as_integer = 0
        yield it._create_packet_beginning_message(packet, 1050)
        yield self._event(it, packet, 1060, 6)
        yield it._create_packet_end_message(packet, 1070)
        yield it._create_discarded_packets_message(timed, None, 1070, 1080)
        yield it._create_stream_end_message(timed, 1090)
        yield it._create_stream_end_message(untimed)
