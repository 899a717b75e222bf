"""Broken copies of CTF traces, made at test time, for the bad-trace tests.

Every damage is one a real trace gets: a recording or a copy cut short (a
stream file truncated inside a packet header, inside a packet context,
inside an event), a damaged or missing metadata file, a packet whose magic
number was overwritten. The damages work on the bytes alone, so that they
apply to the stub traces converted by sink.ctf.fs and to real LTTng traces
alike (whose metadata may be packetized: the metadata damages keep every
byte count, so that the metadata packets stay whole).
"""

import os
import re
import shutil
import struct

PACKET_MAGIC = struct.pack("<I", 0xC1FC1FC1)
METADATA_PACKET_MAGIC = struct.pack("<I", 0x75D11D57)


def stream_files(trace):
    """The stream files of a trace directory (everything but the metadata
    and the index folder), sorted."""
    return sorted(os.path.join(trace, name) for name in os.listdir(trace)
                  if name != "metadata" and not name.startswith(".")
                  and os.path.isfile(os.path.join(trace, name)))


def packet_starts(data):
    """Offsets of the packets of a stream file: where the CTF magic number
    is (sink.ctf.fs does not align packets; the first one is at 0). The
    number could also be in an event's payload: the traces used here have
    none there."""
    starts = []
    at = data.find(PACKET_MAGIC)
    while at >= 0:
        starts.append(at)
        at = data.find(PACKET_MAGIC, at + 1)
    return starts


def busiest_stream(trace):
    """(path, bytes, packet offsets) of the stream file with most packets."""
    best = None
    for path in stream_files(trace):
        with open(path, "rb") as f:
            data = f.read()
        starts = packet_starts(data)
        if starts and starts[0] == 0 and (best is None or len(starts) > len(best[2])):
            best = (path, data, starts)
    return best


def middle_packet(starts, size):
    """(begin, end) of a packet in the middle of the stream, not the first
    one when there are several: the packets before it decode, so the graph
    fails (or ends) mid-way rather than at its first message."""
    index = len(starts) // 2
    begin = starts[index]
    end = starts[index + 1] if index + 1 < len(starts) else size
    return begin, end


def _truncate(path, size):
    with open(path, "r+b") as f:
        f.truncate(size)


