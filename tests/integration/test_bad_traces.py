"""The whole pipeline on damaged CTF traces: a clear error or a warning,
never a crash, and whatever output exists is complete and valid.

    test_bad_traces.py stub   broken copies of a stub scenario (made here)
    test_bad_traces.py real   broken copies of ../shared/traces (skipped
                              when it is absent)

Each damage of badtrace.py (a stream file cut inside a packet header, a
packet context or an event, garbage over events, a zeroed packet magic, a
metadata syntax error, a wrong field type, a truncated or missing
metadata) goes through correlate -> state -> threads in every format, with
`path` and to the standard output, and through correlate -> sink.ctf.fs,
in both graph forms of SPEC.md (and the direct form with sync="none",
where correlate streams from the start).

babeltrace2 2.0.4's src.ctf.fs refuses most of these traces when the graph
is built (it indexes every packet then, and decodes the last one); garbage
over events and, with an index file, a zeroed magic, fail when the reading
reaches them, mid-way. The run may then fail, but with exit status 1 and
babeltrace2's error report whose innermost cause gives the reason, not a
signal, a sanitizer or a valgrind report; a run that goes on past a damage
must warn. Outputs are checked on their own terms: every CSV row has the
header's fields and a newline, every JSON line parses, the Chrome document
parses as a whole, the text summary ends with a whole line, a `path` file
is either the old one untouched (failed run) or a complete output, and a
written CTF copy reads back.
"""

import csv
import io
import json
import os
import re
import shlex
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import badtrace  # noqa: E402
import correlate_check as cc  # noqa: E402
import threads_common as tc  # noqa: E402

SUPP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bad-traces.supp")
FORMATS = ("csv", "json", "chrome", "text")
FORMS = ("direct", "convert")
OLD = "the previous run's output\n"

# What must never show on the standard error of a run.
_CRASH_RE = re.compile(
    r"AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault|"
    r"Aborted|core dumped|^==\d+== ", re.M)

# A babeltrace2 warning line, of a component or of the CLI itself (which
# names no component: "No trace was found based on input ...").
_WARNING_RE = re.compile(r"^\d\d-\d\d [\d:.]+ +\d+ +\d+ W ", re.M)


def pipeline(traces, form, sink, sink_params):
    """babeltrace2 args of correlate -> state -> `sink` in graph `form`;
    sink.ctf.fs goes straight after correlate."""
    # "nosync": the direct form with sync="none", where correlate streams
    # from the start instead of reading the whole input for its
    # synchronization pass first: a damage mid-way then fails the graph
    # after messages went through filter.vm.state to the sink.
    # sink.ctf.fs: with sync-model="linear" correlate reads its whole input
    # (its sync pass) before anything reaches the sink, so a damage fails
    # the graph before babeltrace2 2.0.4's sink.ctf.fs could crash in its
    # finalization (see runs()); read once, it would have started writing.
    chain = [("correlate", "filter.vm.correlate",
              'sync="none"' if form == "nosync" else
              'sync-model="linear"' if sink == "sink.ctf.fs" else "")]
    if sink != "sink.ctf.fs":
        chain.append(("state", "filter.vm.state", ""))
    chain.append(("sink", sink, sink_params))
    if form == "convert":
        args = list(traces)
        for _, cls, params in chain:
            args += ["--component=" + cls] + (["--params=" + params] if params else [])
        return args
    args = ["run"]
    for i, trace in enumerate(traces):
        args += ["--component=src%d:src.ctf.fs" % i, '--params=inputs=["%s"]' % trace]
    for name, cls, params in chain:
        args += ["--component=%s:%s" % (name, cls)] + (["--params=" + params] if params else [])
    args += ["--connect=src%d:correlate" % i for i in range(len(traces))]
    args += ["--connect=%s:%s" % (a[0], b[0]) for a, b in zip(chain, chain[1:])]
    return args


def check_status(proc, what):
    """Exit 0 (maybe with warnings) or 1 with babeltrace2's error report."""
    if proc.returncode not in (0, 1):
        vmtest.fail("%s: exit status %d (a signal, or valgrind's 99):\n%s"
                    % (what, proc.returncode, proc.stderr[-5000:]))
    crash = _CRASH_RE.search(proc.stderr)
    if crash:
        vmtest.fail("%s: %r in the log:\n%s" % (what, crash.group(0), proc.stderr[-5000:]))
    if proc.returncode == 0 and not _WARNING_RE.search(proc.stderr):
        # Going on past a damage is fine, silently is not.
        vmtest.fail("%s: a damaged trace, and not one warning:\n%s"
                    % (what, proc.stderr[-3000:]))
    if proc.returncode == 1:
        # The CLI's report: an error line, then the causes, each naming
        # the component (or the library) that appended it.
        if "ERROR:" not in proc.stderr or "CAUSED BY" not in proc.stderr:
            vmtest.fail("%s: failed without babeltrace2's error report:\n%s"
                        % (what, proc.stderr[-5000:]))
        # The innermost cause is the reason: babeltrace2's (src.ctf.fs, its
        # muxer or library, its CLI's auto-discovery) or a vm component's
        # own diagnosis (a time that does not fit, say), never a vm
        # component's mere "upstream failed", which would mean that the
        # reason got lost on the way.
        causes = re.split(r"^(?:ERROR: |CAUSED BY) *", proc.stderr, flags=re.M)[1:]
        innermost = " ".join(causes[-1].split()) if causes else ""
        if not innermost or (re.match(r"\[[^\]]*'(filter|sink)\.vm\.", innermost) and
                             re.search(r"upstream", innermost, re.I)):
            vmtest.fail("%s: the innermost error cause gives no reason: %r\n%s"
                        % (what, innermost, proc.stderr[-5000:]))


