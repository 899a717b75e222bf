#!/usr/bin/python3
"""vm-workload's steal truth (truth/steal.csv), migrations and host hogs.

On an oversubscribed host (3 guests of 2 vCPUs on 2 host CPUs, host hogs,
sched_migrate_task of waiting threads):
- steal.csv has SPEC's header; its rows, per vCPU, are sorted, do not
  overlap, are merged, and cover exactly the vCPU's `preempted` time of
  vcpus.csv; per guest thread, exactly its `preempted` time of threads.csv
  from its first appearance on (before it, a thread current on a preempted
  vCPU is already its victim);
- each row agrees with a replay of host.stub: the waiting CPU is where a
  sched_switch switched the vCPU thread out, moved by sched_migrate_task;
  the culprit is the thread that CPU's sched_switches made current (its
  first one's prev_tid before it), of the right kind (vCPU thread, other
  QEMU thread, idle, host);
- migrations happen, of waiting threads only, and some vCPU thread waits on
  a CPU it was migrated to;
- the hogs want the CPU nearly all the time (runnable or running);
- with --loss-rate (the same simulation), the rows are the same but for
  `unknown` culprits, exactly from a host gap's start on the waiting CPU to
  that CPU's next recorded sched_switch; steal-affected.csv has a window
  for every guest gap;
- the new options at 0 write what the generator wrote without them, and bad
  values exit with 2.
"""

import bisect
import csv
import filecmp
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stealcmp  # noqa: E402
from stealcmp import HostReplay, length, merged, overlap  # noqa: E402
import stubfile  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

HEADER = stealcmp.HEADER
SHAPE = ["--seed", 3, "--duration-ms", 300, "--guests", 3, "--vcpus", 2, "--host-cpus", 2,
         "--host-hogs", 2, "--migrate-rate", 300]
LOSS = ["--loss-rate", 30, "--loss-ms", "0.1:1"]
PLAIN = ["--seed", 5, "--duration-ms", 50, "--guests", 2, "--host-cpus", 2]
MIN_HOG_BUSY = 0.9


def read_csv(out, name):
    with open(os.path.join(out, "truth", name), newline="") as f:
        return list(csv.DictReader(f))


def span(row):
    return int(row["begin_ns"]), int(row["end_ns"])


def culprit(row):
    return (row["culprit_kind"], row["culprit_machine"], row["culprit_vcpu"], row["culprit_tid"])


def check_rows(out):
    """Header, order, merging, and coverage of the preempted time."""
    with open(os.path.join(out, "truth", "steal.csv")) as f:
        header = f.readline().rstrip("\n")
    if header != HEADER:
        vmtest.fail("steal.csv header %r, expected %r" % (header, HEADER))
    rows = read_csv(out, "steal.csv")
    problems = []
    by_vcpu = {}
    for row in rows:
        by_vcpu.setdefault((row["machine"], row["vcpu"]), []).append(row)
    for key, vrows in by_vcpu.items():
        for a, b in zip(vrows, vrows[1:]):
            if span(b)[0] < span(a)[1]:
                problems.append("%s: rows overlap or are out of order: %s / %s" % (key, a, b))
            elif span(b)[0] == span(a)[1] and culprit(a) == culprit(b) and \
                    (a["tid"], a["pcpu"]) == (b["tid"], b["pcpu"]):
                problems.append("%s: rows not merged: %s / %s" % (key, a, b))
    preempted = {}
    for row in read_csv(out, "vcpus.csv"):
        if row["mode"] == "preempted":
            preempted.setdefault((row["machine"], row["vcpu"]), []).append(span(row))
    for key in set(preempted) | set(by_vcpu):
        truth = merged(preempted.get(key, []))
        steal = merged(span(r) for r in by_vcpu.get(key, []))
        if truth != steal:
            problems.append("%s: steal rows cover %d ns, vcpus.csv preempted %d ns, "
                            "not the same intervals" % (key, length(steal), length(truth)))
    problems += check_threads(out, rows)
    return rows, problems


def check_threads(out, rows):
    """Per guest thread: its preempted time of threads.csv, and nothing else
    from its first appearance on."""
    first, preempted, steal = {}, {}, {}
    for row in read_csv(out, "threads.csv"):
        key = (row["machine"], row["tid"])
        first[key] = min(first.get(key, int(row["begin_ns"])), int(row["begin_ns"]))
        if row["state"] == "preempted":
            preempted.setdefault(key + (row["vcpu"],), []).append(span(row))
    for row in rows:
        if row["tid"] != "0":
            steal.setdefault((row["machine"], row["tid"], row["vcpu"]), []).append(span(row))
    problems = []
    for key in set(preempted) | set(steal):
        start = first.get(key[:2], 0)
        truth = merged(preempted.get(key, []))
        mine = merged((max(b, start), e) for b, e in steal.get(key, []) if e > start)
        if truth != mine:
            problems.append("thread %s on vCPU %s: steal rows %d ns from its appearance, "
                            "threads.csv preempted %d ns (overlap %d)" % (
                                key[:2], key[2], length(mine), length(truth),
                                overlap(mine, truth)))
    if not any(r["tid"] == "0" for r in rows):
        problems.append("no steal of an idle guest (victim tid 0)")
    return problems


