"""vm-workload's trace layouts (doc/workload-generator.md, "KVM and
statedump layouts"): what each --kvm-layout, --statedump-layout and --isa
writes, and that none of them changes the simulation or its truth.

- modern (the default): kvm_x86_exit declares intr_info, error_code and
  vcpu_id, and every exit's vcpu_id is the truth's vCPU of its thread;
  kvm_x86_entry's vcpu_id is a pointer's low half: one value per vCPU
  thread, distinct between threads (and from the guests' nested ones),
  at least 4096; tracer 2.13;
- classic: the entry's vcpu_id is the truth's vCPU, the exit has no vcpu_id,
  no tracer version (the stub format's 2.10);
- statedump 2.12: lttng_statedump_process_state without the namespace
  fields, each followed by its lttng_statedump_process_pid_ns (initial
  namespace); 2.11: the namespace fields and no pid_ns event;
- --isa svm: isa 2 and SVM exit codes, exits.csv named as Linux's
  SVM_EXIT_REASONS, which is the plugin's table (lib/writers/exit-reasons.c),
  every vmsync_gh_host after a VMMCALL exit;
- the truth is the same bytes whatever the layouts (with --isa svm: the
  same once VMX reasons are mapped to their SVM codes), and the stubs have
  the same events at the same times but for the pid_ns events;
- bad combinations exit with 2 and say why.
"""

import os
import re
import shutil
import subprocess

import stubfile
import test_workload as tw
import vmtest

# with a nested VM's entries in each guest, also laid out
SHAPE = ["--duration-ms", "100", "--guests", "2", "--vcpus", "2", "--host-cpus", "2",
         "--guest-kvm-entries", "3"]
TRUTH = ("threads.csv", "vcpus.csv", "exits.csv", "machines.csv", "timemap.csv")
STATE = "lttng_statedump_process_state"
PID_NS = "lttng_statedump_process_pid_ns"
INIT_PID_NS_INUM = 4026531836
STATE_2_12 = ["tid", "pid", "ppid", "name", "type", "mode", "submode", "status", "cpu",
              "file_table_address"]
NS_FIELDS = {"vtid", "vpid", "vppid", "ns_level", "ns_inum"}
# The generator's VMX reasons and the SVM code KVM reports for the same
# guest action.
VMX_TO_SVM = {1: 0x060, 12: 0x078, 18: 0x081, 28: 0x014, 30: 0x07b, 31: 0x07c, 32: 0x07c,
              40: 0x077, 48: 0x400, 49: 0x400, 52: 0x060}
SVM_VMMCALL = 0x081
BAD = [
    (["--kvm-names", "old", "--kvm-layout", "modern"], ("--kvm-names", "--kvm-layout")),
    (["--kvm-names", "old", "--statedump-layout", "2.12"], ("--kvm-names", "--statedump-layout")),
    (["--kvm-layout", "new"], ("--kvm-layout",)),
    (["--statedump-layout", "2.13"], ("--statedump-layout",)),
    (["--isa", "arm"], ("--isa",)),
]


def plugin_names(table):
    """{number: name} of a table of lib/writers/exit-reasons.c."""
    path = os.path.join(vmtest.SOURCE_DIR, "lib", "writers", "exit-reasons.c")
    with open(path) as f:
        text = f.read()
    body = text[text.index(table):]
    body = body[:body.index("};")]
    names = {}
    for number, name in re.findall(r'\{\s*(0x[0-9a-f]+(?:\s*\+\s*\d+)?|\d+),\s*"([^"]+)"', body):
        names[sum(int(part, 0) for part in number.split("+"))] = name  # e.g. 0x040 + 13
    return names


