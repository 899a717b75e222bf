"""filter.vm.correlate on the stub scenarios of stub-traces/.

- Both graph forms (one input per source port; babeltrace2's muxer first)
  print byte-identical sink.text.details output, in time order.
- drifting-guest (vmsync; guest 4 ms off and 50 ppm fast): the guest's
  events land within a vmsync round trip of their true host time; the
  host is detected and is the default reference.
- tcp-exchange (TCP; server 2.5 ms off): synchronized by TCP; with
  sync="vmsync" there is no pair, a warning, quality `absent`.
- The INFO log gives one line per machine and the parameters that skip
  the sync pass; passed back, they give the same times, to the
  nanosecond, in one pass.
- sync="none" leaves every clock as is (the stock alignment).
"""

import decimal
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402

decimal.getcontext().prec = 50


def traces_of(name):
    return list(vmtest.scenario(name).values())


def check_forms_identical(name, params=""):
    traces = traces_of(name)
    direct = cc.run(cc.direct_args(traces, params), name + ", direct form").stdout
    convert = cc.run(cc.convert_args(traces, params), name + ", convert form").stdout
    if direct != convert:
        a = direct.splitlines()
        b = convert.splitlines()
        for number, (x, y) in enumerate(zip(a, b), 1):
            if x != y:
                vmtest.fail("%s: the graph forms differ at line %d:\n  direct:  %s\n"
                            "  convert: %s" % (name, number, x, y))
        vmtest.fail("%s: the graph forms differ in length (%d, %d lines)"
                    % (name, len(a), len(b)))
    return direct


def guest_event_times(details, machine_trace_index):
    """Converted times of the events of one output trace, in order."""
    times = []
    current_time = None
    for line in details.splitlines():
        found = cc.times(line)
        if found:
            current_time = found[0][1]
        elif line.startswith("{Trace %d," % machine_trace_index):
            times.append(current_time)
    return times


def check_drifting_guest():
    out = check_forms_identical("drifting-guest")
    env = cc.env_entries(out)
    host, guest = env.get("host"), env.get("guest")
    if not host or not guest:
        vmtest.fail("drifting-guest: machines %r" % list(env))
    if host["vm_role"] != "host" or guest["vm_role"] != "guest":
        vmtest.fail("drifting-guest: roles host=%s guest=%s"
                    % (host["vm_role"], guest["vm_role"]))
    if host["vm_sync_slope"] != "1" or host["vm_sync_offset_ns"] != "0":
        vmtest.fail("drifting-guest: the host is not the reference: %r" % host)
    if guest["vm_sync_quality"] not in ("accurate", "approximate") or \
            int(guest["vm_sync_matches"]) != 24:
        vmtest.fail("drifting-guest: guest sync %r" % guest)

    # True map (stub header): t_host = (t_guest - O - 4 ms) / 1.00005 + O.
    slope = float(guest["vm_sync_slope"])
    if abs(slope - 1 / 1.00005) > 2e-6:
        vmtest.fail("drifting-guest: slope %r, true drift 1/1.00005" % slope)
    origin = 1600000000 * 10**9
    plain = vmtest.babeltrace2([vmtest.scenario("drifting-guest")["guest"],
                                "--component=sink.text.details",
                                "--params=" + cc.DETAILS_COMPACT], wrap=False).stdout
    raw = [t for _, t in cc.times(plain)]
    # The reported formula, exactly, against the stub's true map.
    exact_slope = decimal.Decimal(guest["vm_sync_slope"])
    exact_offset = decimal.Decimal(guest["vm_sync_offset_ns"])
    worst = max(abs(exact_slope * t + exact_offset -
                    (decimal.Decimal(t - origin - 4000000) / decimal.Decimal("1.00005")
                     + origin)) for t in raw)
    # A vmsync round trip of the stub is 5 us: the hull bounds the error by it.
    if worst > 5000:
        vmtest.fail("drifting-guest: a guest time is %.0f ns from the truth" % worst)
    print("drifting-guest: slope %s, worst guest error %.0f ns" % (slope, worst))


