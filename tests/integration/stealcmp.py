"""Steal culprits (SPEC.md, sink.vm.threads what=steal) against the truth.

compare() weighs, per victim vCPU, the product's steal rows against
vm-workload's truth/steal.csv instant by instant; HostReplay reads back
what a host stub says of current threads, waiting CPUs and migrations (for
tests that check the truth itself, or pick the rows after a migration).
"""

import bisect
import csv
import os

import stubfile

HEADER = ("machine,vcpu,tid,comm,begin_ns,end_ns,pcpu,culprit_kind,culprit_machine,"
          "culprit_vcpu,culprit_tid,culprit_comm")


def merged(intervals):
    """Sorted (begin, end) pairs with touching or overlapping ones joined."""
    result = []
    for b, e in sorted(intervals):
        if result and b <= result[-1][1]:
            result[-1] = (result[-1][0], max(result[-1][1], e))
        else:
            result.append((b, e))
    return result


def overlap(a, b):
    """Total overlap of two merged interval lists."""
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        total += max(0, min(a[i][1], b[j][1]) - max(a[i][0], b[j][0]))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def length(intervals):
    return sum(e - b for b, e in intervals)


def read_rows(path):
    """The rows of a what=steal CSV, checking its header."""
    with open(path, newline="") as f:
        header = f.readline().rstrip("\r\n")
        if header != HEADER:
            raise ValueError("%s: header %r, expected %r" % (path, header, HEADER))
        return list(csv.DictReader(f, fieldnames=HEADER.split(",")))


