"""Helpers of the filter.vm.correlate integration tests.

Every test runs the real CLI in one of the two graph forms of SPEC.md and
checks the output with `check_order()`: babeltrace2 from Debian does not
check time-order postconditions, so a filter that emits times that go back
would go unnoticed without it.
"""

import re

import vmtest

# A sink.text.details message time line: "[C cycles, N ns from origin]" (or,
# compact, "[C N] ..."); "[Unknown]" for messages without time.
_TIME_RE = re.compile(r"^\[([0-9,]+)(?: cycles,)? (-?[0-9,]+)(?: ns from origin)?\]")
_EVENT_RE = re.compile(r"Event `([^`]*)`")

DETAILS_COMPACT = "compact=yes,with-metadata=no"


def _params_arg(params):
    return ["--params=" + params] if params else []


def direct_args(traces, params="", sink="sink.text.details", sink_params=""):
    """`babeltrace2 run` args: each trace's ports straight into correlate."""
    args = ["run"]
    for i, trace in enumerate(traces):
        args += ["--component=src%d:src.ctf.fs" % i,
                 "--params=inputs=[\"%s\"]" % trace]
    args += ["--component=correlate:filter.vm.correlate"] + _params_arg(params)
    args += ["--component=sink:" + sink] + _params_arg(sink_params)
    for i in range(len(traces)):
        args += ["--connect=src%d:correlate" % i]
    args += ["--connect=correlate:sink"]
    return args


def convert_args(traces, params="", sink="sink.text.details", sink_params=""):
    """Convert-form args: babeltrace2 puts its muxer before correlate."""
    args = list(traces)
    args += ["--component=filter.vm.correlate"] + _params_arg(params)
    args += ["--component=" + sink] + _params_arg(sink_params)
    return args


def times(text):
    """(line number, ns from origin) of every timed message line."""
    result = []
    for number, line in enumerate(text.splitlines(), 1):
        match = _TIME_RE.match(line)
        if match:
            result.append((number, int(match.group(2).replace(",", ""))))
    return result


def check_order(text, what):
    """Fails unless message times never decrease; returns the times."""
    found = times(text)
    for (prev_line, prev), (line, now) in zip(found, found[1:]):
        if now < prev:
            vmtest.fail("%s: time goes back by %d ns at output line %d "
                        "(line %d had %d, line %d has %d)"
                        % (what, prev - now, line, prev_line, prev, line, now))
    if not found:
        vmtest.fail("%s: no timed message in the output" % what)
    return [t for _, t in found]


def event_names(text):
    """Event names in output order."""
    return [m.group(1) for m in map(_EVENT_RE.search, text.splitlines()) if m]


def run(args, what, check=True):
    """Runs babeltrace2; unless check is False, checks the output order."""
    proc = vmtest.babeltrace2(args, check=check)
    if check:
        check_order(proc.stdout, what)
    return proc


def env_entries(text):
    """{vm_machine: {env name: value}} from a full sink.text.details output."""
    result = {}
    env = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Environment ("):
            env = {}
            continue
        if env is not None:
            if line.startswith("      ") and ": " in stripped:
                key, value = stripped.split(": ", 1)
                env[key] = value
                continue
            if "vm_machine" in env:
                result[env["vm_machine"]] = env
            env = None
    return result


def summary_lines(stderr):
    """{machine: INFO summary line} of the component's log."""
    found = {}
    for line in stderr.splitlines():
        match = re.search(r"Machine `([^`]+)`: role ", line)
        if match:
            found[match.group(1)] = line
    return found


def suggested_params(stderr):
    """The `reference=...,transforms={...}` the log suggests, or None."""
    for line in stderr.splitlines():
        if "To skip the synchronization next time, pass: " in line:
            return line.split("pass: ", 1)[1].strip()
    return None


# sink.text.pretty with clock-seconds=yes: "[S.NNNNNNNNN] (+D) HOST EVENT: ..."
PRETTY_SECONDS = "clock-seconds=yes"
_PRETTY_RE = re.compile(r"^\[(-?\d+)\.(\d{9})\] \(\S+\) (\S+) ([^:]+):")


def pretty_events(text, what):
    """[(ns, hostname, event name)] of sink.text.pretty output, checked in order."""
    events = []
    for line in text.splitlines():
        match = _PRETTY_RE.match(line)
        if match:
            ns = int(match.group(1)) * 1000000000 + int(match.group(2))
            events.append((ns, match.group(3), match.group(4)))
    for number, (prev, now) in enumerate(zip(events, events[1:]), 2):
        if now[0] < prev[0]:
            vmtest.fail("%s: event %d goes back by %d ns" % (what, number, prev[0] - now[0]))
    if not events:
        vmtest.fail("%s: no event in the output" % what)
    return events
