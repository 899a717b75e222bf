"""vm-workload's containers (doc/workload-generator.md, "Containers"):
truth/containers.csv agrees with the events the stubs hold.

For guests with containers (nested ones too) in both statedump layouts,
with and without --pid-ns-context, and once with losses:
- each thread of containers.csv with `shown` 1 has, in its guest's stub, a
  statedump entry of its innermost namespace level (2.11:
  lttng_statedump_process_state's ns_level / ns_inum / vtid; 2.12:
  lttng_statedump_process_pid_ns) giving the truth's ns_inum and vtid, one
  entry per level from the innermost to 0, or its sched_process_fork with
  child_ns_inum and vtids ending in the truth's vtid (its parent's
  namespace); a thread in no container has ns_level 0 only;
- each container is named by the comm of the thread whose innermost entry
  says vtid 1 in that namespace, and by the inode number when no recorded
  entry does; ns_inum is unique per guest;
- with --pid-ns-context every guest event's pid_ns is the inode of the
  innermost namespace of the thread current on its CPU (the prev of a
  sched_switch, tracked from the switches; the idle task's: the initial
  namespace), and the host's events have none;
- without --containers there is no containers.csv and the fork and
  statedump events are as before (no vtids, no pid_ns); the trace read back
  through src.ctf.fs has the pid_ns context field;
- bad values of the options exit with 2 and name the option.
"""

import csv
import os
import shutil
import subprocess

import stubfile
import test_workload as tw
import vmtest

INIT_PID_NS_INUM = 4026531836
STATE = "lttng_statedump_process_state"
PID_NS = "lttng_statedump_process_pid_ns"
SHAPE = ["--duration-ms", "30", "--guests", "2", "--vcpus", "2", "--host-cpus", "2",
         "--threads", "12"]
HEADER = "machine,tid,container,ns_inum,vtid,ns_level,shown"


def generate(base, name, options):
    out = os.path.join(base, name)
    shutil.rmtree(out, ignore_errors=True)
    cmd = [vmtest.WORKLOAD, "--out", out, "--seed", "7"] + SHAPE + options
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        vmtest.fail("%s failed (%d):\n%s" % (" ".join(cmd), proc.returncode, proc.stderr))
    return out


def read_containers(out):
    with open(os.path.join(out, "truth", "containers.csv")) as f:
        header = f.readline().rstrip("\n")
        if header != HEADER:
            vmtest.fail("containers.csv: header %r, expected %r" % (header, HEADER))
        return list(csv.DictReader(f, fieldnames=header.split(",")))


def guests(out):
    return {m: stubfile.parse(os.path.join(out, m + ".stub"))
            for m in ("guest1", "guest2")}


def ns_entries(stub, layout):
    """{tid: [(ns_level, ns_inum, vtid, vppid)] in file order}, {tid: comm}."""
    entries, comms = {}, {}
    for e in stub.events:
        f = e.fields
        if e.name == STATE:
            comms[f["tid"]] = f["name"]
        if (layout == "2.11" and e.name == STATE) or (layout == "2.12" and e.name == PID_NS):
            entries.setdefault(f["tid"], []).append(
                (f["ns_level"], f["ns_inum"], f["vtid"], f["vppid"]))
    return entries, comms


def forks(stub):
    return {e.fields["child_tid"]: e for e in stub.events if e.name == "sched_process_fork"}


def check_run(out, layout, lossy=False):
    rows = read_containers(out)
    stubs = guests(out)
    per_guest = {}
    for row in rows:
        per_guest.setdefault(row["machine"], []).append(row)
    nested = in_container = forked_in = 0
    for machine, stub in stubs.items():
        entries, comms = ns_entries(stub, layout)
        fork_events = forks(stub)
        inits = {}  # ns_inum -> comm of its vpid 1
        for tid, levels in entries.items():
            level, inum, vtid, _ = levels[0]
            if level > 0 and vtid == 1:
                inits[inum] = comms.get(tid)
        names = {}
        for row in per_guest.get(machine, []):
            tid = int(row["tid"])
            level = int(row["ns_level"])
            if row["shown"] != "1":
                if not lossy:
                    vmtest.fail("%s: thread %d not shown without losses" % (machine, tid))
                continue
            if level:
                in_container += 1
                nested += level > 1
                if names.setdefault(int(row["ns_inum"]), row["container"]) != row["container"]:
                    vmtest.fail("%s: namespace %s has two names" % (machine, row["ns_inum"]))
            if tid in fork_events:
                f = fork_events[tid].fields
                want = int(row["ns_inum"]) if level else INIT_PID_NS_INUM
                if (f["child_ns_inum"] != want or f["parent_ns_inum"] != want
                        or len(f["vtids"]) != level + 1 or f["vtids"][0] != tid
                        or (level and f["vtids"][-1] != int(row["vtid"]))):
                    vmtest.fail("%s: fork of %d %s disagrees with %s" % (machine, tid, f, row))
                forked_in += level > 0
                continue
            got = entries.get(tid)
            if not got:
                vmtest.fail("%s: shown thread %d has no statedump entry" % (machine, tid))
            if [lv for lv, _, _, _ in got] != list(range(level, -1, -1)):
                vmtest.fail("%s: thread %d entry levels %s, truth level %d" % (
                    machine, tid, got, level))
            inner = got[0]
            if level and (inner[1] != int(row["ns_inum"]) or inner[2] != int(row["vtid"])):
                vmtest.fail("%s: thread %d innermost entry %s, truth %s" % (machine, tid,
                                                                            inner, row))
            if got[-1][1] != INIT_PID_NS_INUM or got[-1][2] != tid:
                vmtest.fail("%s: thread %d level-0 entry %s" % (machine, tid, got[-1]))
            if not level and row["container"]:
                vmtest.fail("%s: thread %d in no namespace has a container" % (machine, tid))
        for inum, name in names.items():
            want = inits.get(inum) or str(inum)
            if name != want:
                vmtest.fail("%s: namespace %d named %r, its init says %r" % (
                    machine, inum, name, want))
    if not in_container or not nested or not forked_in:
        vmtest.fail("%s: too little covered: %d in containers, %d nested, %d forked into one"
                    % (out, in_container, nested, forked_in))
    return in_container


