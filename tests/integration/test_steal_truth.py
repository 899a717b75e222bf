#!/usr/bin/python3
"""Who took the time (sink.vm.threads what="steal") against the truth.

On oversubscribed hosts (3 or 4 guests on 2 host CPUs with CPU-bound host
threads, so that vCPUs wait behind other VMs' vCPUs, QEMU threads and host
threads), vmsync and stock-event sync, both kvm layouts, with and without
lost events, with sched_migrate_task of waiting threads,
src.ctf.fs -> filter.vm.correlate -> filter.vm.state -> sink.vm.threads
must give, in both graph forms (the same CSV bytes):

- for at least 99.9% of the truth's steal time (truth/steal.csv, outside
  the windows that lost events affect: affected.csv's vcpu and thread
  windows, steal-affected.csv), the same victim (machine, vCPU, tid) and
  the same culprit (kind, and the VM, vCPU number and thread its kind
  names), instant by instant; and no more than 0.1% of steal where the
  truth has none;
- where a vCPU thread waits on a CPU a sched_migrate_task moved it to, the
  same agreement and the same waiting CPU (pcpu): the culprits follow
  dest_cpu;
- the text summary's "Steal by culprit" table: for each victim machine and
  culprit (a VM, summed over its vCPU and QEMU threads; a host thread by
  comm and tid; idle; unknown), a line naming it with the CSV's total.

The traces are 250 ms of simulated time each (about a second of work for
the whole test).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stealcmp  # noqa: E402
import truthcmp  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

STOCK = ["--vmsync-period-ms", 0, "--tcp-period-ms", 0]
LOSS = ["--loss-rate", 30, "--loss-ms", "0.1:1"]
OVER3 = ["--guests", 3, "--vcpus", 2, "--host-cpus", 2, "--host-hogs", 2]
OVER4 = ["--guests", 4, "--vcpus", 1, "--host-cpus", 2, "--host-hogs", 1]
MIGRATE = ["--migrate-rate", 200]
# name: (sync, generator arguments)
SHAPES = {
    "vmsync-modern-migrate": ("vmsync", OVER3 + MIGRATE),
    "vmsync-classic-loss-migrate": ("vmsync", OVER4 + ["--kvm-layout", "classic"] + LOSS +
                                    MIGRATE),
    "stock-modern-loss-migrate": ("vcpu", OVER3 + STOCK + LOSS + MIGRATE),
    "stock-classic": ("vcpu", OVER4 + ["--kvm-layout", "classic"] + STOCK),
}
DURATION_MS = 250
MIN_PERCENT = 99.9
MAX_EXTRA = 0.001
DURATION = re.compile(r"(\d+(?:\.(\d+))?)\s*(ns|us|µs|ms|s)\b")
UNIT_NS = {"ns": 1, "us": 1000, "µs": 1000, "ms": 10**6, "s": 10**9}


def run(traces, form, filters, sink_params):
    builder = truthdata.run_form if form == "run" else truthdata.convert_form
    proc = vmtest.babeltrace2(builder(traces, filters, "sink.vm.threads", sink_params),
                              check=False, wrap=False)
    if proc.returncode != 0:
        vmtest.fail("the pipeline (%s form, %s) failed (%d):\n%s" % (
            form, sink_params, proc.returncode, proc.stderr[-3000:]))
    return proc


def windows_of(truth_dir):
    """(machine, vcpu, victim tid) -> merged windows where lost events let an
    analysis differ from the truth."""
    path = os.path.join(truth_dir, "affected.csv")
    if not os.path.exists(path):
        return None
    threads, vcpus, _ = truthcmp.read_affected(path)
    steal = {}
    for row in stealcmp.read_rows_plain(os.path.join(truth_dir, "steal-affected.csv")):
        steal.setdefault((row["machine"], int(row["vcpu"])), []).append(
            (int(row["begin_ns"]), int(row["end_ns"])))

    def windows(machine, vcpu, tid):
        return stealcmp.merged(vcpus.get((machine, vcpu), []) +
                               steal.get((machine, vcpu), []) +
                               (threads.get((machine, tid), []) if tid else []))
    return windows


def culprit_groups(rows):
    """{(victim machine, group): (labels, total ns)} as the text summary
    groups culprits: a VM (its vCPU and QEMU threads), a host thread (comm
    and tid), idle, unknown."""
    groups = {}
    for row in rows:
        kind = row["culprit_kind"]
        if kind in ("vcpu", "vmm"):
            labels = (row["culprit_machine"],)
        elif kind == "host":
            labels = (row["culprit_comm"], row["culprit_tid"])
        else:
            labels = (kind,)
        key = (row["machine"], labels)
        groups[key] = groups.get(key, 0) + int(row["end_ns"]) - int(row["begin_ns"])
    return groups


def durations(line):
    """(value ns, rounding ns) of each duration written on the line."""
    found = []
    for m in DURATION.finditer(line):
        unit = UNIT_NS[m.group(3)]
        decimals = len(m.group(2) or "")
        found.append((float(m.group(1)) * unit, unit * 0.5 * 10**-decimals + 1))
    return found


def check_text(text, rows, guests):
    """SPEC: the text summary gains a table "Steal by culprit": per victim
    machine, each culprit with its total time. The layout is the sink's:
    this looks for the heading, then, in the indented lines under it, a line
    with the culprit's labels and the CSV's total, under (or naming) the
    victim machine."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "steal by culprit" in line.lower()), None)
    if start is None:
        return ['the text summary has no "Steal by culprit" table']
    section = []
    for line in lines[start + 1:]:
        if line.strip() and not line[0].isspace():
            break
        section.append(line)
    # The victim machine is the word at the table's left edge: on each row,
    # or on a line of its own above its culprits' rows (indented deeper).
    base = min((len(line) - len(line.lstrip()) for line in section if line.strip()), default=0)
    owned = []
    owner = None
    for line in section:
        words = line.replace(":", " ").split()
        if words and len(line) - len(line.lstrip()) == base and words[0] in guests:
            owner = words[0]
        owned.append((owner, line))
    problems = []
    for (victim, labels), total in sorted(culprit_groups(rows).items()):
        if not any(owner == victim and all(label in line for label in labels) and
                   any(abs(value - total) <= slack for value, slack in durations(line))
                   for owner, line in owned):
            problems.append('"Steal by culprit": no line for victim %s, culprit %s, %d ns' % (
                victim, " ".join(labels), total))
    return problems


