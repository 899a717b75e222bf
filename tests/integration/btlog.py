"""babeltrace2's log line, as its own plugins write it (BT_COMP_LOG() of
babeltrace2 2.0, src/logging/log.c) and as the components of the vm plugin
must write it too:

    MM-DD hh:mm:ss.mmm   PID   TID L TAG FUNCTION@FILE:LINE [COMPONENT] MESSAGE
"""

import re

LINE = re.compile(r"^(?P<date>\d\d-\d\d) (?P<time>\d\d:\d\d:\d\d\.\d{3}) "
                  r"(?P<pid> *\d+) (?P<tid> *\d+) (?P<level>[TDIWEF]) "
                  r"(?P<tag>[A-Z0-9./_-]+) (?P<where>\S+@\S+:\d+) "
                  r"\[(?P<component>[^\]]*)\] (?P<message>.*)$")


def lines(stderr, level=None):
    """The babeltrace2 log lines of `stderr` (of `level`, a letter) as matches."""
    found = []
    for line in stderr.splitlines():
        match = LINE.match(line)
        if match and (level is None or match.group("level") == level):
            found.append(match)
    return found


def warnings(stderr):
    """The warning lines of `stderr`, whole."""
    return [m.group(0) for m in lines(stderr, "W")]


# filter.vm.state's one warning per host on lttng-modules >= 2.13's layout
# (vm-workload's default): its kvm_x86_entry vcpu_id is a pointer fragment.
ENTRY_ID_DEFECT = "kvm_x86_entry probe records the low half"


def unexpected_warnings(stderr):
    """warnings(), but for the one that every trace in lttng-modules >= 2.13's
    layout gives (ENTRY_ID_DEFECT): what a test of something else must not see."""
    return [w for w in warnings(stderr) if ENTRY_ID_DEFECT not in w]


# The warning of filter.vm.state, or of sink.vm.threads without it, on
# several machines that did not go through filter.vm.correlate
# (test_no_correlate_warning.py).
UNSYNCHRONIZED = "did not go through filter.vm.correlate: their clocks are not synchronized"


def warnings_but_unsynchronized(stderr):
    """The warning lines of `stderr` but that one: for tests that run the
    components on stub scenarios without correlate on purpose (the stubs'
    clocks are aligned by construction)."""
    return [w for w in warnings(stderr) if UNSYNCHRONIZED not in w]
