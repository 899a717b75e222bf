#!/usr/bin/python3
"""sink.vm.threads' container outputs (SPEC, Containers) on the stubs.

- container-neighbour (noisy-neighbour with web's nginx in a pod): the
  container columns of what=threads, the row of what=containers, the text
  tables and chrome's grouping, in both graph forms; the figures are read
  off the stub by hand (t = ns after the stub clock offset, see its header).
- containers (a host alone: own-view states) and qemu-container (a guest):
  the rows worked out by hand from the stubs' events.
- one-container: a host only, whose own container has no guest thread.
- A hand-written CTF trace with the `pid_ns` context (pidns_ctf.py): the
  context of events the analysis does not decode (`tick`) places the
  thread current on the event's own CPU.
- Every case: each container's totals are the sums of its threads'
  intervals in what=threads, and json has the CSV's rows.
"""

import collections
import json
import os

import pidns_ctf
import vmtest
import threads_common as tc

SINK = "sink.vm.threads"
STATES = ["running", "hypervisor", "preempted", "vcpu-blocked", "runnable", "blocked",
          "unknown"]
STATE_KEYS = ["running_ns", "hypervisor_ns", "preempted_ns", "vcpu_blocked_ns",
              "runnable_ns", "blocked_ns", "unknown_ns"]

# web's nginx (300), from its first appearance (12000) to the input's end
# (80000, web's vCPU's HLT exit on the host): exits at 20200
# and 30200 (VMCALL, to 22100 and 32100), 42000 (to 43000), preempted
# 43000-64500, back in the hypervisor until 65000, VMCALL 70200-72100,
# blocked from 75000. Host times are exact in every graph; the guest's own
# (12000, 75000) move by the sync's error with correlate, so the exact
# running and blocked times are checked without it (the clocks are aligned).
POD_INUM = 4026532500
NGINX = {"running_ns": 8200 + 8100 + 9900 + 5200 + 2900, "hypervisor_ns": 7200,
         "preempted_ns": 21500, "vcpu_blocked_ns": 0, "runnable_ns": 0,
         "blocked_ns": 5000, "unknown_ns": 0}
POD_CULPRITS = ["web/pause  batch    vm    21.000 us  97.7%",
                "web/pause  idle     idle     500 ns   2.3%"]

# containers/host.stub (no host: own views; the input ends at 35): lxc-start
# (41) is in 654321 (named by its init, tid 40, `init`): runnable 4-17,
# running 17-24, runnable 24-35; init (42) is vpid 1 of 987654: running
# 4-17, runnable 17-24, running 24-35; myapp (43, forked into 987654, vtid
# 2) runs 30-35; myapp2 (44) first appears at the end: no interval.
CONTAINERS_ROWS = [
    ("host", "init", "654321", "1", "7", "0", "0", "0", "24", "0", "0"),
    ("host", "init", "987654", "2", "29", "0", "0", "0", "7", "0", "0"),
]
CONTAINERS_VTIDS = {"41": ("init", "2"), "42": ("init", "1"), "43": ("init", "2"),
                    "30": ("", ""), "31": ("", "")}


def convert_args(traces, params, state=True, correlate=True):
    return list(traces) + (["-c", "filter.vm.correlate"] if correlate else []) + (
        ["-c", "filter.vm.state"] if state else []) + ["-c", SINK] + (
        ["-p", params] if params else [])


def direct_args(traces, params):
    """`babeltrace2 run`: each source straight into correlate."""
    args = ["run"]
    for i, trace in enumerate(traces):
        args += ["--component=src%d:src.ctf.fs" % i, "--params=inputs=[\"%s\"]" % trace]
    args += ["--component=correlate:filter.vm.correlate",
             "--component=state:filter.vm.state",
             "--component=sink:" + SINK, "--params=" + params]
    args += ["--connect=src%d:correlate" % i for i in range(len(traces))]
    return args + ["--connect=correlate:state", "--connect=state:sink"]


