"""vm-workload: deterministic output, clear refusals of bad options, and a
ground truth consistent with the events it wrote.

The truth is checked against the stub files (never computed from them):
intervals well formed, exits matching the kvm_exit/kvm_entry pairs, every
guest event inside a guest-mode period of its vCPU once mapped through the
true time map, messages no faster than the minimum latency, and an
independent replay of SPEC.md's state rules giving the same threads and
vCPU intervals; then, when the stub converter is built, the CTF traces hold
exactly the counted events.
"""

import csv
import filecmp
import os
import re
import shutil
import subprocess
from fractions import Fraction

import vmtest

EVENTS = 50000
LATENCY = 2000
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
    "machines.csv": "machine,role,hostname,clock_uuid,vm_uid,qemu_pid,host_pid",
}
EXTRA = {}  # output dir -> extra options it was generated with


def generate(out, seed, extra=()):
    shutil.rmtree(out, ignore_errors=True)
    EXTRA[out] = tuple(extra)
    cmd = [vmtest.WORKLOAD, "--out", out, "--seed", str(seed), "--events", str(EVENTS),
           "--latency-ns", str(LATENCY)]
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
    """(header dict, list of (cycles, cpu, name, fields)); the file must be
    in time order, so that the converter can stream it."""
    header, events = {}, []
    last = 0
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
            if int(ts) < last:
                vmtest.fail("%s: %s goes back in time" % (path, line))
            last = int(ts)
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


KVM_ENTRIES = ("kvm_entry", "kvm_x86_entry")
KVM_EXITS = ("kvm_exit", "kvm_x86_exit")


def host_currents(events):
    """{cpu: tid} before the first event: each CPU's first sched_switch's
    prev_tid."""
    current = {}
    for _, cpu, name, f in events:
        if name == "sched_switch" and cpu not in current:
            current[cpu] = int(f["prev_tid"])
    return current


def kvm_events_by_thread(events):
    """[(tid, ts, cpu, name, fields)] of the host's kvm events, tid being the
    thread current on the CPU (from the sched_switches)."""
    current = host_currents(events)
    result = []
    for ts, cpu, name, f in events:
        if name == "sched_switch":
            current[cpu] = int(f["next_tid"])
        elif name in KVM_ENTRIES or name in KVM_EXITS:
            result.append((current.get(cpu), ts, cpu, name, f))
    return result


def kvm_vcpu_ids(kvm_events):
    """{tid: set of entry vcpu_ids}, {tid: set of exit vcpu_ids}. In the
    classic layout only the entries have a vcpu_id (the vCPU number); in the
    modern one the exits carry the number and the entries a pointer's low
    half (doc/workload-generator.md, "KVM and statedump layouts")."""
    entry_ids, exit_ids = {}, {}
    for tid, _, _, name, f in kvm_events:
        if name in KVM_ENTRIES:
            entry_ids.setdefault(tid, set()).add(int(f["vcpu_id"]))
        elif "vcpu_id" in f:
            exit_ids.setdefault(tid, set()).add(int(f["vcpu_id"]))
    return entry_ids, exit_ids


def vcpu_numbers(entry_ids, exit_ids):
    """{tid: vCPU number} of the threads that write a kvm entry (the truth's
    rule: only those are identified), in either layout."""
    numbers = exit_ids if exit_ids else entry_ids
    result = {}
    for tid in entry_ids:
        if len(numbers.get(tid, ())) != 1:
            vmtest.fail("host thread %d: vCPU numbers %s" % (tid, numbers.get(tid)))
        result[tid] = next(iter(numbers[tid]))
    return result


class HostReplay:
    """Replays the host stub: which vCPU each kvm event belongs to, and the
    exits from kvm_exit to the next kvm_entry of that vCPU."""

    def __init__(self, events, machines):
        qemu = {int(m["qemu_pid"]): m["machine"] for m in machines if m["role"] == "guest"}
        self.machine_of_tid = {}
        for _, _, name, f in events:
            if name == "lttng_statedump_process_state" and int(f["pid"]) in qemu:
                self.machine_of_tid[int(f["tid"])] = qemu[int(f["pid"])]
        self.exits = {}  # (machine, vcpu, reason) -> [count, total, min, max]
        self.open = {}  # (machine, vcpu) -> (reason, time)
        self.kvm_exits = 0
        # Like the analysis, learn each thread's vCPU ahead, then replay.
        kvm_events = kvm_events_by_thread(events)
        self.entry_ids, self.exit_ids = kvm_vcpu_ids(kvm_events)
        self.vcpu_of_tid = vcpu_numbers(self.entry_ids, self.exit_ids)
        for tid, ts, cpu, name, f in kvm_events:
            self.step(tid, ts, cpu, name, f)

    def step(self, tid, ts, cpu, name, f):
        if tid not in self.machine_of_tid:
            vmtest.fail("kvm event at %d on CPU %d outside any vCPU thread" % (ts, cpu))
        if tid not in self.vcpu_of_tid:
            # without any kvm_entry the analysis cannot tell a vCPU thread
            return
        key = (self.machine_of_tid[tid], self.vcpu_of_tid[tid])
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


