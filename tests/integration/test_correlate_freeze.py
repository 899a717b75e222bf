#!/usr/bin/python3
"""Correlate's whole output, frozen where it is known to be right.

filter.vm.correlate is being rebuilt part by part; its output must not change
while that happens (or each change must be a fix, said in its commit). This
test runs correlate alone into sink.text.details (every message, every time
in cycles and nanoseconds, every field and environment entry) on inputs whose
output other tests check against the truth or against Trace Compass:

- the bundled stub scenarios (test_stubs.py, test_sync*.py check them);
- the real two-machine TCP pair in ../shared (Trace Compass's figures,
  test_sync_real.py), when ../shared is there;
- small generated workloads, one per synchronization method and model
  (test_layout_sweep.py and the sync truth tests check the same shapes),

in both graph forms, and compares a SHA-256 of each output with
tests/integration/correlate-freeze.txt.

When a change of output is a fix, run this script with --update, check the
difference of correlate-freeze.txt, and say in the commit why each changed
line is right. Not under valgrind (nothing here is about memory; the same
graphs run there in the other tests).
"""

import hashlib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthdata  # noqa: E402
import vmtest  # noqa: E402

DIGESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "correlate-freeze.txt")

STOCK = ["--vmsync-period-ms", 0, "--tcp-period-ms", 0]
SMALL = ["--duration-ms", 40, "--threads", 4]
# name: (generator arguments, correlate parameters)
WORKLOADS = {
    "vmsync-2g": (["--guests", 2, "--vcpus", 2, "--host-cpus", 2] + SMALL, {}),
    "tcp-1g": (["--guests", 1, "--vcpus", 2, "--host-cpus", 2, "--vmsync-period-ms", 0]
               + SMALL, {}),
    "vcpu-2g": (["--guests", 2, "--vcpus", 2, "--host-cpus", 3,
                 "--guest-offset-ns", 48000000] + STOCK + SMALL, {}),
    "vcpu-2g-linear": (["--guests", 2, "--vcpus", 2, "--host-cpus", 3,
                        "--guest-offset-ns", 48000000] + STOCK + SMALL,
                       {"sync-model": "linear"}),
    "vmsync-loss-classic": (["--guests", 2, "--vcpus", 1, "--host-cpus", 2,
                             "--kvm-layout", "classic", "--loss-rate", 20,
                             "--loss-ms", "0.1:1"] + SMALL, {}),
}


def digest(args):
    proc = vmtest.babeltrace2(args, check=False, stdout=None)
    if proc.returncode != 0 and STOCK_MUXER_REFUSES in proc.stderr:
        # The convert form's stock muxer refuses packets that overlap in
        # time (old LTTng): a fact of the input, kept as such.
        return "stock-muxer-refuses"
    if proc.returncode != 0:
        vmtest.fail("babeltrace2 %s failed (%d):\n%s" % (" ".join(args), proc.returncode,
                                                        proc.stderr[-3000:]))
    text = proc.stdout
    # Where the traces are on this machine is not correlate's output.
    for path in sorted(set(INPUT_DIRS), key=len, reverse=True):
        text = text.replace(path, "<input>")
    # Nor are the UUIDs the stub converter draws for each trace.
    text = UUID.sub("<uuid>", text)
    return hashlib.sha256(text.encode()).hexdigest()


INPUT_DIRS = []
UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
STOCK_MUXER_REFUSES = "Youngest upstream message iterator wrapper's timestamp is less than"


def cases():
    """(name, traces {machine: dir}, correlate params)."""
    found = []
    for name in sorted(os.listdir(vmtest.STUB_DIR)):
        if os.path.isdir(os.path.join(vmtest.STUB_DIR, name)):
            found.append(("stub/" + name, vmtest.scenario(name), {}))
    pair = vmtest.shared_path("traces", "tc-synctraces")
    if pair and os.path.isdir(pair):
        traces = {e: os.path.join(pair, e) for e in sorted(os.listdir(pair))
                  if os.path.isdir(os.path.join(pair, e))}
        found.append(("real/tc-synctraces", traces, {}))
    for name, (args, params) in WORKLOADS.items():
        out = truthdata.generate("freeze-" + name, args)
        found.append(("workload/" + name, truthdata.ctf_traces(out), params))
    return found


def outputs():
    """{"NAME FORM": sha256} of every case."""
    result = {}
    for name, traces, params in cases():
        # src.ctf.fs names streams by the normalized path of their files.
        for path in traces.values():
            INPUT_DIRS.extend((path, os.path.abspath(path), os.path.realpath(path)))
        filters = [("filter.vm.correlate", params)]
        result[name + " run"] = digest(truthdata.run_form(traces, filters, "sink.text.details"))
        result[name + " convert"] = digest(truthdata.convert_form(traces, filters,
                                                                  "sink.text.details"))
    return result


def read_frozen():
    frozen = {}
    with open(DIGESTS) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, form, value = line.split()
                frozen[name + " " + form] = value
    return frozen


def main():
    vmtest.skip_under_valgrind("a digest of outputs the other tests run under valgrind")
    got = outputs()
    if "--update" in sys.argv[1:]:
        with open(DIGESTS, "w") as f:
            f.write("# SHA-256 of filter.vm.correlate's sink.text.details output, "
                    "test_correlate_freeze.py\n")
            for key in sorted(got):
                f.write("%s %s\n" % (key, got[key]))
        print("wrote %d digests to %s" % (len(got), DIGESTS))
        return
    frozen = read_frozen()
    if not any(k.startswith("real/") for k in got):
        frozen = {k: v for k, v in frozen.items() if not k.startswith("real/")}
        print("../shared absent: the real TCP pair is not compared")
    changed = sorted(k for k in got if frozen.get(k) != got[k])
    missing = sorted(k for k in frozen if k not in got)
    if changed or missing:
        vmtest.fail("correlate's output changed for: %s%s\n(if each change is a fix, run "
                    "this script with --update and say why in the commit)"
                    % (", ".join(changed), "; cases gone: " + ", ".join(missing)
                       if missing else ""))
    print("correlate's output unchanged on %d cases" % len(got))


if __name__ == "__main__":
    main()
