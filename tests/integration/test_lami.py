"""vm-lami, the LAMI 1.0 program (doc/lami.md).

- `--mi-version` and `--metadata` are valid LAMI 1.0, field by field
  (lamicheck.py, written from the protocol and Trace Compass's reader);
- a run on the two-guests and halted-vcpu stubs prints valid results whose
  figures are sink.vm.threads' on the same graph (its CSV, summed here),
  and, for halted-vcpu, the vCPU modes and exits read off the stub by hand;
- `--begin`/`--end` (ns, dates, `--timerange`): thread and vCPU figures are
  the full run's intervals cut to the range, exits those of
  sink.vm.threads after filter.utils.trimmer;
- a session directory (one subdirectory per machine) is found whole;
- progress lines, --test-compatibility, --limit, --plugin-path;
- bad trace directories, bad options: a LAMI error object, non-zero exit
  (2 for every command line error, no trace directory included);
- the host's trace alone: an error object naming the fix (the guests'
  trace directories), exit status 1.

Under valgrind (meson test --setup=valgrind) one run of vm-lami on
halted-vcpu goes through VM_BT_WRAPPER; under ASan the sanitizer runtime is
preloaded into the Python process that loads the plugin.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lamicheck  # noqa: E402
import threads_common as tc  # noqa: E402
import truthdata  # noqa: E402
import vmtest  # noqa: E402
from halted_vcpu_expected import HALTED_VCPU  # noqa: E402

VM_LAMI = os.environ.get("VM_LAMI", os.path.join(vmtest.BUILD_DIR, "tools", "vm-lami"))
PYTHON = "/usr/bin/python3"
SUPP = os.path.join(vmtest.SOURCE_DIR, "tests", "mirrortest", "python.supp")
STATES = ["running", "hypervisor", "preempted", "vcpu-blocked", "runnable", "blocked",
          "unknown"]
MODES = ["guest", "hypervisor", "preempted", "blocked"]
# HALTED_EXITS of test_threads_scenarios: vcpu, reason, name, count, total,
# min, max, mean, read off the stub by hand.
HALTED_EXITS = {(0, 12): ("HLT", 2, 6006000, 1003000, 5003000, 3003000),
                (0, 18): ("VMCALL", 3, 5700, 1900, 1900, 1900)}


def lami(args, check=True, wrap=False, env=None, script=VM_LAMI):
    """Runs vm-lami (python3 in a process that loads the plugin)."""
    run_env = dict(os.environ, **(env or {}))
    if os.environ.get("VM_BT_PRELOAD"):
        run_env["LD_PRELOAD"] = os.environ["VM_BT_PRELOAD"]
    cmd = [PYTHON, script] + list(args)
    if wrap and vmtest.under_valgrind():
        wrapper = shlex.split(os.environ["VM_BT_WRAPPER"])
        cmd = wrapper[:1] + ["--suppressions=" + SUPP] + wrapper[1:] + cmd
        run_env["PYTHONMALLOC"] = "malloc"
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=run_env)
    if check and proc.returncode != 0:
        vmtest.fail("vm-lami %s: exit status %d\n--- stdout ---\n%s\n--- stderr ---\n%s"
                    % (" ".join(args), proc.returncode, proc.stdout[-3000:],
                       proc.stderr[-5000:]))
    return proc


def validated(label, stdout, classes):
    try:
        return lamicheck.check_results(json.loads(stdout), classes)
    except (ValueError, lamicheck.LamiInvalid) as e:
        vmtest.fail("%s: invalid LAMI results: %s\n%s" % (label, e, stdout[:3000]))


# Read off the noisy-neighbour stub by hand (its header describes it).
NOISY_CULPRITS = [("batch", "web", "vm", 1500), ("batch", "kworker/1:1 (600)", "host", 500),
                  ("web", "batch", "vm", 21000), ("web", "idle", "idle", 500)]


# container-neighbour: web's nginx, in the pod `pause`, waits for batch's
# vCPU and QEMU thread (43000-64000), then for nothing (64000-64500).
POD_CULPRITS = [["web", "pause", "batch", "vm", 21000], ["web", "pause", "idle", "idle", 500]]


def check_version_and_metadata():
    out = lami(["--mi-version"]).stdout
    try:
        version = lamicheck.check_mi_version_output(out)
        classes = lamicheck.check_metadata(json.loads(lami(["--metadata"]).stdout))
    except (ValueError, lamicheck.LamiInvalid) as e:
        vmtest.fail("--mi-version / --metadata: %s" % e)
    if version != (1, 0):
        vmtest.fail("--mi-version says %r, not 1.0" % (version,))
    expected = {"vm-thread-states", "vm-vcpu-modes", "vm-exits", "vm-steal",
                "vm-steal-culprits", "vm-containers", "vm-container-steal-culprits"}
    if set(classes) != expected:
        vmtest.fail("table classes %s, not %s" % (sorted(classes), sorted(expected)))
    meta = json.loads(lami(["--metadata"]).stdout)
    for key in ("title", "authors", "description", "tags"):
        if not meta.get(key):
            vmtest.fail("--metadata has no %s" % key)
    kinds = {c for columns in classes.values() for c in columns}
    for kind in ("duration", "ratio", "process", "cpu", "number", "string"):
        if kind not in kinds:
            vmtest.fail("no column of LAMI class %s in the metadata" % kind)
    print("--mi-version 1.0; --metadata valid, tables %s" % ", ".join(sorted(classes)))
    return classes


def sink_rows(traces, what, trim=None, wrap=False):
    """sink.vm.threads' CSV on the same graph as vm-lami (run form), under
    valgrind only when that vm-lami run was too: valgrind computes long
    double as double, and correlate's formulas then differ by a ns."""
    chain = [("filter.vm.correlate", {}), ("filter.vm.state", {})]
    if trim:
        chain.append(("filter.utils.trimmer", {k: "%d.%09d" % divmod(v, 1000000000)
                                               for k, v in trim.items()}))
    proc = vmtest.babeltrace2(truthdata.run_form(
        {"t%d" % i: t for i, t in enumerate(traces)}, chain, "sink.vm.threads",
        {"format": "csv", "what": what}), wrap=wrap)
    return tc.parse_csv(proc.stdout, what)


