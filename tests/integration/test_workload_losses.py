#!/usr/bin/python3
"""vm-workload --loss-rate: the traces really have the gaps the truth says.

For one workload with losses on host and guest CPUs:
- the truth (threads, vCPUs, exits, time map, machines) is that of the same
  seed without losses: the simulation goes on, only recording stops;
- every stub is the lossless one minus the lost events, plus its loss lines:
  per machine, counts.csv is lower by exactly the events lost;
- each row of losses.csv matches its stream: an event at gap_begin_ns (the
  stream's last before the gap) and at gap_end_ns (the first after, or the
  end of the trace), none in between, a loss line of that count there;
- read back from CTF (src.ctf.fs), each such stream has one discarded-events
  message per loss, whose end is the gap's end, and whose count is the lost
  count (none when losses.csv says the trace cannot tell it);
- the same options give the same bytes, no --loss-rate writes no
  losses.csv or affected.csv, and bad loss options exit with 2.
"""

import csv
import filecmp
import os
import subprocess
import sys
from fractions import Fraction

import bt2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stubfile  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

BASE = ["--seed", 7, "--duration-ms", 1500, "--guests", 2, "--vcpus", 2, "--host-cpus", 2]
LOSSY = BASE + ["--loss-rate", 4, "--loss-ms", "0.1:2"]
SAME = ("threads.csv", "vcpus.csv", "exits.csv", "timemap.csv", "machines.csv")


def read_csv(out, name):
    with open(os.path.join(out, "truth", name), newline="") as f:
        return list(csv.DictReader(f))


def fail_if(problems):
    if problems:
        vmtest.fail("\n  ".join(problems[:20]))


def check_truth_unchanged(plain, lossy):
    problems = []
    for name in SAME:
        if not filecmp.cmp(os.path.join(plain, "truth", name),
                           os.path.join(lossy, "truth", name), shallow=False):
            problems.append("truth/%s changes with --loss-rate" % name)
    for name in ("losses.csv", "affected.csv"):
        if os.path.exists(os.path.join(plain, "truth", name)):
            problems.append("truth/%s written without --loss-rate" % name)
    fail_if(problems)


def true_times(stub, slope, offset):
    """Per CPU, the true times of its events (nearest ns)."""
    base = stub.clock_offset_s * 10**9 + stub.clock_offset_ns
    per_cpu = {}
    for event in stub.events:
        per_cpu.setdefault(event.cpu, []).append(round(slope * (base + event.ts) + offset))
    return per_cpu


def key(event):
    return (event.ts, event.cpu, event.name, tuple(sorted(event.fields.items())))


def check_stubs(plain, lossy, losses):
    timemap = truthdata.timemap(lossy)
    plain_counts = {}
    for row in read_csv(plain, "counts.csv"):
        plain_counts[row["machine"]] = plain_counts.get(row["machine"], 0) + int(row["count"])
    lossy_counts = {}
    for row in read_csv(lossy, "counts.csv"):
        lossy_counts[row["machine"]] = lossy_counts.get(row["machine"], 0) + int(row["count"])
    problems = []
    end_of_trace = max(max(t) for t in true_times(
        stubfile.parse(os.path.join(lossy, "host.stub")), 1, 0).values())
    for machine, (slope, offset) in timemap.items():
        rows = [r for r in losses if r["machine"] == machine]
        lost = sum(int(r["lost"]) for r in rows)
        if plain_counts[machine] - lossy_counts[machine] != lost:
            problems.append("%s: %d events fewer, losses.csv says %d lost" % (
                machine, plain_counts[machine] - lossy_counts[machine], lost))
        full = stubfile.parse(os.path.join(plain, machine + ".stub"))
        stub = stubfile.parse(os.path.join(lossy, machine + ".stub"))
        kept = {key(e) for e in stub.events}
        if not kept <= {key(e) for e in full.events}:
            problems.append("%s: the lossy stub has events the lossless one has not" % machine)
        times = true_times(stub, slope, offset)
        for row in rows:
            cpu, begin, end = int(row["cpu"]), int(row["gap_begin_ns"]), int(row["gap_end_ns"])
            cpu_times = times.get(cpu, [])
            # Guest times map back within a nanosecond.
            near = [t for t in cpu_times if begin - 1 <= t <= end + 1]
            if not near or abs(near[0] - begin) > 1:
                problems.append("%s CPU %d: no event at the gap's begin %d" % (machine, cpu,
                                                                             begin))
            inside = [t for t in near if begin + 1 < t < end - 1]
            if inside:
                problems.append("%s CPU %d: %d events inside the gap [%d, %d]" % (
                    machine, cpu, len(inside), begin, end))
            if abs(near[-1] - end) > 1 and end != end_of_trace:
                problems.append("%s CPU %d: no event at the gap's end %d" % (machine, cpu, end))
        lines = sorted((l.cpu, l.count) for l in stub.losses)
        wanted = sorted((int(r["cpu"]), int(r["lost"])) for r in rows)
        if lines != wanted:
            problems.append("%s: loss lines %s, losses.csv %s" % (machine, lines, wanted))
    fail_if(problems)