def read_rows_plain(path):
    """Any CSV file's rows as dicts."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def identity(row):
    """What must agree: the victim, and the culprit as far as its kind names
    it (a VM by machine, a vCPU by number, a thread by tid)."""
    kind = row["culprit_kind"]
    return (row["tid"], kind,
            row["culprit_machine"] if kind in ("vcpu", "vmm") else "",
            row["culprit_vcpu"] if kind == "vcpu" else "",
            row["culprit_tid"] if kind in ("vcpu", "vmm", "host") else "")


def _by_vcpu(rows):
    result = {}
    for row in rows:
        b, e = int(row["begin_ns"]), int(row["end_ns"])
        result.setdefault((row["machine"], int(row["vcpu"])), []).append((b, e, row))
    for pieces in result.values():
        pieces.sort(key=lambda p: p[:2])
    return result


def _covered(windows, b, e):
    """Length of [b, e) inside merged, sorted windows."""
    i = max(0, bisect.bisect_right(windows, (b, b)) - 1)
    total = 0
    while i < len(windows) and windows[i][0] < e:
        total += max(0, min(e, windows[i][1]) - max(b, windows[i][0]))
        i += 1
    return total


def _at(pieces, t):
    """The piece holding t, or None (pieces sorted and disjoint)."""
    i = bisect.bisect_right(pieces, (t, float("inf"))) - 1
    if i >= 0 and pieces[i][0] <= t < pieces[i][1]:
        return pieces[i][2]
    return None


class Comparison:
    def __init__(self):
        self.truth_ns = 0  # truth steal outside the windows
        self.excluded_ns = 0
        self.agree_ns = 0
        self.extra_ns = 0  # product steal where the truth has none
        self.selected_ns = 0  # of truth_ns, in the selected rows
        self.selected_agree_ns = 0  # the same, with the waiting CPU too
        self.examples = []

    @property
    def percent(self):
        return 100.0 * self.agree_ns / self.truth_ns if self.truth_ns else 100.0

    @property
    def selected_percent(self):
        return 100.0 * self.selected_agree_ns / self.selected_ns if self.selected_ns else 100.0

    def summary(self):
        return ("steal: %.4f%% of %d ns agree (%d ns excluded by lost events), %d ns only in "
                "the output; selected rows %.4f%% of %d ns" % (
                    self.percent, self.truth_ns, self.excluded_ns, self.extra_ns,
                    self.selected_percent, self.selected_ns))


def compare(truth_rows, output_rows, windows=None, selected=None):
    """Time-weighted agreement of OUTPUT with TRUTH per (machine, vcpu).
    WINDOWS(machine, vcpu, victim tid) gives merged (begin, end) pairs
    excluded from the comparison; SELECTED(truth row) marks rows whose
    waiting CPU (pcpu) must agree too."""
    result = Comparison()
    truth, output = _by_vcpu(truth_rows), _by_vcpu(output_rows)
    for key in set(truth) | set(output):
        mine, theirs = truth.get(key, []), output.get(key, [])
        cuts = sorted({p[0] for p in mine + theirs} | {p[1] for p in mine + theirs})
        for b, e in zip(cuts, cuts[1:]):
            t, o = _at(mine, b), _at(theirs, b)
            if t is None and o is None:
                continue
            victim = (t or o)["tid"]
            hidden = _covered(windows(key[0], key[1], int(victim)), b, e) if windows else 0
            weight = e - b - hidden
            if t is None:
                result.extra_ns += weight
                continue
            result.excluded_ns += hidden
            result.truth_ns += weight
            agree = o is not None and identity(t) == identity(o)
            if agree:
                result.agree_ns += weight
            elif weight and len(result.examples) < 8:
                result.examples.append("%s [%d, %d): truth %s, output %s" % (
                    key, b, e, identity(t) + (t["pcpu"],),
                    identity(o) + (o["pcpu"],) if o else None))
            if selected and selected(t):
                result.selected_ns += weight
                if agree and t["pcpu"] == o["pcpu"]:
                    result.selected_agree_ns += weight
    return result


class HostReplay:
    """What host.stub says: each CPU's current thread, each thread's
    waiting CPU, the migrations, the statedump's processes."""

    def __init__(self, out):
        stub = stubfile.parse(os.path.join(out, "host.stub"))
        base = stub.clock_offset_s * 10**9 + stub.clock_offset_ns
        self.switches = {}  # cpu -> ([t], [(prev, next)])
        self.moves = {}  # tid -> ([t], [cpu]): switched out there or migrated there
        self.migrations = []
        self.pid = {}
        self.losses = {}  # cpu -> [loss line time]
        for e in stub.events:
            t = base + e.ts
            f = e.fields
            if e.name == "sched_switch":
                times, pairs = self.switches.setdefault(e.cpu, ([], []))
                times.append(t)
                pairs.append((f["prev_tid"], f["next_tid"]))
                self._move(f["prev_tid"], t, e.cpu)
            elif e.name == "sched_migrate_task":
                self.migrations.append((t, e.cpu, f))
                self._move(f["tid"], t, f["dest_cpu"])
            elif e.name == "lttng_statedump_process_state":
                self.pid[f["tid"]] = f["pid"]
        for loss in stub.losses:
            self.losses.setdefault(loss.cpu, []).append(base + loss.ts)

    def _move(self, tid, t, cpu):
        times, cpus = self.moves.setdefault(tid, ([], []))
        times.append(t)
        cpus.append(cpu)

    def current(self, cpu, t):
        """The thread current on CPU from t on, and the time of the next
        switch there (None if none)."""
        times, pairs = self.switches[cpu]
        i = bisect.bisect_right(times, t)
        tid = pairs[0][0] if i == 0 else pairs[i - 1][1]
        return tid, times[i] if i < len(times) else None

    def waiting_cpu(self, tid, t):
        """The CPU the thread last left or was moved to at or before t, and
        the time of its next move."""
        times, cpus = self.moves.get(tid, ([], []))
        i = bisect.bisect_right(times, t)
        return (cpus[i - 1] if i else None), (times[i] if i < len(times) else None)

    def next_switch(self, cpu, t):
        times = self.switches[cpu][0]
        i = bisect.bisect_left(times, t)
        return times[i] if i < len(times) else None


def after_migration(replay, vcpu_tids):
    """A predicate on truth rows: the vCPU thread waits where a
    sched_migrate_task moved it (its last move before the row)."""
    migrated = {(t, f["tid"]) for t, _, f in replay.migrations}

    def selected(row):
        tid = vcpu_tids.get((row["machine"], row["vcpu"]))
        times, _ = replay.moves.get(tid, ([], []))
        i = bisect.bisect_right(times, int(row["begin_ns"])) - 1
        return i >= 0 and (times[i], tid) in migrated
    return selected
