"""sink.vm.threads on the OneQemuKvm stubs (Trace Compass's test case):
thread states, vCPU modes, exit statistics, every format, bad parameters,
and a guest alone (no host)."""

import os

import btlog
import vmtest
import threads_common as tc

# t (ns after the clock offset) of Trace Compass's expected results.
EXPECTED_THREADS = {
    131: [("running", 10, 35, "0", ""), ("runnable", 35, 75, "", ""),
          ("running", 75, 95, "0", ""), ("hypervisor", 95, 100, "0", "32"),
          ("preempted", 100, 150, "0", ""), ("hypervisor", 150, 155, "0", "32"),
          ("running", 155, 175, "0", ""), ("runnable", 175, 225, "", ""),
          ("running", 225, 245, "0", ""), ("hypervisor", 245, 260, "0", "32"),
          ("running", 260, 275, "0", ""), ("runnable", 275, 375, "", "")],
    130: [("runnable", 10, 35, "", ""), ("running", 35, 45, "0", ""),
          ("hypervisor", 45, 60, "0", "32"), ("running", 60, 75, "0", ""),
          ("runnable", 75, 175, "", ""), ("running", 175, 195, "0", ""),
          ("hypervisor", 195, 210, "0", "32"), ("running", 210, 225, "0", ""),
          ("runnable", 225, 275, "", ""), ("running", 275, 295, "0", ""),
          ("hypervisor", 295, 300, "0", "32"), ("preempted", 300, 350, "0", ""),
          ("hypervisor", 350, 355, "0", "32"), ("running", 355, 375, "0", "")],
}

# The guest's own view: what it believes without the host.
EXPECTED_OWN_VIEW = {
    131: [("running", 10, 35), ("runnable", 35, 75), ("running", 75, 175),
          ("runnable", 175, 225), ("running", 225, 275), ("runnable", 275, 375)],
    130: [("runnable", 10, 35), ("running", 35, 75), ("runnable", 75, 175),
          ("running", 175, 225), ("runnable", 225, 275), ("running", 275, 375)],
}

EXPECTED_VCPU_MODES = [
    ("hypervisor", 1, 5, ""), ("guest", 5, 45, ""), ("hypervisor", 45, 60, "32"),
    ("guest", 60, 95, ""), ("hypervisor", 95, 100, "32"), ("preempted", 100, 150, ""),
    ("hypervisor", 150, 155, "32"), ("guest", 155, 195, ""),
    ("hypervisor", 195, 210, "32"), ("guest", 210, 245, ""),
    ("hypervisor", 245, 260, "32"), ("guest", 260, 295, ""),
    ("hypervisor", 295, 300, "32"), ("preempted", 300, 350, ""),
    ("hypervisor", 350, 355, "32"), ("guest", 355, 375, ""),
]


def scenario_files(name):
    folder = os.path.join(vmtest.STUB_DIR, name)
    if not os.path.isdir(folder):
        vmtest.skip("stub scenario %s is not there yet" % folder)
    ctf = vmtest.scenario(name)
    host_stub = os.path.join(folder, "host.stub")
    guest_stub = os.path.join(folder, "guest.stub")
    return ctf["host"], ctf["guest"], tc.stub_header(host_stub), tc.stub_header(guest_stub)


# The expected results hold through filter.vm.correlate with
# sync="none" (the stubs' clocks are aligned by construction) as well as
# behind the stock muxer alone.
CORRELATE_NO_SYNC = ["-c", "filter.vm.correlate", "-p", 'sync="none"']


def run_sink(traces, params, with_state=True, check=True, before=()):
    args = list(traces) + list(before)
    if with_state:
        args += ["-c", "filter.vm.state"]
    args += ["-c", "sink.vm.threads"]
    if params:
        args += ["-p", params]
    return vmtest.babeltrace2(args, check=check)


def relative(rows, offset, fields):
    return [tuple(int(r[f]) - offset if f.endswith("_ns") else r[f] for f in fields)
            for r in rows]


