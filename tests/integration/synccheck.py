#!/usr/bin/python3
"""How far synchronized guest event times are from vm-workload's truth.

Every guest event's true time comes from the generator's exact clock maps:
truth/timemap-segments.csv for slewed clocks (`--slew-ppm`), one row per
linear piece, else truth/timemap.csv (one line per machine), applied to the
event's own reading (its stub's clock offset plus its cycles). The
synchronized times are those of sink.text.pretty with clock-seconds=yes
(one line per event, naming the event's hostname, which is the machine's
name). A machine's map to the reference is increasing, so the i-th event of
a guest in its own time order is the i-th of that guest in the output: the
two lists are zipped, with no need to match event contents. A different
number of events is an error.

As a module: truth_pieces(), own_times(), true_times(), output_times(),
errors(), summaries(), summary(). From the command line:

    synccheck.py WORKLOAD_DIR [PRETTY_OUTPUT]   (stdin without a file)

prints, per guest, the number of events and the median and largest
|output - truth| in ns; exits with 1 when the output does not match the
workload's events.
"""

import bisect
import csv
import os
import re
import sys
from fractions import Fraction


class SyncCheckError(Exception):
    """Output that does not fit the workload it should come from."""


class Piece:
    """t_true = slope * t_machine + offset from reading machine_begin on,
    evaluated about an anchor so that floats keep sub-ns precision over a
    whole trace (an epoch reading does not fit a double's 53 bits)."""

    def __init__(self, machine_begin, slope, offset, anchor):
        exact = slope * anchor + offset
        self.machine_begin = machine_begin
        self.anchor = anchor
        self.anchor_true = int(exact)  # floor: exact is positive
        self.frac = float(exact - self.anchor_true)
        self.slope = float(slope)

    def true_offset(self, reading):
        """t_true - anchor_true as a float (exact to ~1e-5 ns)."""
        return self.frac + self.slope * (reading - self.anchor)


def truth_pieces(out):
    """{machine: [(machine_begin_ns, slope, offset)]} as exact fractions, in
    machine_begin order: the last piece whose machine_begin_ns is at most a
    reading maps it."""
    path = os.path.join(out, "truth", "timemap-segments.csv")
    pieces = {}
    if os.path.exists(path):
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                pieces.setdefault(r["machine"], []).append(
                    (int(r["machine_begin_ns"]), Fraction(r["slope"]),
                     Fraction(r["offset_ns"])))
    else:
        with open(os.path.join(out, "truth", "timemap.csv"), newline="") as f:
            for r in csv.DictReader(f):
                pieces[r["machine"]] = [(0, Fraction(r["slope"]), Fraction(r["offset_ns"]))]
    for machine, rows in pieces.items():
        if any(a[0] >= b[0] for a, b in zip(rows, rows[1:])):
            raise SyncCheckError("%s: segments not in machine time order" % machine)
    return pieces


def own_times(stub_path):
    """Every event's own reading (ns since the epoch), in file order, which
    is the machine's time order. Loss lines (`TIMESTAMP CPU !lost COUNT`)
    are no events."""
    offset_s = offset_ns = 0
    cycles = []
    with open(stub_path) as f:
        for line in f:
            head = line[:1]
            if head.isdigit():
                if " !lost " not in line:
                    cycles.append(int(line.split(" ", 1)[0]))
            elif line.startswith("clock-offset-s "):
                offset_s = int(line.split()[1])
            elif line.startswith("clock-offset-ns "):
                offset_ns = int(line.split()[1])
    base = offset_s * 1000000000 + offset_ns
    return [base + c for c in cycles]


def true_times(rows, readings):
    """[(anchor_true, float offset)] of each reading under the pieces ROWS
    (truth_pieces() of one machine); the true time is their sum."""
    begins = [r[0] for r in rows]
    pieces = [None] * len(rows)
    result = []
    for reading in readings:
        i = max(bisect.bisect_right(begins, reading) - 1, 0)
        if pieces[i] is None:
            begin, slope, offset = rows[i]
            pieces[i] = Piece(begin, slope, offset, max(begin, reading))
        piece = pieces[i]
        result.append((piece.anchor_true, piece.true_offset(reading)))
    return result


def output_times(text, machines=None):
    """{hostname: [ns]} of sink.text.pretty output with clock-seconds=yes
    ("[S.NNNNNNNNN] (+D) HOST EVENT: ...", event names may hold colons:
    correlate's own `vm:sync`), in output order; the plugin's own events
    (`vm:` names) are left out. MACHINES: the only hostnames wanted
    (default: all).

    One regular expression over the whole text: the lines of other
    machines (the host's, most of them) never reach Python code."""
    names = "|".join(re.escape(m) for m in machines) if machines else r"\S+"
    pattern = re.compile(r"^\[(-?\d+)\.(\d{9})\] \(\S+\) (%s) (?!vm:)\S+: " % names,
                         re.MULTILINE)
    found = {}
    for seconds, nanoseconds, host in pattern.findall(text):
        found.setdefault(host, []).append(int(seconds) * 1000000000 + int(nanoseconds))
    return found


def errors(out, outputs, machines=None):
    """{guest: [output - truth] in ns (floats), in the guest's time order}.
    OUTPUTS: {machine: [synchronized ns]} (output_times()); MACHINES: the
    guests to check (default: every machine of the truth but the host)."""
    pieces = truth_pieces(out)
    names = machines or sorted(m for m in pieces if m != "host")
    result = {}
    for machine in names:
        readings = own_times(os.path.join(out, machine + ".stub"))
        got = sorted(outputs.get(machine, []))
        if len(got) != len(readings):
            raise SyncCheckError("%s: %d events in the output, %d in the workload"
                                 % (machine, len(got), len(readings)))
        truth = true_times(pieces[machine], readings)
        result[machine] = [(g - base) - frac for g, (base, frac) in zip(got, truth)]
    return result


def summaries(out, outputs, machines=None):
    """{guest: summary()} of errors(OUT, OUTPUTS, MACHINES), by guest name."""
    return {machine: summary(err)
            for machine, err in sorted(errors(out, outputs, machines).items())}


def summary(errs):
    """(events, median |error|, max |error|) of one guest's errors."""
    magnitudes = sorted(abs(e) for e in errs)
    if not magnitudes:
        return 0, 0.0, 0.0
    return len(magnitudes), magnitudes[len(magnitudes) // 2], magnitudes[-1]


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    if len(argv) == 3:
        with open(argv[2]) as f:
            text = f.read()
    else:
        text = sys.stdin.read()
    try:
        errs = errors(argv[1], output_times(text))
    except (SyncCheckError, OSError) as e:
        sys.stderr.write("synccheck: %s\n" % e)
        return 1
    for machine, err in sorted(errs.items()):
        events, median, worst = summary(err)
        print("%s: %d events, median error %.0f ns, max %.0f ns" % (machine, events, median,
                                                                   worst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
