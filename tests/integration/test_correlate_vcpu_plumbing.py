"""filter.vm.correlate's side of sync="vcpu" that needs no alignment.

- Parameter `sync` accepts `vcpu`; a bad value is refused with every
  accepted value listed.
- Every output trace's environment tells its `vm_sync_method`: `vmsync`
  (two-guests), `tcp` (tcp-exchange), `none` (sync="none"), `transforms`
  (a machine given one), `reference` (the time base); a copy read back
  through correlate keeps them as written.
- The sync pass collects the host's guest-mode intervals: the DEBUG lines
  give, per host process, the intervals between a kvm_entry and the next
  kvm_exit of a CPU run by one of its threads, as the stub itself tells
  them (pairing recomputed here from the stub's lines), and the guests'
  events on a CPU. With the state dump at the end of the host trace, the
  intervals still count under the process, not under each thread.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402
import stubfile  # noqa: E402

SYNC_VALUES = ["`auto`", "`vmsync`", "`tcp`", "`vcpu`", "`none`"]


def debug_correlate(args):
    """`args` with correlate at the DEBUG log level (the option follows it)."""
    args = list(args)
    at = next(i for i, a in enumerate(args) if a.endswith("filter.vm.correlate"))
    at += 2 if at + 1 < len(args) and args[at + 1].startswith("--params=") else 1
    return args[:at] + ["--log-level=D"] + args[at:]


def traces_of(name):
    return list(vmtest.scenario(name).values())


def check_sync_values():
    traces = traces_of("two-guests")
    cc.run(cc.direct_args(traces, 'sync="vcpu"'), "two-guests, sync=vcpu")
    proc = vmtest.babeltrace2(cc.direct_args(traces, 'sync="vcpus"'), check=False)
    if proc.returncode == 0:
        vmtest.fail("sync=\"vcpus\" was accepted")
    for value in SYNC_VALUES + ["`sync`"]:
        if value not in proc.stderr:
            vmtest.fail("the error for sync=\"vcpus\" does not name %s:\n%s"
                        % (value, proc.stderr[-3000:]))


def methods(scenario, params):
    out = cc.run(cc.direct_args(traces_of(scenario), params),
                 "%s, %s" % (scenario, params)).stdout
    env = cc.env_entries(out)
    blocks = out.split("Environment (")[1:]

    if not env or not blocks or any("vm_sync_method" not in e for e in env.values()):
        vmtest.fail("%s, %s: machines without vm_sync_method: %r" % (scenario, params, env))
    for block in blocks:
        entries = block.split("\n")[1:int(block.split(" ", 1)[0]) + 1]
        if not any(e.strip().startswith("vm_sync_method: ") for e in entries):
            vmtest.fail("%s, %s: an output trace without vm_sync_method:\n%s"
                        % (scenario, params, "\n".join(entries)))

    return {name: e["vm_sync_method"] for name, e in env.items()}


def expect_methods(scenario, params, expected):
    got = methods(scenario, params)
    if got != expected:
        vmtest.fail("%s, %s: vm_sync_method %r, expected %r"
                    % (scenario, params, got, expected))


def check_methods():
    expect_methods("two-guests", "", {"host": "reference", "guest1": "vmsync",
                                      "guest2": "vmsync"})
    expect_methods("tcp-exchange", "", {"client": "reference", "server": "tcp"})
    expect_methods("two-guests", 'sync="none"', {"host": "reference", "guest1": "none",
                                                 "guest2": "none"})
    expect_methods("two-guests", "transforms={guest1={offset-ns=5}}",
                   {"host": "reference", "guest1": "transforms", "guest2": "vmsync"})
    expect_methods("two-guests", "transforms={guest1={offset-ns=5},guest2={slope=1.0}}",
                   {"host": "reference", "guest1": "transforms", "guest2": "transforms"})
    expect_methods("two-guests", 'reference="guest2"',
                   {"host": "vmsync", "guest1": "vmsync", "guest2": "reference"})


def check_copy_keeps_methods():
    """A copy read back keeps vm_sync_method as it was written."""
    import shutil
    out = os.path.join(vmtest.WORK_DIR, "vcpu-plumbing", "copy")
    shutil.rmtree(out, ignore_errors=True)
    traces = traces_of("two-guests")
    vmtest.babeltrace2(cc.direct_args(traces, sink="sink.ctf.fs",
                                      sink_params='path="%s"' % out))
    copies = sorted(os.path.join(root) for root, _, files in os.walk(out)
                    if "metadata" in files)
    if len(copies) != 3:
        vmtest.fail("the copy of two-guests has traces %r" % copies)
    env = cc.env_entries(cc.run(cc.direct_args(copies), "copy of two-guests").stdout)
    got = {name: e.get("vm_sync_method") for name, e in env.items()}
    want = {"host": "reference", "guest1": "vmsync", "guest2": "vmsync"}
    if got != want:
        vmtest.fail("copy of two-guests read back: vm_sync_method %r, want %r" % (got, want))


def stub_intervals(host):
    """{pid: (threads, intervals, vcpus)} of the host stub, paired here."""
    pid_of = {}
    current = {}
    open_entry = {}
    runs = {}
    for event in host.ordered_events():
        if event.name == "lttng_statedump_process_state":
            pid_of[event.fields["tid"]] = event.fields["pid"]
        elif event.name == "sched_switch":
            open_entry.pop(event.cpu, None)
            current[event.cpu] = event.fields["next_tid"]
        elif event.name in ("kvm_entry", "kvm_x86_entry"):
            open_entry[event.cpu] = event.fields["vcpu_id"]
        elif event.name in ("kvm_exit", "kvm_x86_exit") and event.cpu in open_entry:
            runs.setdefault(current[event.cpu], []).append(open_entry.pop(event.cpu))
    result = {}
    for tid, vcpus in runs.items():
        pid = pid_of.get(tid, tid)
        threads, count, seen = result.get(pid, (0, 0, set()))
        result[pid] = (threads + 1, count + len(vcpus), seen | set(vcpus))
    return result


def logged_intervals(stderr):
    found = {}
    for match in re.finditer(r"vCPU collection: host process (-?\d+): (\d+) threads, "
                             r"(\d+) guest-mode intervals, vCPUs ([0-9,]*)\.", stderr):
        vcpus = {int(v) for v in match.group(4).split(",") if v}
        found[int(match.group(1))] = (int(match.group(2)), int(match.group(3)), vcpus)
    return found


def logged_guest_events(stderr):
    return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(
        r"vCPU collection: machine `([^`]+)`: (\d+) events on a CPU, (\d+) without",
        stderr)}


def without_vmsync(source, target, statedump_last=False):
    """The stub `source` without vmsync lines (state dump moved last if asked)."""
    lines = open(source, encoding="utf-8").read().splitlines()
    kept = [line for line in lines if " vmsync_" not in line]
    if statedump_last:
        dump = [line for line in kept if " lttng_statedump_" in line]
        kept = [line for line in kept if " lttng_statedump_" not in line]
        last = max(int(line.split()[0]) for line in kept if line[:1].isdigit())
        for i, line in enumerate(dump):
            fields = line.split(" ", 1)
            kept.append("%d %s" % (last + 1000 * (i + 1), fields[1]))
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as out:
        out.write("\n".join(kept) + "\n")
    return target


def check_collection(statedump_last):
    folder = os.path.join(vmtest.STUB_DIR, "two-guests")
    work = os.path.join(vmtest.WORK_DIR, "vcpu-plumbing",
                        "late-dump" if statedump_last else "plain")
    stubs = {}
    traces = []
    for name in ("host", "guest1", "guest2"):
        path = without_vmsync(os.path.join(folder, name + ".stub"),
                              os.path.join(work, name + ".stub"),
                              statedump_last and name == "host")
        stubs[name] = stubfile.parse(path)
        traces.append(vmtest.stub_to_ctf(path, os.path.join(work, name + "-ctf")))
    what = "two-guests without vmsync%s" % (", state dump last" if statedump_last else "")
    for form in (cc.direct_args, cc.convert_args):
        proc = cc.run(debug_correlate(form(traces, 'sync="vcpu"')), what)
        expected = stub_intervals(stubs["host"])
        if sorted(expected) != [1000, 2000]:
            vmtest.fail("%s: the stub's QEMU processes are %r" % (what, sorted(expected)))
        got = logged_intervals(proc.stderr)
        if got != expected:
            vmtest.fail("%s: collected per host process %r, the stub has %r"
                        % (what, got, expected))
        guests = logged_guest_events(proc.stderr)
        for name in ("guest1", "guest2"):
            want = (len(stubs[name].events), 0)
            if guests.get(name) != want:
                vmtest.fail("%s: guest %s collected %r, the stub has %r events "
                            "(all on a CPU)" % (what, name, guests.get(name), want[0]))


def check_no_collection_without_vcpu():
    traces = traces_of("two-guests")
    proc = cc.run(debug_correlate(cc.direct_args(traces, 'sync="tcp"')),
                  "two-guests, sync=tcp")
    if "vCPU collection" in proc.stderr:
        vmtest.fail("sync=\"tcp\" collected vCPU data")


def main():
    check_sync_values()
    check_methods()
    check_copy_keeps_methods()
    check_collection(False)
    check_collection(True)
    check_no_collection_without_vcpu()
    print("ok")


if __name__ == "__main__":
    main()
