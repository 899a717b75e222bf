"""vm-workload: deterministic output, and a ground truth consistent with
the events it wrote.

The truth is checked against a replay of the stub files (never the other
way round): intervals well formed, exits matching the kvm_exit/kvm_entry
pairs, every guest event inside a guest-mode period of its vCPU once mapped
through the true time map; then, when the stub converter is built, the CTF
traces hold exactly the counted events.
"""

import csv
import filecmp
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction

import vmtest

EVENTS = 50000
FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')
THREAD_STATES = {"running", "hypervisor", "preempted", "vcpu-blocked", "runnable", "blocked"}
ON_VCPU = {"running", "hypervisor", "preempted", "vcpu-blocked"}
MODES = {"guest", "hypervisor", "preempted", "blocked"}
HEADERS = {
    "threads.csv": "machine,tid,comm,state,begin_ns,end_ns,vcpu,reason",
    "vcpus.csv": "machine,vcpu,mode,begin_ns,end_ns,host_tid,pcpu,reason",
    "exits.csv": "machine,vcpu,reason,name,count,total_ns,min_ns,max_ns,mean_ns",
    "timemap.csv": "machine,slope,offset_ns",
    "counts.csv": "machine,event,count",
    "machines.csv": "machine,role,hostname,clock_uuid,vm_uid,qemu_pid",
}


