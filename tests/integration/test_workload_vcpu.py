"""vm-workload's workloads for synchronization from stock KVM events alone.

For several seeds and shapes (1 to 3 guests of 2 vCPUs, 1 to 4 host CPUs,
guest clocks tens of seconds ahead or behind, drift up to 100 ppm, rich guest
activity, no vmsync and no TCP), checked against the trace and the truth:

- every guest event on CPU n lies, in true time (truth/timemap.csv), strictly
  inside a guest-mode interval of vCPU n of that guest, the intervals taken
  from the host's kvm_entry / kvm_exit events of the vCPU thread, the thread
  found from machines.csv's host_pid and the host statedump;
- the guests look alike on the host: every QEMU has the same name, every vCPU
  thread is `CPU n/KVM`, and host_pid is the statedump pid of its vCPU threads;
- the rich activity is there, balanced and where it is promised: interrupt,
  timer, reschedule-IPI and syscall events in pairs; many entries with a guest
  event within 2 us after them; most HLT exits within 3 us of the guest's
  last event, in its idle task; device interrupts 0.3 to 2 us after the
  entry that follows an EXTERNAL_INTERRUPT exit, on a good share of them;
  after a HLT sleep, a guest event within about 1 us of the entry;
- the truth stays that of test_workload (same checks, including the replay of
  the state rules, so interrupts and syscalls change no thread state);
- --guest-activity=basic writes none of the new events.
"""

import bisect
import os
import shutil
from fractions import Fraction

import test_workload as tw
import vmtest

SECOND = 10**9
SHAPES = [
    # seed, guests, host CPUs, offset scale (ns), drift scale (ppm)
    (41, 1, 1, 60 * SECOND, 100),
    (42, 2, 2, -45 * SECOND, 80),
    (43, 3, 4, 7 * SECOND, -100),
    (44, 3, 1, -60 * SECOND, 50),
    (45, 2, 3, 30 * SECOND, 100),
    (46, 1, 4, -2 * SECOND, -30),
]
NO_SYNC = ["--vmsync-period-ms", "0", "--tcp-period-ms", "0"]
RICH_EVENTS = {
    "irq_handler_entry": "irq_handler_exit",
    "irq_softirq_entry": "irq_softirq_exit",
    "timer_hrtimer_expire_entry": "timer_hrtimer_expire_exit",
    "x86_irq_vectors_local_timer_entry": "x86_irq_vectors_local_timer_exit",
    "x86_irq_vectors_reschedule_entry": "x86_irq_vectors_reschedule_exit",
}
KVM_ENTRY = ("kvm_entry", "kvm_x86_entry")
KVM_EXIT = ("kvm_exit", "kvm_x86_exit")
EXIT_EXTERNAL_INTERRUPT = 1
EXIT_HLT = 12


def is_rich(name):
    return name in RICH_EVENTS or name in RICH_EVENTS.values() or name.startswith("syscall_")


class Host:
    """The host trace: vCPU threads, their process, and their guest-mode
    intervals (kvm_entry to the next kvm_exit of the thread)."""

    def __init__(self, out):
        header, self.events = tw.read_stub(os.path.join(out, "host.stub"))
        base = tw.clock_offset(header)
        self.pid_of, self.comm_of = {}, {}
        for _, _, name, f in self.events:
            if name == "lttng_statedump_process_state":
                self.pid_of[int(f["tid"])] = int(f["pid"])
                self.comm_of[int(f["tid"])] = f["name"]
        current = {}
        for _, cpu, name, f in self.events:
            if name == "sched_switch" and cpu not in current:
                current[cpu] = int(f["prev_tid"])
        self.vcpu_of = {}  # tid -> vcpu id
        self.intervals = {}  # tid -> [[begin or None, end or None]]
        self.entries = {}  # tid -> [(t, reason of the exit it ends)]
        self.exits = {}  # tid -> [(t, reason)]
        last_reason = {}
        for ts, cpu, name, f in self.events:
            t = base + ts
            if name == "sched_switch":
                current[cpu] = int(f["next_tid"])
                continue
            if name not in KVM_ENTRY and name not in KVM_EXIT:
                continue
            tid = current[cpu]
            spans = self.intervals.setdefault(tid, [])
            if name in KVM_ENTRY:
                if spans and spans[-1][1] is None:
                    vmtest.fail("host tid %d: two kvm_entry without kvm_exit" % tid)
                spans.append([t, None])
                self.entries.setdefault(tid, []).append((t, last_reason.get(tid)))
            else:
                if not spans:
                    spans.append([None, None])  # in guest mode at the start
                if spans[-1][1] is not None:
                    vmtest.fail("host tid %d: two kvm_exit without kvm_entry" % tid)
                spans[-1][1] = t
                last_reason[tid] = int(f["exit_reason"])
                self.exits.setdefault(tid, []).append((t, int(f["exit_reason"])))
        # the vCPU number: in the entries (classic layout) or the exits (modern)
        self.vcpu_of = tw.vcpu_numbers(*tw.kvm_vcpu_ids(tw.kvm_events_by_thread(self.events)))