def runnable(prev_state):
    """SPEC's rule: 0, or a single bit at or above 0x100, is runnable."""
    return prev_state == 0 or (prev_state >= 0x100 and prev_state & (prev_state - 1) == 0)


class StateReplay:
    """An independent reading of SPEC's state rules over the merged
    timeline (guest events mapped through the true time map), to compare
    with the truth the simulator computed from its own state."""

    def __init__(self, host, end):
        self.host = host  # a HostReplay: tid -> machine, vcpu
        self.end = end
        self.vcpu_mode = {}  # (machine, vcpu) -> (mode, pcpu, reason)
        self.vcpu_rows = {}  # (machine, vcpu) -> [(begin, value)]
        self.on_vcpu = {}  # (machine, tid) -> vcpu or None
        self.thread_state = {}  # (machine, tid) -> "runnable" / "blocked"
        self.current = {}  # (machine, vcpu) -> tid
        self.thread_rows = {}  # (machine, tid) -> [(begin, value)]

    @staticmethod
    def record(rows, t, value):
        if rows and rows[-1][1] == value:
            return
        rows.append((t, value))

    def thread_value(self, key):
        vcpu = self.on_vcpu.get(key)
        if vcpu is None:
            return (self.thread_state[key], "", "")
        mode, _, reason = self.vcpu_mode.get((key[0], vcpu), ("unknown", "", ""))
        state = {"guest": "running", "unknown": "running", "hypervisor": "hypervisor",
                 "preempted": "preempted", "blocked": "vcpu-blocked"}[mode]
        return (state, str(vcpu), reason if mode == "hypervisor" else "")

    def thread_changed(self, t, key):
        self.record(self.thread_rows.setdefault(key, []), t, self.thread_value(key))

    def set_mode(self, t, machine, vcpu, mode, pcpu, reason):
        key = (machine, vcpu)
        self.vcpu_mode[key] = (mode, pcpu, reason)
        tid = self.host_tid_of[key]
        self.record(self.vcpu_rows.setdefault(key, []), t,
                    (mode, str(tid), pcpu, reason if mode == "hypervisor" else ""))
        current = self.current.get(key)
        if current and (machine, current) in self.thread_rows:
            self.thread_changed(t, (machine, current))

    def host_event(self, t, cpu, name, f):
        replay = self.host
        if name == "sched_switch":
            for tid, switched_in in ((int(f["prev_tid"]), False), (int(f["next_tid"]), True)):
                if tid not in replay.vcpu_of_tid:
                    continue
                machine, vcpu = replay.machine_of_tid[tid], replay.vcpu_of_tid[tid]
                reason = self.vcpu_mode.get((machine, vcpu), ("", "", ""))[2]
                if switched_in:
                    self.set_mode(t, machine, vcpu, "hypervisor", str(cpu), reason)
                else:
                    mode = "preempted" if runnable(int(f["prev_state"])) else "blocked"
                    self.set_mode(t, machine, vcpu, mode, "", reason)
            self.host_current[cpu] = int(f["next_tid"])
        elif name in KVM_ENTRIES or name in KVM_EXITS:
            tid = self.host_current[cpu]
            if tid not in replay.vcpu_of_tid:
                return
            machine, vcpu = replay.machine_of_tid[tid], replay.vcpu_of_tid[tid]
            if name.endswith("exit"):
                self.set_mode(t, machine, vcpu, "hypervisor", str(cpu), f["exit_reason"])
            else:
                self.set_mode(t, machine, vcpu, "guest", str(cpu), "")

    def guest_event(self, t, machine, cpu, name, f):
        if name == "sched_switch":
            prev, nxt = int(f["prev_tid"]), int(f["next_tid"])
            if prev:
                self.on_vcpu[(machine, prev)] = None
                self.thread_state[(machine, prev)] = (
                    "runnable" if runnable(int(f["prev_state"])) else "blocked")
                self.thread_changed(t, (machine, prev))
            self.current[(machine, cpu)] = nxt
            if nxt:
                self.on_vcpu[(machine, nxt)] = cpu
                self.thread_changed(t, (machine, nxt))
        elif name in ("sched_waking", "sched_wakeup", "sched_wakeup_new"):
            key = (machine, int(f["tid"]))
            if self.on_vcpu.get(key) is None:
                self.thread_state[key] = "runnable"
                self.thread_changed(t, key)

    def run(self, timeline, host_events):
        self.host_tid_of = {(self.host.machine_of_tid[tid], v): tid
                            for tid, v in self.host.vcpu_of_tid.items()}
        self.host_current = {}
        for _, cpu, name, f in host_events:
            if name == "sched_switch" and cpu not in self.host_current:
                self.host_current[cpu] = int(f["prev_tid"])
        for t, machine, cpu, name, f in timeline:
            if machine is None:
                self.host_event(t, cpu, name, f)
            else:
                self.guest_event(t, machine, cpu, name, f)