def generate(out, seed, extra=()):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [vmtest.WORKLOAD, "--out", out, "--seed", str(seed), "--events", str(EVENTS)]
    proc = subprocess.run(cmd + list(extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        vmtest.fail("%s failed (%d):\n%s" % (" ".join(cmd), proc.returncode, proc.stderr))


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    if mismatch or errors:
        return False
    return all(same_tree(os.path.join(a, d), os.path.join(b, d)) for d in cmp.common_dirs)


def read_csv(out, name):
    path = os.path.join(out, "truth", name)
    with open(path) as f:
        header = f.readline().rstrip("\n")
        if header != HEADERS[name]:
            vmtest.fail("%s: header %r, expected %r" % (name, header, HEADERS[name]))
        return list(csv.DictReader(f, fieldnames=header.split(",")))


def read_stub(path):
    """(header dict, list of (cycles, cpu, name, fields))"""
    header, events = {}, []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip() if line.startswith("#") else line.strip()
            if not line:
                continue
            if not line[0].isdigit():
                key, _, value = line.partition(" ")
                header[key] = value
                continue
            ts, cpu, name, rest = (line.split(" ", 3) + [""])[:4]
            fields = {k: v.strip('"') for k, v in FIELD.findall(rest)}
            events.append((int(ts), int(cpu), name, fields))
    return header, events


def clock_offset(header):
    return int(header["clock-offset-s"]) * 10**9 + int(header["clock-offset-ns"])


def check_sequence(what, rows, end):
    """Sorted, non-overlapping, contiguous intervals ending at END, merged."""
    previous = None
    for row in rows:
        begin, stop = int(row["begin_ns"]), int(row["end_ns"])
        if begin >= stop:
            vmtest.fail("%s: empty or reversed interval %s" % (what, row))
        if previous is not None:
            if begin != int(previous["end_ns"]):
                vmtest.fail("%s: gap or overlap between %s and %s" % (what, previous, row))
            keys = [k for k in row if k not in ("begin_ns", "end_ns")]
            if all(row[k] == previous[k] for k in keys):
                vmtest.fail("%s: identical consecutive intervals not merged: %s" % (what, row))
        previous = row
    if previous is not None and int(previous["end_ns"]) != end:
        vmtest.fail("%s: last interval ends at %s, not at the end %d" % (
            what, previous["end_ns"], end))


def group(rows, *keys):
    result = {}
    for row in rows:
        result.setdefault(tuple(row[k] for k in keys), []).append(row)
    return result


def check_thread_rows(threads, end):
    for key, rows in group(threads, "machine", "tid").items():
        check_sequence("thread %s/%s" % key, rows, end)
        for row in rows:
            state = row["state"]
            if state not in THREAD_STATES:
                vmtest.fail("bad thread state %r" % state)
            if (row["vcpu"] != "") != (state in ON_VCPU):
                vmtest.fail("vcpu field and state disagree: %s" % row)
            if row["reason"] != "" and state != "hypervisor":
                vmtest.fail("a reason outside hypervisor: %s" % row)


def check_vcpu_rows(vcpus, end):
    for key, rows in group(vcpus, "machine", "vcpu").items():
        check_sequence("vcpu %s/%s" % key, rows, end)
        for row in rows:
            if row["mode"] not in MODES:
                vmtest.fail("bad vcpu mode %r" % row["mode"])
            if (row["pcpu"] != "") != (row["mode"] in ("guest", "hypervisor")):
                vmtest.fail("pcpu field and mode disagree: %s" % row)


class HostReplay:
    """Replays the host stub: which vCPU each kvm event belongs to, and the
    exits from kvm_exit to the next kvm_entry of that vCPU."""

    def __init__(self, events, machines):
        qemu = {int(m["qemu_pid"]): m["machine"] for m in machines if m["role"] == "guest"}
        self.vcpu_of_tid = {}
        self.machine_of_tid = {}
        for _, _, name, f in events:
            if name == "lttng_statedump_process_state" and int(f["pid"]) in qemu:
                self.machine_of_tid[int(f["tid"])] = qemu[int(f["pid"])]
        self.exits = {}  # (machine, vcpu, reason) -> [count, total, min, max]
        self.open = {}  # (machine, vcpu) -> (reason, time)
        self.kvm_exits = 0
        # Like the analysis, learn each thread's vCPU ahead, then replay.
        for learning in (True, False):
            self.current = {}
            for _, cpu, name, f in events:
                if name == "sched_switch" and cpu not in self.current:
                    self.current[cpu] = int(f["prev_tid"])
            for ts, cpu, name, f in events:
                self.step(ts, cpu, name, f, learning)

    def step(self, ts, cpu, name, f, learning):
        if name == "sched_switch":
            self.current[cpu] = int(f["next_tid"])
            return
        if name not in ("kvm_entry", "kvm_x86_entry", "kvm_exit", "kvm_x86_exit"):
            return
        tid = self.current.get(cpu)
        if tid not in self.machine_of_tid:
            vmtest.fail("kvm event at %d on CPU %d outside any vCPU thread" % (ts, cpu))
        if "vcpu_id" in f:
            self.vcpu_of_tid.setdefault(tid, int(f["vcpu_id"]))
        if learning:
            return
        vcpu = self.vcpu_of_tid.get(tid)
        key = (self.machine_of_tid[tid], vcpu)
        if name.endswith("exit"):
            self.kvm_exits += 1
            if key in self.open:
                vmtest.fail("two kvm_exit without kvm_entry on %s" % (key,))
            self.open[key] = (int(f["exit_reason"]), ts)
        elif key in self.open:
            reason, begin = self.open.pop(key)
            stat = self.exits.setdefault(key + (reason,), [0, 0, None, 0])
            duration = ts - begin
            stat[0] += 1
            stat[1] += duration
            stat[2] = duration if stat[2] is None else min(stat[2], duration)
            stat[3] = max(stat[3], duration)


def check_exits(exits, replay):
    truth = {(r["machine"], int(r["vcpu"]), int(r["reason"])): r for r in exits}
    if set(truth) != set(replay.exits):
        vmtest.fail("exit keys differ: truth %s, trace %s" % (sorted(truth), sorted(replay.exits)))
    counted = 0
    for key, (count, total, low, high) in replay.exits.items():
        row = truth[key]
        expected = [count, total, low, high, total // count]
        got = [int(row[k]) for k in ("count", "total_ns", "min_ns", "max_ns", "mean_ns")]
        if got != expected:
            vmtest.fail("exits %s: truth %s, trace %s" % (key, got, expected))
        if not row["name"] or row["name"].isdigit():
            vmtest.fail("exit reason %s has no name" % (key,))
        counted += count
    if counted != replay.kvm_exits - len(replay.open):
        vmtest.fail("%d exits counted, %d kvm_exit minus %d open" % (
            counted, replay.kvm_exits, len(replay.open)))


def true_time(machine_ns, slope, offset):
    return slope * machine_ns + offset


def check_guest_events(out, machine, slope, offset, vcpus, threads):
    """Every guest event lies strictly inside a guest-mode period of its vCPU
    (or before the vCPU's mode is known); threads start at first appearance."""
    header, events = read_stub(os.path.join(out, machine + ".stub"))
    base = clock_offset(header)
    periods = {}
    for row in vcpus:
        if row["machine"] == machine:
            periods.setdefault(int(row["vcpu"]), []).append(
                (int(row["begin_ns"]), int(row["end_ns"]), row["mode"]))
    cursor = {v: 0 for v in periods}
    first_seen = {}
    for ts, cpu, name, f in events:
        t = true_time(base + ts, slope, offset)
        rows = periods.get(cpu, [])
        i = cursor.get(cpu, 0)
        while i < len(rows) and rows[i][1] <= t:
            i += 1
        cursor[cpu] = i
        before_known = not rows or t < rows[0][0]
        if not before_known and not (i < len(rows) and rows[i][2] == "guest" and rows[i][0] < t):
            vmtest.fail("%s event %s at true time %s on vCPU %d is outside guest mode" % (
                machine, name, float(t), cpu))
        for tid in appearing_tids(name, f):
            first_seen.setdefault(tid, t)
    firsts = {int(rows[0]["tid"]): int(rows[0]["begin_ns"])
              for (m, _), rows in group(threads, "machine", "tid").items() if m == machine}
    if set(firsts) != set(first_seen):
        vmtest.fail("%s: threads with intervals %s, appearing in the trace %s" % (
            machine, sorted(firsts), sorted(first_seen)))
    for tid, begin in firsts.items():
        if abs(first_seen[tid] - begin) > 1:
            vmtest.fail("%s tid %d: first interval at %d, first appearance at %s" % (
                machine, tid, begin, float(first_seen[tid])))
    return len(events)


def appearing_tids(name, f):
    if name == "sched_switch":
        return [t for t in (int(f["prev_tid"]), int(f["next_tid"])) if t != 0]
    if name in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
        return [int(f["tid"])]
    return []


def check_truth(out):
    machines = read_csv(out, "machines.csv")
    timemap = {r["machine"]: (Fraction(r["slope"]), Fraction(r["offset_ns"]))
               for r in read_csv(out, "timemap.csv")}
    counts = read_csv(out, "counts.csv")
    threads = read_csv(out, "threads.csv")
    vcpus = read_csv(out, "vcpus.csv")
    exits = read_csv(out, "exits.csv")
    if timemap.get("host") != (1, 0):
        vmtest.fail("the host's time map is not the identity: %s" % (timemap.get("host"),))
    header, host_events = read_stub(os.path.join(out, "host.stub"))
    end = clock_offset(header) + host_events[-1][0]
    if not threads or not vcpus or not exits:
        vmtest.fail("empty truth")
    check_thread_rows(threads, end)
    check_vcpu_rows(vcpus, end)
    check_exits(exits, HostReplay(host_events, machines))
    per_machine = {"host": len(host_events)}
    for m in machines:
        if m["role"] == "guest":
            slope, offset = timemap[m["machine"]]
            per_machine[m["machine"]] = check_guest_events(
                out, m["machine"], slope, offset, vcpus, threads)
    counted = {}
    for row in counts:
        counted[row["machine"]] = counted.get(row["machine"], 0) + int(row["count"])
    if counted != per_machine:
        vmtest.fail("counts.csv %s, stub files %s" % (counted, per_machine))
    states = {r["state"] for r in threads}
    for wanted in ("running", "hypervisor", "preempted", "runnable", "blocked"):
        if wanted not in states:
            vmtest.fail("no %s interval at all: the workload is not realistic" % wanted)
    return counted


def check_ctf(out, counted):
    if not os.path.isdir(vmtest.STUBGEN_PLUGIN_DIR):
        print("SKIP part: no stub converter plugin in %s (branch stubgen); "
              "CTF event counts not checked" % vmtest.STUBGEN_PLUGIN_DIR)
        return
    for machine, expected in counted.items():
        ctf = vmtest.stub_to_ctf(os.path.join(out, machine + ".stub"),
                                 os.path.join(out, "ctf", machine))
        proc = vmtest.babeltrace2([ctf, "--component=sink.utils.counter"],
                                  plugin_paths=[], wrap=False)
        match = re.search(r"^\s*(\d+)\s+events?\b", proc.stdout, re.MULTILINE)
        total = int(match.group(1)) if match else None
        if total is None:
            lines = vmtest.babeltrace2([ctf], plugin_paths=[], wrap=False).stdout
            total = lines.count("\n")
        if total != expected:
            vmtest.fail("%s: %d events in CTF, %d in counts.csv" % (machine, total, expected))
        print("%s: %d events in CTF, as counted" % (machine, total))


def main():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.fail("no generator at " + vmtest.WORKLOAD)
    base = os.path.join(vmtest.WORK_DIR, "workload")
    a, b, c = (os.path.join(base, n) for n in ("a", "b", "c"))
    generate(a, 7)
    generate(b, 7)
    if not same_tree(a, b):
        vmtest.fail("same seed, different output")
    generate(c, 8)
    if filecmp.cmp(os.path.join(a, "host.stub"), os.path.join(c, "host.stub"), shallow=False):
        vmtest.fail("another seed, same host trace")
    counted = check_truth(a)
    check_truth(c)
    check_ctf(a, counted)
    print("workload: deterministic, truth consistent with the traces")


if __name__ == "__main__":
    main()