def clipped(rows, begin, end):
    out = []
    for row in rows:
        b, e = int(row["begin_ns"]), int(row["end_ns"])
        if begin is not None:
            b = max(b, begin)
        if end is not None:
            e = min(e, end)
        if e > b:
            out.append(dict(row, begin_ns=b, end_ns=e))
    return out


def sums(rows, key_fields, state_field):
    result = {}
    for row in rows:
        key = tuple(int(row[f]) if f in ("tid", "vcpu") else row[f] for f in key_fields)
        per = result.setdefault(key, {})
        per[row[state_field]] = per.get(row[state_field], 0) + \
            int(row["end_ns"]) - int(row["begin_ns"])
    return result


def close(a, b):
    return abs(a - b) <= 1e-12


def check_state_rows(label, rows, expected, names):
    """Rows [machine, key, (duration, ratio)..., total] against {key: {state: ns}}."""
    got = {}
    for row in rows:
        key = (row[0]["value"], row[1].get("tid", row[1].get("id")))
        got[key] = row
    if sorted(got) != sorted(expected):
        vmtest.fail("%s: rows for %s, sink.vm.threads has %s" % (
            label, sorted(got), sorted(expected)))
    for key, per in expected.items():
        row = got[key]
        total = sum(per.values())
        for i, name in enumerate(names):
            ns, share = row[2 + 2 * i]["value"], row[3 + 2 * i]["value"]
            if ns != per.get(name, 0) or not close(share, per.get(name, 0) / total):
                vmtest.fail("%s: %s %s: %d ns, %r; sink.vm.threads: %d ns of %d" % (
                    label, key, name, ns, share, per.get(name, 0), total))
        if row[-1]["value"] != total:
            vmtest.fail("%s: %s: total %d, sink.vm.threads %d" % (
                label, key, row[-1]["value"], total))