def check_threads(name, rows, guest_name, offset):
    for row in rows:
        if row["machine"] != guest_name:
            tc.vmtest.fail("%s: a row of machine %r, not of the guest %r: %s" % (
                name, row["machine"], guest_name, row))
    for tid, expected in EXPECTED_THREADS.items():
        got = sorted(relative([r for r in rows if r["tid"] == str(tid)], offset,
                              ["state", "begin_ns", "end_ns", "vcpu", "reason"]),
                     key=lambda r: r[1])
        if got != expected:
            vmtest.fail("%s: thread %d is\n  %s\nnot\n  %s" % (name, tid, got, expected))
    tids = sorted({r["tid"] for r in rows})
    if tids != ["130", "131"]:
        vmtest.fail("%s: threads %s reported, expecting only 130 and 131" % (name, tids))
    comms = {(r["tid"], r["comm"]) for r in rows}
    if comms != {("130", "any"), ("131", "any2")}:
        vmtest.fail("%s: thread names %s" % (name, sorted(comms)))


def check_vcpus(name, rows, guest_name, offset):
    got = sorted(relative(rows, offset, ["mode", "begin_ns", "end_ns", "reason"]),
                 key=lambda r: r[1])
    if got != EXPECTED_VCPU_MODES:
        vmtest.fail("%s: vCPU modes are\n  %s\nnot\n  %s" % (name, got, EXPECTED_VCPU_MODES))
    for row in rows:
        if (row["machine"], row["vcpu"]) != (guest_name, "0"):
            vmtest.fail("%s: vCPU row of another vCPU: %s" % (name, row))
        if row["mode"] == "preempted" and row["pcpu"] != "":
            vmtest.fail("%s: a preempted vCPU on a host CPU: %s" % (name, row))


def check_exits(name, rows, guest_name):
    expected = [{"machine": guest_name, "vcpu": "0", "reason": "32", "name": "MSR_WRITE",
                 "count": "5", "total_ns": "165", "min_ns": "15", "max_ns": "60",
                 "mean_ns": "33"}]
    if rows != expected:
        vmtest.fail("%s: exits are %s, not %s" % (name, rows, expected))


def check_scenario(name):
    host, guest, (_, host_offset), (guest_name, offset) = scenario_files(name)
    if host_offset != offset:
        vmtest.fail("%s: the stubs' clocks are not aligned" % name)
    for form, before in (("muxer", ()), ("correlate sync=none", CORRELATE_NO_SYNC)):
        label = "%s (%s)" % (name, form)
        out = run_sink([host, guest], 'format="csv"', before=before)
        # Without correlate, its absence is warned about (the stubs' clocks
        # are aligned: the results are right all the same).
        if (btlog.warnings_but_unsynchronized if not before else
                tc.warnings_of)(out.stderr):
            vmtest.fail("%s: unexpected warnings:\n%s" % (label, out.stderr))
        check_threads(label, tc.parse_csv(out.stdout, "threads"), guest_name, offset)
        vcpus = run_sink([host, guest], 'format="csv",what="vcpus"', before=before).stdout
        check_vcpus(label, tc.parse_csv(vcpus, "vcpus"), guest_name, offset)
        exits = run_sink([host, guest], 'format="csv",what="exits"', before=before).stdout
        check_exits(label, tc.parse_csv(exits, "exits"), guest_name)
    return host, guest, guest_name, offset


def row_key(row):
    """A row's identity, the same whether it comes from CSV or JSON."""
    return tuple("" if row[k] is None else str(row[k]) for k in sorted(row))


