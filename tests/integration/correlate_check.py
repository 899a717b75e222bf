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
    """{hostname: {env name: value}} from a full sink.text.details output."""
    result = {}
    current = None
    in_env = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Environment ("):
            in_env = True
            current = {}
            continue
        if in_env:
            if line.startswith("      ") and ": " in stripped:
                key, value = stripped.split(": ", 1)
                current[key] = value
                continue
            in_env = False
            if "hostname" in current:
                result.setdefault(current["hostname"] + "|" + current.get("vm_machine", ""),
                                  current)
    return {key.split("|", 1)[1] or key.split("|", 1)[0]: value
            for key, value in result.items()}
