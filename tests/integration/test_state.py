"""filter.vm.state through the babeltrace2 CLI, as users run it.

- The ported Trace Compass OneQemuKvm scenario (kvm_entry/kvm_exit, and the
  kvm_x86_* spelling) gives the vCPU modes of SPEC's rules, in time order
  among the passed-through events, and every input event is passed through.
- The generated scenarios two-guests, two-vcpus and halted-vcpu give the
  modes their stub comments describe (preemption, halts, host CPUs).
- The output written with sink.ctf.fs reads back with the same events.
- Bad parameters fail at initialization with an error naming the parameter
  (or as soon as the machines are known, for machine names); odd traces
  give one warning per kind and machine and the analysis goes on; guests
  whose host has no KVM events get a warning that points to
  doc/tracing.md.
- Seeking the filter's iterator to the beginning gives the same messages.
"""

import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import btlog  # noqa: E402
import vmtest  # noqa: E402

# Stub timestamps are clock cycles after this offset (1 GHz clock).
OFFSET_NS = 1600000000 * 10**9

# vCPU 0 of `guest` on OneQemuKvm: (mode, begin, end, exit_reason).
ONE_QEMU_KVM_VCPU0 = [
    ("hypervisor", 1, 5, -1),
    ("guest", 5, 45, -1),
    ("hypervisor", 45, 60, 32),
    ("guest", 60, 95, -1),
    ("hypervisor", 95, 100, 32),
    ("preempted", 100, 150, 32),
    ("hypervisor", 150, 155, 32),
    ("guest", 155, 195, -1),
    ("hypervisor", 195, 210, 32),
    ("guest", 210, 245, -1),
    ("hypervisor", 245, 260, 32),
    ("guest", 260, 295, -1),
    ("hypervisor", 295, 300, 32),
    ("preempted", 300, 350, 32),
    ("hypervisor", 350, 355, 32),
    ("guest", 355, 375, -1),
]

LINE_RE = re.compile(r"^\[(\d+)\.(\d{9})\] \([^)]*\) (?:(\S+) )?(\S+): (.*)$")
FIELD_RE = re.compile(r'(\w+) = ("(?:[^"\\]|\\.)*"|-?\d+)')


def parse_pretty(text):
    """sink.text.pretty lines (--clock-seconds) -> [(ts, host, name, fields)]."""
    events = []
    for line in text.splitlines():
        match = LINE_RE.match(line)
        if not match:
            vmtest.fail("unexpected output line: " + line)
        seconds, nanoseconds, host, name, rest = match.groups()
        fields = {}
        for key, value in FIELD_RE.findall(rest):
            fields[key] = value[1:-1] if value.startswith('"') else int(value)
        ts = int(seconds) * 10**9 + int(nanoseconds) - OFFSET_NS
        events.append((ts, host, name, fields))
    return events


def run_pretty(traces, params=None, check=True):
    args = list(traces) + ["--clock-seconds", "-c", "filter.vm.state"]
    if params:
        args += ["-p", params]
    return vmtest.babeltrace2(args, check=check)


def vcpu_intervals(events, vm, vcpu):
    """Intervals (mode, begin, end, reason) of one vCPU, unknown left out."""
    changes = [(ts, f) for ts, _, name, f in events
               if name == "vm:vcpu_state" and f["vm"] == vm and f["vcpu"] == vcpu]
    end_of_input = max(ts for ts, _, _, _ in events)
    intervals = []
    for i, (ts, fields) in enumerate(changes):
        end = changes[i + 1][0] if i + 1 < len(changes) else end_of_input
        if fields["mode"] != "unknown" and end > ts:
            intervals.append((fields["mode"], ts, end, fields["exit_reason"]))
    return intervals


def check_time_order(events):
    times = [ts for ts, _, _, _ in events]
    if times != sorted(times):
        vmtest.fail("output not in time order: %r" % times)


