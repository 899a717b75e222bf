"""Parser of the stub trace format (stub-traces/README.md), for tests.

    stub = stubfile.parse("stub-traces/one-qemu-kvm/host.stub")
    stub.hostname, stub.clock_offset_s, stub.clock_uuid, ...
    for event in stub.events:
        event.ts, event.cpu, event.name, event.fields   # fields: the full payload

`event.fields` holds every payload field of the event (omitted ones as 0 or
""), in payload order; `event.given` only those the line wrote. The types of
the built-in events are read from the table of stub-traces/README.md, which
is the format's specification.
"""

import hashlib
import os
import re
import uuid as uuidlib

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                      "stub-traces", "README.md")

INTEGER_TYPES = {
    # name: (signed, bits, display base)
    "s8": (True, 8, 10), "s16": (True, 16, 10), "s32": (True, 32, 10), "s64": (True, 64, 10),
    "u8": (False, 8, 10), "u16": (False, 16, 10), "u32": (False, 32, 10),
    "u64": (False, 64, 10),
    "x8": (False, 8, 16), "x16": (False, 16, 16), "x32": (False, 32, 16),
    "x64": (False, 64, 16),
}
TYPES = set(INTEGER_TYPES) | {"string"} | {t + "[]" for t in INTEGER_TYPES}


def is_sequence(ftype):
    """`s32[]` and the like: a sequence of integers, a tuple in Python (events
    stay hashable)."""
    return ftype.endswith("[]")

DEFAULTS = {
    "clock-offset-s": 1600000000,
    "clock-offset-ns": 0,
    "tracer": (2, 10),
    "packet-size": 4096,
}


class StubError(Exception):
    """A bad stub file; the message names the file and line."""


class Event:
    __slots__ = ("ts", "cpu", "name", "fields", "given", "line", "context")

    def __init__(self, ts, cpu, name, fields, given, line, context=None):
        self.ts = ts
        # The event context fields (`event-context`), 0 when not given.
        self.context = context or {}
        self.cpu = cpu
        self.name = name
        self.fields = fields
        self.given = given
        self.line = line

    def __repr__(self):
        return "Event(%d, %d, %s, %r)" % (self.ts, self.cpu, self.name, self.fields)


# The NAME of a loss line: `TIMESTAMP CPU !lost COUNT`.
LOSS_NAME = "!lost"


class Loss:
    """A loss line: COUNT events the CPU's stream did not record; `after`
    is how many event lines of that CPU come before it."""
    __slots__ = ("ts", "cpu", "count", "after", "line")

    def __init__(self, ts, cpu, count, after, line):
        self.ts = ts
        self.cpu = cpu
        self.count = count
        self.after = after
        self.line = line

    def __repr__(self):
        return "Loss(%d, %d, %d, after %d)" % (self.ts, self.cpu, self.count, self.after)


class Stub:
    """One parsed stub file (one machine)."""

    def __init__(self, path):
        self.path = path
        base = os.path.basename(path)
        self.hostname = base[:-5] if base.endswith(".stub") else base
        self.clock_offset_s = DEFAULTS["clock-offset-s"]
        self.clock_offset_ns = DEFAULTS["clock-offset-ns"]
        self.given_clock_uuid = None
        self.tracer = DEFAULTS["tracer"]
        self.tracer_name = "lttng-modules"
        self.declared_cpus = None
        self.packet_size = DEFAULTS["packet-size"]
        self.has_clock = True
        self.packet_end_overlap = 0
        self.event_defs = builtin_events()
        # `event-context`: [(field, type)] every event carries.
        self.context_defs = []
        # Events written in the lttng-modules >= 2.9 network layout.
        self.nested = set()
        self.events = []
        # Loss lines, in file order (not in `events`).
        self.losses = []

    @property
    def clock_uuid(self):
        """The clock UUID as a string: given, else derived from the hostname."""
        if self.given_clock_uuid is not None:
            return self.given_clock_uuid
        return derived_clock_uuid(self.hostname)

    @property
    def cpus(self):
        """Number of per-CPU streams of the trace."""
        if self.declared_cpus is not None:
            return self.declared_cpus
        return max([e.cpu for e in self.events] + [0]) + 1

    def ordered_events(self):
        """Events in global time order (equal times keep their file order)."""
        return sorted(self.events, key=lambda e: (e.ts, e.line))


