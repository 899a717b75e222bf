#!/usr/bin/python3
"""The containers of Trace Compass's container stubs, through lib/containers.

Each stub's events are replayed (tests/unit/containers-replay) up to a time,
then every thread is asked for its container. QemuContainer's expected
values are those of the incubator's FusedVmAnalysisTest (EXPECTED.json,
"Hosts/guest/Containers/<ns_inum>/Threads/<tid>": <vtid> at t = 300); the
test is skipped without ../shared. Containers' (withContainers.xml) are what
its own statedump and fork events state (the incubator's expectations for it
were not transcribed): lines cited below.
"""

import json
import os
import subprocess

import vmtest
import stubfile

REPLAY = os.path.join(vmtest.BUILD_DIR, "tests", "unit", "containers-replay")
STUBS = os.path.join(vmtest.SOURCE_DIR, "stub-traces")
EXPECTED_JSON = os.path.join(vmtest.SOURCE_DIR, "..", "shared", "tc-stubs", "EXPECTED.json")
ROOT_INUM = 4026531836


def replay(stub_path, until, tids):
    """{tid: (name, ns_inum, vtid) or None} after the events up to `until`."""
    lines = []
    for event in stub_path.ordered_events():
        if event.ts > until:
            break
        words = ["EVENT", str(event.ts), str(event.cpu), event.name]
        for field, value in event.fields.items():
            if isinstance(value, tuple):
                value = ",".join(str(v) for v in value)
            value = str(value)
            if not value or any(c.isspace() for c in value):
                continue
            words.append("%s=%s" % (field, value))
        lines.append(" ".join(words))
    lines += ["ASK %d" % tid for tid in tids]
    out = subprocess.run([REPLAY], input="\n".join(lines) + "\n", stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    answers = {}
    for line in out.splitlines():
        parts = line.split()
        answers[int(parts[0])] = None if parts[1] == "-" else (
            parts[1], int(parts[2]), int(parts[3]))
    return answers


def check(where, got, expected):
    for tid, want in sorted(expected.items()):
        if got.get(tid) != want:
            vmtest.fail("%s: thread %d is in %r, expected %r" % (where, tid, got.get(tid), want))


def qemu_container():
    if not os.path.exists(EXPECTED_JSON):
        return False
    with open(EXPECTED_JSON, encoding="utf-8") as f:
        case = json.load(f)["incubator.FusedVmAnalysisTest.QEMU_CONTAINER"]
    expected = {}
    for key, value in case["punctual_at_300"].items():
        parts = key.split("/")
        if parts[:3] != ["Hosts", "guest", "Containers"] or len(parts) != 6:
            continue
        inum, tid = int(parts[3]), int(parts[5])
        if inum != ROOT_INUM:
            # No process of the trace is vpid 1 there: the inode names it.
            expected[tid] = (str(inum), inum, value)
        else:
            expected.setdefault(tid, None)
    if len(expected) != 3 or sum(v is not None for v in expected.values()) != 2:
        vmtest.fail("EXPECTED.json: unexpected QEMU_CONTAINER case %r" % expected)
    guest = stubfile.parse(os.path.join(STUBS, "qemu-container", "guest.stub"))
    check("qemu-container at 300", replay(guest, 300, expected), expected)
    # Before the statedump (t = 160) nothing is known.
    check("qemu-container at 150", replay(guest, 150, expected), {t: None for t in expected})
    return True


def containers():
    host = stubfile.parse(os.path.join(STUBS, "containers", "host.stub"))
    expected = {
        # statedump at 4/6: tid 40, vpid 1 of level 1 (654321), comm init
        40: ("init", 654321, 1),
        # statedump at 10/11: tid 41 is vtid 2 in 654321
        41: ("init", 654321, 2),
        # statedump at 13..15: tid 42, vpid 1 of level 2 (987654)
        42: ("init", 987654, 1),
        # forks at 25 and 30: vtids [43,4,2] and [44,5,3]
        43: ("init", 987654, 2),
        44: ("init", 987654, 3),
        # never dumped nor forked: the machine's own namespace as far as known
        31: None,
        30: None,
    }
    check("containers at 35", replay(host, 35, expected), expected)
    # At 20, the forks have not happened yet.
    check("containers at 20", replay(host, 20, [43, 44]), {43: None, 44: None})


def main():
    containers()
    if not qemu_container():
        vmtest.skip("../shared/tc-stubs/EXPECTED.json is not there (containers/ checked)")


if __name__ == "__main__":
    main()