def compare_rows(what, truth_rows, replayed, end, value_of):
    """Truth intervals against replayed (begin, value) changes, times +-1 ns."""
    if len(truth_rows) != len(replayed):
        vmtest.fail("%s: %d truth intervals, %d replayed:\n%s\n%s" % (
            what, len(truth_rows), len(replayed), truth_rows[:5], replayed[:5]))
    for row, (begin, value) in zip(truth_rows, replayed):
        if value_of(row) != value or abs(int(row["begin_ns"]) - begin) > 1:
            vmtest.fail("%s: truth %s, replay %s at %s" % (what, row, value, float(begin)))


def check_states(out, machines, timemap, host_events, host_replay, threads, vcpus, end):
    header, _ = read_stub(os.path.join(out, "host.stub"))
    base = clock_offset(header)
    timeline = [(base + ts, None, cpu, name, f) for ts, cpu, name, f in host_events]
    for m in machines:
        if m["role"] != "guest":
            continue
        slope, offset = timemap[m["machine"]]
        gheader, events = read_stub(os.path.join(out, m["machine"] + ".stub"))
        gbase = clock_offset(gheader)
        timeline += [(true_time(gbase + ts, slope, offset), m["machine"], cpu, name, f)
                     for ts, cpu, name, f in events]
    # Events are 2 ns apart in true time and map back within 1 ns: sorting
    # the mapped times gives the true order.
    timeline.sort(key=lambda e: e[0])
    tcp_received = check_messages(timeline, LATENCY,
                                  "--vmsync-period-ms" not in EXTRA.get(out, ()))
    replay = StateReplay(host_replay, end)
    replay.run(timeline, host_events)
    truth_threads = group(threads, "machine", "tid")
    if {(m, int(t)) for m, t in truth_threads} != set(replay.thread_rows):
        vmtest.fail("threads in truth and replay differ")
    for (machine, tid), rows in truth_threads.items():
        compare_rows("thread %s/%s" % (machine, tid), rows,
                     replay.thread_rows[(machine, int(tid))], end,
                     lambda r: (r["state"], r["vcpu"], r["reason"]))
    truth_vcpus = group(vcpus, "machine", "vcpu")
    if {(m, int(v)) for m, v in truth_vcpus} != set(replay.vcpu_rows):
        vmtest.fail("vCPUs in truth and replay differ")
    for (machine, vcpu), rows in truth_vcpus.items():
        compare_rows("vcpu %s/%s" % (machine, vcpu), rows,
                     replay.vcpu_rows.get((machine, int(vcpu)), []), end,
                     lambda r: (r["mode"], r["host_tid"], r["pcpu"], r["reason"]))
    return tcp_received


SENDERS = {"inet_sock_local_out": "tcp", "vmsync_gh_guest": "vmsync", "vmsync_hg_host": "vmsync"}
RECEIVERS = {"inet_sock_local_in": "tcp", "vmsync_gh_host": "vmsync", "vmsync_hg_guest": "vmsync"}


def message_key(name, f):
    kind = SENDERS.get(name) or RECEIVERS.get(name)
    if kind == "tcp":
        return (kind, f["seq"], f["ack_seq"], f["flags"])
    return (kind, f["vm_uid"], f["cnt"])