def derived_clock_uuid(hostname):
    """The stable clock UUID the converter derives from a hostname."""
    digest = bytearray(hashlib.sha1(b"vmstub clock " + hostname.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    return str(uuidlib.UUID(bytes=bytes(digest)))


_tables = {}


def _readme_table(heading):
    """{event name: [(field, type), ...]} from the README table under heading."""
    if heading not in _tables:
        table = {}
        in_table = False
        with open(README, encoding="utf-8") as readme:
            for line in readme:
                if line.startswith(heading):
                    in_table = True
                    continue
                if in_table and line.startswith("#"):
                    break
                match = re.match(r"\|\s*(`.*?)\s*\|\s*(.*?)\s*\|\s*$", line) if in_table else None
                if not match:
                    continue
                names = re.findall(r"`([^`]+)`", match.group(1))
                specs = re.findall(r"`([^`]+)`", match.group(2))
                fields = []
                for spec in (specs[0].split() if specs else []):
                    field, ftype = spec.split(":")
                    fields.append((field, ftype))
                for name in names:
                    table[name] = fields
        if not table:
            raise StubError("%s: no event table under %r" % (README, heading))
        _tables[heading] = table
    return {name: list(fields) for name, fields in _tables[heading].items()}


def builtin_events():
    """{event name: [(field, type), ...]} from the README's built-in table."""
    return _readme_table("### Built-in events")


def nested_network_events():
    """Line fields of the network events under `network-headers nested`."""
    return _readme_table("### Network events with `network-headers nested`")


def split_line(text, where):
    """The tokens of one line (quotes joined, comments dropped)."""
    tokens = []
    pos = 0
    end = len(text)
    while True:
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
        if pos == end or text[pos] == "#":
            return tokens
        token = []
        while pos < end and text[pos] not in " \t\r\n#":
            if text[pos] == '"':
                pos += 1
                while pos < end and text[pos] != '"':
                    if text[pos] == "\\":
                        pos += 1
                        if pos == end or text[pos] not in '"\\':
                            raise StubError("%s: bad escape in a quoted string" % where)
                    token.append(text[pos])
                    pos += 1
                if pos == end:
                    raise StubError("%s: unterminated quoted string" % where)
                pos += 1
                continue
            token.append(text[pos])
            pos += 1
        tokens.append("".join(token))


def parse_int(text):
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", body):
        value = int(body, 16)
    elif re.fullmatch(r"[0-9]+", body):
        value = int(body)
    else:
        raise ValueError(text)
    return -value if negative else value


def _check_range(ftype, value):
    signed, bits, _ = INTEGER_TYPES[ftype]
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not low <= value <= high:
        raise ValueError(value)


def _parse_sequence(element_type, text):
    """`[1,2,3]` (or `[]`) of element_type."""
    if len(text) < 2 or text[0] != "[" or text[-1] != "]":
        raise ValueError(text)
    values = tuple(parse_int(part) for part in text[1:-1].split(",")) if text != "[]" else ()
    for value in values:
        _check_range(element_type, value)
    return values


def _apply_directive(stub, tokens, where):
    name, args = tokens[0], tokens[1:]

    def one():
        if len(args) != 1:
            raise StubError("%s: `%s` expects one value" % (where, name))
        return args[0]

    try:
        if name == "hostname":
            stub.hostname = one()
        elif name == "clock-offset-s":
            stub.clock_offset_s = parse_int(one())
        elif name == "clock-offset-ns":
            stub.clock_offset_ns = parse_int(one())
            if not 0 <= stub.clock_offset_ns <= 999999999:
                raise ValueError(one())
        elif name == "clock-uuid":
            stub.given_clock_uuid = str(uuidlib.UUID(one()))
        elif name == "tracer-name":
            stub.tracer_name = one()
        elif name == "tracer":
            if len(args) != 2:
                raise StubError("%s: `tracer` expects MAJOR MINOR" % where)
            stub.tracer = (parse_int(args[0]), parse_int(args[1]))
        elif name == "cpus":
            stub.declared_cpus = parse_int(one())
        elif name == "packet-size":
            stub.packet_size = parse_int(one())
        elif name == "packet-end-overlap":
            stub.packet_end_overlap = parse_int(one())
        elif name == "clock":
            if one() not in ("monotonic", "none"):
                raise ValueError(one())
            stub.has_clock = one() == "monotonic"
        elif name == "event":
            if not args:
                raise StubError("%s: `event` expects NAME FIELD:TYPE ..." % where)
            fields = []
            for spec in args[1:]:
                field, _, ftype = spec.partition(":")
                if ftype not in TYPES or field in [f for f, _ in fields]:
                    raise StubError("%s: bad field spec `%s`" % (where, spec))
                fields.append((field, ftype))
            stub.event_defs[args[0]] = fields
            stub.nested.discard(args[0])
        elif name == "event-context":
            fields = []
            for spec in args:
                field, _, ftype = spec.partition(":")
                if (ftype not in TYPES or ftype == "string" or is_sequence(ftype)
                        or field in [f for f, _ in fields]):
                    raise StubError("%s: bad context field spec `%s`" % (where, spec))
                fields.append((field, ftype))
            if not fields:
                raise StubError("%s: `event-context` expects FIELD:TYPE ..." % where)
            stub.context_defs = fields
        elif name == "network-headers":
            if one() not in ("flat", "nested"):
                raise ValueError(one())
            defs = nested_network_events() if one() == "nested" else builtin_events()
            for event_name in nested_network_events():
                stub.event_defs[event_name] = defs[event_name]
                if one() == "nested":
                    stub.nested.add(event_name)
                else:
                    stub.nested.discard(event_name)
        else:
            raise StubError("%s: unknown directive `%s`" % (where, name))
    except ValueError as error:
        raise StubError("%s: bad value %s of `%s`" % (where, error, name))


def _parse_event(stub, tokens, where, line_no):
    if len(tokens) < 3:
        raise StubError("%s: incomplete event line" % where)
    try:
        ts, cpu = parse_int(tokens[0]), parse_int(tokens[1])
    except ValueError:
        raise StubError("%s: bad timestamp or CPU" % where)
    name = tokens[2]
    if name not in stub.event_defs:
        raise StubError("%s: unknown event `%s`" % (where, name))
    types = dict(stub.event_defs[name])
    context_types = dict(stub.context_defs)
    given = {}
    context = {f: 0 for f, _ in stub.context_defs}
    for token in tokens[3:]:
        field, equal, value = token.partition("=")
        if equal and field in context_types and field not in types:
            try:
                context[field] = parse_int(value)
                _check_range(context_types[field], context[field])
            except ValueError:
                raise StubError("%s: bad value `%s` of context field `%s`"
                                % (where, value, field))
            continue
        if not equal or field not in types or field in given:
            raise StubError("%s: bad or unknown field `%s` of `%s`" % (where, token, name))
        if types[field] == "string":
            given[field] = value
            continue
        try:
            if is_sequence(types[field]):
                given[field] = _parse_sequence(types[field][:-2], value)
                continue
            given[field] = parse_int(value)
            _check_range(types[field], given[field])
        except ValueError:
            raise StubError("%s: bad value `%s` of field `%s`" % (where, value, field))
    fields = {f: given.get(f, "" if t == "string" else () if is_sequence(t) else 0)
              for f, t in stub.event_defs[name]}
    return Event(ts, cpu, name, fields, given, line_no, context)


def _parse_loss(stub, tokens, where, line_no, cpu_events):
    try:
        ts, cpu, count = parse_int(tokens[0]), parse_int(tokens[1]), parse_int(tokens[3])
    except (ValueError, IndexError):
        raise StubError("%s: bad loss line" % where)
    if len(tokens) != 4 or count < 1:
        raise StubError("%s: bad loss line" % where)
    return Loss(ts, cpu, count, cpu_events.get(cpu, 0), line_no)


def parse(path):
    """Parses a stub file; raises StubError (naming file and line) when bad."""
    stub = Stub(path)
    last_ts = {}
    cpu_events = {}
    with open(path, encoding="utf-8") as stub_file:
        for line_no, text in enumerate(stub_file, 1):
            where = "%s:%d" % (path, line_no)
            tokens = split_line(text, where)
            if not tokens:
                continue
            if not tokens[0][:1].isdigit():
                if stub.events or stub.losses:
                    raise StubError("%s: directive after an event line" % where)
                _apply_directive(stub, tokens, where)
                continue
            if len(tokens) >= 3 and tokens[2] == LOSS_NAME:
                event = _parse_loss(stub, tokens, where, line_no, cpu_events)
            else:
                event = _parse_event(stub, tokens, where, line_no)
            if stub.declared_cpus is not None and event.cpu >= stub.declared_cpus:
                raise StubError("%s: CPU %d out of range" % (where, event.cpu))
            if event.ts < last_ts.get(event.cpu, 0):
                raise StubError("%s: timestamp decreases on CPU %d" % (where, event.cpu))
            last_ts[event.cpu] = event.ts
            if isinstance(event, Loss):
                stub.losses.append(event)
            else:
                stub.events.append(event)
                cpu_events[event.cpu] = cpu_events.get(event.cpu, 0) + 1
    return stub


def format_event(ts, cpu, name, fields, types=None):
    """One event line; string values are quoted when needed, and integers of
    the hexadecimal types (x8 ... x64, from `types`: {field: type}) are
    written in hexadecimal."""
    parts = ["%d %d %s" % (ts, cpu, name)]
    types = types or {}
    for field, value in fields.items():
        if isinstance(value, (list, tuple)):
            parts.append("%s=[%s]" % (field, ",".join("%d" % v for v in value)))
        elif isinstance(value, str):
            if value == "" or re.search(r'[\s#="\\]', value):
                value = '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')
            parts.append("%s=%s" % (field, value))
        elif types.get(field, "").startswith("x"):
            parts.append("%s=0x%x" % (field, value))
        else:
            parts.append("%s=%d" % (field, value))
    return " ".join(parts)