def check_whole_lines(text, what):
    if text and not text.endswith("\n"):
        vmtest.fail("%s: the output ends inside a line: %r" % (what, text[-200:]))


def check_output(fmt, text, what):
    """`text` is a complete, valid output of `fmt` (possibly empty)."""
    check_whole_lines(text, what)
    if not text:
        return
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        if rows[0] != tc.THREAD_KEYS:
            vmtest.fail("%s: CSV header %r" % (what, rows[0]))
        for number, row in enumerate(rows[1:], 2):
            if len(row) != len(tc.THREAD_KEYS):
                vmtest.fail("%s: CSV line %d has %d fields, the header %d: %r"
                            % (what, number, len(row), len(tc.THREAD_KEYS), row))
    elif fmt == "json":
        for number, line in enumerate(text.splitlines(), 1):
            try:
                row = json.loads(line)
            except ValueError as e:
                vmtest.fail("%s: JSON line %d does not parse (%s): %r"
                            % (what, number, e, line))
            if sorted(row) != sorted(tc.THREAD_KEYS):
                vmtest.fail("%s: JSON line %d has keys %s" % (what, number, sorted(row)))
    elif fmt == "chrome":
        try:
            tc.check_chrome(text)
        except SystemExit:
            vmtest.fail("%s: the Chrome document is not whole:\n%s" % (what, text[-500:]))
    elif not re.match(r"(Guest threads|Threads)", text):
        vmtest.fail("%s: the text summary does not start with its table:\n%s"
                    % (what, text[:500]))


def run_threads(traces, form, fmt, folder, what):
    """Both outputs of sink.vm.threads: the standard output, then `path`."""
    proc = vmtest.babeltrace2(pipeline(traces, form, "sink.vm.threads",
                                       'format="%s"' % fmt), check=False)
    check_status(proc, what + ", stdout")
    check_output(fmt, proc.stdout, what + ", stdout")

    path = os.path.join(folder, "out." + fmt)
    with open(path, "w") as f:
        f.write(OLD)
    proc = vmtest.babeltrace2(pipeline(traces, form, "sink.vm.threads",
                                       'format="%s",path="%s"' % (fmt, path)), check=False)
    check_status(proc, what + ", path")
    if proc.stdout:
        vmtest.fail("%s, path: output on stdout:\n%s" % (what, proc.stdout[:500]))
    with open(path) as f:
        written = f.read()
    if proc.returncode != 0:
        if written != OLD:
            vmtest.fail("%s, path: a failed run changed the file to %r"
                        % (what, written[:300]))
    else:
        check_output(fmt, written, what + ", path")
    if sorted(os.listdir(folder)) != ["out." + fmt]:
        vmtest.fail("%s, path: %s left in the folder" % (what, sorted(os.listdir(folder))))
    os.remove(path)
    return proc.returncode


def run_ctf_copy(traces, form, folder, what):
    out = os.path.join(folder, "copy")
    proc = vmtest.babeltrace2(pipeline(traces, form, "sink.ctf.fs",
                                       'path="%s",quiet=true' % out), check=False)
    check_status(proc, what)
    # A complete copy, or what a failed run left (sink.ctf.fs writes whole
    # packets and the metadata when it is finalized), reads back with the
    # stock components alone; a failed run may also leave no trace at all.
    for root, _, files in os.walk(out):
        if files and "metadata" not in files:
            vmtest.fail("%s: stream files without metadata in %s: %s" % (what, root, files))
        if not files:
            continue
        back = vmtest.babeltrace2([root, "--component=sink.text.details",
                                   "--params=" + cc.DETAILS_COMPACT],
                                  check=False, plugin_paths=[])
        if back.returncode != 0:
            vmtest.fail("%s: the copy %s does not read back:\n%s"
                        % (what, root, back.stderr[-3000:]))
    if proc.returncode == 0 and not os.path.isdir(out):
        vmtest.fail("%s: no copy written" % what)
    shutil.rmtree(out, ignore_errors=True)
    return proc.returncode


