#!/usr/bin/python3
"""Compares sink.vm.threads CSV output with the workload generator's truth.

Three comparisons, one per `what` of the sink:

- threads: time-weighted agreement. For each (machine, tid), the time during
  which the truth's interval and the output's interval have the same state
  (and the same vcpu for the four on-vCPU states, the same exit reason for
  `hypervisor`), summed over all threads, divided by the truth's total
  thread-time.
- vcpus: the same on (machine, vcpu) with the mode.
- exits: counts per (machine, vcpu, reason) compared exactly, total_ns within
  a tolerance given by the caller.

With lost events (the generator's truth/affected.csv, read by
read_affected), the thread and vCPU comparisons can leave out the windows
the losses affect (`exclude`): that time counts neither in the truth nor as
agreement. The exit comparison can then allow, per (machine, vcpu, reason),
the output to miss the exits that touch a loss (`slack`): the count may be
lower by at most their number, total_ns by at most their durations.

Interval files are read as streams sorted by (machine, id, begin): a file
already in that order (the generator's and the sink's usual order) is merged
as it is read, in one pass; any other order is first put in order by an
external merge sort in bounded memory. Only the current pair of intervals is
held, so millions of intervals cost time, not memory.

Usable as a module (compare_threads, compare_vcpus, compare_exits,
compare_dir) or from the command line:

    truthcmp.py TRUTH_DIR [--threads CSV] [--vcpus CSV] [--exits CSV]
"""

import argparse
import csv
import heapq
import itertools
import os
import sys
import tempfile
from fractions import Fraction

THREAD_HEADER = ["machine", "tid", "comm", "state", "begin_ns", "end_ns", "vcpu", "reason"]
# Columns a header may have after those above (by the Reader's id field).
OPTIONAL_TAIL = {"tid": ["container", "vtid"]}
VCPU_HEADER = ["machine", "vcpu", "mode", "begin_ns", "end_ns", "host_tid", "pcpu", "reason"]
EXIT_HEADER = ["machine", "vcpu", "reason", "name", "count", "total_ns", "min_ns", "max_ns",
               "mean_ns"]
ON_VCPU = ("running", "hypervisor", "preempted", "vcpu-blocked")

# Rows sorted in memory per run of the external sort.
SORT_CHUNK = 500000


class FormatError(Exception):
    """A file that is not the CSV it should be."""


# --- reading intervals -------------------------------------------------------


def thread_value(row):
    """What must agree for a thread: the state, plus the vCPU when the state
    is on a vCPU and the exit reason when it is `hypervisor`."""
    state = row["state"]
    return (state,
            row["vcpu"] if state in ON_VCPU else "",
            row["reason"] if state == "hypervisor" else "")


def thread_irrelevant(row):
    """A field set that the schema says must be empty."""
    state = row["state"]
    return ((row["vcpu"] != "" and state not in ON_VCPU) or
            (row["reason"] != "" and state != "hypervisor"))


def vcpu_value(row):
    return (row["mode"],)


def vcpu_irrelevant(row):
    return False


THREADS = ("tid", THREAD_HEADER, thread_value, thread_irrelevant)
VCPUS = ("vcpu", VCPU_HEADER, vcpu_value, vcpu_irrelevant)


class Reader:
    """The records (machine, id, begin, end, value) of one interval CSV."""

    def __init__(self, path, kind):
        self.path = path
        self.id_field, self.header, self.value_of, self.irrelevant_of = kind
        self.irrelevant = 0

    def records(self):
        with open(self.path, newline="") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            # The plugin's threads CSV ends with the container columns
            # (SPEC, Containers), which the comparison does not look at.
            if header not in (self.header, self.header + OPTIONAL_TAIL.get(self.id_field, [])):
                raise FormatError("%s: header %r, expected %r" % (
                    self.path, header, self.header))
            names = header
            machine_i = names.index("machine")
            id_i = names.index(self.id_field)
            begin_i, end_i = names.index("begin_ns"), names.index("end_ns")
            for line, fields in enumerate(reader, 2):
                if len(fields) != len(names):
                    raise FormatError("%s:%d: %d fields, expected %d" % (
                        self.path, line, len(fields), len(names)))
                row = dict(zip(names, fields))
                try:
                    record = (fields[machine_i], int(fields[id_i]), int(fields[begin_i]),
                              int(fields[end_i]), self.value_of(row))
                except ValueError as e:
                    raise FormatError("%s:%d: %s" % (self.path, line, e))
                if self.irrelevant_of(row):
                    self.irrelevant += 1
                yield record