def check_one_qemu_kvm(scenario):
    traces = vmtest.scenario(scenario)
    host, guest = traces["host"], traces["guest"]
    plain = parse_pretty(vmtest.babeltrace2([host, guest, "--clock-seconds"]).stdout)
    proc = run_pretty([host, guest])
    events = parse_pretty(proc.stdout)
    check_time_order(events)
    passed = [e for e in events if e[2] != "vm:vcpu_state"]
    if passed != plain:
        vmtest.fail("%s: the filter did not pass every event through unchanged" % scenario)
    got = vcpu_intervals(events, "guest", 0)
    if got != ONE_QEMU_KVM_VCPU0:
        vmtest.fail("%s: vCPU 0 modes\n got %r\nwant %r" % (scenario, got, ONE_QEMU_KVM_VCPU0))
    for ts, _, name, fields in events:
        if name != "vm:vcpu_state":
            continue
        if fields["host_tid"] != 31:
            vmtest.fail("%s: host_tid %r at %d" % (scenario, fields["host_tid"], ts))
        want_pcpu = -1 if fields["mode"] == "preempted" else 0
        if fields["pcpu"] != want_pcpu:
            vmtest.fail("%s: pcpu %r in mode %s at %d" % (scenario, fields["pcpu"],
                                                          fields["mode"], ts))
    if warnings_of(proc.stderr):
        vmtest.fail("%s: unexpected warnings:\n%s" % (scenario, proc.stderr))
    return events


def state_events(events, vm, vcpu):
    return [(ts, f) for ts, _, name, f in events
            if name == "vm:vcpu_state" and f["vm"] == vm and f["vcpu"] == vcpu]


def mode_at(events, vm, vcpu, ts):
    """The fields of the last state change of a vCPU at or before ts."""
    last = None
    for change_ts, fields in state_events(events, vm, vcpu):
        if change_ts <= ts:
            last = fields
    return last


def expect_mode(scenario, events, vm, vcpu, ts, mode, pcpu=None, reason=None):
    fields = mode_at(events, vm, vcpu, ts)
    if fields is None or fields["mode"] != mode or \
            (pcpu is not None and fields["pcpu"] != pcpu) or \
            (reason is not None and fields["exit_reason"] != reason):
        vmtest.fail("%s: %s vCPU %d at %d: want %s (pcpu %r, reason %r), got %r"
                    % (scenario, vm, vcpu, ts, mode, pcpu, reason, fields))


def run_scenario(name):
    traces = vmtest.scenario(name)
    proc = run_pretty(sorted(traces.values()))
    events = parse_pretty(proc.stdout)
    check_time_order(events)
    if warnings_of(proc.stderr):
        vmtest.fail("%s: unexpected warnings:\n%s" % (name, proc.stderr))
    return events


def check_generated_scenarios():
    """Facts that the comments of the generated stub scenarios state."""
    events = run_scenario("two-guests")
    # guest1's vCPU (thread 1001, host CPU 0) is preempted by bash from
    # 61000 to 80000; guest2's vCPU runs on host CPU 1.
    expect_mode("two-guests", events, "guest1", 0, 70000, "preempted", -1)
    expect_mode("two-guests", events, "guest1", 0, 80000, "hypervisor", 0)
    expect_mode("two-guests", events, "guest2", 0, 70000, "guest", 1)
    for vm in ("guest1", "guest2"):
        if any(f["host_tid"] != {"guest1": 1001, "guest2": 2001}[vm]
               for _, f in state_events(events, vm, 0)):
            vmtest.fail("two-guests: %s vCPU 0 has another host thread" % vm)

    events = run_scenario("two-vcpus")
    # vCPU 1 preempted on host CPU 1 at 30500, resumes on host CPU 0 at
    # 41000; vCPU 0 halts (exit 12, prev_state 1) at 40500, is woken at
    # 50000 and runs on host CPU 1 from 60000.
    expect_mode("two-vcpus", events, "guest", 1, 30500, "preempted", -1, 1)
    expect_mode("two-vcpus", events, "guest", 1, 41000, "hypervisor", 0, 1)
    expect_mode("two-vcpus", events, "guest", 0, 40500, "blocked", -1, 12)
    expect_mode("two-vcpus", events, "guest", 0, 55000, "blocked", -1, 12)
    expect_mode("two-vcpus", events, "guest", 0, 60000, "hypervisor", 1, 12)
    expect_mode("two-vcpus", events, "guest", 0, 60500, "guest", 1, -1)

    events = run_scenario("halted-vcpu")
    # The vCPU idles twice (HLT, thread sleeping): blocked, never preempted.
    modes = [f["mode"] for _, f in state_events(events, "guest", 0)]
    if "preempted" in modes or modes.count("blocked") != 2:
        vmtest.fail("halted-vcpu: modes %r" % modes)