def vcpu_threads(host, machines, vcpus):
    """{(guest, vcpu): host tid} from host_pid; checks the guests look alike."""
    result = {}
    qemu_names = set()
    for m in machines:
        if m["role"] != "guest":
            if m["host_pid"] != "":
                vmtest.fail("the host has a host_pid: %s" % m)
            continue
        pid = int(m["host_pid"])
        if m["qemu_pid"] != m["host_pid"]:
            vmtest.fail("qemu_pid and host_pid differ: %s" % m)
        qemu_names.add(host.comm_of.get(pid))
        threads = [tid for tid, p in host.pid_of.items() if p == pid and tid != pid]
        if len(threads) != vcpus:
            vmtest.fail("%s: %d threads of pid %d in the statedump, not %d vCPU threads" % (
                m["machine"], len(threads), pid, vcpus))
        for tid in threads:
            vcpu = host.vcpu_of.get(tid)
            if vcpu is None:
                vmtest.fail("%s: thread %d of its QEMU never enters" % (m["machine"], tid))
            if host.comm_of[tid] != "CPU %d/KVM" % vcpu:
                vmtest.fail("vCPU thread %d is named %r" % (tid, host.comm_of[tid]))
            result[(m["machine"], vcpu)] = tid
    if len(qemu_names) != 1:
        vmtest.fail("QEMU processes are told apart by name: %s" % qemu_names)
    entering = {tid for tid in host.intervals if tid in host.vcpu_of}
    if entering != set(result.values()):
        vmtest.fail("threads with kvm events %s, vCPU threads of the QEMUs %s" % (
            sorted(entering), sorted(result.values())))
    return result


class Closeness:
    """Counts of the promised neighbourhoods of kvm entries and exits."""

    def __init__(self):
        self.entries = self.entries_near = 0
        self.hlt = self.hlt_near = 0
        self.ext = self.ext_irq = 0
        self.halt_wakes = self.halt_wakes_near = 0


def guest_events(out, machine, timemap):
    """[(true time, cpu, name, fields)] and the first event's clock - true time."""
    header, events = tw.read_stub(os.path.join(out, machine + ".stub"))
    base = tw.clock_offset(header)
    slope, offset = timemap[machine]
    mapped = [(slope * (base + ts) + offset, cpu, name, f) for ts, cpu, name, f in events]
    return mapped, base + events[0][0] - mapped[0][0]


def check_inside(machine, events, host, threads):
    """Every event strictly inside a guest-mode interval of its vCPU; returns
    {vcpu: [(t, name, fields, interval index)]}."""
    per_vcpu = {}
    cursor = {}
    for t, cpu, name, f in events:
        tid = threads.get((machine, cpu))
        if tid is None:
            vmtest.fail("%s: event on CPU %d, which is no vCPU" % (machine, cpu))
        spans = host.intervals[tid]
        i = cursor.get(cpu, 0)
        while i < len(spans) and spans[i][1] is not None and spans[i][1] <= t:
            i += 1
        cursor[cpu] = i
        inside = i < len(spans) and (spans[i][0] is None or spans[i][0] < t) and (
            spans[i][1] is None or t < spans[i][1])
        if not inside:
            vmtest.fail("%s: %s at true time %s on vCPU %d outside guest mode of host "
                        "thread %d" % (machine, name, float(t), cpu, tid))
        per_vcpu.setdefault(cpu, []).append((t, name, f, i))
    return per_vcpu


