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
