"""filter.vm.correlate on the real traces of ../shared/traces.

- tc-synctraces (LTTng 2.1, scp_src recorded on VM1, scp_dest on VM3): the
  packets overlap (the stock muxer aborts on them); with reference="VM3"
  the TCP pairs give Trace Compass's formula for VM1, and all 196,500
  events come out in time order, in both graph forms where the graph can
  be built at all (the convert form's own muxer aborts first).
- tc-many-threads and bt-lttng-tracefile-rotation/kernel (one machine each)
  come out exactly as plain `babeltrace2` prints them, but for the vm_*
  environment entries and the output clock class (one shared reference
  clock whose cycles are nanoseconds since the Unix epoch).
"""

import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402

EXPECTED_SLOPE = "0.9999413783703139011056845831168394"
EXPECTED_OFFSET = "79796507913179.33347660124688298171"
EXPECTED_EVENTS = 196500


def same_digits(got, expected, digits):
    """Whether two decimal strings agree to `digits` significant digits."""
    def significant(text):
        return text.replace("-", "").replace(".", "").lstrip("0")[:digits]
    return significant(got) == significant(expected) and \
        got.index(".") == expected.index(".")


def metadata_env(trace_dir):
    """{hostname: {env key: value}} from the metadata written by sink.ctf.fs."""
    result = {}
    for root, _, files in os.walk(trace_dir):
        if "metadata" not in files:
            continue
        with open(os.path.join(root, "metadata"), errors="replace") as f:
            text = f.read()
        env = dict(re.findall(r'^\s*(\w+) = "?(.*?)"?;$',
                              text.split("env {", 1)[1].split("};", 1)[0], re.M))
        result[env["hostname"]] = env
    return result


def check_synctraces():
    base = vmtest.shared_path("traces", "tc-synctraces")
    traces = [os.path.join(base, "scp_src"), os.path.join(base, "scp_dest")]
    params = 'reference="VM3"'

    proc = cc.run(["--log-level=INFO"] + cc.direct_args(
        traces, params, sink_params=cc.DETAILS_COMPACT), "tc-synctraces, direct form")
    events = cc.event_names(proc.stdout)
    if len(events) != EXPECTED_EVENTS:
        vmtest.fail("tc-synctraces: %d events out, expected %d"
                    % (len(events), EXPECTED_EVENTS))
    # The summary line (read once, it comes after the warnings of the read).
    summary = [line for line in proc.stderr.splitlines() if "Machine `VM1`: role" in line]
    if not summary or "46 matches" not in summary[0] or "accurate" not in summary[0] \
            or "transforms={VM1={slope=" not in summary[0]:
        vmtest.fail("tc-synctraces: no INFO summary line for VM1 with 46 accurate "
                    "matches and its transform:\n" + proc.stderr[-3000:])
    if "packets that end after the next packet" not in proc.stderr:
        vmtest.fail("tc-synctraces: no warning about the overlapping packets")

    out = tempfile.mkdtemp(prefix="correlate-real-")
    try:
        vmtest.babeltrace2(cc.direct_args(
            traces, params, sink="sink.ctf.fs",
            sink_params='path="%s",quiet=true' % out))
        env = metadata_env(out)
        vm1 = env.get("VM1", {})
        if vm1.get("vm_sync_quality") != "accurate" or vm1.get("vm_sync_matches") != "46":
            vmtest.fail("tc-synctraces: VM1 env %r" % vm1)
        if not same_digits(vm1.get("vm_sync_slope", "0.0"), EXPECTED_SLOPE, 12):
            vmtest.fail("tc-synctraces: vm_sync_slope %s, expected %s"
                        % (vm1.get("vm_sync_slope"), EXPECTED_SLOPE))
        if not same_digits(vm1.get("vm_sync_offset_ns", "0.0"), EXPECTED_OFFSET, 12):
            vmtest.fail("tc-synctraces: vm_sync_offset_ns %s, expected %s"
                        % (vm1.get("vm_sync_offset_ns"), EXPECTED_OFFSET))
        if env.get("VM3", {}).get("vm_sync_slope") != "1":
            vmtest.fail("tc-synctraces: the reference VM3 is not the identity: %r"
                        % env.get("VM3"))
        # The synchronized copy reads back, in order, with every event.
        back = cc.run([out, "--component=sink.text.details",
                       "--params=" + cc.DETAILS_COMPACT], "tc-synctraces read back")
        if len(cc.event_names(back.stdout)) != EXPECTED_EVENTS:
            vmtest.fail("tc-synctraces: the written copy lost events")
    finally:
        shutil.rmtree(out, ignore_errors=True)
    print("tc-synctraces: %d events in order, VM1 slope %s offset %s"
          % (len(events), vm1["vm_sync_slope"], vm1["vm_sync_offset_ns"]))


