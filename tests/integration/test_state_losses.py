"""filter.vm.state on a host trace whose tracer lost events (SPEC "Lost
events"), written the way src.ctf.fs reports lttng-modules losses: the
vm:vcpu_state events exactly, every input message passed through once and
in time order, one warning per lossy stream naming machine, CPU and count.

The expected changes follow from the trace (state-losses/) and the SPEC:
vCPU 0 (thread 31) runs on host CPU 0, whose second packet overflowed after
its last event (a wakeup at 1300): from 1300 its mode is unknown; the kvm
events at 1600 and 1650, on a CPU whose current thread is unknown, are not
attributed; the sched_switch at 1700 names thread 31 (blocked), the one at
1800 switches it in. The start has no change before the first one known."""

import os
import re

import vmtest
import btlog

PLUGIN = os.path.join(vmtest.SOURCE_DIR, "tests", "integration", "state-losses")
T0 = 1600000000 * 10**9

# (time, mode, host_tid, pcpu, exit_reason) of (guest, vCPU 0)
EXPECTED = [
    (1010, "hypervisor", 31, 0, -1),
    (1020, "guest", 31, 0, -1),
    (1100, "hypervisor", 31, 0, 12),
    (1150, "guest", 31, 0, -1),
    (1210, "hypervisor", 31, 0, 48),
    (1250, "guest", 31, 0, -1),
    (1300, "unknown", 31, -1, -1),
    (1700, "blocked", 31, -1, -1),
    (1800, "hypervisor", 31, 0, -1),
    (1850, "guest", 31, 0, -1),
]

LINE = re.compile(r"^\[(\d+)\.(\d{9})\] \(\S+\) (\S+) (\S+): (.*)$")
STATE = re.compile(r'vm = "(\w+)", vcpu = (\d+), mode = "(\w+)", host_tid = (-?\d+), '
                   r'pcpu = (-?\d+), exit_reason = (-?\d+)')


def run(filters, sources_to, host_params=None):
    args = ["run", "-c", "h:source.vmteststatelosses.host"]
    args += ["-p", host_params] if host_params else []
    args += ["-c", "g:source.vmteststatelosses.guest"]
    for name, cls, params in filters:
        args += ["-c", "%s:%s" % (name, cls)] + (["-p", params] if params else [])
    args += ["-c", "out:sink.text.pretty", "-p", "clock-seconds=yes"]
    args += ["--connect", "h:" + sources_to, "--connect", "g:" + sources_to]
    names = [f[0] for f in filters] + ["out"]
    for a, b in zip(names, names[1:]):
        args += ["--connect", "%s:%s" % (a, b)]
    return vmtest.babeltrace2(args, plugin_paths=[vmtest.PLUGIN_DIR, PLUGIN])


def parse(proc, what):
    """(time, machine, name, rest) of every event line, in order, and the
    lines sink.text.pretty writes (on the standard error) for discarded
    events."""
    stdout = proc.stdout
    events = []
    discarded = [line for line in proc.stderr.splitlines()
                 if line.startswith("WARNING: Tracer")]
    for line in stdout.splitlines():
        m = LINE.match(line)
        if not m:
            vmtest.fail("%s: unexpected line %r" % (what, line))
        ts = int(m.group(1)) * 10**9 + int(m.group(2))
        events.append((ts, m.group(3), m.group(4), m.group(5)))
    times = [e[0] for e in events]
    if times != sorted(times):
        vmtest.fail("%s: output not in time order:\n%s" % (what, stdout))
    return events, discarded


# Without clock snapshots, the discarded message of CPU 0 comes right after
# the packet that ends at 1200 (the muxer gives it the time of the message
# before it): the gap starts there, and the kvm events at 1210 and 1250, on a
# CPU whose current thread is then unknown, are not attributed.
EXPECTED_CLOCKLESS = EXPECTED[:4] + [(1200, "unknown", 31, -1, -1)] + EXPECTED[7:]

MUXER_STATE = [("mux", "filter.utils.muxer", None),
               ("st", "filter.vm.state", "vm-pids={guest=30}")]
graphs = {
    "muxer + state": (MUXER_STATE, None, EXPECTED),
    "correlate + state": ([("cor", "filter.vm.correlate", 'sync="none"'),
                           ("st", "filter.vm.state", "vm-pids={guest=30}")], None, EXPECTED),
    "muxer + state, discarded messages without times": (
        MUXER_STATE, "clockless=true", EXPECTED_CLOCKLESS),
}
for what, (filters, host_params, expected) in graphs.items():
    plain = run([("mux", "filter.utils.muxer", None)], "mux", host_params)
    plain_events, plain_discarded = parse(plain, "muxer alone")
    if len(plain_discarded) != 2:
        vmtest.fail("the trace should have two discarded-events messages:\n" + plain.stderr)
    proc = run(filters, filters[0][0], host_params)
    events, discarded = parse(proc, what)
    passed = [e for e in events if e[2] != "vm:vcpu_state"]
    # Ties between streams may come in either order: compare as multisets.
    if sorted(passed) != sorted(plain_events) or discarded != plain_discarded:
        vmtest.fail("%s: the input messages are not passed through once each:\n%s"
                    % (what, proc.stdout))
    changes = []
    for ts, machine, name, rest in events:
        if name != "vm:vcpu_state":
            continue
        m = STATE.search(rest)
        if not m or m.group(1) != "guest" or m.group(2) != "0":
            vmtest.fail("%s: unexpected vm:vcpu_state %r" % (what, rest))
        changes.append((ts - T0, m.group(3), int(m.group(4)), int(m.group(5)),
                        int(m.group(6))))
    if changes != expected:
        vmtest.fail("%s: vm:vcpu_state events\n%s\nexpected\n%s" % (
            what, "\n".join(map(str, changes)), "\n".join(map(str, expected))))
    lost = [w for w in btlog.warnings(proc.stderr) if "lost" in w and "FLT.VM.STATE" in w]
    if (len(lost) != 2 or not any("`host`, CPU 0" in w and "lost 5 events" in w for w in lost)
            or not any("`host`, CPU 1" in w and "an unknown number of events" in w
                       for w in lost)):
        vmtest.fail("%s: expecting one loss warning per lossy stream:\n%s"
                    % (what, proc.stderr))
    print("%s: %d vm:vcpu_state events as expected" % (what, len(changes)))
