"""sink.vm.threads what="steal" (SPEC, Who took the time).

- noisy-neighbour: the rows read off the stub by hand (t = ns after the stub
  clock offset), identical in both graph forms and in csv and json; the text
  table; chrome opens, and names the culprits of preempted slices with
  what=threads too.
- vm-workload traces (3 guests on 2 host CPUs, with and without losses):
  each guest thread's steal adds up to its `preempted` time of what=threads
  (from the thread's first appearance on: before it, only steal names it,
  from its CPU's first sched_switch), in both graph forms.
"""

import collections
import json
import os
import shutil
import subprocess

import vmtest
import threads_common as tc

STEAL_KEYS = ["machine", "vcpu", "tid", "comm", "begin_ns", "end_ns", "pcpu",
              "culprit_kind", "culprit_machine", "culprit_vcpu", "culprit_tid",
              "culprit_comm"]

# web's nginx waits on CPU 0 for batch's vCPU (moved there from CPU 1 by
# sched_migrate_task, where a kworker had preempted it), then for batch's
# QEMU I/O thread, then for nothing (idle).
NOISY_NEIGHBOUR = sorted([
    ("web", "0", "300", "nginx", 43000, 61000, "0", "vcpu", "batch", "0", "2001",
     "CPU 0/KVM"),
    ("web", "0", "300", "nginx", 61000, 64000, "0", "vmm", "batch", "", "2005",
     "IO iothread0"),
    ("web", "0", "300", "nginx", 64000, 64500, "0", "idle", "", "", "", ""),
    ("batch", "0", "400", "cruncher", 41000, 41500, "1", "host", "", "", "600",
     "kworker/1:1"),
    ("batch", "0", "400", "cruncher", 41500, 43000, "0", "vcpu", "web", "0", "1001",
     "CPU 0/KVM"),
])

NOISY_TABLE = [
    "batch    web                vm     1.500 us  75.0%",
    "batch    kworker/1:1 (600)  host     500 ns  25.0%",
    "web      batch              vm    21.000 us  97.7%",
    "web      idle               idle     500 ns   2.3%",
]

SINK = "sink.vm.threads"


def convert_args(traces, params):
    return list(traces) + ["-c", "filter.vm.correlate", "-c", "filter.vm.state",
                           "-c", SINK, "-p", params]


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
    proc = vmtest.babeltrace2(args)
    return proc.stdout, proc.stderr


def csv_rows(text):
    lines = text.splitlines()
    if not lines or lines[0] != ",".join(STEAL_KEYS):
        vmtest.fail("what=steal CSV header is %r" % (lines[0] if lines else ""))
    import csv
    import io
    return list(csv.DictReader(io.StringIO(text)))


def json_rows(text):
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        row = json.loads(line)
        if list(row) != STEAL_KEYS + tc.JSON_EXACT_KEYS:
            vmtest.fail("json line %d has keys %s" % (number, list(row)))
        tc.check_json_exact_times(number, row)
        rows.append({k: "" if row[k] is None else str(row[k]) for k in STEAL_KEYS})
    return rows


def relative(rows, offset):
    return sorted(tuple(int(r[k]) - offset if k.endswith("_ns") else r[k]
                        for k in STEAL_KEYS) for r in rows)


