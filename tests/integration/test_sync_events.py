"""correlate's vm:sync events, against the workload generator's truth.

On a slewed workload (vm-workload --slew-ppm), sync-model="piecewise" (the
default) gives each guest several segments. For every guest:

- one vm:sync event per segment after the first (the INFO summary gives the
  segment count), in time order, with the SPEC's fields, method `vmsync`;
- each event's formula (read exactly, with bt2, from a sink.ctf.fs copy:
  the text sinks round reals to 6 digits) places the guest reading it
  starts from (inverted from the event's time) within 10 us of that
  reading's true time: the event describes the map where it applies;
- sync-model="linear" gives one segment and no vm:sync event;
- a sink.ctf.fs copy keeps the vm-sync trace, and correlate reading the copy
  back (the time base is kept) passes the events through without adding any.
"""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402
import synccheck  # noqa: E402
import truthdata  # noqa: E402

import bt2  # noqa: E402

ARGS = ["--seed", "31", "--duration-ms", "8000", "--host-cpus", "2", "--threads", "4",
        "--guest-activity", "basic", "--vmsync-period-ms", "10", "--tcp-period-ms", "0",
        "--slew-ppm", "50", "--slew-period-ms", "1500:3000"]
TOLERANCE_NS = 10000
FIELDS = ["machine", "method", "quality", "slope", "offset_ns", "accuracy", "matches"]
QUALITIES = {"absent", "incomplete", "approximate", "accurate", "fail"}
_SYNC_RE = re.compile(r"^\[(\d+)\.(\d{9})\] \(\S+\) (\S+) vm:sync: \{ (.*) \}$")
_FIELD_RE = re.compile(r'(\w+) = ("[^"]*"|[^,]+)')


def sync_events(text):
    """[(ns, hostname, {field: value})] of the vm:sync lines."""
    events = []
    for line in text.splitlines():
        match = _SYNC_RE.match(line)
        if match:
            fields = {k: v.strip().strip('"') for k, v in _FIELD_RE.findall(match.group(4))}
            events.append((int(match.group(1)) * 1000000000 + int(match.group(2)),
                           match.group(3), fields))
    return events


def segment_counts(stderr):
    counts = {}
    for machine, line in cc.summary_lines(stderr).items():
        match = re.search(r"; (\d+) segments?, largest accuracy ", line)
        if not match:
            vmtest.fail("summary of %s gives no segment count: %s" % (machine, line))
        counts[machine] = int(match.group(1))
    return counts


def run_pretty(args, what):
    """babeltrace2 ARGS (sink.text.pretty); fails unless it succeeds in time order."""
    proc = cc.run(args, what, check=False)
    if proc.returncode != 0:
        vmtest.fail("%s: babeltrace2 failed:\n%s" % (what, proc.stderr[-3000:]))
    cc.pretty_events(proc.stdout, what)
    return proc


def run(traces, params, what):
    proc = run_pretty(["--log-level=INFO"] +
                      cc.direct_args(traces, params + ("," if params else "") +
                                     'sync="vmsync"', sink="sink.text.pretty",
                                     sink_params=cc.PRETTY_SECONDS), what)
    return proc.stdout, proc.stderr


def copied_formulas(vm_sync_trace):
    """[(ns, machine, slope, offset_ns)] of the vm:sync events of a copy."""
    found = []
    for msg in bt2.TraceCollectionMessageIterator(vm_sync_trace):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "vm:sync":
            payload = msg.event.payload_field
            found.append((msg.default_clock_snapshot.ns_from_origin,
                          str(payload["machine"]), float(payload["slope"]),
                          float(payload["offset_ns"])))
    return found