class Run:
    """One generated workload, its stubs parsed with stubfile.py."""

    def __init__(self, base, name, options):
        self.out = os.path.join(base, name)
        self.options = options
        tw.generate(self.out, 5, SHAPE + options)
        self.machines = tw.read_csv(self.out, "machines.csv")
        self.stubs = {m["machine"]: stubfile.parse(os.path.join(self.out, m["machine"] + ".stub"))
                      for m in self.machines}
        self.host = self.stubs["host"]
        self.vcpus = tw.read_csv(self.out, "vcpus.csv")
        self.exits = tw.read_csv(self.out, "exits.csv")
        # host vCPU thread -> its vCPU number, from the truth
        self.vcpu_of_tid = {int(r["host_tid"]): int(r["vcpu"]) for r in self.vcpus}
        events = [(e.ts, e.cpu, e.name, e.fields) for e in self.host.events]
        self.kvm = tw.kvm_events_by_thread(events)

    def fail(self, message):
        vmtest.fail("%s %s: %s" % (os.path.basename(self.out), " ".join(self.options), message))

    def fields(self, stub, event):
        return [f for f, _ in stub.event_defs[event]]

    def truth_bytes(self, name):
        with open(os.path.join(self.out, "truth", name), "rb") as f:
            return f.read()


def check_tracer(run, expected):
    for name, stub in run.stubs.items():
        with open(stub.path) as f:
            written = any(line.startswith("tracer ") for line in f)
        if stub.tracer != (expected or stubfile.DEFAULTS["tracer"]) or written != bool(expected):
            run.fail("%s: tracer %s (line written: %s), expected %s" % (
                name, stub.tracer, written, expected))


def check_modern_kvm(run):
    check_tracer(run, (2, 13))
    exit_name, entry_name = "kvm_x86_exit", "kvm_x86_entry"
    for name, stub in run.stubs.items():
        if run.fields(stub, exit_name)[-3:] != ["intr_info", "error_code", "vcpu_id"]:
            run.fail("%s declares kvm_x86_exit as %s" % (name, stub.event_defs[exit_name]))
    entry_ids = {}
    exits = 0
    for tid, ts, _, name, f in run.kvm:
        if tid not in run.vcpu_of_tid:
            run.fail("kvm event at %d on thread %s, no vCPU thread of the truth" % (ts, tid))
        if name == exit_name:
            exits += 1
            if f["vcpu_id"] != run.vcpu_of_tid[tid]:
                run.fail("kvm_x86_exit at %d of thread %d: vcpu_id %d, truth vCPU %d" % (
                    ts, tid, f["vcpu_id"], run.vcpu_of_tid[tid]))
        else:
            entry_ids.setdefault(tid, set()).add(f["vcpu_id"])
    if not exits or set(entry_ids) != set(run.vcpu_of_tid):
        run.fail("%d exits; threads entering %s, vCPU threads %s" % (
            exits, sorted(entry_ids), sorted(run.vcpu_of_tid)))
    pointers = []
    for tid, ids in entry_ids.items():
        if len(ids) != 1:
            run.fail("thread %d enters with %d vcpu_ids: not stable" % (tid, len(ids)))
        pointer = next(iter(ids))
        if pointer < 4096 or pointer == run.vcpu_of_tid[tid]:
            run.fail("thread %d enters with vcpu_id %d: no pointer" % (tid, pointer))
        pointers.append(pointer)
    # each guest's nested vCPU: a kvm_vcpu of its own, another address
    for name, stub in run.stubs.items():
        ids = {e.fields["vcpu_id"] for e in stub.events if e.name == entry_name}
        if name != "host" and len(ids) != 1:
            run.fail("%s: nested kvm entries with vcpu_ids %s" % (name, ids))
        pointers += list(ids) if name != "host" else []
    if len(set(pointers)) != len(pointers) or min(pointers) < 4096:
        run.fail("entry pointers not distinct pointers: %s" % pointers)