def kinds(out, replay):
    """tid -> (kind, machine, vcpu) for vCPU threads and other QEMU threads."""
    result = {}
    qemu = {int(m["qemu_pid"]): m["machine"] for m in truthdata.machines(out)
            if m["role"] == "guest"}
    for tid, pid in replay.pid.items():
        if pid in qemu:
            result[tid] = ("vmm", qemu[pid], "")
    for row in read_csv(out, "vcpus.csv"):
        result[int(row["host_tid"])] = ("vcpu", row["machine"], row["vcpu"])
    return result


def check_culprits(out, rows, replay):
    """Every row against the replay of the host trace (lossless run)."""
    known = kinds(out, replay)
    vcpu_tid = {(r["machine"], r["vcpu"]): int(r["host_tid"]) for r in read_csv(out, "vcpus.csv")}
    problems = []
    migrated_rows = 0
    for row in rows:
        begin, end = span(row)
        tid = vcpu_tid[(row["machine"], row["vcpu"])]
        cpu, moved = replay.waiting_cpu(tid, begin)
        if str(cpu) != row["pcpu"] or (moved is not None and moved < end):
            problems.append("waiting CPU %s, the host trace says %s (next move at %s): %s" % (
                row["pcpu"], cpu, moved, row))
            continue
        times, _ = replay.moves[tid]
        last = bisect.bisect_right(times, begin) - 1
        if any(m[0] == times[last] and m[2]["tid"] == tid for m in replay.migrations):
            migrated_rows += 1
        current, switch = replay.current(cpu, begin)
        if switch is not None and switch < end:
            problems.append("CPU %d switches at %d inside the row: %s" % (cpu, switch, row))
            continue
        if current == 0:
            expected = ("idle", "", "", "")
        else:
            kind, machine, vcpu = known.get(current, ("host", "", ""))
            expected = (kind, machine, vcpu, str(current))
        if culprit(row) != expected:
            problems.append("culprit %s, the host trace says %s: %s" % (
                culprit(row), expected, row))
    return problems, migrated_rows


def check_migrations(replay):
    problems = []
    if len(replay.migrations) < 20:
        problems.append("only %d sched_migrate_task events" % len(replay.migrations))
    for t, cpu, f in replay.migrations:
        if cpu != f["dest_cpu"] or f["orig_cpu"] == f["dest_cpu"]:
            problems.append("migration on CPU %d: %s" % (cpu, f))
        for c in replay.switches:
            if replay.current(c, t)[0] == f["tid"]:
                problems.append("thread %d migrated while running on CPU %d" % (f["tid"], c))
    vcpus = [f for _, _, f in replay.migrations if f["comm"].endswith("/KVM")]
    if not vcpus:
        problems.append("no vCPU thread migrated")
    return problems


def check_hogs(out):
    """The hogs want the CPU nearly all the time: runnable or running, seldom
    asleep (how much they get is the scheduler's business)."""
    stub = stubfile.parse(os.path.join(out, "host.stub"))
    hogs = {e.fields["tid"] for e in stub.events
            if e.name == "lttng_statedump_process_state" and e.fields["name"] == "stress-ng-cpu"}
    if len(hogs) != 2:
        return ["%d hog threads in the statedump, expected 2" % len(hogs)]
    asleep, since = 0, {}
    for e in stub.events:
        f = e.fields
        if e.name == "sched_switch" and f["prev_tid"] in hogs and f["prev_state"] != 0:
            since[f["prev_tid"]] = e.ts
        elif e.name == "sched_wakeup" and f["tid"] in since:
            asleep += e.ts - since.pop(f["tid"])
    total = stub.events[-1].ts - stub.events[0].ts
    share = 1 - asleep / (len(hogs) * total)
    print("hogs runnable or running %.1f%% of the time" % (100 * share))
    if share < MIN_HOG_BUSY:
        return ["the hogs were runnable or running only %.1f%% of the time" % (100 * share)]
    return []


def pieces(rows):
    """{(machine, vcpu): sorted [(begin, end, row)]}"""
    result = {}
    for row in rows:
        result.setdefault((row["machine"], row["vcpu"]), []).append(span(row) + (row,))
    return result