def _order(record):
    return record[0], record[1], record[2]


def is_sorted(records):
    previous = None
    for record in records:
        key = _order(record)
        if previous is not None and key < previous:
            return False
        previous = key
    return True


def _write_run(run, directory):
    run.sort(key=_order)
    f = tempfile.NamedTemporaryFile("w", newline="", dir=directory, delete=False,
                                    suffix=".csv")
    with f:
        writer = csv.writer(f)
        for machine, ident, begin, end, value in run:
            writer.writerow((machine, ident, begin, end) + value)
    return f.name


def _read_run(path):
    with open(path, newline="") as f:
        for fields in csv.reader(f):
            yield (fields[0], int(fields[1]), int(fields[2]), int(fields[3]),
                   tuple(fields[4:]))


def external_sort(records, chunk=None):
    """The records in (machine, id, begin) order, holding at most CHUNK of
    them in memory (sorted runs in temporary files, then a k-way merge)."""
    chunk = chunk or SORT_CHUNK
    with tempfile.TemporaryDirectory(prefix="truthcmp-") as directory:
        runs = []
        run = []
        for record in records:
            run.append(record)
            if len(run) >= chunk:
                runs.append(_write_run(run, directory))
                run = []
        if not runs:
            run.sort(key=_order)
            yield from run
            return
        if run:
            runs.append(_write_run(run, directory))
        del run
        yield from heapq.merge(*(_read_run(p) for p in runs), key=_order)


def sorted_records(reader, chunk=None):
    """The reader's records in (machine, id, begin) order: streamed as they
    are when the file is in order already, else through external_sort."""
    if is_sorted(reader.records()):
        reader.irrelevant = 0
        return reader.records()
    reader.irrelevant = 0
    return external_sort(reader.records(), chunk)


# --- interval agreement ------------------------------------------------------


class Agreement:
    """The outcome of an interval comparison."""

    def __init__(self, what):
        self.what = what
        self.truth_ns = 0          # total truth time (the denominator)
        self.matched_ns = 0        # time where output and truth agree
        self.output_ns = 0         # total output time (for information)
        self.keys = 0              # truth keys (threads or vCPUs)
        self.missing_keys = []     # truth keys the output does not have
        self.extra_keys = []       # output keys the truth does not have
        self.confusion = {}        # (truth value, output value) -> ns, disagreements
        self.per_key = {}          # key -> (matched, truth ns), for the worst list
        self.by_state = {}         # truth state or mode -> [matched, truth ns]
        self.overlaps = 0          # output intervals that overlap their predecessor
        self.irrelevant = 0        # output rows with a field the schema wants empty

    @property
    def fraction(self):
        """Agreement as an exact fraction (1 when the truth is empty)."""
        if self.truth_ns == 0:
            return Fraction(1)
        return Fraction(self.matched_ns, self.truth_ns)

    @property
    def percent(self):
        return float(self.fraction * 100)

    def worst(self, n=5):
        """The N keys with the most disagreeing time."""
        return heapq.nlargest(n, self.per_key.items(), key=lambda kv: kv[1][1] - kv[1][0])

    def summary(self, limit=5):
        lines = ["%s: %.4f%% agreement (%d of %d ns over %d %s; output %d ns)" % (
            self.what, self.percent, self.matched_ns, self.truth_ns, self.keys,
            "threads" if self.what == "threads" else "vCPUs", self.output_ns)]
        lines.append("  by %s: %s" % ("state" if self.what == "threads" else "mode", ", ".join(
            "%s %.4f%% of %d ns" % (name, 100.0 * matched / total if total else 100.0, total)
            for name, (matched, total) in sorted(self.by_state.items()))))
        if self.missing_keys:
            lines.append("  missing from the output: %s" % _few(self.missing_keys, limit))
        if self.extra_keys:
            lines.append("  not in the truth: %s" % _few(self.extra_keys, limit))
        if self.overlaps:
            lines.append("  %d overlapping output intervals" % self.overlaps)
        if self.irrelevant:
            lines.append("  %d output rows with vcpu/reason where the state has none"
                         % self.irrelevant)
        top = sorted(self.confusion.items(), key=lambda kv: -kv[1])[:limit]
        for (truth, out), ns in top:
            lines.append("  truth %s, output %s: %d ns" % (_value(truth), _value(out), ns))
        for key, (matched, total) in self.worst(limit):
            if matched < total:
                lines.append("  %s/%s: %d of %d ns agree" % (key[0], key[1], matched, total))
        return "\n".join(lines)