def check_pairs(machine, events):
    """Interrupt handlers nest properly on each vCPU; every syscall exit
    follows its entry by the same thread (which may have moved meanwhile)."""
    # the statedump says which thread runs where before any sched_switch
    current = {int(f["cpu"]): int(f["tid"]) for _, _, name, f in events
               if name == "lttng_statedump_process_state" and f["status"] == "6"}
    handlers = {}
    in_syscall = {}
    for t, cpu, name, f in events:
        open_handlers = handlers.setdefault(cpu, [])
        if name in RICH_EVENTS:
            open_handlers.append(RICH_EVENTS[name])
        elif name in RICH_EVENTS.values():
            if not open_handlers or open_handlers.pop() != name:
                vmtest.fail("%s vCPU %d: %s at %s closes no handler" % (
                    machine, cpu, name, float(t)))
        elif open_handlers and (name == "sched_switch" or name.startswith("syscall_")):
            vmtest.fail("%s vCPU %d: %s inside an interrupt handler" % (machine, cpu, name))
        tid = current.get(cpu, 0)
        if name == "sched_switch":
            current[cpu] = int(f["next_tid"])
        elif name.startswith("syscall_entry_"):
            if tid == 0 or tid in in_syscall:
                vmtest.fail("%s: %s of tid %d at %s" % (machine, name, tid, float(t)))
            in_syscall[tid] = name[len("syscall_entry_"):]
        elif name.startswith("syscall_exit_"):
            if in_syscall.pop(tid, None) != name[len("syscall_exit_"):]:
                vmtest.fail("%s: %s of tid %d at %s without its entry" % (
                    machine, name, tid, float(t)))


def measure(machine, per_vcpu, host, threads, vcpus, seen):
    """Fills SEEN (a Closeness) for the vCPUs of MACHINE."""
    for vcpu in range(vcpus):
        tid = threads[(machine, vcpu)]
        events = per_vcpu.get(vcpu, [])
        times = [e[0] for e in events]
        idle = {}  # event index -> whether the idle task runs after it
        current = None
        for k, (_, name, f, _) in enumerate(events):
            if name == "sched_switch":
                current = int(f["next_tid"])
            idle[k] = current == 0
        for t, reason in host.entries.get(tid, []):
            k = bisect.bisect_right(times, t)
            near = k < len(times) and times[k] - t <= 2000
            seen.entries += 1
            seen.entries_near += near
            if reason == EXIT_EXTERNAL_INTERRUPT:
                seen.ext += 1
                if k < len(times) and events[k][1] == "irq_handler_entry" and \
                        300 <= times[k] - t <= 2000 + 2:
                    seen.ext_irq += 1
            if reason == EXIT_HLT:
                seen.halt_wakes += 1
                seen.halt_wakes_near += k < len(times) and times[k] - t <= 1000 + 2
        for t, reason in host.exits.get(tid, []):
            if reason != EXIT_HLT:
                continue
            k = bisect.bisect_left(times, t) - 1
            seen.hlt += 1
            if k >= 0 and t - times[k] <= 3000:
                if not idle[k]:
                    vmtest.fail("%s vCPU %d: HLT at %s while a thread runs" % (
                        machine, vcpu, float(t)))
                seen.hlt_near += 1


