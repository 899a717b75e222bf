"""A one-machine LTTng-like CTF trace whose events carry the `pid_ns`
context (`lttng add-context -k -t pid_ns`), which stubs cannot express:
two CPUs, scheduler switches and `tick` events (a kind the analysis does
not decode). Written by hand (CTF 1.8), as ctfwrite.py does."""

import os
import struct

MAGIC = 0xC1FC1FC1

_METADATA = """/* CTF 1.8 */
typealias integer { size = 32; align = 8; signed = false; } := uint32_t;
typealias integer { size = 32; align = 8; signed = true; } := int32_t;
typealias integer { size = 64; align = 8; signed = true; } := int64_t;
typealias integer { size = 64; align = 8; signed = false; } := uint64_t;
trace {
	major = 1; minor = 8; byte_order = le;
	packet.header := struct { uint32_t magic; uint32_t stream_id; };
};
env {
	hostname = "%(hostname)s";
	domain = "kernel";
	tracer_name = "lttng-modules";
	tracer_major = 2;
	tracer_minor = 12;
};
clock {
	name = "monotonic";
	uuid = "5a1c4e2e-0d5e-4c1e-9a43-6f1d2b3c4d5e";
	freq = 1000000000;
	offset_s = 1600000000;
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
		uint32_t cpu_id;
	};
	event.header := struct { uint32_t id; uint64_clock_t timestamp; };
	event.context := struct { uint64_t _pid_ns; };
};
event {
	name = "sched_switch"; id = 0; stream_id = 0;
	fields := struct {
		string _prev_comm; int32_t _prev_tid; int32_t _prev_prio; int64_t _prev_state;
		string _next_comm; int32_t _next_tid; int32_t _next_prio;
	};
};
event { name = "tick"; id = 1; stream_id = 0; fields := struct { uint32_t _value; }; };
"""


def _switch(prev, prev_state, nxt):
    return (0, struct.pack("<%dsxiiq" % len(prev[0]), prev[0].encode(), prev[1], 20,
                           prev_state) +
            struct.pack("<%dsxii" % len(nxt[0]), nxt[0].encode(), nxt[1], 20))


def switch(t, pid_ns, prev, nxt, prev_state=0):
    """A sched_switch at t from `prev` to `next` ((comm, tid) each)."""
    return (t, pid_ns) + _switch(prev, prev_state, nxt)


def tick(t, pid_ns):
    return (t, pid_ns, 1, struct.pack("<I", 0))


def write_trace(path, hostname, cpus):
    """`cpus`: {cpu: [events of switch() / tick()]}, one packet per CPU."""
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "metadata"), "w") as f:
        f.write(_METADATA % {"hostname": hostname})
    for cpu, events in cpus.items():
        body = b"".join(struct.pack("<IQQ", event_id, t, pid_ns) + payload
                        for t, pid_ns, event_id, payload in events)
        header = struct.pack("<II", MAGIC, 0)
        size_bits = (len(header) + 36 + len(body)) * 8
        context = struct.pack("<QQQQI", events[0][0], events[-1][0], size_bits,
                              size_bits, cpu)
        with open(os.path.join(path, "stream_%d" % cpu), "wb") as f:
            f.write(header + context + body)
    return path
