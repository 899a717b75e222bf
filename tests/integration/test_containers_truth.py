#!/usr/bin/python3
"""Containers inside guests (SPEC "Containers") against the generator's
truth (truth/containers.csv, doc/workload-generator.md "Containers").

For small generated workloads whose guests run containers (both statedump
layouts, with and without the pid_ns context, nested namespaces, threads
forked during the trace, one shape that lost events), src.ctf.fs ->
filter.vm.correlate -> filter.vm.state -> sink.vm.threads with format=csv,
what=threads and what=containers, must give:
- the threads CSV header of SPEC, and for every thread of the output whose
  membership the trace shows (containers.csv `shown`), on every row:
  `container` = the truth's (the init's comm, else the inode number; empty
  in no container) and `vtid` = the truth's id in its innermost namespace
  (for a thread in no container: empty, or its tid);
- the containers CSV header of SPEC, one row per (machine, container) that
  the threads output names, its `ns_inum` the truth's, `threads` the number
  of its threads in the threads output, each state total (`*_ns`) the sum
  of its threads' intervals of that state in the threads output, exactly;
- per container, the time of each state within 0.1% of the container's
  time of the truth (threads.csv joined with containers.csv), plus the
  time the losses affect (truth/affected.csv) in the lossy shape;
- thread states >= 99.9% of the truth (truthcmp.py; outside the affected
  windows in the lossy shape);
- the run form and the convert form (babeltrace2 TRACE... --component)
  write the same bytes (checked on every other shape, both outputs).
"""

import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthcmp  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

THREADS_HEADER = ["machine", "tid", "comm", "state", "begin_ns", "end_ns", "vcpu", "reason",
                  "container", "vtid"]
CONTAINERS_HEADER = ["machine", "container", "ns_inum", "threads", "running_ns",
                     "hypervisor_ns", "preempted_ns", "vcpu_blocked_ns", "runnable_ns",
                     "blocked_ns", "unknown_ns"]
STATE_COLUMNS = {"running": "running_ns", "hypervisor": "hypervisor_ns",
                 "preempted": "preempted_ns", "vcpu-blocked": "vcpu_blocked_ns",
                 "runnable": "runnable_ns", "blocked": "blocked_ns", "unknown": "unknown_ns"}
BASE = ["--duration-ms", 25, "--guests", 2, "--vcpus", 2, "--host-cpus", 2, "--threads", 10]
CASES = {
    # name: (generator arguments, lossy)
    "2.11": (["--seed", 61, "--containers", 2, "--statedump-layout", "2.11"], False),
    "2.12-ctx-nested": (["--seed", 62, "--containers", 2, "--container-depth", 2,
                         "--statedump-layout", "2.12", "--pid-ns-context"], False),
    "2.11-ctx-deep": (["--seed", 63, "--containers", 1, "--container-depth", 3,
                       "--statedump-layout", "2.11", "--pid-ns-context",
                       "--kvm-layout", "classic"], False),
    "2.12-nested": (["--seed", 64, "--containers", 3, "--container-depth", 2,
                     "--statedump-layout", "2.12"], False),
    "lossy": (["--seed", 65, "--containers", 2, "--container-depth", 2,
               "--pid-ns-context", "--loss-rate", 150], True),
}
MIN_PERCENT = 99.9
SHARE = 0.001


def read_rows(path, header, what):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        got = next(reader, None)
        if got != header:
            vmtest.fail("%s: header %r, expected SPEC's %r (what=%s)" % (
                path, got, header, what))
        return [dict(zip(header, fields)) for fields in reader]


def run(traces, what, path, convert):
    filters = [("filter.vm.correlate", {}), ("filter.vm.state", {})]
    form = truthdata.convert_form if convert else truthdata.run_form
    args = form(traces, filters, "sink.vm.threads", {"format": "csv", "what": what,
                                                     "path": path})
    if os.path.exists(path):
        os.remove(path)
    proc = vmtest.babeltrace2(args, check=False, wrap=False)
    if proc.returncode != 0 or not os.path.exists(path):
        vmtest.fail("the pipeline failed (%d) on what=%s (%s form):\n%s" % (
            proc.returncode, what, "convert" if convert else "run", proc.stderr[-5000:]))


def truth_of(out):
    with open(os.path.join(out, "truth", "containers.csv"), newline="") as f:
        return {(r["machine"], int(r["tid"])): r for r in csv.DictReader(f)}


def check_membership(label, rows, truth, problems):
    checked = set()
    for row in rows:
        key = (row["machine"], int(row["tid"]))
        want = truth.get(key)
        if want is None:
            problems.append("%s: thread %s/%s of the output is not in the truth" % ((label,)
                                                                                   + key))
            continue
        if want["shown"] != "1":
            continue
        vtids = {want["vtid"]} if want["container"] else {"", str(key[1])}
        if row["container"] != want["container"] or row["vtid"] not in vtids:
            problems.append("%s: %s/%d at %s: container %r vtid %r, truth %r vtid %s" % (
                label, key[0], key[1], row["begin_ns"], row["container"], row["vtid"],
                want["container"], " or ".join(repr(v) for v in sorted(vtids))))
            if len(problems) > 20:
                break
        checked.add(key)
    return checked


def output_totals(rows):
    """{(machine, container): ({state column: ns}, {tids})} of the threads output."""
    totals = {}
    for row in rows:
        if not row["container"]:
            continue
        sums, tids = totals.setdefault((row["machine"], row["container"]),
                                       ({c: 0 for c in STATE_COLUMNS.values()}, set()))
        sums[STATE_COLUMNS[row["state"]]] += int(row["end_ns"]) - int(row["begin_ns"])
        tids.add(int(row["tid"]))
    return totals