def check_exits(label, rows, expected):
    want = {}
    for r in expected:
        want[(r["machine"], int(r["vcpu"]), int(r["reason"]))] = r
    got = {(row[0]["value"], row[1]["id"], row[2]["value"]): row for row in rows}
    if sorted(got) != sorted(want):
        vmtest.fail("%s: exits %s, sink.vm.threads %s" % (label, sorted(got), sorted(want)))
    for key, r in want.items():
        row = got[key]
        cells = [row[3]["value"], row[4]["value"], row[6]["value"], row[8]["value"],
                 row[9]["value"], row[10]["value"]]
        sink = [r["name"], int(r["count"]), int(r["total_ns"]), int(r["min_ns"]),
                int(r["max_ns"]), int(r["mean_ns"])]
        if cells != sink:
            vmtest.fail("%s: exit %s is %r, sink.vm.threads %r" % (label, key, cells, sink))
        same = [w for k, w in want.items() if k[:2] == key[:2]]
        count = sum(int(w["count"]) for w in same)
        total = sum(int(w["total_ns"]) for w in same)
        if not close(row[5]["value"], int(r["count"]) / count) or \
                not close(row[7]["value"], int(r["total_ns"]) / total if total else 0):
            vmtest.fail("%s: exit %s: shares %r, %r" % (label, key, row[5], row[7]))


def check_steal(label, rows, vcpu_rows):
    want = {}
    for r in vcpu_rows:
        key = (r["machine"], int(r["vcpu"]))
        steal, count, total = want.get(key, (0, 0, 0))
        length = int(r["end_ns"]) - int(r["begin_ns"])
        if r["mode"] == "preempted":
            steal, count = steal + length, count + 1
        want[key] = (steal, count, total + length)
    got = {(row[0]["value"], row[1]["id"]): (row[2]["value"], row[4]["value"],
                                             row[5]["value"]) for row in rows}
    if got != want:
        vmtest.fail("%s: steal %r, sink.vm.threads' preempted intervals %r" % (
            label, got, want))
    for row in rows:
        if not close(row[3]["value"], row[2]["value"] / row[5]["value"]):
            vmtest.fail("%s: steal share %r" % (label, row))


def culprit_sums(steal_rows):
    """{(machine, kind, culprit): ns} as the text summary groups culprits."""
    want = {}
    for r in steal_rows:
        kind = r["culprit_kind"]
        if kind in ("vcpu", "vmm"):
            key = (r["machine"], "vm", r["culprit_machine"])
        elif kind == "host":
            key = (r["machine"], "host", "%s (%s)" % (r["culprit_comm"], r["culprit_tid"]))
        else:
            key = (r["machine"], kind, kind)
        want[key] = want.get(key, 0) + int(r["end_ns"]) - int(r["begin_ns"])
    return want


def check_culprits(label, rows, steal_rows):
    want = culprit_sums(steal_rows)
    got = {(row[0]["value"], row[2]["value"], row[1]["value"]): row[3]["value"]
           for row in rows}
    if got != want:
        vmtest.fail("%s: steal by culprit %r, sink.vm.threads' steal rows %r" % (
            label, got, want))
    per_machine = {}
    for (machine, _, _), ns in want.items():
        per_machine[machine] = per_machine.get(machine, 0) + ns
    for row in rows:
        if not close(row[4]["value"], row[3]["value"] / per_machine[row[0]["value"]]):
            vmtest.fail("%s: culprit share %r" % (label, row))
    if [row[3]["value"] for row in rows if row[0]["value"] == rows[0][0]["value"]] != \
            sorted((row[3]["value"] for row in rows if row[0]["value"] == rows[0][0]["value"]),
                   reverse=True):
        vmtest.fail("%s: culprits not largest first" % label)