def check_ctf_round_trip(expected_events):
    traces = vmtest.scenario("one-qemu-kvm")
    out = os.path.join(vmtest.WORK_DIR, "state-ctf-out")
    shutil.rmtree(out, ignore_errors=True)
    vmtest.babeltrace2([traces["host"], traces["guest"], "-c", "filter.vm.state",
                        "-c", "sink.ctf.fs", "-p", 'path="%s"' % out])
    back = parse_pretty(vmtest.babeltrace2([out, "--clock-seconds"]).stdout)
    want = sorted(e for e in expected_events if e[2] == "vm:vcpu_state")
    got = sorted((e for e in back if e[2] == "vm:vcpu_state"))
    if [(t, f) for t, _, _, f in got] != [(t, f) for t, _, _, f in want]:
        vmtest.fail("vm:vcpu_state events differ after sink.ctf.fs:\n%r\n%r" % (got, want))
    if len(back) != len(expected_events):
        vmtest.fail("sink.ctf.fs copy has %d events, want %d" % (len(back), len(expected_events)))
    # Same hostname and clock as the host: the copy's state trace is the host's.
    with open(os.path.join(out, "vm-state", "metadata")) as metadata:
        if 'hostname = "host";' not in metadata.read():
            vmtest.fail("the vm-state trace does not name the host machine")


def check_muxer_downstream(expected_events):
    """The state events share the host's clock class: a muxer after accepts them."""
    traces = vmtest.scenario("one-qemu-kvm")
    proc = vmtest.babeltrace2([
        "run",
        "-c", "host:source.ctf.fs", "-p", 'inputs=["%s"]' % traces["host"],
        "-c", "guest:source.ctf.fs", "-p", 'inputs=["%s"]' % traces["guest"],
        "-c", "mux1:filter.utils.muxer", "-c", "state:filter.vm.state",
        "-c", "mux2:filter.utils.muxer",
        "-c", "pretty:sink.text.pretty", "-p", "clock-seconds=yes",
        "--connect", "host:mux1", "--connect", "guest:mux1", "--connect", "mux1:state",
        "--connect", "state:mux2", "--connect", "mux2:pretty"])
    events = parse_pretty(proc.stdout)
    check_time_order(events)
    if sorted(events, key=repr) != sorted(expected_events, key=repr):
        vmtest.fail("a muxer after filter.vm.state changes its output")


def expect_init_error(traces, params, words):
    proc = run_pretty(traces, params, check=False)
    if proc.returncode == 0:
        vmtest.fail("params %s: accepted, want an error" % params)
    for word in words:
        if word not in proc.stderr:
            vmtest.fail("params %s: error does not mention %r:\n%s" % (params, word,
                                                                        proc.stderr))


def check_bad_parameters():
    traces = vmtest.scenario("one-qemu-kvm")
    both = [traces["host"], traces["guest"]]
    expect_init_error(both, 'model="xen"', ["`model`", "xen", "kvm"])
    expect_init_error(both, "model=3", ["`model`", "kvm"])
    expect_init_error(both, "vm-pids={nosuch=12}", ["`vm-pids`", "nosuch", "`host`",
                                                    "`guest`"])
    expect_init_error(both, 'vm-pids={guest="x"}', ["`vm-pids`", "guest"])
    expect_init_error(both, "vm-pids=[1]", ["`vm-pids`", "map"])
    expect_init_error(both, "colour=1", ["colour", "`model`", "`vm-pids`"])
    # Signed and unsigned process ids are both accepted.
    run_pretty(both, "vm-pids={guest=30}")
    run_pretty(both, "vm-pids={guest=+30}")


def write_stub(name, text):
    folder = os.path.join(vmtest.WORK_DIR, "state-stubs")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".stub")
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        with open(path, "w") as stub:
            stub.write(text)
    return vmtest.stub_to_ctf(path)