def check_noisy_neighbour():
    traces = vmtest.scenario("noisy-neighbour")
    order = [traces["host"], traces["web"], traces["batch"]]
    offset = tc.stub_header(os.path.join(vmtest.STUB_DIR, "noisy-neighbour",
                                         "host.stub"))[1]
    params = 'format="csv",what="steal"'
    for label, args in (("convert", convert_args(order, params)),
                        ("run", direct_args(order, params))):
        out, err = run(args)
        if tc.unexpected_warnings_of(err):
            vmtest.fail("%s form: unexpected warnings:\n%s" % (label, err))
        got = relative(csv_rows(out), offset)
        if got != NOISY_NEIGHBOUR:
            vmtest.fail("noisy-neighbour steal (%s form) is\n  %s\nnot\n  %s" % (
                label, "\n  ".join(map(str, got)), "\n  ".join(map(str, NOISY_NEIGHBOUR))))
    out, _ = run(convert_args(order, 'format="json",what="steal"'))
    if relative(json_rows(out), offset) != NOISY_NEIGHBOUR:
        vmtest.fail("noisy-neighbour: json rows differ from the CSV's")
    for params in ('what="steal"', ""):
        out, _ = run(convert_args(order, params) if params else
                     list(order) + ["-c", "filter.vm.correlate", "-c", "filter.vm.state",
                                    "-c", SINK])
        lines = [line.strip() for line in out.splitlines()]
        if "Steal by culprit" not in out or any(row not in lines for row in NOISY_TABLE):
            vmtest.fail("text (%s) lacks the steal table rows %s:\n%s" % (
                params or "summary", NOISY_TABLE, out))
    out, _ = run(convert_args(order, 'format="chrome",what="steal"'))
    tc.check_chrome(out)
    if '"name":"batch vCPU 0"' not in out or '"culprit_comm":"IO iothread0"' not in out:
        vmtest.fail("chrome what=steal does not name the culprits:\n" + out)
    # what=threads too: each preempted slice of a thread names its culprit.
    out, _ = run(convert_args(order, 'format="chrome",what="threads"'))
    tc.check_chrome(out)
    events = json.loads(out)["traceEvents"]
    preempted = [e for e in events if e.get("ph") == "X" and e.get("name") == "preempted"]
    if not preempted or any("culprit_kind" not in e.get("args", {}) for e in preempted):
        vmtest.fail("chrome what=threads: preempted slices without their culprit:\n%s"
                    % preempted)
    if {e["args"]["culprit_kind"] for e in preempted} != {"vcpu", "vmm", "idle", "host"}:
        vmtest.fail("chrome what=threads: preempted slices' culprits %s"
                    % sorted({e["args"]["culprit_kind"] for e in preempted}))


def generated(name, extra):
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    out = os.path.join(vmtest.WORK_DIR, name)
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([vmtest.WORKLOAD, "--out", out, "--guests", "3", "--host-cpus", "2",
                    "--duration-ms", "20"] + extra, check=True, stdout=subprocess.DEVNULL)
    return [vmtest.stub_to_ctf(os.path.join(out, stub),
                               os.path.join(out, stub[:-5] + "-ctf"))
            for stub in sorted(os.listdir(out)) if stub.endswith(".stub")]


def per_thread(rows, keep):
    totals = collections.Counter()
    for row in rows:
        if keep(row):
            totals[(row["machine"], row["tid"])] += int(row["end_ns"]) - int(row["begin_ns"])
    return totals


def check_steal_is_preempted_time(name, extra):
    traces = generated(name, extra)
    out, _ = run(convert_args(traces, 'format="csv",what="steal"'))
    steal = csv_rows(out)
    direct, _ = run(direct_args(traces, 'format="csv",what="steal"'))
    if direct != out:
        vmtest.fail("%s: what=steal differs between the two graph forms" % name)
    threads_out, _ = run(convert_args(traces, 'format="csv",what="threads"'))
    threads = tc.parse_csv(threads_out, "threads")
    # A thread has no interval before its first appearance (SPEC), while
    # steal names the thread that ran on a CPU since the start from that
    # CPU's first guest sched_switch: compare from the first appearance on.
    first = {}
    for row in threads:
        key = (row["machine"], row["tid"])
        first[key] = min(first.get(key, int(row["begin_ns"])), int(row["begin_ns"]))
    stolen = per_thread(
        [dict(r, begin_ns=str(max(int(r["begin_ns"]), first.get((r["machine"], r["tid"]), 0))))
         for r in steal if int(r["end_ns"]) > first.get((r["machine"], r["tid"]), 0)],
        lambda r: r["tid"] not in ("", "0"))
    preempted = per_thread(threads, lambda r: r["state"] == "preempted")
    if not preempted:
        vmtest.fail("%s: no thread was preempted: the check checks nothing" % name)
    if stolen != preempted:
        diff = {k: (stolen[k], preempted[k]) for k in set(stolen) | set(preempted)
                if stolen[k] != preempted[k]}
        vmtest.fail("%s: steal per thread differs from its preempted time "
                    "(steal, preempted): %s" % (name, diff))
    kinds = {row["culprit_kind"] for row in steal}
    if not {"vcpu", "vmm"} <= kinds:
        vmtest.fail("%s: culprit kinds %s, expected other VMs' vCPU and QEMU threads"
                    % (name, sorted(kinds)))


def main():
    tc.require_component("filter.vm.state")
    check_noisy_neighbour()
    check_steal_is_preempted_time("steal-workload", ["--seed", "5"])
    check_steal_is_preempted_time("steal-workload-lossy",
                                  ["--seed", "7", "--loss-rate", "300"])


if __name__ == "__main__":
    main()