def run(args):
    return vmtest.babeltrace2(args).stdout


def check_sums(label, threads, containers):
    """Each container's row: the sums of its threads' intervals."""
    sums = collections.defaultdict(lambda: collections.Counter())
    tids = collections.defaultdict(set)
    for row in threads:
        if not row["container"]:
            if row["vtid"]:
                vmtest.fail("%s: a vtid without a container: %s" % (label, row))
            continue
        key = (row["machine"], row["container"])
        sums[key][row["state"]] += int(row["end_ns"]) - int(row["begin_ns"])
        tids[key].add(row["tid"])
    by_name = collections.defaultdict(lambda: collections.Counter())
    counted = collections.Counter()
    for row in containers:
        key = (row["machine"], row["container"])
        for state, column in zip(STATES, STATE_KEYS):
            by_name[key][state] += int(row[column])
        counted[key] += int(row["threads"])
    for key in set(sums) | set(by_name):
        if +sums[key] != +by_name[key] or len(tids[key]) != counted[key]:
            vmtest.fail("%s: container %s totals %s (%d threads), its threads' "
                        "intervals sum to %s (%d threads)" % (
                            label, key, dict(by_name[key]), counted[key],
                            dict(sums[key]), len(tids[key])))


def csv_and_json(label, make_args):
    """what=threads and what=containers, CSV checked against json."""
    threads = tc.parse_csv(run(make_args('format="csv",what="threads"')), "threads")
    containers = tc.parse_csv(run(make_args('format="csv",what="containers"')),
                              "containers")
    js = tc.parse_json_lines(run(make_args('format="json",what="containers"')),
                             "containers")
    if [{k: "" if v is None else str(v) for k, v in r.items()} for r in js] != \
            [dict(r) for r in containers]:
        vmtest.fail("%s: json what=containers %s differs from the CSV %s" % (
            label, js, containers))
    jt = tc.parse_json_lines(run(make_args('format="json",what="threads"')), "threads")
    if sorted((r["tid"], r["begin_ns"], r["container"], r["vtid"]) for r in jt) != sorted(
            (int(r["tid"]), int(r["begin_ns"]), r["container"] or None,
             int(r["vtid"]) if r["vtid"] else None) for r in threads):
        vmtest.fail("%s: json what=threads has other containers than the CSV" % label)
    check_sums(label, threads, containers)
    return threads, containers


def check_container_neighbour():
    traces = vmtest.scenario("container-neighbour")
    order = [traces["host"], traces["web"], traces["batch"]]
    outputs = {}
    for label, make in (("convert", lambda p: convert_args(order, p)),
                        ("run", lambda p: direct_args(order, p))):
        threads, containers = csv_and_json("container-neighbour (%s form)" % label, make)
        outputs[label] = (threads, containers)
        for row in threads:
            want = ("pause", "7") if row["tid"] == "300" else ("", "")
            if (row["container"], row["vtid"]) != want:
                vmtest.fail("%s form: row %s is not in container %r" % (label, row, want))
        if [(r["machine"], r["container"], r["ns_inum"], r["threads"]) for r in containers] \
                != [("web", "pause", str(POD_INUM), "1")]:
            vmtest.fail("%s form: containers %s" % (label, containers))
        row = containers[0]
        exact = {k: int(row[k]) for k in ("hypervisor_ns", "preempted_ns",
                                           "vcpu_blocked_ns", "runnable_ns", "unknown_ns")}
        if exact != {k: NGINX[k] for k in exact}:
            vmtest.fail("%s form: container row %s, by hand %s" % (label, row, NGINX))
        # Only the guest's first and last own events move with the sync.
        if int(row["running_ns"]) + int(row["blocked_ns"]) != \
                NGINX["running_ns"] + NGINX["blocked_ns"] + 12000 - first_begin(threads, "300"):
            vmtest.fail("%s form: running + blocked of %s" % (label, row))
    if outputs["convert"] != outputs["run"]:
        vmtest.fail("container-neighbour: the two graph forms differ")
    # Without correlate (aligned clocks): every figure by hand.
    _, plain = csv_and_json("container-neighbour (no correlate)",
                            lambda p: convert_args(order, p, correlate=False))
    if {k: int(plain[0][k]) for k in STATE_KEYS} != NGINX:
        vmtest.fail("no correlate: container row %s, by hand %s" % (plain[0], NGINX))
    text = run(convert_args(order, ""))
    lines = [line.strip() for line in text.splitlines()]
    if not any(line.startswith("web      300  nginx     pause") for line in lines) or \
            "Containers: time of their threads" not in text or \
            any(row not in lines for row in POD_CULPRITS):
        vmtest.fail("text summary lacks the container column, table or culprits "
                    "%s:\n%s" % (POD_CULPRITS, text))
    if not any(line.startswith("web      pause      4026532500        1") and
               "21.500 us  31.7%" in line for line in lines):
        vmtest.fail("text summary lacks the container row:\n" + text)
    only = run(convert_args(order, 'what="containers"'))
    if "Containers: time" not in only or "Guest threads" in only:
        vmtest.fail("text what=containers:\n" + only)
    check_chrome(order)