def runs(index, kind):
    """(form, format) pairs to run for damage number `index` of traces
    `kind`: all of them in the plain run, which checks the results. Under
    valgrind (20x to 50x slower) one pair per damage, and in sanitized
    builds three, rotating with the damage; the real traces' rotation
    starts where the stub's ends, so that the damages still put every pair
    under each memory checker (under valgrind, the stub and the real
    damages together)."""
    every = [(form, fmt) for form in FORMS for fmt in FORMATS + ("ctf",)]
    # Not sink.ctf.fs: babeltrace2 2.0.4's crashes (SIGSEGV in its
    # finalization) when the graph fails after it started writing, with the
    # stock components alone too (`babeltrace2 DAMAGED -c sink.ctf.fs`).
    every += [("nosync", fmt) for fmt in FORMATS]
    if not vmtest.small_inputs():
        return every
    per_damage = 1 if vmtest.under_valgrind() else 3
    if 2 * per_damage * len(badtrace.DAMAGES) < len(every):
        vmtest.fail("%d damages of each kind cannot cover the %d (form, format) pairs "
                    "with %d runs each: run more per damage"
                    % (len(badtrace.DAMAGES), len(every), per_damage))
    start = 0 if kind == "stub" else per_damage * len(badtrace.DAMAGES)
    return [every[(start + index * per_damage + k) % len(every)] for k in range(per_damage)]


def check_damage(index, kind, name, clean, victim, work):
    """Damages a copy of trace `victim` (a key of `clean`) and runs the
    pipeline on all of `clean`'s traces with the broken one instead."""
    broken = badtrace.broken_copy(clean[victim], name, os.path.join(work, name, "trace"))
    traces = [broken if key == victim else path for key, path in sorted(clean.items())]
    folder = os.path.join(work, name, "out")
    os.makedirs(folder)
    statuses = {}
    for form, fmt in runs(index, kind):
        what = "%s, %s form, %s" % (name, form, fmt)
        if fmt == "ctf":
            statuses[what] = run_ctf_copy(traces, form, folder, what)
        else:
            statuses[what] = run_threads(traces, form, fmt, folder, what)
    failed = sum(1 for status in statuses.values() if status)
    print("%s: %d runs, %d failed with an error report, none crashed, outputs whole"
          % (name, len(statuses), failed))


def stub_traces(work):
    """one-qemu-kvm with small packets (3 events each): a cut in the
    middle of a stream leaves whole packets before it."""
    clean = {}
    for machine in ("host", "guest"):
        source = os.path.join(vmtest.STUB_DIR, "one-qemu-kvm", machine + ".stub")
        with open(source) as f:
            lines = [line for line in f if not line.startswith("packet-size")]
        stub = os.path.join(work, "stubs", machine + ".stub")
        os.makedirs(os.path.dirname(stub), exist_ok=True)
        with open(stub, "w") as f:
            f.write("packet-size 3\n" + "".join(lines))
        clean[machine] = vmtest.stub_to_ctf(stub, os.path.join(work, "stub-ctf", machine))
    return clean, "guest"


def real_traces(work):
    """One CPU of a real LTTng 2.x kernel trace (tc-many-threads: streams
    of four to six packets, with their index files): the whole trace would
    take minutes under valgrind."""
    source = vmtest.shared_path("traces", "tc-many-threads")
    clean = os.path.join(work, "real-clean")
    os.makedirs(os.path.join(clean, "index"))
    shutil.copyfile(os.path.join(source, "metadata"), os.path.join(clean, "metadata"))
    for stream in ("channel0_0",):
        shutil.copyfile(os.path.join(source, stream), os.path.join(clean, stream))
        index = os.path.join("index", stream + ".idx")
        if os.path.exists(os.path.join(source, index)):
            shutil.copyfile(os.path.join(source, index), os.path.join(clean, index))
    return {"kernel": clean}, "kernel"


def main():
    kind = sys.argv[1] if len(sys.argv) > 1 else "stub"
    if vmtest.under_valgrind():
        # Leaks of babeltrace2's own plugins on damaged traces (see the file);
        # the suppressions name the plugins, which are unloaded by the leak check.
        wrapper = shlex.split(os.environ["VM_BT_WRAPPER"])
        os.environ["VM_BT_WRAPPER"] = " ".join(
            shlex.quote(w) for w in wrapper[:1] + ["--suppressions=" + SUPP, "--keep-debuginfo=yes"] +
            wrapper[1:])
    tc.require_component("filter.vm.state")
    work = os.path.join(vmtest.WORK_DIR, "bad-traces-" + kind)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    clean, victim = stub_traces(work) if kind == "stub" else real_traces(work)
    # The clean traces must go through: else the damages prove nothing.
    proc = vmtest.babeltrace2(pipeline(sorted(clean.values()), "direct",
                                       "sink.vm.threads", 'format="csv"'))
    check_output("csv", proc.stdout, "clean traces")
    if len(proc.stdout.splitlines()) < 2:
        vmtest.fail("the clean traces give no thread interval")
    for index, name in enumerate(badtrace.DAMAGES):
        check_damage(index, kind, name, clean, victim, work)
    shutil.rmtree(work, ignore_errors=True)


main()