GUEST_STUB = """hostname guest
cpus 1
10 0 sched_switch prev_comm=a prev_tid=130 prev_state=0 next_comm=b next_tid=131
400 0 sched_switch prev_comm=b prev_tid=131 prev_state=0 next_comm=a next_tid=130
"""


def warnings_of(stderr):
    """Warnings but that of a missing filter.vm.correlate: these tests run
    filter.vm.state straight on stubs whose clocks are aligned."""
    return btlog.warnings_but_unsynchronized(stderr)


def check_guest_without_host():
    guest = write_stub("lonely-guest", GUEST_STUB)
    plain = parse_pretty(vmtest.babeltrace2([guest, "--clock-seconds"]).stdout)
    proc = run_pretty([guest])
    events = parse_pretty(proc.stdout)
    if events != plain:
        vmtest.fail("guest alone: events not passed through unchanged")
    warnings = warnings_of(proc.stderr)
    if len(warnings) != 1 or "No host" not in warnings[0] or "`guest`" not in warnings[0]:
        vmtest.fail("guest alone: want one no-host warning, got:\n" + proc.stderr)
    expect_tracing_pointer("guest alone", warnings)


def expect_tracing_pointer(what, warnings):
    """Each warning says where to learn how to record the KVM events."""
    for warning in warnings:
        for words in ("doc/tracing.md", "lttng list -k | grep kvm_x86"):
            if words not in warning:
                vmtest.fail("%s: the warning does not name %r:\n%s" % (what, words, warning))


# A host traced without the KVM events (lttng-modules built without them).
HOST_WITHOUT_KVM = """hostname host
cpus 1
0 0 lttng_statedump_process_state tid=31 pid=30 name=qemu
1 0 sched_switch prev_comm=any prev_tid=30 prev_state=0 next_comm=qemu next_tid=31
100 0 sched_switch prev_comm=qemu prev_tid=31 prev_state=1 next_comm=any next_tid=30
"""


def check_host_without_kvm():
    """Guests but no host vCPU event: said, with where to learn how to
    record the host, whether the host is found or given."""
    traces = [write_stub("host-without-kvm", HOST_WITHOUT_KVM),
              write_stub("guest-of-host-without-kvm", GUEST_STUB)]
    warnings = warnings_of(run_pretty(traces).stderr)
    if len(warnings) != 2 or not all("No host" in w for w in warnings):
        vmtest.fail("host without kvm events: want a no-host warning per machine, got:\n"
                    + "\n".join(warnings))
    expect_tracing_pointer("host without kvm events", warnings)
    warnings = warnings_of(run_pretty(traces, 'host="host"').stderr)
    if len(warnings) != 1 or "Host `host` ran no vCPU thread" not in warnings[0]:
        vmtest.fail("given host without kvm events: want one warning, got:\n"
                    + "\n".join(warnings))
    expect_tracing_pointer("given host without kvm events", warnings)


# kvm_exit redefined without exit_reason (an old or odd tracer).
MISSING_FIELDS_HOST = """hostname host
cpus 1
event kvm_exit vcpu_id:u32
1 0 sched_switch prev_comm=any prev_tid=30 prev_state=0 next_comm=qemu next_tid=31
5 0 kvm_entry vcpu_id=0
45 0 kvm_exit vcpu_id=0
60 0 kvm_entry vcpu_id=0
95 0 kvm_exit vcpu_id=0
100 0 sched_switch prev_comm=qemu prev_tid=31 prev_state=1 next_comm=any next_tid=30
"""


def check_missing_fields():
    host = write_stub("missing-fields-host", MISSING_FIELDS_HOST)
    guest = write_stub("missing-fields-guest", GUEST_STUB)
    proc = run_pretty([host, guest])
    events = parse_pretty(proc.stdout)
    got = vcpu_intervals(events, "guest", 0)
    want = [("hypervisor", 1, 5, -1), ("guest", 5, 45, -1), ("hypervisor", 45, 60, -1),
            ("guest", 60, 95, -1), ("hypervisor", 95, 100, -1), ("blocked", 100, 400, -1)]
    if got != want:
        vmtest.fail("missing fields: modes\n got %r\nwant %r" % (got, want))
    warnings = warnings_of(proc.stderr)
    if len(warnings) != 1 or "exit_reason" not in warnings[0] or "`host`" not in warnings[0]:
        vmtest.fail("missing fields: want one warning, got:\n" + proc.stderr)