def first_begin(threads, tid):
    offset = tc.stub_header(os.path.join(vmtest.STUB_DIR, "container-neighbour",
                                         "host.stub"))[1]
    return min(int(r["begin_ns"]) for r in threads if r["tid"] == tid) - offset


def check_chrome(order):
    """nginx's track is in a process of its own, named after its container."""
    events = tc.check_chrome(run(convert_args(order, 'format="chrome"')))
    names = {ev["pid"]: ev["args"]["name"] for ev in events
             if ev["ph"] == "M" and ev["name"] == "process_name"}
    pods = [pid for pid, name in names.items() if name == "web/pause"]
    if len(pods) != 1:
        vmtest.fail("chrome: processes %s, expected one web/pause" % names)
    nginx = {ev["pid"] for ev in events if ev["ph"] == "X" and ev["tid"] == 300}
    if nginx != set(pods):
        vmtest.fail("chrome: nginx's slices are in processes %s, not %s" % (nginx, pods))


def check_containers_stub():
    traces = list(vmtest.scenario("containers").values())
    threads, containers = csv_and_json(
        "containers", lambda p: convert_args(traces, p, state=False, correlate=False))
    got = [tuple(r[k] for k in tc.CONTAINER_KEYS) for r in containers]
    if got != CONTAINERS_ROWS:
        vmtest.fail("containers: rows %s, by hand %s" % (got, CONTAINERS_ROWS))
    for row in threads:
        if (row["container"], row["vtid"]) != CONTAINERS_VTIDS[row["tid"]]:
            vmtest.fail("containers: row %s, by hand %s" % (row, CONTAINERS_VTIDS[row["tid"]]))