def check_pid_ns(out):
    """Every guest event's pid_ns is that of the thread current on its CPU."""
    rows = read_containers(out)
    inum = {(r["machine"], int(r["tid"])): int(r["ns_inum"]) if r["ns_inum"]
            else INIT_PID_NS_INUM for r in rows}
    checked = 0
    for machine, stub in guests(out).items():
        if stub.context_defs != [("pid_ns", "u32")]:
            vmtest.fail("%s: event context %s" % (machine, stub.context_defs))
        current = {}
        for e in stub.ordered_events():
            if e.name == "sched_switch":
                current[e.cpu] = e.fields["prev_tid"]
            tid = current.get(e.cpu)
            if tid is not None:
                want = inum.get((machine, tid), INIT_PID_NS_INUM) if tid else INIT_PID_NS_INUM
                if e.context.get("pid_ns") != want:
                    vmtest.fail("%s: %s pid_ns %s, thread %d's namespace %d" % (
                        machine, e, e.context, tid, want))
                checked += 1
            if e.name == "sched_switch":
                current[e.cpu] = e.fields["next_tid"]
    host = stubfile.parse(os.path.join(out, "host.stub"))
    if host.context_defs:
        vmtest.fail("host stub has an event context")
    if checked < 1000:
        vmtest.fail("only %d events with a known current thread" % checked)
    # and src.ctf.fs reads the field back
    trace = vmtest.stub_to_ctf(os.path.join(out, "guest1.stub"),
                               os.path.join(out, "guest1-ctf"))
    text = vmtest.babeltrace2([trace], stdout=subprocess.PIPE).stdout
    if "{ pid_ns = " not in text:
        vmtest.fail("the CTF trace has no pid_ns context")
    return checked


def check_defaults(base):
    """No --containers: no containers.csv, no vtids, no pid_ns."""
    out = generate(base, "none", ["--statedump-layout", "2.11"])
    if os.path.exists(os.path.join(out, "truth", "containers.csv")):
        vmtest.fail("containers.csv without --containers")
    for machine, stub in guests(out).items():
        if "vtids" in dict(stub.event_defs["sched_process_fork"]) or stub.context_defs:
            vmtest.fail("%s: vtids or context without the options" % machine)
        for e in stub.events:
            if e.name == STATE and (e.fields["ns_level"] or e.fields["ns_inum"]):
                vmtest.fail("%s: namespace fields without --containers: %s" % (machine, e))


def check_bad(base):
    for options, name in ((["--containers", "-1"], "--containers"),
                          (["--containers", "65"], "--containers"),
                          (["--container-depth", "0"], "--container-depth"),
                          (["--container-depth", "9"], "--container-depth")):
        cmd = [vmtest.WORKLOAD, "--out", os.path.join(base, "bad")] + options
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 2 or name not in proc.stderr:
            vmtest.fail("%s: exit %d, %r" % (options, proc.returncode, proc.stderr))


def main():
    vmtest.skip_under_valgrind("the workload generator only")
    base = os.path.join(vmtest.WORK_DIR, "workload-containers")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    check_bad(base)
    check_defaults(base)
    counts = []
    for layout in ("2.11", "2.12"):
        out = generate(base, "depth2-" + layout, ["--containers", "2", "--container-depth", "2",
                                                  "--statedump-layout", layout])
        counts.append(check_run(out, layout))
        out = generate(base, "ctx-" + layout, ["--containers", "3", "--container-depth", "3",
                                               "--statedump-layout", layout,
                                               "--pid-ns-context"])
        counts.append(check_run(out, layout))
        counts.append(check_pid_ns(out))
    out = generate(base, "lossy", ["--containers", "2", "--container-depth", "2",
                                   "--loss-rate", "200"])
    counts.append(check_run(out, "2.12", lossy=True))
    print("workload-containers: containers.csv agrees with the stubs (%s threads in "
          "containers / pid_ns events checked)" % counts)


if __name__ == "__main__":
    main()