EXITING_THREAD_HOST = """hostname host
cpus 2
0 0 lttng_statedump_process_state tid=31 pid=30 name=qemu
0 0 lttng_statedump_process_state tid=32 pid=30 name=qemu
1 0 sched_switch prev_comm=any prev_tid=30 prev_state=0 next_comm=qemu next_tid=31
2 1 sched_switch prev_comm=any prev_tid=40 prev_state=0 next_comm=qemu next_tid=32
5 0 kvm_entry vcpu_id=0
6 1 kvm_entry vcpu_id=1
45 0 kvm_exit exit_reason=12 isa=1
46 1 kvm_exit exit_reason=12 isa=1
50 0 sched_process_exit comm=qemu tid=31
51 1 sched_process_exit comm=qemu tid=32
55 0 sched_switch prev_comm=qemu prev_tid=31 prev_state=0x10 next_comm=any next_tid=30
"""


def check_thread_exit():
    host = write_stub("exiting-thread-host", EXITING_THREAD_HOST)
    guest = write_stub("exiting-thread-guest", GUEST_STUB)
    proc = run_pretty([host, guest])
    events = parse_pretty(proc.stdout)
    want = {0: [("hypervisor", 1, 5, -1), ("guest", 5, 45, -1), ("hypervisor", 45, 50, 12)],
            1: [("hypervisor", 2, 6, -1), ("guest", 6, 46, -1), ("hypervisor", 46, 51, 12)]}
    for vcpu, intervals in want.items():
        got = vcpu_intervals(events, "guest", vcpu)
        if got != intervals:
            vmtest.fail("thread exit: vCPU %d\n got %r\nwant %r" % (vcpu, got, intervals))
    unknown = [f for _, _, n, f in events if n == "vm:vcpu_state" and f["mode"] == "unknown"]
    if len(unknown) != 2:
        vmtest.fail("thread exit: want 2 unknown modes, got %r" % unknown)
    warnings = warnings_of(proc.stderr)
    if len(warnings) != 1 or "exits" not in warnings[0]:
        vmtest.fail("thread exit: want one warning, got:\n" + proc.stderr)


# Two QEMU processes (pids 100 and 200), two guests, no vmsync event: only
# parameter vm-pids tells which QEMU runs which guest.
TWO_QEMU_HOST = """hostname host
cpus 2
0 0 lttng_statedump_process_state tid=101 pid=100 name=qemu
0 0 lttng_statedump_process_state tid=201 pid=200 name=qemu
1 0 sched_switch prev_comm=any prev_tid=30 prev_state=0 next_comm=qemu next_tid=101
2 1 sched_switch prev_comm=any prev_tid=40 prev_state=0 next_comm=qemu next_tid=201
5 0 kvm_entry vcpu_id=0
6 1 kvm_entry vcpu_id=0
45 0 kvm_exit exit_reason=48 isa=1
46 1 kvm_exit exit_reason=1 isa=1
"""


def check_vm_pids():
    host = write_stub("two-qemu-host", TWO_QEMU_HOST)
    first = write_stub("two-qemu-first", GUEST_STUB.replace("hostname guest", "hostname first"))
    second = write_stub("two-qemu-second", GUEST_STUB.replace("hostname guest", "hostname second"))
    traces = [host, first, second]
    proc = run_pretty(traces)
    events = parse_pretty(proc.stdout)
    if any(name == "vm:vcpu_state" for _, _, name, _ in events):
        vmtest.fail("two QEMUs without vm-pids: a vCPU was mapped by a guess")
    warnings = warnings_of(proc.stderr)
    if len(warnings) != 1 or "vm-pids" not in warnings[0]:
        vmtest.fail("two QEMUs without vm-pids: want one warning, got:\n" + proc.stderr)
    proc = run_pretty(traces, "vm-pids={first=200,second=+100}")
    events = parse_pretty(proc.stdout)
    want = {"first": [("hypervisor", 2, 6, -1), ("guest", 6, 46, -1),
                      ("hypervisor", 46, 400, 1)],
            "second": [("hypervisor", 1, 5, -1), ("guest", 5, 45, -1),
                       ("hypervisor", 45, 400, 48)]}
    for vm, intervals in want.items():
        got = vcpu_intervals(events, vm, 0)
        if got != intervals:
            vmtest.fail("vm-pids: %s\n got %r\nwant %r" % (vm, got, intervals))
    if warnings_of(proc.stderr):
        vmtest.fail("vm-pids: unexpected warnings:\n" + proc.stderr)