def _few(items, limit):
    shown = ", ".join("%s/%s" % k for k in items[:limit])
    return shown + (" and %d more" % (len(items) - limit) if len(items) > limit else "")


def _value(value):
    if value is None:
        return "(nothing)"
    return "/".join(v for v in value if v != "")


def _compare_key(key, truth, output, result):
    """Both interval lists of one key, each sorted by begin."""
    matched = 0
    total = 0
    confusion = result.confusion
    out_iter = iter(output)
    out = next(out_iter, None)
    out_begin = out_end = 0
    out_value = None
    previous_end = None

    def take(record):
        nonlocal previous_end
        _, _, begin, end, value = record
        if previous_end is not None and begin < previous_end:
            result.overlaps += 1
            begin = previous_end
        end = max(end, begin)
        previous_end = end
        result.output_ns += end - begin
        return begin, end, value

    if out is not None:
        out_begin, out_end, out_value = take(out)
    by_state = result.by_state
    for _, _, begin, end, value in truth:
        if end <= begin:
            continue
        total += end - begin
        state = by_state.get(value[0])
        if state is None:
            state = by_state[value[0]] = [0, 0]
        state[1] += end - begin
        cursor = begin
        while cursor < end:
            # Output intervals that end before the cursor are of no use.
            while out is not None and out_end <= cursor:
                out = next(out_iter, None)
                if out is not None:
                    out_begin, out_end, out_value = take(out)
            if out is None or out_begin >= end:
                confusion[(value, None)] = confusion.get((value, None), 0) + end - cursor
                break
            if out_begin > cursor:
                # A gap in the output.
                confusion[(value, None)] = confusion.get((value, None), 0) + out_begin - cursor
                cursor = out_begin
            stop = min(end, out_end)
            if out_value == value:
                matched += stop - cursor
                state[0] += stop - cursor
            else:
                confusion[(value, out_value)] = confusion.get((value, out_value), 0) + \
                    stop - cursor
            cursor = stop
    # The rest of the output, for output_ns and the overlap count.
    if out is not None:
        for record in out_iter:
            take(record)
    result.matched_ns += matched
    result.truth_ns += total
    result.per_key[key] = (matched, total)


def _without(records, windows):
    """The records of one key with the parts inside WINDOWS (sorted, merged
    [begin, end] pairs) cut out."""
    if not windows:
        yield from records
        return
    for machine, ident, begin, end, value in records:
        cursor = begin
        for w_begin, w_end in windows:
            if w_end <= cursor:
                continue
            if w_begin >= end:
                break
            if w_begin > cursor:
                yield machine, ident, cursor, w_begin, value
            cursor = max(cursor, w_end)
            if cursor >= end:
                break
        if cursor < end:
            yield machine, ident, cursor, end, value


def compare_intervals(what, truth_path, output_path, kind, chunk=None, exclude=None):
    """EXCLUDE: {(machine, id): [(begin, end), ...]} left out of the truth."""
    exclude = exclude or {}
    truth_reader = Reader(truth_path, kind)
    output_reader = Reader(output_path, kind)
    truth = itertools.groupby(sorted_records(truth_reader, chunk), key=lambda r: (r[0], r[1]))
    output = itertools.groupby(sorted_records(output_reader, chunk),
                               key=lambda r: (r[0], r[1]))
    result = Agreement(what)
    t = next(truth, None)
    o = next(output, None)
    while t is not None or o is not None:
        if o is None or (t is not None and t[0] < o[0]):
            records = list(_without(t[1], exclude.get(t[0])))
            result.keys += 1
            # A key whose whole truth is excluded may well be unknown.
            if records:
                result.missing_keys.append(t[0])
            _compare_key(t[0], records, (), result)
            t = next(truth, None)
        elif t is None or o[0] < t[0]:
            result.extra_keys.append(o[0])
            for _, _, begin, end, _ in o[1]:
                result.output_ns += max(0, end - begin)
            o = next(output, None)
        else:
            result.keys += 1
            _compare_key(t[0], _without(t[1], exclude.get(t[0])), o[1], result)
            t = next(truth, None)
            o = next(output, None)
    result.irrelevant = output_reader.irrelevant
    return result