def check_formulas(out, formulas):
    pieces = synccheck.truth_pieces(out)
    worst = {}
    for ns, machine, slope, offset in formulas:
        if not 0.999 < slope < 1.001:
            vmtest.fail("vm:sync of %s: slope %r" % (machine, slope))
        # The reading the segment starts from; doubles: ~200 ns off at most.
        reading = round((ns - offset) / slope)
        anchor, frac = synccheck.true_times(pieces[machine], [reading])[0]
        worst[machine] = max(worst.get(machine, 0), abs(anchor + frac - ns))
    for machine, err in sorted(worst.items()):
        if err > TOLERANCE_NS:
            vmtest.fail("%s: a vm:sync event's formula is %.0f ns off the truth where it "
                        "applies" % (machine, err))
        print("%s: vm:sync formulas within %.0f ns of the truth where they apply"
              % (machine, err))


def check_events(out, events, counts):
    guests = sorted(m for m in synccheck.truth_pieces(out) if m != "host")
    for guest in guests:
        mine = [e for e in events if e[2].get("machine") == guest]
        if counts.get(guest, 0) < 2:
            vmtest.fail("%s: %d segment(s) on a slewed clock" % (guest, counts.get(guest, 0)))
        if len(mine) != counts[guest] - 1:
            vmtest.fail("%s: %d vm:sync events for %d segments" % (guest, len(mine),
                                                                counts[guest]))
        for ns, hostname, fields in mine:
            if sorted(fields) != sorted(FIELDS):
                vmtest.fail("vm:sync fields %s, expected %s" % (sorted(fields), FIELDS))
            if fields["method"] != "vmsync" or fields["quality"] not in QUALITIES:
                vmtest.fail("vm:sync of %s: %s" % (guest, fields))
            if hostname != "host":
                vmtest.fail("vm:sync of %s on hostname %s, not the reference's" % (guest,
                                                                               hostname))
        print("%s: %d segments, %d vm:sync events" % (guest, counts[guest], len(mine)))
    times = [e[0] for e in events]
    if times != sorted(times):
        vmtest.fail("vm:sync events out of time order")


def check_copy(out, traces, events):
    copy = os.path.join(vmtest.WORK_DIR, "sync-events-copy")
    shutil.rmtree(copy, ignore_errors=True)
    proc = cc.run(cc.direct_args(traces, 'sync="vmsync"', sink="sink.ctf.fs",
                                 sink_params='path="%s"' % copy), "copy", check=False)
    if proc.returncode != 0:
        vmtest.fail("copy to sink.ctf.fs failed:\n%s" % proc.stderr[-3000:])
    copied = sorted(os.path.join(copy, d) for d in os.listdir(copy))
    if not any(os.path.basename(d) == "vm-sync" for d in copied):
        vmtest.fail("the sink.ctf.fs copy has no vm-sync trace: %s" % copied)
    formulas = copied_formulas(os.path.join(copy, "vm-sync"))
    if [(f[0], f[1]) for f in formulas] != [(e[0], e[2]["machine"]) for e in events]:
        vmtest.fail("the copy's vm:sync events differ from the output's")
    check_formulas(out, formulas)
    proc = run_pretty(cc.direct_args(copied, "", sink="sink.text.pretty",
                                     sink_params=cc.PRETTY_SECONDS), "correlate on the copy")
    again = sync_events(proc.stdout)
    if [(e[0], e[2]["machine"]) for e in again] != [(e[0], e[2]["machine"]) for e in events]:
        vmtest.fail("correlate on the copy: %d vm:sync events, the first run had %d"
                    % (len(again), len(events)))
    print("copy: the vm-sync trace is written and read back, %d events passed through"
          % len(again))


def main():
    if vmtest.under_valgrind():
        vmtest.skip("a 8 s workload: the plain run checks it")
    out = truthdata.generate("sync-events", ARGS)
    traces = list(truthdata.ctf_traces(out).values())
    stdout, stderr = run(traces, "", "piecewise")
    events = sync_events(stdout)
    check_events(out, events, segment_counts(stderr))
    stdout, stderr = run(traces, 'sync-model="linear"', "linear")
    if sync_events(stdout) or set(segment_counts(stderr).values()) != {1}:
        vmtest.fail('sync-model="linear": vm:sync events or several segments')
    print('sync-model="linear": one segment per machine, no vm:sync event')
    check_copy(out, traces, events)


main()
