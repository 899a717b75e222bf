#!/usr/bin/python3
"""The whole pipeline on the kvm event layouts users record, against the truth.

lttng-modules >= 2.13 on Linux >= 5.10 writes the vCPU number in
kvm_x86_exit and a pointer fragment in kvm_x86_entry.vcpu_id (vm-workload's
default, `--kvm-layout modern`); older tracers write the number in the
entry (`classic`). Over a sweep of shapes (1 to 4 guests sharing 2 to 4 host
CPUs, vmsync, TCP and stock-event sync, VMX and SVM, with and without lost
events, both layouts), src.ctf.fs -> filter.vm.correlate -> filter.vm.state
-> sink.vm.threads must give:

- vCPUs numbered as the guest numbers its CPUs (0..n-1: the output's vCPU
  keys are the truth's);
- thread states and vCPU modes for at least 99.9% of the truth's time
  (outside the windows that lost events affect, truth/affected.csv);
- exit counts exact (but for exits touching a loss);
- with stock-event sync, every guest event within 1 us (median) of its
  true time.

Graph forms alternate between cases (both are compared elsewhere). Each case
is a fraction of a second of simulated time. VM_SWEEP_SEEDS=N runs each
shape with N seeds (default 1) for a wider sweep by hand. Not under valgrind
(the same code runs there in state-truth's small case).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synccheck  # noqa: E402
import truthcmp  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402

NO_VMSYNC = ["--vmsync-period-ms", 0]
STOCK = ["--vmsync-period-ms", 0, "--tcp-period-ms", 0]
LOSS = ["--loss-rate", 3, "--loss-ms", "0.1:1"]
# name: (sync, generator arguments). `tcp` with several guests maps the
# guests to their QEMU processes by vm-pids (nothing else in the traces does).
SHAPES = {
    "vmsync-1g": ("vmsync", ["--guests", 1, "--vcpus", 2, "--host-cpus", 2]),
    "vmsync-3g-svm-loss": ("vmsync", ["--guests", 3, "--vcpus", 2, "--host-cpus", 2,
                                      "--isa", "svm"] + LOSS),
    "vmsync-4g": ("vmsync", ["--guests", 4, "--vcpus", 1, "--host-cpus", 4,
                             "--guest-offset-ns", 500000000]),
    "tcp-2g": ("tcp", ["--guests", 2, "--vcpus", 2, "--host-cpus", 4] + NO_VMSYNC),
    "tcp-1g-svm-loss": ("tcp", ["--guests", 1, "--vcpus", 3, "--host-cpus", 2,
                                "--isa", "svm"] + NO_VMSYNC + LOSS),
    "vcpu-1g-4v-svm": ("vcpu", ["--guests", 1, "--vcpus", 4, "--host-cpus", 4,
                                "--isa", "svm"] + STOCK),
    "vcpu-2g-48ms": ("vcpu", ["--guests", 2, "--vcpus", 2, "--host-cpus", 3,
                              "--guest-offset-ns", 48000000] + STOCK),
    "vcpu-3g": ("vcpu", ["--guests", 3, "--vcpus", 2, "--host-cpus", 4,
                         "--guest-offset-ns", 2000000000] + STOCK),
    "vcpu-4g-2cpus-svm": ("vcpu", ["--guests", 4, "--vcpus", 1, "--host-cpus", 2,
                                   "--isa", "svm", "--drift-ppm", 100] + STOCK),
    "vcpu-2g-loss": ("vcpu", ["--guests", 2, "--vcpus", 2, "--host-cpus", 2] + STOCK + LOSS),
    "classic-vcpu-2g": ("vcpu", ["--guests", 2, "--vcpus", 2, "--host-cpus", 3,
                                 "--kvm-layout", "classic"] + STOCK),
    "classic-vmsync-old-names": ("vmsync", ["--guests", 2, "--vcpus", 2, "--host-cpus", 2,
                                            "--kvm-names", "old"]),
}
DURATION_MS = 800
MIN_PERCENT = 99.9
MAX_MEDIAN_NS = 1000
WHATS = ("threads", "vcpus", "exits")


def state_params(out, sync, guests):
    if sync != "tcp" or guests < 2:
        return {}
    pids = ",".join("%s=%s" % (m["machine"], m["qemu_pid"])
                    for m in truthdata.machines(out) if m["role"] == "guest")
    return {"vm-pids": ("{%s}" % pids,)}


def run(traces, form, filters, sink, params):
    builder = truthdata.run_form if form == "run" else truthdata.convert_form
    proc = vmtest.babeltrace2(builder(traces, filters, sink, params), check=False,
                              wrap=False)
    if proc.returncode != 0:
        vmtest.fail("the pipeline failed (%d):\n%s" % (proc.returncode,
                                                       proc.stderr[-4000:]))
    return proc


def affected(truth_dir):
    path = os.path.join(truth_dir, "affected.csv")
    if not os.path.exists(path):
        return None, None, None
    return truthcmp.read_affected(path)


def check_states(label, out, traces, form, filters):
    truth_dir = os.path.join(out, "truth")
    result_dir = os.path.join(out, "results")
    os.makedirs(result_dir, exist_ok=True)
    files = {}
    for what in WHATS:
        files[what] = os.path.join(result_dir, what + ".csv")
        run(traces, form, filters, "sink.vm.threads",
            {"format": "csv", "what": what, "path": files[what]})
    threads_ex, vcpus_ex, slack = affected(truth_dir)
    problems = []
    for result in (truthcmp.compare_threads(os.path.join(truth_dir, "threads.csv"),
                                            files["threads"], exclude=threads_ex),
                   truthcmp.compare_vcpus(os.path.join(truth_dir, "vcpus.csv"),
                                          files["vcpus"], exclude=vcpus_ex)):
        print("[%s] %s" % (label, result.summary().splitlines()[0]))
        if result.percent < MIN_PERCENT:
            problems.append("%s agreement %.4f%%" % (result.what, result.percent))
        if result.missing_keys or result.extra_keys:
            problems.append("%s keys differ from the truth (missing %s, extra %s)" % (
                result.what, sorted(result.missing_keys)[:4], sorted(result.extra_keys)[:4]))
    exits = truthcmp.compare_exits(os.path.join(truth_dir, "exits.csv"), files["exits"],
                                   slack=slack)
    print("[%s] %s" % (label, exits.summary().splitlines()[0]))
    if not exits.ok:
        problems.append("exit statistics differ from the truth")
    return problems


def check_sync(label, out, traces, form):
    proc = run(traces, form, [("filter.vm.correlate", {"sync": "vcpu"})],
               "sink.text.pretty", {"clock-seconds": ("yes",)})
    problems = []
    for guest, (count, median, largest) in synccheck.summaries(
            out, synccheck.output_times(proc.stdout)).items():
        print("[%s] %s: %d events, median %.0f ns, max %.0f ns from the truth" % (
            label, guest, count, median, largest))
        if median > MAX_MEDIAN_NS:
            problems.append("%s synchronized %.0f ns (median) from the truth" % (
                guest, median))
    return problems


def run_case(index, name, seed):
    sync, args = SHAPES[name]
    label = "%s seed %d" % (name, seed)
    out = truthdata.generate("layout-sweep-%s-%d" % (name, seed),
                             ["--seed", seed, "--duration-ms", DURATION_MS] + args)
    traces = truthdata.ctf_traces(out)
    form = ("run", "convert")[index % 2]
    guests = sum(1 for m in truthdata.machines(out) if m["role"] == "guest")
    filters = [("filter.vm.correlate", {"sync": sync}),
               ("filter.vm.state", state_params(out, sync, guests))]
    problems = check_states(label + ", " + form, out, traces, form, filters)
    if sync == "vcpu":
        problems += check_sync(label, out, traces, form)
    return ["[%s] %s" % (label, p) for p in problems]


def main():
    vmtest.skip_under_valgrind("a sweep of unwrapped pipelines")
    seeds = int(os.environ.get("VM_SWEEP_SEEDS", "1"))
    names = list(SHAPES)
    if vmtest.small_inputs():
        names = names[::3]
    problems = []
    for index, name in enumerate(names):
        for seed in range(seeds):
            problems += run_case(index + seed, name, 500 + 17 * index + seed)
    if problems:
        vmtest.fail("the pipeline disagrees with the truth:\n  " + "\n  ".join(problems))
    print("layout-sweep: %d shapes x %d seeds agree with the truth" % (len(names), seeds))


if __name__ == "__main__":
    main()