def compare_threads(truth_path, output_path, chunk=None, exclude=None):
    """Thread-state agreement of a `what=threads` CSV with truth/threads.csv."""
    return compare_intervals("threads", truth_path, output_path, THREADS, chunk, exclude)


def compare_vcpus(truth_path, output_path, chunk=None, exclude=None):
    """vCPU-mode agreement of a `what=vcpus` CSV with truth/vcpus.csv."""
    return compare_intervals("vcpus", truth_path, output_path, VCPUS, chunk, exclude)


AFFECTED_HEADER = ["machine", "kind", "id", "begin_ns", "end_ns"]


def _merged(windows):
    windows.sort()
    merged = []
    for begin, end in windows:
        if merged and begin <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([begin, end])
    return [tuple(w) for w in merged]


def read_affected(path):
    """truth/affected.csv as (threads, vcpus, exits): the first two
    {(machine, id): merged [(begin, end)]} for `exclude`, the third
    {(machine, vcpu, reason): (count, total_ns)} for `slack`."""
    threads, vcpus, exits = {}, {}, {}
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != AFFECTED_HEADER:
            raise FormatError("%s: header %r, expected %r" % (path, header, AFFECTED_HEADER))
        for line, fields in enumerate(reader, 2):
            if len(fields) != len(AFFECTED_HEADER):
                raise FormatError("%s:%d: %d fields" % (path, line, len(fields)))
            machine, kind, ident, begin, end = fields
            try:
                begin, end = int(begin), int(end)
                if kind == "exit":
                    vcpu, reason = (int(x) for x in ident.split("/"))
                    count, total = exits.get((machine, vcpu, reason), (0, 0))
                    exits[(machine, vcpu, reason)] = (count + 1, total + end - begin)
                elif kind in ("thread", "vcpu"):
                    target = threads if kind == "thread" else vcpus
                    target.setdefault((machine, int(ident)), []).append((begin, end))
                else:
                    raise ValueError("unknown kind %r" % kind)
            except ValueError as e:
                raise FormatError("%s:%d: %s" % (path, line, e))
    return ({k: _merged(v) for k, v in threads.items()},
            {k: _merged(v) for k, v in vcpus.items()}, exits)


# --- exits -------------------------------------------------------------------


class ExitComparison:
    """The outcome of an exit-statistics comparison."""

    def __init__(self):
        self.rows = 0
        self.truth_count = 0
        self.output_count = 0
        self.count_mismatches = []   # (key, truth count, output count)
        self.total_mismatches = []   # (key, truth total_ns, output total_ns)
        self.name_mismatches = []    # (key, truth name, output name)
        self.missing = []            # keys only in the truth
        self.extra = []              # keys only in the output

    @property
    def counts_exact(self):
        return not (self.count_mismatches or self.missing or self.extra)

    @property
    def ok(self):
        return self.counts_exact and not self.total_mismatches and not self.name_mismatches

    def summary(self, limit=5):
        lines = ["exits: %d (machine, vcpu, reason) rows, %d exits in the truth, %d in the "
                 "output: %s" % (self.rows, self.truth_count, self.output_count,
                                 "agree" if self.ok else "DISAGREE")]
        for label, items in (("count", self.count_mismatches),
                             ("total_ns", self.total_mismatches),
                             ("name", self.name_mismatches)):
            for key, truth, out in items[:limit]:
                lines.append("  %s/%s/%s: %s %s in the truth, %s in the output" % (
                    key + (label, truth, out)))
        if self.missing:
            lines.append("  only in the truth: %s" % self.missing[:limit])
        if self.extra:
            lines.append("  only in the output: %s" % self.extra[:limit])
        return "\n".join(lines)


