#!/usr/bin/python3
"""The `transforms` that filter.vm.correlate suggests reproduce its output to
the nanosecond.

A run that synchronizes each machine with one line logs, at INFO level,
the parameters that skip the synchronization; passed back, they must give
every event the very same time: the suggestion carries every digit of the
computed formula. Checked on a generated workload (vm-workload: a host and
guests with drifting clocks, synchronized by vmsync, with
sync-model="linear": read once, the default piecewise map of such a
workload has several segments, which no `transforms` formula gives) and on
tc-synctraces (TCP, the default: read once, its 46 matches give one line;
skipped without ../shared), both in the run form (each trace straight into
correlate).
"""

import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthdata  # noqa: E402
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402


def event_times(text):
    """The time of every event message, in output order."""
    result = []
    for line in text.splitlines():
        found = cc.times(line)
        if found and "Event `" in line:
            result.append(found[0][1])
    return result


def check_fed_back(traces, what, params=""):
    """Runs with the sync pass, then with its suggestion; compares times."""
    first = cc.run(["--log-level=INFO"] + cc.direct_args(
        traces, params, sink_params=cc.DETAILS_COMPACT), what + ", synchronized")
    suggested = cc.suggested_params(first.stderr)
    if not suggested:
        vmtest.fail("%s: no suggested parameters:\n%s" % (what, first.stderr[-3000:]))
    again = cc.run(["--log-level=INFO"] + cc.direct_args(
        traces, 'sync="none",' + suggested, sink_params=cc.DETAILS_COMPACT),
        what + ", suggested transforms")
    if "sync transforms" not in again.stderr:
        vmtest.fail("%s: the suggestion was not used:\n%s" % (what, again.stderr[-3000:]))
    before = event_times(first.stdout)
    after = event_times(again.stdout)
    if not before or len(before) != len(after):
        vmtest.fail("%s: %d events, then %d" % (what, len(before), len(after)))
    moved = sum(1 for a, b in zip(before, after) if a != b)
    if moved:
        worst = max(abs(a - b) for a, b in zip(before, after))
        vmtest.fail("%s: the suggestion %s moves %d of %d events (by up to %d ns)"
                    % (what, suggested, moved, len(before), worst))
    print("%s: %d events at the same ns with %s" % (what, len(before), suggested))


def workload_traces():
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.skip("vm-workload is not built")
    out = os.path.join(vmtest.WORK_DIR, "correlate-suggestion")
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([vmtest.WORKLOAD, "--out", out, "--seed", "11", "--events", "30000"],
                   check=True, stdout=subprocess.DEVNULL)
    return [vmtest.stub_to_ctf(os.path.join(out, name),
                               os.path.join(out, name[:-5] + "-ctf"))
            for name in sorted(os.listdir(out)) if name.endswith(".stub")]


def no_suggestion_after_failure():
    """A guest left on its own clock has no formula to pass back: no line
    suggests one (it once offered the identity beside the others' results).
    Here a guest of another host's workload comes with a host and its own
    guest: its vmsync messages match nothing of this host."""
    small = ["--guests", 1, "--duration-ms", 30, "--tcp-period-ms", 0]
    ours = truthdata.ctf_traces(truthdata.generate("correlate-suggestion-ours",
                                                   ["--seed", 12] + small))
    stranger = truthdata.ctf_traces(truthdata.generate("correlate-suggestion-stranger",
                                                       ["--seed", 13] + small))
    traces = [ours["host"], ours["guest1"], stranger["guest1"]]
    proc = vmtest.babeltrace2(["--log-level=I"] + cc.direct_args(
        traces, 'sync-model="linear"', sink="sink.utils.dummy"), check=False)
    if proc.returncode != 0:
        vmtest.fail("a stranger guest: status %d:\n%s" % (proc.returncode, proc.stderr[-3000:]))
    if not re.search(r"Machine `guest1(#2)?` has no synchronization", proc.stderr):
        vmtest.fail("the stranger guest is not said unsynchronized:\n" + proc.stderr[-3000:])
    if cc.suggested_params(proc.stderr) is not None:
        vmtest.fail("a failed synchronization suggests transforms: %s"
                    % cc.suggested_params(proc.stderr))
    if re.search(r'transforms=\{guest1(#2)?=\{slope="1",offset-ns="0"\}', proc.stderr):
        vmtest.fail("the unsynchronized guest's line offers the identity:\n" + proc.stderr)
    print("failed sync: no suggestion")


def main():
    traces = workload_traces()
    check_fed_back(traces, "workload", 'sync-model="linear"')
    no_suggestion_after_failure()
    if vmtest.shared_dir() is None:
        print("../shared is not present: tc-synctraces not checked")
    elif vmtest.under_valgrind():
        print("under valgrind, tc-synctraces is left to the plain run")
    else:
        base = vmtest.shared_path("traces", "tc-synctraces")
        check_fed_back([os.path.join(base, "scp_src"), os.path.join(base, "scp_dest")],
                       "tc-synctraces")
    print("PASS")


if __name__ == "__main__":
    main()