def truth_totals(out, truth, affected):
    """{(machine, container): ({state column: ns}, [slack ns], ns_inum)}: the
    slack is the time the losses affect and that of threads whose membership
    the trace does not show."""
    totals = {}
    with open(os.path.join(out, "truth", "threads.csv"), newline="") as f:
        for row in csv.DictReader(f):
            member = truth.get((row["machine"], int(row["tid"])))
            if not member or not member["container"]:
                continue
            key = (row["machine"], member["container"])
            sums, slack, _ = totals.setdefault(key, ({c: 0 for c in STATE_COLUMNS.values()},
                                                     [0], member["ns_inum"]))
            ns = int(row["end_ns"]) - int(row["begin_ns"])
            sums[STATE_COLUMNS[row["state"]]] += ns
            # a thread whose membership the trace lost may be counted or not
            if member["shown"] != "1":
                slack[0] += ns
    for (machine, tid), windows in affected.items():
        member = truth.get((machine, tid))
        if member and member["container"] and (machine, member["container"]) in totals:
            totals[(machine, member["container"])][1][0] += sum(e - b for b, e in windows)
    return totals


def check_containers(label, containers, threads_rows, truth_sums, problems):
    from_threads = output_totals(threads_rows)
    seen = set()
    for row in containers:
        key = (row["machine"], row["container"])
        if key in seen:
            problems.append("%s: two rows for container %s/%s" % ((label,) + key))
        seen.add(key)
        sums, tids = from_threads.get(key, ({}, set()))
        for column in STATE_COLUMNS.values():
            if int(row[column]) != sums.get(column, 0):
                problems.append("%s: %s/%s %s = %s, its threads' intervals sum to %d" % (
                    label, key[0], key[1], column, row[column], sums.get(column, 0)))
        if int(row["threads"]) != len(tids):
            problems.append("%s: %s/%s threads = %s, the threads output has %d" % (
                label, key[0], key[1], row["threads"], len(tids)))
        truth = truth_sums.get(key)
        if truth is None:
            problems.append("%s: container %s/%s is not in the truth" % ((label,) + key))
            continue
        states, affected, inum = truth
        if row["ns_inum"] != inum:
            problems.append("%s: %s/%s ns_inum %s, truth %s" % (label, key[0], key[1],
                                                                row["ns_inum"], inum))
        total = sum(states.values())
        allowed = SHARE * total + 2 * affected[0] + int(row["unknown_ns"])
        off = sum(abs(int(row[c]) - states[c]) for c in STATE_COLUMNS.values()
                  if c != "unknown_ns")
        if off > allowed:
            problems.append("%s: %s/%s state totals %s are %d ns off the truth's %s "
                            "(allowed %d)" % (label, key[0], key[1],
                                              {c: row[c] for c in STATE_COLUMNS.values()},
                                              off, states, allowed))
    for key in set(from_threads) - seen:
        problems.append("%s: container %s/%s of the threads output has no row" % (
            (label,) + key))
    for key in set(truth_sums) - seen:
        problems.append("%s: truth container %s/%s has no row" % ((label,) + key))


def trimmed_threads(path):
    """The threads output without the container columns, for truthcmp."""
    trimmed = path[:-4] + "-states.csv"
    with open(path, newline="") as f, open(trimmed, "w", newline="") as t:
        writer = csv.writer(t, lineterminator="\n")
        for fields in csv.reader(f):
            writer.writerow(fields[:len(truthcmp.THREAD_HEADER)])
    return trimmed


def check_case(name, index):
    args, lossy = CASES[name]
    out = truthdata.generate("containers-truth-" + name, BASE + args)
    traces = truthdata.ctf_traces(out)
    truth = truth_of(out)
    affected = {}
    if lossy:
        affected, _, _ = truthcmp.read_affected(os.path.join(out, "truth", "affected.csv"))
    results = os.path.join(out, "results")
    os.makedirs(results, exist_ok=True)
    files = {}
    for what in ("threads", "containers"):
        files[what] = os.path.join(results, what + ".csv")
        run(traces, what, files[what], convert=False)
        # the columns first: the clearest failure while they are missing
        rows = read_rows(files[what], THREADS_HEADER if what == "threads" else
                         CONTAINERS_HEADER, what)
        if what == "threads":
            threads_rows = rows
        else:
            containers = rows
        if index % 2:
            other = os.path.join(results, what + "-convert.csv")
            run(traces, what, other, convert=True)
            with open(files[what], "rb") as a, open(other, "rb") as b:
                if a.read() != b.read():
                    vmtest.fail("[%s] what=%s: the run and convert forms differ" % (name, what))
    problems = []
    checked = check_membership(name, threads_rows, truth, problems)
    in_containers = {k for k in checked if truth[k]["container"]}
    if len(in_containers) < 4:
        problems.append("%s: only %d threads in containers checked" % (name,
                                                                      len(in_containers)))
    check_containers(name, containers, threads_rows, truth_totals(out, truth, affected),
                     problems)
    agreement = truthcmp.compare_threads(os.path.join(out, "truth", "threads.csv"),
                                         trimmed_threads(files["threads"]),
                                         exclude=affected or None)
    if agreement.percent < MIN_PERCENT:
        problems.append("%s: %s" % (name, agreement.summary()))
    if problems:
        vmtest.fail("[%s] containers disagree with the truth:\n  %s" % (
            name, "\n  ".join(problems[:30])))
    print("[%s] %d threads (%d in %d containers) as the truth; %.4f%% of thread time" % (
        name, len(checked), len(in_containers), len(containers), agreement.percent))


def main():
    vmtest.skip_under_valgrind("unwrapped runs")
    for index, name in enumerate(CASES):
        check_case(name, index)


if __name__ == "__main__":
    main()