def check_containers(label, tables, threads):
    """vm-containers: each container's figures are the sums of its threads'
    intervals (clipped to the range) of what=threads; its culprits add up
    to its preempted time."""
    rows = tables["vm-containers"][1]
    got = {(r[0]["value"], r[1]["value"]): r for r in rows}
    in_containers = [dict(r, tid=r["tid"]) for r in threads if r["container"]]
    want = sums(in_containers, ("machine", "container"), "state")
    if sorted(got) != sorted(want):
        vmtest.fail("%s: containers %s, sink.vm.threads has %s" % (
            label, sorted(got), sorted(want)))
    for key, per in want.items():
        row = got[key]
        tids = {r["tid"] for r in in_containers if (r["machine"], r["container"]) == key}
        if row[3]["value"] != len(tids):
            vmtest.fail("%s: %s has %r threads, not %d" % (label, key, row[3], len(tids)))
        total = sum(per.values())
        for i, name in enumerate(STATES):
            ns, share = row[4 + 2 * i]["value"], row[5 + 2 * i]["value"]
            if ns != per.get(name, 0) or not close(share, per.get(name, 0) / total):
                vmtest.fail("%s: container %s %s: %d ns, %r; sink.vm.threads: %d of %d"
                            % (label, key, name, ns, share, per.get(name, 0), total))
    stolen = {}
    for r in tables["vm-container-steal-culprits"][1]:
        key = (r[0]["value"], r[1]["value"])
        stolen[key] = stolen.get(key, 0) + r[4]["value"]
    preempted = {k: v["preempted"] for k, v in want.items() if v.get("preempted")}
    if stolen != preempted:
        vmtest.fail("%s: containers' culprits add up to %r, their preempted time is %r"
                    % (label, stolen, preempted))
    return len(rows)


def tables_of(label, stdout, classes):
    tables = {}
    for name, time_range, rows in validated(label, stdout, classes):
        tables[name] = (time_range, rows)
    if sorted(tables) != sorted(classes):
        vmtest.fail("%s: tables %s" % (label, sorted(tables)))
    return tables


def check_figures(label, tables, traces, begin=None, end=None, wrap=False,
                  has_host=True):
    threads = clipped(sink_rows(traces, "threads", wrap=wrap), begin, end)
    vcpus = clipped(sink_rows(traces, "vcpus", wrap=wrap), begin, end)
    trim = {k: v for k, v in (("begin", begin), ("end", end)) if v is not None}
    exits = sink_rows(traces, "exits", trim or None, wrap=wrap)
    if not threads or (has_host and not vcpus):
        vmtest.fail("%s: sink.vm.threads has no interval: nothing is compared" % label)
    check_state_rows(label + ", threads", tables["vm-thread-states"][1],
                     sums(threads, ("machine", "tid"), "state"), STATES)
    check_state_rows(label + ", vcpus", tables["vm-vcpu-modes"][1],
                     sums(vcpus, ("machine", "vcpu"), "mode"), MODES)
    check_exits(label, tables["vm-exits"][1], exits)
    check_steal(label, tables["vm-steal"][1], vcpus)
    steal = clipped(sink_rows(traces, "steal", wrap=wrap), begin, end)
    if has_host:
        check_culprits(label, tables["vm-steal-culprits"][1], steal)
    check_containers(label, tables, threads)
    spans = threads + vcpus
    want = (begin if begin is not None else min(int(r["begin_ns"]) for r in spans),
            end if end is not None else max(int(r["end_ns"]) for r in spans))
    for name, (time_range, _) in tables.items():
        if time_range != want:
            vmtest.fail("%s: %s covers %r, not %r" % (label, name, time_range, want))
    print("%s: %d thread, %d vCPU, %d exit rows = sink.vm.threads' figures" % (
        label, len(tables["vm-thread-states"][1]), len(tables["vm-vcpu-modes"][1]),
        len(tables["vm-exits"][1])))
    return threads, vcpus, exits