def discarded_per_stream(ctf_dir):
    """{cpu_id: [(begin, end, count)]} of the discarded-events messages."""
    result = {}
    pending = {}
    for msg in bt2.TraceCollectionMessageIterator(ctf_dir):
        if isinstance(msg, bt2._DiscardedEventsMessageConst):
            pending.setdefault(msg.stream.addr, []).append(
                (msg.beginning_default_clock_snapshot.ns_from_origin,
                 msg.end_default_clock_snapshot.ns_from_origin, msg.count))
        elif isinstance(msg, bt2._PacketBeginningMessageConst):
            cpu = int(msg.packet.context_field["cpu_id"])
            result.setdefault(cpu, []).extend(pending.pop(msg.packet.stream.addr, []))
    return result


def check_ctf(lossy, losses):
    traces = truthdata.ctf_traces(lossy)
    timemap = truthdata.timemap(lossy)
    problems = []
    for machine, ctf_dir in traces.items():
        slope, offset = timemap[machine]
        found = discarded_per_stream(ctf_dir)
        for cpu in set(found) | {int(r["cpu"]) for r in losses if r["machine"] == machine}:
            rows = [r for r in losses if r["machine"] == machine and int(r["cpu"]) == cpu]
            got = found.get(cpu, [])
            if len(got) != len(rows):
                problems.append("%s CPU %d: %d discarded-events messages, %d losses" % (
                    machine, cpu, len(got), len(rows)))
                continue
            for (_, end, count), row in zip(got, rows):
                want = int(row["lost"]) if row["counted"] == "1" else None
                if count != want:
                    problems.append("%s CPU %d: count %s, expected %s" % (machine, cpu, count,
                                                                         want))
                if abs(round(slope * Fraction(end) + offset) - int(row["gap_end_ns"])) > 1:
                    problems.append("%s CPU %d: range ends at %d, the gap at %s" % (
                        machine, cpu, end, row["gap_end_ns"]))
    fail_if(problems)


def check_bad_options():
    for bad in (["--loss-rate", "-1"], ["--loss-rate", "nan"], ["--loss-ms", "3:1"],
                ["--loss-ms", "0:1"], ["--loss-ms", "1"], ["--loss-ms", "1:x"]):
        proc = subprocess.run([vmtest.WORKLOAD, "--out", os.path.join(vmtest.WORK_DIR, "bad")] +
                              bad, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 2 or "--loss" not in proc.stderr:
            vmtest.fail("vm-workload %s: status %d, %r (expected 2 and a message)" % (
                " ".join(bad), proc.returncode, proc.stderr))


def main():
    vmtest.skip_under_valgrind("the workload generator only")
    check_bad_options()
    plain = truthdata.generate("workload-losses-plain", BASE)
    lossy = truthdata.generate("workload-losses", LOSSY)
    again = truthdata.generate("workload-losses-again", LOSSY)
    for name in os.listdir(lossy):
        path = os.path.join(lossy, name)
        if name.endswith(".stub") and not filecmp.cmp(path, os.path.join(again, name),
                                                      shallow=False):
            vmtest.fail("%s differs between two runs of the same options" % name)
    for name in ("losses.csv", "affected.csv"):
        if not filecmp.cmp(os.path.join(lossy, "truth", name),
                           os.path.join(again, "truth", name), shallow=False):
            vmtest.fail("truth/%s differs between two runs of the same options" % name)
    losses = read_csv(lossy, "losses.csv")
    streams = {(r["machine"], r["cpu"]) for r in losses}
    if len(losses) < 8 or not any(m == "host" for m, _ in streams) or \
            not any(m != "host" for m, _ in streams):
        vmtest.fail("too few losses, or not on host and guest CPUs: %s" % losses)
    check_truth_unchanged(plain, lossy)
    check_stubs(plain, lossy, losses)
    check_ctf(lossy, losses)
    print("%d losses (%d events) on %d streams: gaps, loss lines and discarded-events "
          "messages agree with losses.csv" % (len(losses), sum(int(r["lost"]) for r in losses),
                                              len(streams)))


if __name__ == "__main__":
    main()