def check_every_format(host, guest):
    for what in ("threads", "vcpus", "exits"):
        csv_rows = tc.parse_csv(run_sink([host, guest], 'format="csv",what="%s"' % what)
                                .stdout, what)
        json_rows = tc.parse_json_lines(
            run_sink([host, guest], 'format="json",what="%s"' % what).stdout, what)
        if len(json_rows) != len(csv_rows) or not csv_rows:
            vmtest.fail("what=%s: %d json rows, %d csv rows" % (
                what, len(json_rows), len(csv_rows)))
        if sorted(map(row_key, csv_rows)) != sorted(map(row_key, json_rows)):
            vmtest.fail("what=%s: json and csv rows differ:\n%s\n%s" % (
                what, json_rows, csv_rows))
        events = tc.check_chrome(
            run_sink([host, guest], 'format="chrome",what="%s"' % what).stdout)
        if what != "exits" and not [e for e in events if e["ph"] == "X"]:
            vmtest.fail("what=%s: chrome output without a single interval" % what)
        # The text table of `what` alone: test_sink_texts.py checks each.
        text = run_sink([host, guest], 'what="%s"' % what).stdout
        if what == "threads" and ("130" not in text or "131" not in text):
            vmtest.fail("what=%s: the text summary does not show threads 130 and "
                        "131:\n%s" % (what, text))


def check_output_file(host, guest):
    path = os.path.join(vmtest.WORK_DIR, "threads-out.csv")
    if os.path.exists(path):
        os.remove(path)
    out = run_sink([host, guest], 'format="csv",path="%s"' % path)
    if out.stdout:
        vmtest.fail("path= given, yet output on stdout:\n" + out.stdout)
    with open(path) as f:
        rows = tc.parse_csv(f.read(), "threads")
    if len(rows) != sum(len(v) for v in EXPECTED_THREADS.values()):
        vmtest.fail("the output file has %d rows" % len(rows))


BAD_PARAMETERS = [
    ('format="xml"', ["`format`", '"text"', '"csv"', '"json"', '"chrome"']),
    ('what="cpus"', ["`what`", '"threads"', '"vcpus"', '"exits"', '"steal"']),
    ('format=3', ["`format`", "string"]),
    ('colour="red"', ["`colour`", "`format`", "`path`", "`what`"]),
    ('path=""', ["`path`"]),
    ('path="/nonexistent-dir/out.csv"', ["`path`", "/nonexistent-dir/out.csv"]),
]


def check_bad_parameters(guest):
    for params, words in BAD_PARAMETERS:
        proc = run_sink([guest], params, with_state=False, check=False)
        if proc.returncode == 0:
            vmtest.fail("%s was accepted" % params)
        for word in words:
            if word not in proc.stderr:
                vmtest.fail("error for %s does not say %s:\n%s" % (params, word,
                                                                    proc.stderr))


def check_guest_alone(guest, guest_name, offset):
    out = run_sink([guest], 'format="csv"', with_state=False)
    warnings = tc.warnings_of(out.stderr)
    if len(warnings) != 1 or "no host" not in warnings[0]:
        vmtest.fail("a guest alone must give exactly one 'no host' warning:\n" +
                    out.stderr)
    rows = tc.parse_csv(out.stdout, "threads")
    for tid, expected in EXPECTED_OWN_VIEW.items():
        got = sorted(relative([r for r in rows if r["tid"] == str(tid)], offset,
                              ["state", "begin_ns", "end_ns"]), key=lambda r: r[1])
        if got != expected:
            vmtest.fail("own view of thread %d is\n  %s\nnot\n  %s" % (tid, got, expected))
    if any(r["vcpu"] or r["reason"] or r["machine"] != guest_name for r in rows):
        vmtest.fail("own view rows with a vCPU or reason:\n" + out.stdout)


def check_duplicate_hostnames(guest_stub):
    """Two machines with one hostname (other clock UUID): `guest`, `guest#2`."""
    with open(guest_stub) as f:
        lines = [l for l in f if not l.startswith(("clock-uuid", "hostname"))]
    twin_stub = os.path.join(vmtest.WORK_DIR, "twin", "guest.stub")
    os.makedirs(os.path.dirname(twin_stub), exist_ok=True)
    with open(twin_stub, "w") as f:
        f.write("hostname guest\nclock-uuid 0badcafe-0000-4000-8000-000000000002\n")
        f.writelines(lines)
    twin = vmtest.stub_to_ctf(twin_stub, os.path.join(vmtest.WORK_DIR, "twin", "ctf"))
    guest = vmtest.scenario("one-qemu-kvm")["guest"]
    out = run_sink([guest, twin], 'format="csv"', with_state=False)
    rows = tc.parse_csv(out.stdout, "threads")
    machines = sorted({r["machine"] for r in rows})
    if machines != ["guest", "guest#2"]:
        vmtest.fail("two machines named guest are reported as %s" % machines)
    for machine in machines:
        if len([r for r in rows if r["machine"] == machine]) != 12:
            vmtest.fail("machine %s has not its 12 own-view intervals:\n%s" % (
                machine, out.stdout))