def check_halted_truth(tables):
    """vCPU modes and exits of halted-vcpu, read off the stub by hand."""
    per = {}
    for mode, b, e, _, _ in HALTED_VCPU:
        per[mode] = per.get(mode, 0) + e - b
    row = tables["vm-vcpu-modes"][1][0]
    got = {m: row[2 + 2 * i]["value"] for i, m in enumerate(MODES)}
    if got != dict({m: 0 for m in MODES}, **per):
        vmtest.fail("halted-vcpu: vCPU modes %r, by hand %r" % (got, per))
    exits = {(r[1]["id"], r[2]["value"]): (r[3]["value"], r[4]["value"], r[6]["value"],
                                           r[8]["value"], r[9]["value"], r[10]["value"])
             for r in tables["vm-exits"][1]}
    if exits != HALTED_EXITS:
        vmtest.fail("halted-vcpu: exits %r, by hand %r" % (exits, HALTED_EXITS))
    print("halted-vcpu: vCPU modes and exits as read off the stub by hand")


def iso(ns):
    seconds, fraction = divmod(ns, 1000000000)
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(seconds)) + ".%09d" % fraction


def check_ranges(classes, traces):
    full = sink_rows(traces, "vcpus")
    first = min(int(r["begin_ns"]) for r in full)
    last = max(int(r["end_ns"]) for r in full)
    begin, end = first + (last - first) // 3, first + 2 * (last - first) // 3
    out = lami(["--begin", str(begin), "--end", str(end)] + traces).stdout
    check_figures("two-guests [%d, %d]" % (begin, end), tables_of("range", out, classes),
                  traces, begin, end)
    same = {
        "dates (--gmt)": ["--gmt", "--begin", iso(begin), "--end", iso(end)],
        "--timerange": ["--timerange", "[%d,%d]" % (begin, end)],
        "times of day (--gmt)": ["--gmt", "--begin", iso(begin).split()[1],
                                 "--end", iso(end).split()[1]],
        "seconds with a fraction": ["--begin", "%d.%09d" % divmod(begin, 1000000000),
                                    "--end", "%d.%09d" % divmod(end, 1000000000)],
    }
    # A shorter fraction is microseconds, not ns: both ends on whole us.
    us = 1000
    begin_us, end_us = -(-begin // us) * us, end // us * us
    if begin_us >= end_us:
        vmtest.fail("two-guests: the range [%d, %d] holds no whole microsecond" % (begin, end))
    in_us = lami(["--begin", "%d.%06d" % divmod(begin_us // us, 1000000),
                  "--end", "%d.%06d" % divmod(end_us // us, 1000000)] + traces).stdout
    in_ns = lami(["--begin", str(begin_us), "--end", str(end_us)] + traces).stdout
    if in_us != in_ns:
        vmtest.fail("two-guests: S.NNNNNN is not microseconds")
    if in_ns == lami(traces).stdout:
        vmtest.fail("two-guests: the range [%d, %d] changes nothing: S.NNNNNN is not "
                    "tested" % (begin_us, end_us))
    print("ranges: S.NNNNNN (us) agrees with ns")
    for label, args in same.items():
        other = lami(args + traces).stdout
        if other != out:
            vmtest.fail("two-guests: %s gives other results than ns:\n%s\n%s" % (
                label, other[:2000], out[:2000]))
    # Local time without --gmt: the same instant in TZ's time.
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(begin // 1000000000))
    other = lami(["--begin", local + ".%09d" % (begin % 1000000000),
                  "--end", str(end)] + traces).stdout
    if other != out:
        vmtest.fail("two-guests: a local date gives other results than ns")
    only_begin = lami(["--begin", str(begin)] + traces).stdout
    check_figures("two-guests [%d, end]" % begin, tables_of("begin", only_begin, classes),
                  traces, begin, None)
    print("ranges: ns, dates, times of day, seconds with a fraction and --timerange agree")


def check_session_dir(classes, traces, out):
    """One directory holding a subdirectory per machine, as LTTng writes."""
    top = tempfile.mkdtemp(prefix="vm-lami-session-")
    try:
        for trace in traces:
            name = os.path.basename(trace)
            shutil.copytree(trace, os.path.join(top, name, "kernel"))
        got = lami([top]).stdout
        tables_of("session", got, classes)
        if got != out:
            vmtest.fail("a session directory gives other results than its traces")
        # As Trace Compass runs it: the session in the command, then one of
        # its traces (by another path) as the last argument.
        again = lami([top, os.path.join(top, ".", os.path.basename(traces[0]),
                                        "kernel") + "/"]).stdout
        if again != out:
            vmtest.fail("a trace given twice changes the results")
        print("session directory: same results as its traces")
    finally:
        shutil.rmtree(top, ignore_errors=True)


def check_progress(classes, traces):
    out = lami(["--output-progress"] + traces).stdout
    try:
        values, rest = lamicheck.split_progress(out)
    except lamicheck.LamiInvalid as e:
        vmtest.fail("--output-progress: %s" % e)
    if not values or [float(v) for v in values] != sorted(float(v) for v in values):
        vmtest.fail("--output-progress: progress values %r" % values)
    tables_of("progress", rest, classes)
    print("--output-progress: %d progress lines, then the results" % len(values))


def expect_error(label, args, status=1, script=VM_LAMI, env=None, text=None):
    proc = lami(args, check=False, script=script, env=env)
    if proc.returncode != status:
        vmtest.fail("%s: exit status %d, expected %d\n%s%s" % (
            label, proc.returncode, status, proc.stdout, proc.stderr[-3000:]))
    try:
        message = lamicheck.check_error(json.loads(proc.stdout))
    except (ValueError, lamicheck.LamiInvalid) as e:
        vmtest.fail("%s: no LAMI error object on stdout (%s): %r" % (label, e, proc.stdout))
    if text and text not in message:
        vmtest.fail("%s: the error does not say %r: %r" % (label, text, message))
    if message not in proc.stderr:
        vmtest.fail("%s: the error is not on stderr too: %r" % (label, proc.stderr))
    print("%s: error object %r" % (label, message[:100]))


def check_errors(traces):
    empty = tempfile.mkdtemp(prefix="vm-lami-empty-")
    broken = tempfile.mkdtemp(prefix="vm-lami-broken-")
    try:
        expect_error("missing directory", [os.path.join(empty, "nope")], text="nope")
        expect_error("directory without trace", [empty], text="No CTF trace")
        with open(os.path.join(broken, "metadata"), "w") as f:
            f.write("this is not CTF metadata\n")
        expect_error("broken trace", [broken], text="Cannot create trace for")
        expect_error("bad option", ["--bogus"] + traces, status=2, text="--bogus")
        expect_error("bad time", ["--begin", "yesterday"] + traces, status=2,
                     text="yesterday")
        expect_error("no trace", [], status=2, text="trace directories")
        expect_error("compatibility of a directory without trace",
                     ["--test-compatibility", empty], text="No CTF trace")
        expect_error("--plugin-path without the plugin", ["--plugin-path", empty] + traces,
                     text="No vm plugin")
    finally:
        shutil.rmtree(empty, ignore_errors=True)
        shutil.rmtree(broken, ignore_errors=True)
    proc = lami(["--test-compatibility"] + traces)
    if proc.stdout:
        vmtest.fail("--test-compatibility on good traces printed %r" % proc.stdout)
    print("--test-compatibility: good traces accepted silently")


def check_lone_host(host, guest):
    """The host's trace alone (a guest forgotten, as Trace Compass runs the
    analysis on the trace selected): an error that names the fix, not empty
    tables; the guest alone is its own view (no error)."""
    expect_error("host alone", [host], text="Give the guests' trace directories too")
    tables = json.loads(lami([guest]).stdout)["results"]
    if not any(t["data"] for t in tables):
        vmtest.fail("guest alone: no row at all")
    print("guest alone: %d rows of its own view" % sum(len(t["data"]) for t in tables))


def check_plugin_path(traces, out):
    """Outside the build tree: --plugin-path, or babeltrace2's own search."""
    tmp = tempfile.mkdtemp(prefix="vm-lami-copy-")
    try:
        copy = os.path.join(tmp, "vm-lami")
        shutil.copy(VM_LAMI, copy)
        got = lami(["--plugin-path", vmtest.PLUGIN_DIR] + traces, script=copy).stdout
        if got != out:
            vmtest.fail("--plugin-path: other results")
        got = lami(traces, script=copy,
                   env={"BABELTRACE_PLUGIN_PATH": vmtest.PLUGIN_DIR}).stdout
        if got != out:
            vmtest.fail("BABELTRACE_PLUGIN_PATH: other results")
        print("outside the build tree: --plugin-path and BABELTRACE_PLUGIN_PATH work")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_real_traces(classes):
    """tc-synctraces of ../shared (three machines, no host: each machine's
    own view), given as the directory that holds them."""
    base = vmtest.shared_dir()
    top = base and os.path.join(base, "traces", "tc-synctraces")
    if not top or not os.path.isdir(top) or vmtest.under_valgrind():
        print("tc-synctraces: skipped (absent, or under valgrind)")
        return
    traces = sorted(os.path.join(root) for root, _, files in os.walk(top)
                    if "metadata" in files)
    out = lami([top]).stdout
    check_figures("tc-synctraces", tables_of("tc-synctraces", out, classes), traces,
                  has_host=False)


def main():
    if not os.path.exists(VM_LAMI):
        vmtest.fail("no vm-lami at " + VM_LAMI)
    classes = check_version_and_metadata()
    halted = list(vmtest.scenario("halted-vcpu").values())
    out = lami(halted, wrap=True).stdout
    tables = tables_of("halted-vcpu", out, classes)
    check_figures("halted-vcpu", tables, halted, wrap=True)
    check_halted_truth(tables)
    noisy = list(vmtest.scenario("noisy-neighbour").values())
    tables = tables_of("noisy-neighbour", lami(noisy).stdout, classes)
    check_figures("noisy-neighbour", tables, noisy)
    culprits = [(r[0]["value"], r[1]["value"], r[2]["value"], r[3]["value"])
                for r in tables["vm-steal-culprits"][1]]
    if culprits != NOISY_CULPRITS:
        vmtest.fail("noisy-neighbour: culprits %r, by hand %r" % (culprits, NOISY_CULPRITS))
    pods = list(vmtest.scenario("container-neighbour").values())
    tables = tables_of("container-neighbour", lami(pods).stdout, classes)
    check_figures("container-neighbour", tables, pods)
    got = [[c.get("value") for c in r[:4]] + [r[8]["value"]] for r in tables["vm-containers"][1]]
    if got != [["web", "pause", "4026532500", 1, 21500]]:
        vmtest.fail("container-neighbour: containers %r" % got)
    culprits = [[c["value"] for c in r[:5]] for r in tables["vm-container-steal-culprits"][1]]
    if culprits != POD_CULPRITS:
        vmtest.fail("container-neighbour: culprits %r, by hand %r" % (culprits, POD_CULPRITS))
    two = list(vmtest.scenario("two-guests").values())
    out = lami(two).stdout
    check_figures("two-guests", tables_of("two-guests", out, classes), two)
    limited = json.loads(lami(["--limit", "1"] + two).stdout)
    if any(len(t["data"]) > 1 for t in limited["results"]):
        vmtest.fail("--limit 1 leaves more rows")
    check_ranges(classes, two)
    check_session_dir(classes, two, out)
    check_progress(classes, two)
    check_plugin_path(two, out)
    check_errors(two)
    stub = vmtest.scenario("halted-vcpu")
    check_lone_host(stub["host"], stub["guest"])
    check_real_traces(classes)


main()
