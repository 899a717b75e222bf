"""Synchronization from stock KVM events against the generator's truth.

Workloads without vmsync and without TCP (only the host's kvm events and
the guests' ordinary events), several seeds and shapes: 1-3 guests with 2
vCPUs, 1-4 host CPUs, guest clocks seconds away (both signs) and drifting
up to 100 ppm (and more for later guests), look-alike QEMU processes. The
default graph (no parameter at all) must:

- synchronize every guest with the method `vcpu` (vm_sync_method), its
  QEMU found (vm_host_pid = the truth's qemu_pid);
- put guest events within 1 us of their true host time (median), 5 us max;
- get thread states and vCPU modes right for >= 99.9% of their time and
  exit statistics exactly, in both graph forms, which write the same files.
"""

import filecmp
import os
import shutil
import statistics
from fractions import Fraction

import vmtest
import truthcmp
import truthdata
import correlate_check as cc
import threads_common as tc

MIN_PERCENT = 99.9
MEDIAN_NS = 1000
MAX_NS = 5000
TOTAL_TOLERANCE_NS = 5000
NO_SYNC = ["--vmsync-period-ms", 0, "--tcp-period-ms", 0]
WHATS = ("threads", "vcpus", "exits")
FORMS = {"run": truthdata.run_form, "convert": truthdata.convert_form}
# (seed, guests, host CPUs, guest offset scale in ns, drift scale in ppm, ms)
SHAPES = [
    (1, 1, 2, 3000000000, 100, 300),
    (2, 3, 1, -40000000000, 100, 300),
    (3, 3, 4, 60000000000, 60, 300),
    (4, 2, 3, -1000000, 20, 300),
    (5, 2, 2, 9000000000, 100, 600),
]
SMALL_SHAPES = [(6, 2, 2, 7000000000, 50, 60)]


def stub_times(path):
    """Every event time of a stub on its own clock, ns from origin."""
    offset_s, offset_ns, times = 1600000000, 0, []
    with open(path) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "clock-offset-s":
                offset_s = int(words[1])
            elif words[0] == "clock-offset-ns":
                offset_ns = int(words[1])
            elif words[0].isdigit():
                times.append(int(words[0]))
    return [offset_s * 1000000000 + offset_ns + t for t in times]


def formula_of(line):
    """(slope, offset) of an INFO summary line's `t_ref = S * t + O ns` (or
    `- O ns`), exact."""
    text = line.split("t_ref = ", 1)[1]
    slope, rest = text.split(" * t ", 1)
    sign, rest = rest.split(" ", 1)
    offset = Fraction(rest.split(" ns", 1)[0])
    return Fraction(slope), -offset if sign == "-" else offset


def check_sync(out, traces, label):
    """Method, QEMU and time errors of every guest; returns failures."""
    failures = []
    shutil.rmtree(os.path.join(out, "copy"), ignore_errors=True)
    proc = vmtest.babeltrace2(list(traces.values()) + [
        "-c", "filter.vm.correlate", "-l", "I", "-c", "sink.ctf.fs",
        "-p", "path=%s,quiet=true" % truthdata.quote(os.path.join(out, "copy"))])
    for warning in tc.warnings_of(proc.stderr):
        failures.append("%s: unexpected warning: %s" % (label, warning))
    summaries = cc.summary_lines(proc.stderr)
    timemap = truthdata.timemap(out)
    for machine in truthdata.machines(out):
        if machine["role"] != "guest":
            continue
        name = machine["machine"]
        line = summaries.get(name, "")
        if "sync vcpu" not in line:
            failures.append("%s: %s not synchronized by vcpu: %s" % (label, name, line))
            continue
        env = open(os.path.join(out, "copy", name, "metadata")).read()
        if 'vm_sync_method = "vcpu"' not in env:
            failures.append("%s: %s has no vm_sync_method vcpu in its copy" % (label, name))
        if "vm_host_pid = %s;" % machine["qemu_pid"] not in env:
            failures.append("%s: %s: vm_host_pid is not its QEMU %s" % (
                label, name, machine["qemu_pid"]))
        slope, offset = formula_of(line)
        true_slope, true_offset = timemap[name]
        errors = sorted(abs(slope * t + offset - (true_slope * t + true_offset))
                        for t in stub_times(os.path.join(out, name + ".stub")))
        median, largest = statistics.median(errors), errors[-1]
        median, largest = float(median), float(largest)
        print("%s: %s median error %.0f ns, max %.0f ns over %d events" % (
            label, name, median, largest, len(errors)))
        if median > MEDIAN_NS or largest > MAX_NS:
            failures.append("%s: %s errors median %.0f ns, max %.0f ns" % (
                label, name, median, largest))
    return failures


def check_states(out, traces, label, forms, wrap):
    failures = []
    files = {}
    result_dir = os.path.join(out, "results")
    os.makedirs(result_dir, exist_ok=True)
    for form in forms:
        for what in WHATS:
            path = os.path.join(result_dir, "%s-%s.csv" % (form, what))
            if os.path.exists(path):
                os.remove(path)
            vmtest.babeltrace2(FORMS[form](
                traces, [("filter.vm.correlate", {}), ("filter.vm.state", {})],
                "sink.vm.threads", {"format": "csv", "what": what, "path": path}),
                wrap=wrap)
            files[form, what] = path
    for what in WHATS:
        if len(forms) == 2 and not filecmp.cmp(files["run", what],
                                              files["convert", what], shallow=False):
            failures.append("%s: run and convert forms differ (what=%s)" % (label, what))
    results = truthcmp.compare_dir(os.path.join(out, "truth"), files[forms[0], "threads"],
                                   files[forms[0], "vcpus"], files[forms[0], "exits"],
                                   total_tolerance_ns=TOTAL_TOLERANCE_NS)
    for what in ("threads", "vcpus"):
        result = results[what]
        print("%s %s" % (label, result.summary()))
        if result.percent < MIN_PERCENT or result.missing_keys or result.extra_keys:
            failures.append("%s: %s agreement %.4f%%" % (label, what, result.percent))
    if not results["exits"].ok:
        print(results["exits"].summary())
        failures.append("%s: exit statistics differ from the truth" % label)
    return failures


def main():
    tc.require_component("filter.vm.state")
    valgrind = vmtest.under_valgrind()
    failures = []
    for seed, guests, cpus, offset, drift, ms in SMALL_SHAPES if valgrind else SHAPES:
        args = ["--seed", seed, "--guests", guests, "--vcpus", 2, "--host-cpus", cpus,
                "--guest-offset-ns", offset, "--drift-ppm", drift, "--duration-ms", ms]
        label = "seed %d, %d guests, %d host CPUs, offsets %.0f s, drift %d ppm" % (
            seed, guests, cpus, offset / 1e9, drift)
        out = truthdata.generate("sync-vcpu-%d%s" % (seed, "-vg" if valgrind else ""),
                                 args + NO_SYNC)
        traces = truthdata.ctf_traces(out)
        failures += check_sync(out, traces, label)
        failures += check_states(out, traces, label,
                                 ("convert",) if valgrind else ("run", "convert"),
                                 wrap=valgrind)
    if failures:
        vmtest.fail("\n".join(failures))
    print("sync=vcpu by default: every guest within the truth's tolerances")


if __name__ == "__main__":
    main()