def check_shape(base, shape):
    seed, guests, cpus, offset, drift = shape
    out = os.path.join(base, "s%d" % seed)
    extra = NO_SYNC + ["--guests", str(guests), "--host-cpus", str(cpus), "--vcpus", "2",
                       "--guest-offset-ns", str(offset), "--drift-ppm", str(drift)]
    tw.generate(out, seed, extra)
    counted = tw.check_truth(out)
    machines = tw.read_csv(out, "machines.csv")
    timemap = {r["machine"]: (Fraction(r["slope"]), Fraction(r["offset_ns"]))
               for r in tw.read_csv(out, "timemap.csv")}
    host = Host(out)
    threads = vcpu_threads(host, machines, 2)
    seen = Closeness()
    names = set()
    for m in machines:
        if m["role"] != "guest":
            continue
        machine = m["machine"]
        events, ahead = guest_events(out, machine, timemap)
        # The clock really is seconds away from the host's, on either side:
        # guest i is (-1)^(i+1) * (i+1)/2 offset scales ahead.
        index = int(machine[len("guest"):])
        wanted = (1 if index % 2 else -1) * offset * (index + 1) / 2
        if abs(ahead - wanted) > SECOND / 100:
            vmtest.fail("%s: its clock is %g s ahead of the host's, not %g" % (
                machine, ahead / SECOND, wanted / SECOND))
        per_vcpu = check_inside(machine, events, host, threads)
        check_pairs(machine, events)
        measure(machine, per_vcpu, host, threads, 2, seen)
        names |= {e[2] for e in events}
    missing = [n for n in list(RICH_EVENTS) + list(RICH_EVENTS.values()) +
               ["syscall_entry_read", "syscall_exit_read", "syscall_entry_futex"]
               if n not in names]
    if missing:
        vmtest.fail("seed %d: no %s in the guests" % (seed, ", ".join(missing)))
    ratios = {
        "entries with a guest event within 2 us": (seen.entries_near, seen.entries, 0.3),
        "HLT exits within 3 us of the guest's last event": (seen.hlt_near, seen.hlt, 0.9),
        "EXTERNAL_INTERRUPT re-entries with irq_handler_entry 0.3-2 us after":
            (seen.ext_irq, seen.ext, 0.5),
        "entries after HLT with a guest event within 1 us": (
            seen.halt_wakes_near, seen.halt_wakes, 0.95),
    }
    report = []
    for what, (hit, total, least) in ratios.items():
        if total == 0 or hit < least * total:
            vmtest.fail("seed %d: %s: %d of %d, wanted at least %d%%" % (
                seed, what, hit, total, least * 100))
        report.append("%s %d/%d" % (what, hit, total))
    print("seed %d (%d guests, %d CPUs, offset %+g s, drift %d ppm): %s" % (
        seed, guests, cpus, offset / SECOND, drift, "; ".join(report)))
    return out, counted


def check_basic(base):
    out = os.path.join(base, "basic")
    tw.generate(out, 42, NO_SYNC + ["--guests", "2", "--host-cpus", "2",
                                    "--guest-activity=basic"])
    tw.check_truth(out)
    for m in tw.read_csv(out, "machines.csv"):
        if m["role"] != "guest":
            continue
        path = os.path.join(out, m["machine"] + ".stub")
        _, events = tw.read_stub(path)
        with open(path) as f:
            # the layouts' own declarations (kvm, statedump) are no rich events
            declared = [line.split()[1] for line in f if line.startswith("event ")]
        if any(is_rich(name) for name in declared):
            vmtest.fail("basic: %s declares %s" % (m["machine"], declared))
        rich = sorted({e[2] for e in events if is_rich(e[2])})
        if rich:
            vmtest.fail("basic: %s has %s" % (m["machine"], rich))


def main():
    vmtest.skip_under_valgrind("the workload generator only")
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.fail("no generator at " + vmtest.WORKLOAD)
    base = os.path.join(vmtest.WORK_DIR, "workload-vcpu")
    shutil.rmtree(base, ignore_errors=True)
    tw.EVENTS = 40000
    first = None
    for shape in SHAPES:
        result = check_shape(base, shape)
        first = first or result
    check_basic(base)
    # The new events read back from CTF with their declared fields.
    tw.check_ctf(*first)
    print("workload-vcpu: guest events in guest mode, rich activity where promised")


if __name__ == "__main__":
    main()