def _read_exits(path):
    rows = {}
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header != EXIT_HEADER:
            raise FormatError("%s: header %r, expected %r" % (path, header, EXIT_HEADER))
        for line, fields in enumerate(reader, 2):
            if len(fields) != len(EXIT_HEADER):
                raise FormatError("%s:%d: %d fields" % (path, line, len(fields)))
            row = dict(zip(EXIT_HEADER, fields))
            try:
                key = (row["machine"], int(row["vcpu"]), int(row["reason"]))
                value = (row["name"], int(row["count"]), int(row["total_ns"]))
            except ValueError as e:
                raise FormatError("%s:%d: %s" % (path, line, e))
            if key in rows:
                raise FormatError("%s:%d: %s twice" % (path, line, key))
            rows[key] = value
    return rows


def compare_exits(truth_path, output_path, total_tolerance_ns=0, total_tolerance_rel=0.0,
                  slack=None):
    """Counts must be equal; a total_ns passes when it is within
    TOTAL_TOLERANCE_NS or within TOTAL_TOLERANCE_REL of the truth's. SLACK
    ({key: (count, total_ns)} of exits touching a loss) lets the output
    miss those: its count and total_ns may be lower by at most that much."""
    truth = _read_exits(truth_path)
    output = _read_exits(output_path)
    slack = slack or {}
    result = ExitComparison()
    for key in sorted(set(truth) | set(output)):
        s_count, s_total = slack.get(key, (0, 0))
        if key not in output:
            result.truth_count += truth[key][1]
            if truth[key][1] > s_count:
                result.missing.append(key)
            continue
        if key not in truth:
            result.extra.append(key)
            result.output_count += output[key][1]
            continue
        result.rows += 1
        t_name, t_count, t_total = truth[key]
        o_name, o_count, o_total = output[key]
        result.truth_count += t_count
        result.output_count += o_count
        if not t_count - s_count <= o_count <= t_count:
            result.count_mismatches.append((key, t_count, o_count))
        # Below the truth by at most the slack, or off within the tolerance.
        error = abs(o_total - t_total)
        if s_total and t_total - s_total <= o_total <= t_total:
            error = 0
        if error > total_tolerance_ns and error > total_tolerance_rel * t_total:
            result.total_mismatches.append((key, t_total, o_total))
        if t_name != o_name:
            result.name_mismatches.append((key, t_name, o_name))
    return result


# --- all at once -------------------------------------------------------------


def compare_dir(truth_dir, threads=None, vcpus=None, exits=None, total_tolerance_ns=0,
                total_tolerance_rel=0.0, chunk=None):
    """Whichever of the three outputs are given, against TRUTH_DIR's CSVs."""
    result = {}
    if threads:
        result["threads"] = compare_threads(os.path.join(truth_dir, "threads.csv"), threads,
                                            chunk)
    if vcpus:
        result["vcpus"] = compare_vcpus(os.path.join(truth_dir, "vcpus.csv"), vcpus, chunk)
    if exits:
        result["exits"] = compare_exits(os.path.join(truth_dir, "exits.csv"), exits,
                                        total_tolerance_ns, total_tolerance_rel)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("truth_dir", help="the generator's truth/ directory")
    parser.add_argument("--threads", help="sink.vm.threads CSV, what=threads")
    parser.add_argument("--vcpus", help="sink.vm.threads CSV, what=vcpus")
    parser.add_argument("--exits", help="sink.vm.threads CSV, what=exits")
    parser.add_argument("--total-tolerance-ns", type=int, default=0)
    parser.add_argument("--total-tolerance-rel", type=float, default=0.0)
    parser.add_argument("--min-percent", type=float, default=None,
                        help="exit 1 when an agreement is lower (or exits disagree)")
    args = parser.parse_args(argv)
    try:
        results = compare_dir(args.truth_dir, args.threads, args.vcpus, args.exits,
                              args.total_tolerance_ns, args.total_tolerance_rel)
    except (FormatError, OSError) as e:
        print("truthcmp: %s" % e, file=sys.stderr)
        return 2
    ok = True
    for name in ("threads", "vcpus", "exits"):
        if name in results:
            print(results[name].summary())
            if name == "exits":
                ok = ok and results[name].ok
            elif args.min_percent is not None:
                ok = ok and results[name].percent >= args.min_percent
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