def check_lossy(plain_rows, lossy_out):
    """The lossy twin: the same rows but for `unknown`, exactly where a host
    gap hides the waiting CPU's current thread."""
    replay = HostReplay(lossy_out)
    windows = {}
    for gap in read_csv(lossy_out, "losses.csv"):
        if gap["machine"] == "host":
            cpu = int(gap["cpu"])
            end = replay.next_switch(cpu, int(gap["gap_end_ns"]))
            windows.setdefault(str(cpu), []).append((int(gap["gap_begin_ns"]), end or 2**64))
    windows = {cpu: merged(w) for cpu, w in windows.items()}
    lossy = pieces(read_csv(lossy_out, "steal.csv"))
    problems = []
    unknown = 0
    for key, plain in pieces(plain_rows).items():
        other = lossy.get(key, [])
        i = j = 0
        while i < len(plain) and j < len(other):
            b = max(plain[i][0], other[j][0])
            e = min(plain[i][1], other[j][1])
            if b < e:
                p, q = plain[i][2], other[j][2]
                hidden = overlap([(b, e)], windows.get(p["pcpu"], []))
                if (p["tid"], p["pcpu"]) != (q["tid"], q["pcpu"]):
                    problems.append("lossy twin: other victim or CPU: %s / %s" % (p, q))
                elif q["culprit_kind"] == "unknown":
                    unknown += e - b
                    if hidden != e - b:
                        problems.append("unknown outside a host gap window: %s" % q)
                elif hidden or culprit(p) != culprit(q):
                    problems.append("lossy twin: culprit %s where the truth says %s "
                                    "(%d ns in a host gap window)" % (q, p, hidden))
            if plain[i][1] < other[j][1]:
                i += 1
            else:
                j += 1
        if [x[:2] for x in merged(x[:2] for x in plain)] != merged(x[:2] for x in other):
            problems.append("%s: the lossy twin's steal covers other intervals" % (key,))
    if unknown == 0:
        problems.append("no unknown culprit with losses on host CPUs")
    affected = read_csv(lossy_out, "steal-affected.csv")
    starts = {(r["machine"], r["vcpu"], r["begin_ns"]) for r in affected}
    for gap in read_csv(lossy_out, "losses.csv"):
        if gap["machine"] != "host" and \
                not any((gap["machine"], gap["cpu"]) == (m, v) and int(b) <= int(gap["gap_begin_ns"])
                        for m, v, b in starts):
            problems.append("no steal-affected window for guest gap %s" % gap)
    print("lossy twin: %d ns of steal with an unknown culprit" % unknown)
    return problems


def run(args):
    return subprocess.run([vmtest.WORKLOAD] + [str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


def check_options():
    problems = []
    for bad in (["--migrate-rate", "-1"], ["--migrate-rate", "x"], ["--host-hogs", "-1"]):
        proc = run(["--out", os.path.join(vmtest.WORK_DIR, "workload-steal-bad")] + bad)
        if proc.returncode != 2 or bad[0][2:] not in proc.stderr:
            problems.append("%s: status %d, %r (expected 2 and a message)" % (
                bad, proc.returncode, proc.stderr))
    plain = truthdata.generate("workload-steal-plain", PLAIN)
    zeros = truthdata.generate("workload-steal-zeros",
                               PLAIN + ["--migrate-rate", 0, "--host-hogs", 0])
    for name in ["host.stub", "guest1.stub"] + ["truth/" + n for n in (
            "threads.csv", "vcpus.csv", "exits.csv", "counts.csv", "steal.csv")]:
        if not filecmp.cmp(os.path.join(plain, name), os.path.join(zeros, name), shallow=False):
            problems.append("%s differs with --migrate-rate 0 --host-hogs 0" % name)
    with open(os.path.join(plain, "host.stub")) as f:
        if "sched_migrate_task" in f.read():
            problems.append("host.stub has sched_migrate_task without --migrate-rate")
    return problems


def main():
    vmtest.skip_under_valgrind("the workload generator only")
    problems = check_options()
    out = truthdata.generate("workload-steal", SHAPE)
    lossy = truthdata.generate("workload-steal-lossy", SHAPE + LOSS)
    rows, found = check_rows(out)
    problems += found
    replay = HostReplay(out)
    found, migrated_rows = check_culprits(out, rows, replay)
    problems += found
    if migrated_rows == 0:
        problems.append("no steal row of a vCPU thread waiting where it was migrated")
    problems += check_migrations(replay)
    problems += check_hogs(out)
    problems += check_lossy(rows, lossy)
    if problems:
        vmtest.fail("steal truth:\n  " + "\n  ".join(problems[:30]))
    kinds_seen = sorted({r["culprit_kind"] for r in rows})
    print("steal.csv: %d rows, %d ns, culprits %s, %d rows after a migration, "
          "%d migrations: consistent with threads.csv, vcpus.csv and host.stub" % (
              len(rows), sum(length([span(r)]) for r in rows), kinds_seen, migrated_rows,
              len(replay.migrations)))


if __name__ == "__main__":
    main()