def check_qemu_container():
    """The guest's statedump (160..162) puts any2 (131) in 987654 (no vpid 1
    seen: named by its number) as vtid 4; it forks myapp2 (132, vtid 5) at
    235, which runs 270-275 and is runnable until the end. Intervals are
    given the container known when the analysis reports them (at the event
    that ends them, or later): 131's that end by 150 have none, those that
    begin after the statedump have it; the one across (150-155) may have it."""
    traces = vmtest.scenario("qemu-container")
    order = [traces["host"], traces["guest"]]
    offset = tc.stub_header(os.path.join(vmtest.STUB_DIR, "qemu-container", "host.stub"))[1]
    threads, containers = csv_and_json("qemu-container",
                                       lambda p: convert_args(order, p))
    if vmtest.under_valgrind():
        # Valgrind's long double is a double: guest times at epoch scale
        # move by up to 256 ns, which reorders this stub's nanosecond-apart
        # events. The plain and sanitized runs check the rows.
        return
    end = max(int(r["end_ns"]) for r in threads) - offset
    for row in threads:
        tid, start, stop = row["tid"], int(row["begin_ns"]) - offset, int(row["end_ns"]) - offset
        want = {"130": ("", ""), "131": ("987654", "4") if start >= 160 else ("", ""),
                "132": ("987654", "5")}[tid]
        if tid == "131" and stop > 150 and start < 160:
            continue
        if (row["container"], row["vtid"]) != want:
            vmtest.fail("qemu-container: row %s, by hand %s" % (row, want))
    myapp2 = sorted((r["state"], int(r["begin_ns"]) - offset, int(r["end_ns"]) - offset)
                    for r in threads if r["tid"] == "132")
    if myapp2 != [("runnable", 275, end), ("running", 270, 275)]:
        vmtest.fail("qemu-container: myapp2 %s" % myapp2)
    if [(r["machine"], r["container"], r["ns_inum"], r["threads"]) for r in containers] != \
            [("guest", "987654", "987654", "2")]:
        vmtest.fail("qemu-container: containers %s" % containers)


def check_one_container():
    traces = list(vmtest.scenario("one-container").values())
    out = run(convert_args(traces, 'format="csv",what="containers"'))
    if tc.parse_csv(out, "containers"):
        vmtest.fail("one-container: the host's threads are no guest's: %s" % out)


INIT_NS = 0xeffffffc


def check_pid_ns_context():
    """CPU 0: app (100) runs 10-30 and 50-60, sh (200) 30-50; CPU 1: db
    (300) runs 5-45, then blocks. Only `tick` events say namespaces: app's
    (CPU 0 at 20, 60) put it in 4026532600, db's in 4026532700 (CPU 1 at 35;
    CPU 1's tick at 25 says the initial namespace: db's, not app's, which
    runs on CPU 0 then). sh's tick at 40 names the initial namespace."""
    app, sh, db = ("app", 100), ("sh", 200), ("db", 300)
    path = pidns_ctf.write_trace(os.path.join(vmtest.WORK_DIR, "pidns-context"), "pidns", {
        0: [pidns_ctf.switch(10, 0, ("swapper/0", 0), app),
            pidns_ctf.tick(20, 4026532600), pidns_ctf.switch(30, 0, app, sh),
            pidns_ctf.tick(40, INIT_NS), pidns_ctf.switch(50, 0, sh, app),
            pidns_ctf.tick(60, 4026532600)],
        1: [pidns_ctf.switch(5, 0, ("swapper/1", 0), db), pidns_ctf.tick(25, INIT_NS),
            pidns_ctf.tick(35, 4026532700), pidns_ctf.switch(45, 0, db, ("swapper/1", 0), 1),
            pidns_ctf.tick(58, 0)],
    })
    threads = tc.parse_csv(run([path, "-c", SINK, "-p", 'format="csv"']), "threads")
    offset = 1600000000 * 1000000000
    got = sorted((r["tid"], r["state"], int(r["begin_ns"]) - offset, r["container"], r["vtid"])
                 for r in threads)
    want = sorted([("100", "running", 10, "4026532600", ""),
                   ("100", "runnable", 30, "4026532600", ""),
                   ("100", "running", 50, "4026532600", ""),
                   ("200", "running", 30, "", ""), ("200", "runnable", 50, "", ""),
                   ("300", "running", 5, "4026532700", ""),
                   ("300", "blocked", 45, "4026532700", "")])
    if got != want:
        vmtest.fail("pid_ns context: threads\n  %s\nby hand\n  %s" % (
            "\n  ".join(map(str, got)), "\n  ".join(map(str, want))))


def main():
    check_pid_ns_context()
    tc.require_component("filter.vm.state")
    check_container_neighbour()
    check_containers_stub()
    check_qemu_container()
    check_one_container()


if __name__ == "__main__":
    main()
