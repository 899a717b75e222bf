"""filter.vm.correlate on bad input: it stops with an error that says what
is accepted, or it warns and goes on, never crashing nor losing messages.

- unknown and mistyped parameters fail at component initialization with
  an error naming the parameter and the accepted values;
- a machine name that matches no machine (reference, host, transforms)
  fails once the machines are known, listing the machines;
- a guest without any sync pair: a warning, its own clock, quality absent;
- a trace with no clock class: a warning, its messages pass through;
- packets that overlap (end after the next packet's beginning, as
  lttng-modules 2.1 wrote them; the stock muxer aborts): a warning, every
  event comes out, in order;
- round trip: correlate + sink.ctf.fs writes a synchronized trace set that
  plain babeltrace2 reads back with the same events at the same times.
"""

import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402
import ctfwrite  # noqa: E402


def expect_error(traces, params, words, what):
    proc = vmtest.babeltrace2(cc.direct_args(traces, params), check=False)
    if proc.returncode == 0:
        vmtest.fail("%s: %s was accepted" % (what, params))
    if "Traceback" in proc.stderr or proc.returncode < 0 or proc.returncode > 2:
        vmtest.fail("%s: babeltrace2 crashed (%d):\n%s" % (what, proc.returncode, proc.stderr))
    flat = " ".join(proc.stderr.split())
    for word in words:
        if word not in flat:
            vmtest.fail("%s: the error for %s does not say %r:\n%s"
                        % (what, params, word, proc.stderr[-3000:]))


def check_parameters(traces):
    cases = [
        ("foo=1", ["Unknown parameter `foo`", "`sync`", "`transforms`"]),
        ("sync=3", ["`sync`", "`auto`", "`vmsync`", "`tcp`", "`none`"]),
        ('sync="ntp"', ["`sync`", "`auto`", "`none`"]),
        ("reference=5", ["`reference`", "string"]),
        ("host=true", ["`host`", "string"]),
        ("transforms=3", ["`transforms`", "map"]),
        ('transforms={guest="x"}', ["`transforms`", "`guest`", "map"]),
        ('transforms={guest={slope="x"}}', ["`slope`", "`guest`", "positive real"]),
        ("transforms={guest={slope=-1.0}}", ["`slope`", "positive real"]),
        ("transforms={guest={offset-ns=1.5}}", ["`offset-ns`", "integer"]),
        ("transforms={guest={drift=1}}", ["unknown key `drift`", "`slope`", "`offset-ns`"]),
    ]
    for params, words in cases:
        expect_error(traces, params, words, "parameters")
    for params, param in (('reference="nope"', "reference"), ('host="nope"', "host"),
                          ("transforms={nope={slope=1.0}}", "transforms")):
        expect_error(traces, params, ["Unknown machine `nope`", "`%s`" % param,
                                      "`guest`", "`host`"], "machine names")
    # Integers are accepted for the slope, unsigned ones for the offset.
    proc = cc.run(cc.direct_args(traces, "transforms={guest={slope=1,offset-ns=+5}}"),
                  "integer transforms")
    env = cc.env_entries(proc.stdout)
    if env["guest"]["vm_sync_offset_ns"] != "5" or env["guest"]["vm_sync_slope"] != "1":
        vmtest.fail("integer transforms not applied: %r" % env["guest"])
    print("parameters: every bad value is refused with what is accepted")


def check_guest_without_pair(host_dir):
    stray = vmtest.scenario("tcp-exchange")["client"]
    proc = cc.run(cc.direct_args([host_dir, stray]), "guest without pair")
    env = cc.env_entries(proc.stdout)
    client = env.get("client", {})
    if client.get("vm_sync_quality") != "absent" or client.get("vm_sync_slope") != "1" \
            or client.get("vm_role") != "guest":
        vmtest.fail("guest without pair: env %r" % client)
    if proc.stderr.count("`client` has no synchronization pair") != 1:
        vmtest.fail("guest without pair: expected one warning:\n" + proc.stderr)
    print("guest without sync pair: one warning, own clock")


def count_events(text):
    return len(cc.event_names(text))


def check_no_clock(host_dir, work):
    noclock = ctfwrite.write_trace(os.path.join(work, "noclock"), "noclock",
                                   [(0, 0, [0] * 5), (0, 0, [0] * 3)])
    proc = cc.run(cc.direct_args([host_dir, noclock]), "no clock class")
    names = cc.event_names(proc.stdout)
    if names.count("tick") != 8:
        vmtest.fail("no clock class: %d of 8 events out" % names.count("tick"))
    if "has no clock class" not in proc.stderr:
        vmtest.fail("no clock class: no warning:\n" + proc.stderr)
    print("trace without clock class: warned, its 8 events pass")


def check_overlap(host_dir, work):
    overlap = ctfwrite.write_trace(
        os.path.join(work, "overlap"), "overlap",
        [(1000, 5200, [1000, 2000, 3000, 4000]),
         (4000, 9000, [4100, 6000, 8000]),
         (8500, 12000, [9000, 11000])],
        uuid="5a0e8d4c-2b8e-4d43-9a41-1f7c8e0b7d2e")
    stock = vmtest.babeltrace2([overlap], check=False, wrap=False)
    if stock.returncode == 0:
        vmtest.fail("overlap: the stock muxer accepted overlapping packets; "
                    "the test trace no longer reproduces the quirk")
    for form, args in (("direct", cc.direct_args([host_dir, overlap])),
                       ("alone", cc.direct_args([overlap]))):
        proc = cc.run(args, "overlap, " + form)
        if cc.event_names(proc.stdout).count("tick") != 9:
            vmtest.fail("overlap, %s: events lost" % form)
        if proc.stderr.count("packets that end after the next packet") != 1:
            vmtest.fail("overlap, %s: expected one warning:\n%s" % (form, proc.stderr))
    print("overlapping packets: warned once, 9 events in order")


def check_round_trip(work):
    traces = list(vmtest.scenario("drifting-guest").values())
    out = os.path.join(work, "synced")
    vmtest.babeltrace2(cc.direct_args(traces, sink="sink.ctf.fs",
                                      sink_params='path="%s",quiet=true' % out))
    # pretty_events() checks the order of these.
    direct = vmtest.babeltrace2(cc.direct_args(traces, sink="sink.text.pretty",
                                               sink_params=cc.PRETTY_SECONDS))
    back = vmtest.babeltrace2([out, "--component=sink.text.pretty",
                               "--params=" + cc.PRETTY_SECONDS])
    live = sorted(cc.pretty_events(direct.stdout, "live"))
    stored = sorted(cc.pretty_events(back.stdout, "read back"))
    if live != stored:
        vmtest.fail("round trip: %d events live, %d read back, or times differ"
                    % (len(live), len(stored)))
    print("round trip through sink.ctf.fs: %d events, same times" % len(live))


def main():
    scenario = vmtest.scenario("drifting-guest")
    traces = [scenario["host"], scenario["guest"]]
    work = tempfile.mkdtemp(prefix="correlate-bad-")
    try:
        check_parameters(traces)
        check_guest_without_pair(scenario["host"])
        check_no_clock(scenario["host"], work)
        check_overlap(scenario["host"], work)
        check_round_trip(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