def cut_stream(trace, where):
    """Truncates the busiest stream file of `trace` inside its middle
    packet: `where` is "header" (inside the magic number and the UUID of
    the packet header), "context" (past the header, inside the packet
    context), "event" (half-way through the packet's content, inside
    event records) or "first-header" (inside the first packet's header:
    nothing of the file decodes)."""
    path, data, starts = busiest_stream(trace)
    begin, end = middle_packet(starts, len(data))
    if where == "header":
        size = begin + 6
    elif where == "context":
        # Both sink.ctf.fs' and LTTng's packet headers take 32 to 40 bytes;
        # their packet contexts are at least 40 bytes more.
        size = begin + 44
    elif where == "event":
        size = begin + max(88, (end - begin) // 2 + 3)
    elif where == "first-header":
        size = 10
    else:
        raise ValueError(where)
    _truncate(path, min(size, len(data) - 1))
    return path


def zero_magic(trace):
    """Overwrites the magic number of the busiest stream's middle packet."""
    path, data, starts = busiest_stream(trace)
    begin, _ = middle_packet(starts, len(data))
    with open(path, "r+b") as f:
        f.seek(begin)
        f.write(b"\0\0\0\0")
    return path


def garbage_in_events(trace):
    """Overwrites the second half of the busiest stream's middle packet
    with 0xff bytes: an event header with an event class id the metadata
    does not have, or a payload that runs past the packet. The packet
    header and context stay whole, so src.ctf.fs indexes the stream and
    only fails when it reaches the damage, mid-way through the graph (the
    middle packet is not the last one, which src.ctf.fs decodes at
    initialization to work around an LTTng bug)."""
    path, data, starts = busiest_stream(trace)
    if len(starts) < 3:
        raise ValueError("%s has %d packets, not 3 or more" % (path, len(starts)))
    begin, end = middle_packet(starts, len(data))
    middle = begin + (end - begin) // 2
    with open(path, "r+b") as f:
        f.seek(middle)
        f.write(b"\xff" * (end - middle))
    return path


def _metadata(trace):
    path = os.path.join(trace, "metadata")
    with open(path, "rb") as f:
        return path, f.read()


def _replace_same_length(data, pattern, make):
    """Replaces the first match of `pattern` by make(match), which must keep
    the length (packetized metadata has byte counts in its headers)."""
    match = re.search(pattern, data)
    if not match:
        raise ValueError("no %r in the metadata" % pattern)
    new = make(match)
    assert len(new) == len(match.group(0))
    return data[:match.start()] + new + data[match.end():]


def metadata_syntax_error(trace):
    """A stream block whose opening brace became garbage."""
    path, data = _metadata(trace)
    data = _replace_same_length(data, rb"stream \{", lambda m: b"stream @")
    with open(path, "wb") as f:
        f.write(data)
    return path


def metadata_wrong_event_field_type(trace):
    """sched_switch's `prev_tid` (an integer) declared as a string: the
    events decode, with a string where the analysis wants a number, and
    every later field of the event shifted."""
    path, data = _metadata(trace)
    data = _replace_same_length(
        data, rb"integer \{[ -|~\t\n]*?\} _prev_tid;",
        lambda m: b"string" + b" " * (len(m.group(0)) - len(b"string _prev_tid;")) +
        b" _prev_tid;")
    with open(path, "wb") as f:
        f.write(data)
    return path


def metadata_wrong_context_field_type(trace):
    """The packet context's `content_size` (an unsigned integer, directly or
    through a type alias) declared as a string: src.ctf.fs cannot size the
    packets."""
    path, data = _metadata(trace)
    data = _replace_same_length(
        data, rb"(?:integer \{[ -|~\t\n]*?\}|\w+) content_size;",
        lambda m: b"string" + b" " * (len(m.group(0)) - len(b"string content_size;")) +
        b" content_size;")
    with open(path, "wb") as f:
        f.write(data)
    return path


def truncate_metadata(trace):
    """The metadata cut half-way (inside a packet when it is packetized)."""
    path, data = _metadata(trace)
    _truncate(path, len(data) // 2 + 5)
    return path


def remove_metadata(trace):
    path, _ = _metadata(trace)
    os.remove(path)
    return path


# name: (damage, argument or None)
DAMAGES = {
    "cut-in-packet-header": (cut_stream, "header"),
    "cut-in-packet-context": (cut_stream, "context"),
    "cut-in-event": (cut_stream, "event"),
    "cut-in-first-packet-header": (cut_stream, "first-header"),
    "zeroed-packet-magic": (zero_magic, None),
    "garbage-in-events": (garbage_in_events, None),
    "metadata-syntax-error": (metadata_syntax_error, None),
    "metadata-wrong-event-field-type": (metadata_wrong_event_field_type, None),
    "metadata-wrong-context-field-type": (metadata_wrong_context_field_type, None),
    "metadata-truncated": (truncate_metadata, None),
    "metadata-removed": (remove_metadata, None),
}


def broken_copy(trace, damage, out_dir):
    """Copies trace directory `trace` to `out_dir` (replaced) and applies
    the damage named `damage` (a key of DAMAGES) to the copy."""
    shutil.rmtree(out_dir, ignore_errors=True)
    shutil.copytree(trace, out_dir)
    # Shared traces are read-only: the copy must take the damage.
    for root, dirs, files in os.walk(out_dir):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o755 if name in dirs else 0o644)
    os.chmod(out_dir, 0o755)
    func, arg = DAMAGES[damage]
    if arg is None:
        func(out_dir)
    else:
        func(out_dir, arg)
    return out_dir