def check_messages(timeline, latency, expect_vmsync=True):
    """Unique keys; every message received on another machine at least the
    minimum latency after it was sent; vmsync in DESIGN-NOTES order."""
    sent, received = {}, {}
    for t, machine, _, name, f in timeline:
        if name in SENDERS:
            table = sent
        elif name in RECEIVERS:
            table = received
        else:
            continue
        key = message_key(name, f)
        if key in table:
            vmtest.fail("message key %s used twice" % (key,))
        table[key] = (t, machine or "host", name)
    for key, (t, machine, name) in received.items():
        if key not in sent:
            vmtest.fail("%s %s received, never sent" % (name, key))
        send_t, send_machine, _ = sent[key]
        if send_machine == machine:
            vmtest.fail("message %s sent and received on %s" % (key, machine))
        if t - send_t < latency - 1:
            vmtest.fail("message %s took %s ns, less than %d" % (key, float(t - send_t), latency))
    vmsync = sorted(k for k in sent if k[0] == "vmsync")
    for kind, uid, cnt in vmsync:
        if int(cnt) % 2 == 0 and (kind, uid, str(int(cnt) + 1)) in sent:
            if sent[(kind, uid, cnt)][0] >= sent[(kind, uid, str(int(cnt) + 1))][0]:
                vmtest.fail("vmsync %s/%s: reply before request" % (uid, cnt))
    if not vmsync and expect_vmsync:
        vmtest.fail("no vmsync exchange")
    if vmsync and not expect_vmsync:
        vmtest.fail("vmsync exchanges with --vmsync-period-ms 0")
    return sum(1 for k in received if k[0] == "tcp")


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
    host_replay = HostReplay(host_events, machines)
    check_exits(exits, host_replay)
    tcp_received = check_states(out, machines, timemap, host_events, host_replay, threads,
                                vcpus, end)
    if (tcp_received == 0) != ("--tcp-period-ms" in EXTRA.get(out, ())):
        vmtest.fail("%d TCP segments received" % tcp_received)
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
    traces = []
    for machine, expected in counted.items():
        ctf = vmtest.stub_to_ctf(os.path.join(out, machine + ".stub"),
                                 os.path.join(out, "ctf", machine))
        traces.append(ctf)
        # plain babeltrace2 (text output): one line per event
        total = vmtest.babeltrace2([ctf], plugin_paths=[], wrap=False).stdout.count("\n")
        if total != expected:
            vmtest.fail("%s: %d events in CTF, %d in counts.csv" % (machine, total, expected))
        print("%s: %d events in CTF, as counted" % (machine, total))
    # All together, as LTTng traces babeltrace2 merges (by realtime offsets).
    total = vmtest.babeltrace2(traces, plugin_paths=[], wrap=False).stdout.count("\n")
    if total != sum(counted.values()):
        vmtest.fail("%d events when read together, %d counted" % (total, sum(counted.values())))


BAD_OPTIONS = [
    ([], "--out"),
    (["--host-cpus", "0"], "--host-cpus"),
    (["--guests", "-1"], "--guests"),
    (["--vcpus", "x"], "vcpus"),
    (["--kvm-names", "new"], "--kvm-names"),
    (["--drift-ppm", "99999999"], "--drift-ppm"),
    (["--duration-ms", "0"], "--events"),
    (["--guest-activity", "fancy"], "--guest-activity"),
    (["--no-such-option"], "no-such-option"),
]


def check_bad_options(base):
    for args, named in BAD_OPTIONS:
        out = [] if not args and named == "--out" else ["--out", os.path.join(base, "bad")]
        proc = subprocess.run([vmtest.WORKLOAD] + out + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 2 or named not in proc.stderr:
            vmtest.fail("%s: exit %d (expected 2), stderr %r should name %s" % (
                args, proc.returncode, proc.stderr, named))
    if os.path.exists(os.path.join(base, "bad")):
        vmtest.fail("bad options still wrote output")


def main():
    vmtest.skip_under_valgrind("the workload generator only")
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.fail("no generator at " + vmtest.WORKLOAD)
    base = os.path.join(vmtest.WORK_DIR, "workload")
    shutil.rmtree(base, ignore_errors=True)
    check_bad_options(base)
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
    # More vCPUs than host CPUs (vCPUs waiting at the start, in unknown
    # mode), the pre-2.7 kvm event names, no TCP.
    d = os.path.join(base, "d")
    generate(d, 9, ["--kvm-names", "old", "--host-cpus", "2", "--guests", "3",
                    "--vcpus", "2", "--threads", "4", "--tcp-period-ms", "0"])
    check_truth(d)
    check_ctf(a, counted)
    print("workload: deterministic, truth consistent with the traces")


if __name__ == "__main__":
    main()
