"""sync="vcpu" never gives a confident wrong answer.

- A guest whose trace comes from another host (its own workload's host is
  left out): the default graph warns that no vCPU thread fits, the guest
  stays on its own clock (vm_sync_quality `absent`, method `none`), and no
  vm_host_pid is written.
- Too little guest activity (the bundled two-guests stub without its
  vmsync events: a few dozen events): the same, with a warning that says
  it is too little and what to trace.
- The same with sync="vcpu" given explicitly: its warning speaks of vCPU
  alignment only.
(Two processes that fit equally well are covered by the unit test
vcpu-align, whose simulated vCPUs can be made identical.)
"""

import os
import shutil

import vmtest
import truthdata
import correlate_check as cc
import threads_common as tc

NO_SYNC = ["--vmsync-period-ms", 0, "--tcp-period-ms", 0]


def run(traces, params, out):
    shutil.rmtree(out, ignore_errors=True)
    args = list(traces) + ["-c", "filter.vm.correlate"]
    if params:
        args += ["-p", params]
    args += ["-l", "I", "-c", "sink.ctf.fs", "-p", "path=%s,quiet=true" % truthdata.quote(out)]
    return vmtest.babeltrace2(args)


def env_of(out, machine):
    with open(os.path.join(out, machine, "metadata")) as f:
        return f.read()


def check_refused(label, proc, out, machine, reason):
    warnings = [w for w in tc.warnings_of(proc.stderr) if "`%s`" % machine in w]
    if len(warnings) != 1 or reason not in warnings[0] or "transforms=" not in warnings[0]:
        vmtest.fail("%s: expected one warning about %s saying %r, got:\n%s" % (
            label, machine, reason, "\n".join(tc.warnings_of(proc.stderr))))
    summary = cc.summary_lines(proc.stderr).get(machine, "")
    if "sync none, quality absent" not in summary:
        vmtest.fail("%s: %s is not left unsynchronized: %s" % (label, machine, summary))
    env = env_of(out, machine)
    if 'vm_sync_method = "none"' not in env or "vm_host_pid" in env:
        vmtest.fail("%s: %s's copy claims a method or a QEMU:\n%s" % (label, machine, env))
    return warnings[0]


def foreign_guest(work):
    mine = truthdata.generate("vcpu-refusal-host", ["--seed", 41, "--guests", 1,
                                                    "--duration-ms", 200] + NO_SYNC)
    other = truthdata.generate("vcpu-refusal-other", ["--seed", 42, "--guests", 1,
                                                      "--duration-ms", 200,
                                                      "--guest-offset-ns", 7000000000] + NO_SYNC)
    host = truthdata.ctf_traces(mine)["host"]
    guest = truthdata.ctf_traces(other)["guest1"]
    out = os.path.join(work, "foreign")
    proc = run([host, guest], None, out)
    check_refused("guest of another host", proc, out, "guest1", "no vCPU thread of host")
    print("a guest of another host stays on its own clock, with a warning")


def sparse_guest(work):
    stubs = os.path.join(work, "stubs")
    os.makedirs(stubs, exist_ok=True)
    traces = []
    for name in ("host", "guest1", "guest2"):
        src = os.path.join(vmtest.STUB_DIR, "two-guests", name + ".stub")
        dst = os.path.join(stubs, name + ".stub")
        with open(src) as f, open(dst, "w") as g:
            g.writelines(line for line in f if "vmsync" not in line)
        traces.append(vmtest.stub_to_ctf(dst, os.path.join(stubs, name)))
    out = os.path.join(work, "sparse")
    proc = run(traces, None, out)
    warning = check_refused("too little activity", proc, out, "guest1", "too little guest activity")
    if "no vmsync or TCP message matched" not in warning:
        vmtest.fail("sync=\"auto\": the warning does not name every method tried:\n" + warning)
    proc = run(traces, 'sync="vcpu"', os.path.join(work, "sparse-vcpu"))
    warning = check_refused('sync="vcpu"', proc, os.path.join(work, "sparse-vcpu"), "guest2",
                            "too little guest activity")
    if "message matched" in warning:
        vmtest.fail('sync="vcpu": the warning speaks of other methods:\n' + warning)
    print("too little guest activity: not synchronized, with a warning")


def main():
    work = os.path.join(vmtest.WORK_DIR, "sync-vcpu-refusals")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    foreign_guest(work)
    sparse_guest(work)


if __name__ == "__main__":
    main()