def check_classic_kvm(run, entry_name="kvm_x86_entry", exit_name="kvm_x86_exit"):
    for name, stub in run.stubs.items():
        if "vcpu_id" in run.fields(stub, exit_name):
            run.fail("%s: classic %s has a vcpu_id" % (name, exit_name))
    entered = set()
    for tid, ts, _, name, f in run.kvm:
        if name == entry_name:
            entered.add(tid)
            if f["vcpu_id"] != run.vcpu_of_tid.get(tid):
                run.fail("%s at %d of thread %d: vcpu_id %d, truth vCPU %s" % (
                    name, ts, tid, f["vcpu_id"], run.vcpu_of_tid.get(tid)))
        elif name != exit_name:
            run.fail("kvm event %s with --kvm-names %s" % (name, entry_name))
    if entered != set(run.vcpu_of_tid):
        run.fail("threads entering %s, vCPU threads %s" % (
            sorted(entered), sorted(run.vcpu_of_tid)))


def check_statedump(run, layout):
    for name, stub in run.stubs.items():
        state_fields = run.fields(stub, STATE)
        states = 0
        for i, e in enumerate(stub.events):
            if e.name != STATE:
                if e.name == PID_NS and layout == "2.12" and stub.events[i - 1].name == STATE:
                    continue
                if e.name == PID_NS:
                    run.fail("%s: %s not right after a process_state: %s" % (name, PID_NS, e))
                continue
            states += 1
            f = e.fields
            if layout == "2.11":
                if not NS_FIELDS <= set(state_fields) or PID_NS in stub.event_defs:
                    run.fail("%s: 2.11 statedump declares %s" % (name, state_fields))
                if (f["vtid"], f["vpid"], f["vppid"]) != (f["tid"], f["pid"], f["ppid"]):
                    run.fail("%s: %s" % (name, e))
                continue
            if state_fields != STATE_2_12:
                run.fail("%s: 2.12 process_state declared as %s" % (name, state_fields))
            ns = stub.events[i + 1] if i + 1 < len(stub.events) else None
            expected = {"tid": f["tid"], "vtid": f["tid"], "vpid": f["pid"], "vppid": f["ppid"],
                        "ns_level": 0, "ns_inum": INIT_PID_NS_INUM}
            if ns is None or ns.name != PID_NS or ns.fields != expected or ns.cpu != e.cpu \
                    or ns.ts < e.ts:
                run.fail("%s: %s followed by %s, expected %s" % (name, e, ns, expected))
        if states < 4:
            run.fail("%s: %d threads in the statedump" % (name, states))


def same_timeline(run, other):
    """The same events at the same times on the same CPUs, pid_ns apart."""
    for name, stub in run.stubs.items():
        mine = [(e.ts, e.cpu, e.name) for e in stub.events if e.name != PID_NS]
        theirs = [(e.ts, e.cpu, e.name) for e in other.stubs[name].events if e.name != PID_NS]
        if mine != theirs:
            run.fail("%s: events differ from %s" % (name, " ".join(other.options)))


def same_truth(run, other):
    for name in TRUTH:
        if run.truth_bytes(name) != other.truth_bytes(name):
            run.fail("truth %s differs from %s" % (name, " ".join(other.options)))
    same_timeline(run, other)


def check_names(run, isa_table):
    names = plugin_names(isa_table)
    for row in run.exits:
        if names.get(int(row["reason"])) != row["name"]:
            run.fail("exits.csv %s: the plugin names it %r" % (row, names.get(int(row["reason"]))))