def check_seek_beginning():
    """A sink that reads everything, seeks to the beginning, reads again."""
    try:
        import bt2
    except ImportError:
        print("python3-bt2 missing: seek test not run")
        return
    traces = vmtest.scenario("one-qemu-kvm")
    runs = []
    current = []

    class Collector(bt2._UserSinkComponent):
        def __init__(self, config, params, obj):
            self._port = self._add_input_port("in")

        def _user_graph_is_configured(self):
            self._it = self._create_message_iterator(self._port)

        def _user_consume(self):
            try:
                current.append(describe(next(self._it)))
                return
            except StopIteration:
                pass
            runs.append(list(current))
            current.clear()
            if len(runs) == 1:
                if not self._it.can_seek_beginning():
                    vmtest.fail("filter.vm.state cannot seek to the beginning")
                self._it.seek_beginning()
            else:
                raise bt2.Stop

    def describe(msg):
        if type(msg) is bt2._EventMessageConst:
            return (msg.default_clock_snapshot.ns_from_origin, msg.event.name,
                    str(msg.event.payload_field))
        return (type(msg).__name__,)

    state_cls = None
    for plugin in bt2.find_plugins_in_path(vmtest.PLUGIN_DIR):
        if plugin.name == "vm":
            state_cls = plugin.filter_component_classes["state"]
    if state_cls is None:
        vmtest.fail("plugin vm not found in " + vmtest.PLUGIN_DIR)
    ctf = bt2.find_plugin("ctf").source_component_classes["fs"]
    utils = bt2.find_plugin("utils").filter_component_classes["muxer"]
    graph = bt2.Graph()
    host = graph.add_component(ctf, "host", {"inputs": [traces["host"]]})
    guest = graph.add_component(ctf, "guest", {"inputs": [traces["guest"]]})
    muxer = graph.add_component(utils, "muxer")
    state = graph.add_component(state_cls, "state")
    sink = graph.add_component(Collector, "collector")
    for source in (host, guest):
        for port in source.output_ports.values():
            graph.connect_ports(port, muxer.input_ports[
                [n for n, p in muxer.input_ports.items() if not p.is_connected][0]])
    graph.connect_ports(muxer.output_ports["out"], state.input_ports["in"])
    graph.connect_ports(state.output_ports["out"], sink.input_ports["in"])
    graph.run()
    if len(runs) != 2 or runs[0] != runs[1]:
        vmtest.fail("seek beginning: second pass differs from the first")
    if not any(m[1:2] == ("vm:vcpu_state",) for m in runs[0] if len(m) > 1):
        vmtest.fail("seek beginning: no vm:vcpu_state event")


def main():
    events = check_one_qemu_kvm("one-qemu-kvm")
    check_one_qemu_kvm("one-qemu-kvm-x86")
    check_generated_scenarios()
    check_ctf_round_trip(events)
    check_muxer_downstream(events)
    check_bad_parameters()
    check_guest_without_host()
    check_host_without_kvm()
    check_missing_fields()
    check_thread_exit()
    check_vm_pids()
    # The seek test loads the plugin into this Python process: not under
    # valgrind nor with a sanitized build (its runtime is not preloaded here).
    if not os.environ.get("VM_BT_WRAPPER") and not os.environ.get("VM_BT_PRELOAD"):
        check_seek_beginning()
    print("PASS")


if __name__ == "__main__":
    main()