_CYCLES_RE = re.compile(r"^\[[0-9,]+ ")
_STRING_RE = re.compile(r'= "[^"]*"')
PRETTY = "clock-date=yes,clock-gmt=yes,field-default=show"


def stale_only(got, want):
    """Whether line `got` equals `want` but for strings that are empty in
    `got`: babeltrace2 2.0.4's src.ctf.fs leaves an empty string field with
    the bytes of a recycled field in its value, which plain babeltrace2's
    sinks print; correlate copies the string by its length (its strings
    are checked by length in test_correlate_fields.py)."""
    if _STRING_RE.sub('= ""', got) != _STRING_RE.sub('= ""', want):
        return False
    return all(a == b or a == '= ""'
               for a, b in zip(_STRING_RE.findall(got), _STRING_RE.findall(want)))


def compare(name, got, want):
    """Fails at the first line that differs; returns the stale-string count
    (see stale_only(): only that difference is tolerated, and counted)."""
    got = got.splitlines()
    want = want.splitlines()
    quirks = 0
    for number, (a, b) in enumerate(zip(got, want), 1):
        if a == b:
            continue
        if stale_only(a, b):
            quirks += 1
            continue
        vmtest.fail("%s: differs from plain babeltrace2 at line %d:\n"
                    "  correlate: %s\n  plain:     %s" % (name, number, a, b))
    if len(got) != len(want):
        vmtest.fail("%s: %d lines, plain babeltrace2 %d" % (name, len(got), len(want)))
    return quirks


def check_single_machine(name, *parts):
    trace = vmtest.shared_path("traces", *parts)

    # Direct form, every field value: sink.text.pretty.
    plain = vmtest.babeltrace2([trace, "--component=sink.text.pretty",
                                "--params=" + PRETTY], wrap=False).stdout
    out = vmtest.babeltrace2(cc.direct_args([trace], sink="sink.text.pretty",
                                            sink_params=PRETTY)).stdout
    quirks = compare(name + ", direct form", out, plain)

    # Convert form, every message with its stream and time: compact details.
    plain = vmtest.babeltrace2([trace, "--component=sink.text.details",
                                "--params=" + cc.DETAILS_COMPACT], wrap=False).stdout
    out = cc.run(cc.convert_args([trace], sink_params=cc.DETAILS_COMPACT),
                 name + ", convert form").stdout
    compare(name + ", convert form", "\n".join(
        _CYCLES_RE.sub("[", line) for line in out.splitlines()), "\n".join(
        _CYCLES_RE.sub("[", line) for line in plain.splitlines()))

    # The environment entries are there.
    env = metadata_env_of_run(trace)
    if env.get("vm_sync_quality") != "absent" or env.get("vm_role") != "unknown":
        vmtest.fail("%s: vm_* environment entries %r" % (name, env))
    print("%s: identical to plain babeltrace2 in both forms (%d stale strings "
          "printed by plain babeltrace2)" % (name, quirks))


def metadata_env_of_run(trace):
    """The environment correlate gives the (single) machine of `trace`."""
    out = tempfile.mkdtemp(prefix="correlate-real-")
    try:
        vmtest.babeltrace2(cc.direct_args(
            [trace], sink="sink.ctf.fs", sink_params='path="%s",quiet=true' % out))
        envs = metadata_env(out)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    if len(envs) != 1:
        vmtest.fail("%s: expected one machine, got %r" % (trace, list(envs)))
    return list(envs.values())[0]


if vmtest.under_valgrind():
    # As in correlate-fields: the large real traces are left to the plain
    # and sanitized runs (the pair alone took over 5 minutes here).
    print("under valgrind, skipped (checked by the plain run): tc-synctraces, "
          "tc-many-threads")
else:
    check_synctraces()
    check_single_machine("tc-many-threads", "tc-many-threads")
check_single_machine("bt-lttng-tracefile-rotation", "bt-lttng-tracefile-rotation", "kernel")