def check_tcp_exchange(scenario="tcp-exchange"):
    out = check_forms_identical(scenario)
    env = cc.env_entries(out)
    server, client = env.get("server"), env.get("client")
    if not server or not client:
        vmtest.fail("%s: machines %r" % (scenario, list(env)))
    # No host: roles unknown, reference = smallest name (client).
    if client["vm_sync_slope"] != "1" or server["vm_role"] != "unknown":
        vmtest.fail("%s: reference/roles %r %r" % (scenario, client, server))
    if int(server["vm_sync_matches"]) != 11:
        vmtest.fail("%s: %s matches, the stub has 11 segments"
                    % (scenario, server["vm_sync_matches"]))
    shift = float(server["vm_sync_offset_ns"]) + \
        (float(server["vm_sync_slope"]) - 1) * 1.6e18
    if abs(shift + 2500000) > 45000:
        vmtest.fail("%s: server shifted by %.0f ns, truth -2500000" % (scenario, shift))

    proc = cc.run(cc.direct_args(traces_of(scenario), 'sync="vmsync"'),
                  scenario + ", sync=vmsync")
    env = cc.env_entries(proc.stdout)
    if env["server"]["vm_sync_quality"] != "absent" or \
            "no synchronization pair" not in proc.stderr:
        vmtest.fail("%s, sync=vmsync: expected a warning and quality "
                    "absent:\n%s" % (scenario, proc.stderr))
    print("%s: 11 TCP matches, server shifted by %.0f ns" % (scenario, shift))


def check_old_lttng_packets():
    """Packets ending after the next one begins (lttng-modules 2.1)."""
    traces = traces_of("old-lttng-packets")
    stock = vmtest.babeltrace2(traces, check=False, wrap=False)
    if stock.returncode == 0:
        vmtest.fail("old-lttng-packets: the stock muxer accepted the overlap; "
                    "the scenario no longer reproduces the quirk")
    plain_events = sum(len(cc.event_names(vmtest.babeltrace2(
        ["run", "--component=s:src.ctf.fs", "--params=inputs=[\"%s\"]" % t,
         "--component=d:sink.text.details", "--params=" + cc.DETAILS_COMPACT,
         "--connect=s:d"], wrap=False).stdout)) for t in traces)
    proc = cc.run(cc.direct_args(traces, sink_params=cc.DETAILS_COMPACT),
                  "old-lttng-packets")
    if len(cc.event_names(proc.stdout)) != plain_events:
        vmtest.fail("old-lttng-packets: %d events out of %d"
                    % (len(cc.event_names(proc.stdout)), plain_events))
    for machine in ("host", "guest"):
        if proc.stderr.count("Machine `%s` has packets that end after" % machine) != 1:
            vmtest.fail("old-lttng-packets: expected one warning for %s:\n%s"
                        % (machine, proc.stderr))
    print("old-lttng-packets: %d events in order, one warning per machine" % plain_events)


def check_summary_and_transforms():
    traces = traces_of("two-guests")
    proc = cc.run(["--log-level=INFO"] + cc.direct_args(traces), "two-guests, INFO")
    lines = cc.summary_lines(proc.stderr)
    if sorted(lines) != ["guest1", "guest2", "host"]:
        vmtest.fail("two-guests: summary lines for %r:\n%s" % (sorted(lines), proc.stderr))
    for machine, line in lines.items():
        # The reference (the host) is the time base: it takes no formula.
        last = "; the time base" if machine == "host" else \
            "transforms={%s={slope=\"" % machine
        for word in ("role ", "sync ", "quality ", "matches", "t_ref = ", last):
            if word not in line:
                vmtest.fail("two-guests: summary of %s lacks %r: %s" % (machine, word, line))
    params = cc.suggested_params(proc.stderr)
    if not params or "reference=\"host\"" not in params:
        vmtest.fail("two-guests: no suggested parameters:\n" + proc.stderr)

    again = cc.run(["--log-level=INFO"] + cc.direct_args(traces, params),
                   "two-guests, transforms")
    if "sync transforms" not in again.stderr:
        vmtest.fail("two-guests: the suggested transforms were not used:\n" + again.stderr)
    first = [t for _, t in cc.times(proc.stdout)]
    second = [t for _, t in cc.times(again.stdout)]
    # Every digit is printed: the same formula, so the same nanoseconds.
    if first != second:
        vmtest.fail("two-guests: times with the suggested transforms differ")
    print("two-guests: summary lines and suggested transforms: %s" % params)


def check_sync_none():
    traces = traces_of("drifting-guest")
    none = cc.run(cc.direct_args(traces, 'sync="none"', sink_params=cc.DETAILS_COMPACT),
                  "drifting-guest, sync=none").stdout
    stock = vmtest.babeltrace2(traces + ["--component=sink.text.details",
                                         "--params=" + cc.DETAILS_COMPACT],
                               wrap=False).stdout
    ours = sorted(t for _, t in cc.times(none))
    theirs = sorted(t for _, t in cc.times(stock))
    if ours != theirs:
        vmtest.fail("drifting-guest, sync=none: times differ from the stock alignment")
    print("sync=none: the stock alignment")


for scenario in ("one-qemu-kvm", "two-guests", "two-vcpus"):
    check_forms_identical(scenario)
    print("%s: both graph forms identical" % scenario)
check_drifting_guest()
check_tcp_exchange()
check_tcp_exchange("tcp-net-dev")
check_old_lttng_packets()
check_summary_and_transforms()
check_sync_none()
