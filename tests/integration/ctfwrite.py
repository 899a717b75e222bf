"""A tiny CTF 1.8 writer for the bad-input tests: traces that the stub
converter cannot express on purpose (no clock class at all, packets whose
end time overlaps the next packet, as lttng-modules 2.1 wrote them)."""

import os
import struct

MAGIC = 0xC1FC1FC1

_COMMON = """/* CTF 1.8 */
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace {
	major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; };
};
env {
	hostname = "%(hostname)s";
%(tracer)s};
"""

_CLOCK = """clock {
	name = "monotonic";
	uuid = "%(uuid)s";
	freq = 1000000000;
	offset_s = %(offset_s)d;
	offset = 0;
	absolute = false;
};
typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_t;
stream {
	id = 0;
	packet.context := struct {
		uint64_clock_t timestamp_begin;
		uint64_clock_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
	};
	event.header := struct { uint32_t id; uint64_clock_t timestamp; };
};
"""

_NO_CLOCK = """stream {
	id = 0;
	packet.context := struct { uint64_t content_size; uint64_t packet_size; };
	event.header := struct { uint32_t id; };
};
"""

_EVENT = """event { name = "tick"; id = 0; stream_id = 0; fields := struct { uint32_t value; }; };
"""


def write_trace(path, hostname, packets, uuid=None, offset_s=1600000000):
    """Writes a one-stream trace. `packets`: [(begin, end, [event times])];
    without `uuid` the trace has no clock class (times are then ignored)."""
    os.makedirs(path, exist_ok=True)
    # src.ctf.fs 2.0.4 asserts on an LTTng trace without clock: only a
    # clocked trace says it comes from LTTng.
    tracer = ('\tdomain = "kernel";\n\ttracer_name = "lttng-modules";\n'
              '\ttracer_major = 2;\n\ttracer_minor = 1;\n') if uuid else ""
    values = {"hostname": hostname, "uuid": uuid, "offset_s": offset_s, "tracer": tracer}
    metadata = _COMMON % values + ((_CLOCK % values) if uuid else _NO_CLOCK) + _EVENT
    with open(os.path.join(path, "metadata"), "w") as f:
        f.write(metadata)
    data = b""
    counter = 0
    for begin, end, times in packets:
        events = b""
        for t in times:
            counter += 1
            events += struct.pack("<IQI", 0, t, counter) if uuid else \
                struct.pack("<II", 0, counter)
        header = struct.pack("<II", MAGIC, 0)
        context_size = 32 if uuid else 16
        size_bits = (len(header) + context_size + len(events)) * 8
        if uuid:
            context = struct.pack("<QQQQ", begin, end, size_bits, size_bits)
        else:
            context = struct.pack("<QQ", size_bits, size_bits)
        data += header + context + events
    with open(os.path.join(path, "stream_0"), "wb") as f:
        f.write(data)
    return path
