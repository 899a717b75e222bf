#!/usr/bin/python3
"""One method precedence in both models (SPEC: vmsync, then the vCPU method,
then TCP), even when the reference is a guest.

With reference="guest1", guest2 has no vmsync pair with the reference; it
has one with the host, which has one with guest1, and it has TCP with
guest1 directly. The vmsync path is the better one (a hypercall's few us
against a network's latency) and the one `sync-model="linear"` takes; read
once, the default model took direct TCP instead (73-487 ns off against
2-6 ns). Both models must now give guest2 `vm_sync_method` vmsync, and the
same times within a few ns.
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthdata  # noqa: E402
import vmtest  # noqa: E402

PRETTY = re.compile(r"^\[(\d+)\.(\d{9})\] \(\S+\) guest2 ")


def guest2_times(text):
    return [int(m.group(1)) * 10**9 + int(m.group(2))
            for m in map(PRETTY.match, text.splitlines()) if m]


def main():
    out = truthdata.generate("correlate-precedence", ["--guests", 2, "--duration-ms", 60])
    traces = truthdata.ctf_traces(out)
    times = {}
    for model in ("piecewise", "linear"):
        params = {"reference": "guest1", "sync-model": model}
        proc = vmtest.babeltrace2(["--log-level=I"] + truthdata.run_form(
            traces, [("filter.vm.correlate", params)], "sink.text.pretty",
            {"clock-seconds": ("yes",)}))
        line = next((l for l in proc.stderr.splitlines() if "Machine `guest2`: role" in l), "")
        if "sync vmsync" not in line:
            vmtest.fail("%s model, reference guest1: guest2 is not synchronized by vmsync "
                        "through the host:\n%s" % (model, line or proc.stderr[-3000:]))
        times[model] = guest2_times(proc.stdout)
    a, b = times["piecewise"], times["linear"]
    if not a or len(a) != len(b):
        vmtest.fail("guest2's events: %d and %d" % (len(a), len(b)))
    worst = max(abs(x - y) for x, y in zip(a, b))
    if worst > 20:
        vmtest.fail("the two models put guest2's events up to %d ns apart" % worst)
    print("reference guest1: guest2 by vmsync through the host in both models "
          "(%d events, at most %d ns apart)" % (len(a), worst))


if __name__ == "__main__":
    main()
