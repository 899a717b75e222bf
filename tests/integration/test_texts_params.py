"""Texts a user reads and parameters that were accepted silently:
- correlate's "no synchronization pair" warning names only the messages
  that `sync` lets match;
- the text output titles its threads "Guest threads" only with a host, and
  with `what` prints the table of `what` alone;
- filter.vm.state refuses `vm-pids` naming the host, and process ids out of
  Linux's range."""

import vmtest
import threads_common as tc

# Trace Compass's OneQemuKvm: guest `guest`, vCPU 0, five MSR_WRITE exits.
EXPECTED_EXITS = [("guest", "0", "32", "MSR_WRITE", "5")]


def no_sync_warning(traces, sync):
    proc = vmtest.babeltrace2(list(traces) + [
        "-c", "filter.vm.correlate", "-p", 'sync="%s"' % sync, "-c", "sink.utils.dummy"])
    found = [w for w in tc.warnings_of(proc.stderr) if "no synchronization pair" in w]
    if len(found) != 1:
        vmtest.fail('sync="%s": want one "no synchronization pair" warning:\n%s' % (
            sync, proc.stderr))
    return found[0]


def check_sync_warnings():
    kvm = vmtest.scenario("one-qemu-kvm")          # vmsync events only
    tcp = vmtest.scenario("tcp-exchange")          # TCP events only
    warning = no_sync_warning([tcp["client"], tcp["server"]], "vmsync")
    if "no vmsync message matched" not in warning or "vmsync or TCP" in warning:
        vmtest.fail('sync="vmsync" warns of other messages than vmsync:\n' + warning)
    warning = no_sync_warning([kvm["host"], kvm["guest"]], "tcp")
    if "no TCP message matched" not in warning or "vmsync or TCP" in warning:
        vmtest.fail('sync="tcp" warns of other messages than TCP:\n' + warning)
    # The guest alone with a host that has no sync event: both methods tried.
    warning = no_sync_warning([kvm["host"], tcp["client"]], "auto")
    if "no vmsync or TCP message matched" not in warning:
        vmtest.fail('sync="auto" does not name both methods:\n' + warning)


def sink_text(traces, params=None, with_state=True):
    args = list(traces)
    if with_state:
        args += ["-c", "filter.vm.state"]
    args += ["-c", "sink.vm.threads"]
    if params:
        args += ["-p", params]
    return vmtest.babeltrace2(args).stdout


def titles(text):
    """The table titles: the lines that start a table (not indented)."""
    return [line.split(":")[0].split(" (")[0] for line in text.splitlines()
            if line and not line.startswith(" ")]


def text_rows(text):
    return [line.split() for line in text.splitlines()
            if line.startswith("  ") and not line.strip().startswith(("machine", "-"))]


def check_text_tables():
    kvm = vmtest.scenario("one-qemu-kvm")
    both = [kvm["host"], kvm["guest"]]
    summary = sink_text(both)
    # The vCPU is preempted on the host: the summary names who took the time.
    if titles(summary) != ["Guest threads", "vCPUs", "Top exit reasons by total time",
                           "Steal by culprit"]:
        vmtest.fail("the text summary has the tables %s" % titles(summary))
    own_view = sink_text([kvm["guest"]], with_state=False)
    if titles(own_view)[0] != "Threads" or "Guest" in own_view:
        vmtest.fail("without a host, the threads are titled as guest threads:\n" +
                    own_view)
    if titles(sink_text([kvm["guest"]], 'what="threads"', with_state=False)) != [
            "Threads"]:
        vmtest.fail("without a host, what=threads is not titled Threads")

    threads = sink_text(both, 'what="threads"')
    if titles(threads) != ["Guest threads"]:
        vmtest.fail("text, what=threads: tables %s" % titles(threads))
    if sorted((r[0], r[1]) for r in text_rows(threads)) != [("guest", "130"),
                                                             ("guest", "131")]:
        vmtest.fail("text, what=threads: rows\n" + threads)
    vcpus = sink_text(both, 'what="vcpus"')
    if titles(vcpus) != ["vCPUs"] or [r[:2] for r in text_rows(vcpus)] != [
            ["guest", "0"]]:
        vmtest.fail("text, what=vcpus: not the vCPU table alone:\n" + vcpus)
    exits = sink_text(both, 'what="exits"')
    if titles(exits) != ["Top exit reasons by total time"]:
        vmtest.fail("text, what=exits: tables %s\n%s" % (titles(exits), exits))
    if [tuple(r[:5]) for r in text_rows(exits)] != EXPECTED_EXITS:
        vmtest.fail("text, what=exits: rows\n%s\nnot %s" % (exits, EXPECTED_EXITS))
    steal = sink_text(both, 'what="steal"')
    if titles(steal) != ["Steal by culprit"]:
        vmtest.fail("text, what=steal: tables %s\n%s" % (titles(steal), steal))


def state_error(traces, params):
    proc = vmtest.babeltrace2(list(traces) + [
        "-c", "filter.vm.state", "-p", params, "-c", "sink.utils.dummy"], check=False)
    # 1: babeltrace2's error; valgrind's errors exit with 99, crashes < 0.
    if proc.returncode != 1:
        vmtest.fail("filter.vm.state with %s: exit status %d, not 1 (an error):\n%s"
                    % (params, proc.returncode, proc.stderr[-5000:]))
    return proc.stderr


def check_vm_pids():
    kvm = vmtest.scenario("one-qemu-kvm")
    both = [kvm["host"], kvm["guest"]]
    stderr = state_error(both, "vm-pids={host=31}")
    for word in ("`vm-pids`", "`host`", "is the host"):
        if word not in stderr:
            vmtest.fail("vm-pids={host=31}: the error does not say %s:\n%s" % (
                word, stderr))
    # Also when the host only turns out to be one after its first events.
    two = vmtest.scenario("two-guests")
    stderr = state_error([two["guest1"], two["host"], two["guest2"]],
                         "vm-pids={guest1=10,host=20}")
    if "`host` is the host" not in stderr:
        vmtest.fail("vm-pids naming the host among guests: error\n" + stderr)
    for pid in ("99999999999", "+99999999999", "4194304", "0", "-1"):
        stderr = state_error(both, "vm-pids={guest=%s}" % pid)
        for word in ("`vm-pids`", "1 to 4194303", "initialization"):
            if word not in stderr:
                vmtest.fail("vm-pids={guest=%s}: the error does not say %s:\n%s" % (
                    pid, word, stderr))
    for pid in ("1", "4194303", "+4194303"):
        vmtest.babeltrace2(both + ["-c", "filter.vm.state", "-p",
                                   "vm-pids={guest=%s}" % pid, "-c", "sink.utils.dummy"])


def main():
    tc.require_component("filter.vm.state")
    check_sync_warnings()
    check_text_tables()
    check_vm_pids()
    print("texts and parameters as expected")


main()