def check_with_correlate(host, guest, guest_name):
    """Behind filter.vm.correlate (guest clock synchronized on the vmsync
    events, machines named by its vm_machine), in both graph forms."""
    convert = vmtest.babeltrace2([host, guest, "-c", "filter.vm.correlate", "-c",
                                  "filter.vm.state", "-c", "sink.vm.threads", "-p",
                                  'format="csv"'])
    run = vmtest.babeltrace2([
        "run", "-c", "h:source.ctf.fs", "-p", 'inputs=["%s"]' % host,
        "-c", "g:source.ctf.fs", "-p", 'inputs=["%s"]' % guest,
        "-c", "c:filter.vm.correlate", "-c", "s:filter.vm.state",
        "-c", "t:sink.vm.threads", "-p", 'format="csv"',
        "--connect", "h:c", "--connect", "g:c", "--connect", "c:s", "--connect", "s:t"])
    if convert.stdout != run.stdout:
        vmtest.fail("convert and run forms differ:\n%s\n---\n%s" % (convert.stdout,
                                                                     run.stdout))
    for proc in (convert, run):
        if tc.warnings_of(proc.stderr):
            vmtest.fail("warnings behind filter.vm.correlate:\n" + proc.stderr)
    rows = tc.parse_csv(convert.stdout, "threads")
    tc.check_threads_tile(rows)
    if {(r["machine"], r["tid"]) for r in rows} != {(guest_name, "130"),
                                                     (guest_name, "131")}:
        vmtest.fail("behind correlate, threads %s" % sorted(
            {(r["machine"], r["tid"]) for r in rows}))
    states = {r["state"] for r in rows}
    if states != {"running", "hypervisor", "preempted", "runnable"}:
        vmtest.fail("behind correlate, states %s" % sorted(states))


def check_svm_exit_names(guest):
    """isa=2 in the host's kvm_exit events: names from SVM_EXIT_REASONS."""
    with open(os.path.join(vmtest.STUB_DIR, "one-qemu-kvm", "host.stub")) as f:
        text = f.read()
    if text.count("isa=1") != 5:
        vmtest.fail("the one-qemu-kvm host stub no longer has its five VMX exits")
    svm_stub = os.path.join(vmtest.WORK_DIR, "svm", "host.stub")
    os.makedirs(os.path.dirname(svm_stub), exist_ok=True)
    with open(svm_stub, "w") as f:
        f.write(text.replace("isa=1", "isa=2"))
    host = vmtest.stub_to_ctf(svm_stub, os.path.join(vmtest.WORK_DIR, "svm", "ctf"))
    rows = tc.parse_csv(run_sink([host, guest], 'format="csv",what="exits"').stdout,
                        "exits")
    if [(r["reason"], r["name"], r["count"]) for r in rows] != [("32", "read_dr0", "5")]:
        vmtest.fail("SVM exits are %s" % rows)


def main():
    tc.require_component("filter.vm.state")
    host, guest, guest_name, offset = check_scenario("one-qemu-kvm")
    check_scenario("one-qemu-kvm-x86")
    check_every_format(host, guest)
    check_with_correlate(host, guest, guest_name)
    check_svm_exit_names(guest)
    check_output_file(host, guest)
    check_bad_parameters(guest)
    check_guest_alone(guest, guest_name, offset)
    check_duplicate_hostnames(os.path.join(vmtest.STUB_DIR, "one-qemu-kvm", "guest.stub"))
    print("sink.vm.threads: OneQemuKvm states, formats and parameters as expected")


main()