def check_svm(run, vmx, exit_name="kvm_x86_exit"):
    codes = set(VMX_TO_SVM.values())
    host = run.host.events
    last_exit = {}
    for tid, ts, _, name, f in run.kvm:
        if name == exit_name:
            if f["isa"] != 2 or f["exit_reason"] not in codes:
                run.fail("exit at %d: isa %d, reason %#x" % (ts, f["isa"], f["exit_reason"]))
    # every vmsync_gh_host follows its thread's VMMCALL exit
    current = tw.host_currents([(e.ts, e.cpu, e.name, e.fields) for e in host])
    gh_hosts = 0
    for e in host:
        if e.name == "sched_switch":
            current[e.cpu] = e.fields["next_tid"]
        elif e.name == exit_name:
            last_exit[current[e.cpu]] = e.fields["exit_reason"]
        elif e.name == "vmsync_gh_host":
            gh_hosts += 1
            reason = last_exit.get(current[e.cpu])
            if reason != SVM_VMMCALL:
                run.fail("vmsync_gh_host at %d after exit %s" % (e.ts, reason))
    if not gh_hosts:
        run.fail("no vmsync exchange")
    check_names(run, "svm_exit_reasons[]")
    # the truth is the VMX run's, reasons mapped (and summed per SVM code)
    for name in ("threads.csv", "vcpus.csv"):
        mapped = [dict(r, reason=str(VMX_TO_SVM[int(r["reason"])]) if r["reason"] else "")
                  for r in tw.read_csv(vmx.out, name)]
        if tw.read_csv(run.out, name) != mapped:
            run.fail("%s is not the VMX run's with SVM codes" % name)
    sums = {}
    for r in vmx.exits:
        key = (r["machine"], int(r["vcpu"]), VMX_TO_SVM[int(r["reason"])])
        count, total, low, high = sums.get(key, (0, 0, None, 0))
        sums[key] = (count + int(r["count"]), total + int(r["total_ns"]),
                     min(int(r["min_ns"]), low if low is not None else int(r["min_ns"])),
                     max(high, int(r["max_ns"])))
    got = {(r["machine"], int(r["vcpu"]), int(r["reason"])):
           (int(r["count"]), int(r["total_ns"]), int(r["min_ns"]), int(r["max_ns"]))
           for r in run.exits}
    if got != sums:
        run.fail("exits.csv is not the VMX run's summed per SVM code")
    if [(r["machine"], int(r["vcpu"]), int(r["reason"])) for r in run.exits] != sorted(got):
        run.fail("exits.csv rows are not in (machine, vCPU, code) order")


def check_bad(base):
    for args, named in BAD:
        out = os.path.join(base, "bad")
        proc = subprocess.run([vmtest.WORKLOAD, "--out", out] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode != 2 or not all(n in proc.stderr for n in named):
            vmtest.fail("%s: exit %d (expected 2), stderr %r should name %s" % (
                args, proc.returncode, proc.stderr, named))
        if os.path.exists(out):
            vmtest.fail("%s: bad options still wrote output" % args)


def main():
    vmtest.skip_under_valgrind("the workload generator only")
    base = os.path.join(vmtest.WORK_DIR, "workload-layout")
    shutil.rmtree(base, ignore_errors=True)
    check_bad(base)

    modern = Run(base, "modern", [])
    check_modern_kvm(modern)
    check_statedump(modern, "2.12")
    check_names(modern, "vmx_exit_reasons[]")

    classic = Run(base, "classic", ["--kvm-layout", "classic"])
    check_tracer(classic, None)
    check_classic_kvm(classic)
    check_statedump(classic, "2.11")
    same_truth(classic, modern)

    # each layout on its own, the other one swapped
    modern_2_11 = Run(base, "modern-2.11", ["--statedump-layout", "2.11"])
    check_tracer(modern_2_11, (2, 13))
    check_modern_kvm(modern_2_11)
    check_statedump(modern_2_11, "2.11")
    same_truth(modern_2_11, modern)
    classic_2_12 = Run(base, "classic-2.12", ["--kvm-layout", "classic",
                                              "--statedump-layout", "2.12"])
    check_tracer(classic_2_12, (2, 12))
    check_classic_kvm(classic_2_12)
    check_statedump(classic_2_12, "2.12")
    same_truth(classic_2_12, modern)

    svm = Run(base, "svm", ["--isa", "svm"])
    check_modern_kvm(svm)
    check_svm(svm, modern)
    same_timeline(svm, modern)
    # the pre-2.7 names give the classic layout, SVM as well
    old = Run(base, "old-svm", ["--kvm-names", "old", "--isa", "svm"])
    check_tracer(old, None)
    check_classic_kvm(old, "kvm_entry", "kvm_exit")
    check_statedump(old, "2.11")
    check_svm(old, modern, "kvm_exit")
    print("workload-layout: modern, classic, 2.11, 2.12 and SVM layouts as documented, "
          "truth unchanged")


if __name__ == "__main__":
    main()
