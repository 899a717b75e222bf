"""Helpers shared by the sink.vm.threads integration tests."""

import csv
import io
import json
import os

import btlog
import vmtest

THREAD_KEYS = ["machine", "tid", "comm", "state", "begin_ns", "end_ns", "vcpu", "reason",
               "container", "vtid"]
VCPU_KEYS = ["machine", "vcpu", "mode", "begin_ns", "end_ns", "host_tid", "pcpu", "reason"]
EXIT_KEYS = ["machine", "vcpu", "reason", "name", "count", "total_ns", "min_ns",
             "max_ns", "mean_ns"]
STEAL_KEYS = ["machine", "vcpu", "tid", "comm", "begin_ns", "end_ns", "pcpu",
              "culprit_kind", "culprit_machine", "culprit_vcpu", "culprit_tid",
              "culprit_comm"]
CONTAINER_KEYS = ["machine", "container", "ns_inum", "threads", "running_ns",
                  "hypervisor_ns", "preempted_ns", "vcpu_blocked_ns", "runnable_ns",
                  "blocked_ns", "unknown_ns"]
KEYS = {"threads": THREAD_KEYS, "vcpus": VCPU_KEYS, "exits": EXIT_KEYS,
        "steal": STEAL_KEYS, "containers": CONTAINER_KEYS}


def stub_header(stub_path):
    """(hostname, clock offset in ns) of a stub, with the format's defaults."""
    hostname = os.path.basename(stub_path)[:-len(".stub")]
    offset_s, offset_ns = 1600000000, 0
    with open(stub_path) as f:
        for line in f:
            words = line.split("#")[0].split()
            if len(words) != 2:
                continue
            if words[0] == "hostname":
                hostname = words[1]
            elif words[0] == "clock-offset-s":
                offset_s = int(words[1])
            elif words[0] == "clock-offset-ns":
                offset_ns = int(words[1])
    return hostname, offset_s * 1000000000 + offset_ns


def parse_csv(text, what):
    """Rows of a CSV output as dicts; fails unless the header is SPEC's."""
    lines = text.splitlines()
    if not lines or lines[0] != ",".join(KEYS[what]):
        vmtest.fail("CSV header of what=%s is %r" % (what, lines[0] if lines else ""))
    return list(csv.DictReader(io.StringIO(text)))


# What an interval's json object has after the CSV's keys: its exact
# duration and exact times as strings, for readers whose numbers are doubles.
JSON_EXACT_KEYS = ["dur_ns", "begin_ns_str", "end_ns_str"]


def check_json_exact_times(number, row):
    """The duration and string times of a json interval are its integers'."""
    exact = (row["end_ns"] - row["begin_ns"], str(row["begin_ns"]), str(row["end_ns"]))
    if tuple(row[k] for k in JSON_EXACT_KEYS) != exact:
        vmtest.fail("json line %d: %s are %r, not %r" % (
            number, JSON_EXACT_KEYS, tuple(row[k] for k in JSON_EXACT_KEYS), exact))


def parse_json_lines(text, what):
    """Rows of a json output: one object a line with the CSV's keys (and for
    intervals the exact-time members, checked, then left out)."""
    rows = []
    extra = JSON_EXACT_KEYS if what in ("threads", "vcpus") else []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            row = json.loads(line)
        except ValueError as e:
            vmtest.fail("json line %d is not JSON (%s): %r" % (number, e, line))
        if list(row) != KEYS[what] + extra:
            vmtest.fail("json line %d has keys %s, not %s" % (number, list(row),
                                                             KEYS[what] + extra))
        if extra:
            check_json_exact_times(number, row)
        rows.append({k: row[k] for k in KEYS[what]})
    return rows


def check_chrome(text):
    """A Chrome trace-event document that chrome://tracing and Perfetto open."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        vmtest.fail("chrome output is not JSON: %s" % e)
    events = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(events, list):
        vmtest.fail("chrome output has no traceEvents array")
    for ev in events:
        if ev.get("ph") not in ("X", "M", "B", "E", "i", "I", "C"):
            vmtest.fail("chrome event with phase %r: %r" % (ev.get("ph"), ev))
        for key in ("pid", "tid", "name"):
            if key not in ev:
                vmtest.fail("chrome event without %s: %r" % (key, ev))
        if ev["ph"] == "X" and (not isinstance(ev.get("ts"), (int, float)) or
                                not isinstance(ev.get("dur"), (int, float)) or
                                ev["dur"] < 0):
            vmtest.fail("chrome complete event without ts/dur: %r" % ev)
    return events


def warnings_of(stderr):
    """The warning lines babeltrace2 components printed."""
    return btlog.warnings(stderr)


def unexpected_warnings_of(stderr):
    """warnings_of(), but for the kvm layout's expected one (btlog)."""
    return btlog.unexpected_warnings(stderr)


def check_threads_tile(rows, last_ts=None):
    """Each thread's intervals follow each other without gap or overlap, and
    two neighbours never have the same (state, vcpu, reason); returns
    {(machine, tid): (first begin, last end, total)}."""
    by_thread = {}
    for row in rows:
        by_thread.setdefault((row["machine"], row["tid"]), []).append(row)
    spans = {}
    for key, intervals in by_thread.items():
        intervals.sort(key=lambda r: int(r["begin_ns"]))
        total = 0
        for before, after in zip(intervals, intervals[1:]):
            if int(before["end_ns"]) != int(after["begin_ns"]):
                vmtest.fail("thread %s: gap or overlap between %s and %s" % (
                    key, before, after))
            if (before["state"], before["vcpu"], before["reason"]) == (
                    after["state"], after["vcpu"], after["reason"]):
                vmtest.fail("thread %s: unmerged neighbours %s and %s" % (
                    key, before, after))
        for row in intervals:
            length = int(row["end_ns"]) - int(row["begin_ns"])
            if length <= 0:
                vmtest.fail("thread %s: empty or reversed interval %s" % (key, row))
            total += length
        spans[key] = (int(intervals[0]["begin_ns"]), int(intervals[-1]["end_ns"]), total)
    return spans


def require_component(name):
    """Skips the test when the built plugin does not have component `name`
    yet (it comes from another part of the project)."""
    proc = vmtest.babeltrace2(["help", name], check=False)
    if proc.returncode != 0:
        vmtest.skip(name + " is not in the plugin yet")