def run_case(index, name):
    sync, args = SHAPES[name]
    out = truthdata.generate("steal-truth-%s" % name,
                             ["--seed", 900 + index, "--duration-ms", DURATION_MS] + args)
    truth_dir = os.path.join(out, "truth")
    traces = truthdata.ctf_traces(out)
    guests = [m["machine"] for m in truthdata.machines(out) if m["role"] == "guest"]
    filters = [("filter.vm.correlate", {"sync": sync}), ("filter.vm.state", {})]
    results = os.path.join(out, "results")
    os.makedirs(results, exist_ok=True)
    outputs = {}
    for form in ("run", "convert"):
        outputs[form] = os.path.join(results, "steal-%s.csv" % form)
        run(traces, form, filters, {"format": "csv", "what": "steal", "path": outputs[form]})
    problems = []
    with open(outputs["run"], "rb") as a, open(outputs["convert"], "rb") as b:
        if a.read() != b.read():
            problems.append("the run and convert forms write different steal CSVs")
    try:
        rows = stealcmp.read_rows(outputs[("run", "convert")[index % 2]])
    except ValueError as e:
        return ["[%s] %s" % (name, e)]
    truth = stealcmp.read_rows(os.path.join(truth_dir, "steal.csv"))
    replay = stealcmp.HostReplay(out)
    vcpu_tids = {(r["machine"], r["vcpu"]): int(r["host_tid"])
                 for r in stealcmp.read_rows_plain(os.path.join(truth_dir, "vcpus.csv"))}
    result = stealcmp.compare(truth, rows, windows_of(truth_dir),
                              stealcmp.after_migration(replay, vcpu_tids))
    print("[%s] %s" % (name, result.summary()))
    if result.percent < MIN_PERCENT:
        problems.append("steal agrees for %.4f%% of the truth's time" % result.percent)
        problems += ["  " + e for e in result.examples]
    if result.extra_ns > MAX_EXTRA * result.truth_ns:
        problems.append("%d ns of steal where the truth has none" % result.extra_ns)
    if "migrate" in name:
        if result.selected_ns == 0:
            problems.append("no steal after a migration in the truth (the shape is wrong)")
        elif result.selected_percent < MIN_PERCENT:
            problems.append("after migrations, culprits and waiting CPU agree for %.4f%%"
                            % result.selected_percent)
    text = run(traces, ("convert", "run")[index % 2], filters, {"format": "text"}).stdout
    problems += check_text(text, rows, guests)
    return ["[%s] %s" % (name, p) for p in problems]


def main():
    problems = []
    for index, name in enumerate(SHAPES):
        problems += run_case(index, name)
    if problems:
        vmtest.fail("who took the time disagrees with the truth:\n  " + "\n  ".join(problems))
    print("steal-truth: %d shapes agree with the truth" % len(SHAPES))


if __name__ == "__main__":
    main()
