#!/usr/bin/python3
"""truthcmp on its own: identical inputs agree 100%, perturbations give the
percentages worked out by hand below, any row order gives the same figures,
and a large input is merged in one streaming pass."""

import os
import random
import shutil
import sys
import tempfile
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import truthcmp  # noqa: E402
import vmtest  # noqa: E402

THREADS_HEADER = "machine,tid,comm,state,begin_ns,end_ns,vcpu,reason\n"
VCPUS_HEADER = "machine,vcpu,mode,begin_ns,end_ns,host_tid,pcpu,reason\n"
EXITS_HEADER = "machine,vcpu,reason,name,count,total_ns,min_ns,max_ns,mean_ns\n"

# Truth: three threads, 400 + 150 + 200 = 750 ns of thread-time.
TRUTH_THREADS = """\
guest1,10,a,running,0,100,0,
guest1,10,a,runnable,100,200,,
guest1,10,a,blocked,200,400,,
guest1,11,"b,c",hypervisor,0,50,1,12
guest1,11,"b,c",running,50,150,1,
guest2,5,c,preempted,100,300,0,
"""

# The output, perturbed:
# - 10: the runnable interval starts 10 ns early (90..100 disagrees: 390 of
#   400 agree) and carries a vcpu the state does not have (irrelevant, so not
#   compared, but counted as a schema slip);
# - 11: the hypervisor interval has reason 48, not 12 (0..50 disagrees:
#   100 of 150 agree);
# - guest2/5 starts 20 ns late (100..120 has no output: 180 of 200 agree);
# - guest2/6 is not in the truth: it adds nothing to either side.
# 390 + 100 + 180 = 670 of 750 = 67/75 = 89.333...%.
OUTPUT_THREADS = """\
guest1,10,a,running,0,90,0,
guest1,10,a,runnable,90,200,0,
guest1,10,a,blocked,200,400,,
guest1,11,"b,c",hypervisor,0,50,1,48
guest1,11,"b,c",running,50,150,1,
guest2,5,c,preempted,120,300,0,
guest2,6,d,running,0,300,1,
"""
THREADS_EXPECTED = Fraction(67, 75)

# Truth: vCPU 0 for 300 ns, vCPU 1 for 100 ns.
TRUTH_VCPUS = """\
guest1,0,guest,0,100,1001,2,
guest1,0,hypervisor,100,150,1001,2,12
guest1,0,guest,150,300,1001,3,
guest1,1,blocked,0,100,1002,,
"""

# The exit lasts 10 ns longer (150..160 disagrees) with another reason and
# pCPU (neither compared: modes only); vCPU 1 is missing. 290 of 400 = 29/40.
OUTPUT_VCPUS = """\
guest1,0,guest,0,100,1001,2,
guest1,0,hypervisor,100,160,1001,1,30
guest1,0,guest,160,300,1001,3,
"""
VCPUS_EXPECTED = Fraction(29, 40)

TRUTH_EXITS = """\
guest1,0,12,HLT,10,5000,100,900,500
guest1,0,48,EPT_VIOLATION,7,700,100,100,100
guest1,1,1,EXTERNAL_INTERRUPT,3,300,100,100,100
guest1,1,30,IO_INSTRUCTION,4,4000,1000,1000,1000
guest2,0,12,HLT,1,10,10,10,10
"""

# HLT count 11 (count mismatch); EPT total off by 5 ns (within a 10 ns
# tolerance); EXTERNAL_INTERRUPT total off by 30 ns (outside it) and misnamed;
# IO_INSTRUCTION missing; guest2 vCPU 1 extra.
OUTPUT_EXITS = """\
guest1,0,12,HLT,11,5000,100,900,454
guest1,0,48,EPT_VIOLATION,7,705,100,105,100
guest1,1,1,EXTERNAL_INTR,3,330,100,130,110
guest2,0,12,HLT,1,10,10,10,10
guest2,1,12,HLT,2,20,10,10,10
"""


def write(directory, name, header, body):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(header + body)
    return path


def shuffled(body, seed):
    lines = body.splitlines(True)
    random.Random(seed).shuffle(lines)
    return "".join(lines)


def expect(what, got, wanted):
    if got != wanted:
        vmtest.fail("%s: got %r, expected %r" % (what, got, wanted))


def check_identical(d):
    truth = write(d, "t.csv", THREADS_HEADER, TRUTH_THREADS)
    result = truthcmp.compare_threads(truth, truth)
    expect("identical threads", result.fraction, Fraction(1))
    expect("identical threads, truth time", result.truth_ns, 750)
    expect("identical threads, keys", result.keys, 3)
    vtruth = write(d, "v.csv", VCPUS_HEADER, TRUTH_VCPUS)
    expect("identical vcpus", truthcmp.compare_vcpus(vtruth, vtruth).fraction, Fraction(1))
    etruth = write(d, "e.csv", EXITS_HEADER, TRUTH_EXITS)
    exits = truthcmp.compare_exits(etruth, etruth)
    expect("identical exits", (exits.ok, exits.rows, exits.truth_count), (True, 5, 25))
    print("identical inputs: 100%")


def check_threads(d, chunk=None, seed=None):
    truth_body, output_body = TRUTH_THREADS, OUTPUT_THREADS
    if seed is not None:
        truth_body, output_body = shuffled(truth_body, seed), shuffled(output_body, seed + 1)
    truth = write(d, "t.csv", THREADS_HEADER, truth_body)
    output = write(d, "o.csv", THREADS_HEADER, output_body)
    result = truthcmp.compare_threads(truth, output, chunk)
    expect("threads agreement", result.fraction, THREADS_EXPECTED)
    expect("threads matched ns", (result.matched_ns, result.truth_ns), (670, 750))
    expect("threads extra keys", result.extra_keys, [("guest2", 6)])
    expect("threads missing keys", result.missing_keys, [])
    expect("threads irrelevant fields", result.irrelevant, 1)
    expect("threads output ns", result.output_ns, 400 + 150 + 180 + 300)
    expect("threads confusion", result.confusion, {
        (("running", "0", ""), ("runnable", "", "")): 10,
        (("hypervisor", "1", "12"), ("hypervisor", "1", "48")): 50,
        (("preempted", "0", ""), None): 20,
    })
    expect("threads worst", result.worst(1)[0][0], ("guest1", 11))
    expect("threads by state", result.by_state, {
        "running": [190, 200], "runnable": [100, 100], "blocked": [200, 200],
        "hypervisor": [0, 50], "preempted": [180, 200],
    })
    return result


def check_vcpus(d):
    truth = write(d, "t.csv", VCPUS_HEADER, TRUTH_VCPUS)
    output = write(d, "o.csv", VCPUS_HEADER, OUTPUT_VCPUS)
    result = truthcmp.compare_vcpus(truth, output)
    expect("vcpus agreement", result.fraction, VCPUS_EXPECTED)
    expect("vcpus missing keys", result.missing_keys, [("guest1", 1)])
    expect("vcpus confusion", result.confusion, {
        (("guest",), ("hypervisor",)): 10,
        (("blocked",), None): 100,
    })
    expect("vcpus by mode", result.by_state, {
        "guest": [240, 250], "hypervisor": [50, 50], "blocked": [0, 100],
    })
    print("vcpus: %.4f%% agreement, as worked out by hand (29/40)" % result.percent)


def check_exits(d):
    truth = write(d, "t.csv", EXITS_HEADER, TRUTH_EXITS)
    output = write(d, "o.csv", EXITS_HEADER, OUTPUT_EXITS)
    result = truthcmp.compare_exits(truth, output, total_tolerance_ns=10)
    expect("exit count mismatches", result.count_mismatches, [(("guest1", 0, 12), 10, 11)])
    expect("exit total mismatches", result.total_mismatches, [(("guest1", 1, 1), 300, 330)])
    expect("exit name mismatches", result.name_mismatches,
           [(("guest1", 1, 1), "EXTERNAL_INTERRUPT", "EXTERNAL_INTR")])
    expect("exits only in the truth", result.missing, [("guest1", 1, 30)])
    expect("exits only in the output", result.extra, [("guest2", 1, 12)])
    expect("exit totals", (result.truth_count, result.output_count), (25, 24))
    expect("exits ok", (result.ok, result.counts_exact), (False, False))
    strict = truthcmp.compare_exits(truth, output)
    expect("exit totals without tolerance", [m[0] for m in strict.total_mismatches],
           [("guest1", 0, 48), ("guest1", 1, 1)])
    relative = truthcmp.compare_exits(truth, output, total_tolerance_rel=0.1)
    expect("exit totals within 10%", relative.total_mismatches, [])
    print("exits: count, total, name, missing and extra rows all caught")


def check_bad_input(d):
    bad = write(d, "bad.csv", "machine,tid,state\n", "guest1,1,running\n")
    good = write(d, "t.csv", THREADS_HEADER, TRUTH_THREADS)
    try:
        truthcmp.compare_threads(good, bad)
    except truthcmp.FormatError as e:
        print("wrong header refused: %s" % e)
    else:
        vmtest.fail("a file with the wrong header was compared")
    short = write(d, "short.csv", THREADS_HEADER, "guest1,10,a,running,0,100\n")
    try:
        truthcmp.compare_threads(good, short)
    except truthcmp.FormatError:
        pass
    else:
        vmtest.fail("a row with missing fields was compared")


def check_command_line(d):
    write(d, "threads.csv", THREADS_HEADER, TRUTH_THREADS)
    write(d, "vcpus.csv", VCPUS_HEADER, TRUTH_VCPUS)
    write(d, "exits.csv", EXITS_HEADER, TRUTH_EXITS)
    out = write(d, "o.csv", THREADS_HEADER, OUTPUT_THREADS)
    same = os.path.join(d, "threads.csv")
    expect("command line, identical", truthcmp.main([d, "--threads", same,
                                                      "--min-percent", "100"]), 0)
    expect("command line, 89.33% < 90%", truthcmp.main([d, "--threads", out,
                                                         "--min-percent", "90"]), 1)
    expect("command line, 89.33% >= 89%", truthcmp.main([d, "--threads", out,
                                                          "--min-percent", "89"]), 0)
    eout = write(d, "eo.csv", EXITS_HEADER, OUTPUT_EXITS)
    expect("command line, exits disagree", truthcmp.main([d, "--exits", eout]), 1)


def large(d, threads, intervals, length):
    """THREADS threads of INTERVALS alternating intervals of LENGTH ns; the
    output moves every inner boundary 1 ns later, so each boundary costs
    exactly 1 ns: agreement = 1 - (INTERVALS - 1) / (INTERVALS * LENGTH)."""
    truth = os.path.join(d, "big-truth.csv")
    output = os.path.join(d, "big-output.csv")
    states = (("running", "0", ""), ("runnable", "", ""), ("hypervisor", "1", "12"))
    with open(truth, "w") as t, open(output, "w") as o:
        t.write(THREADS_HEADER)
        o.write(THREADS_HEADER)
        for tid in range(1, threads + 1):
            for i in range(intervals):
                state, vcpu, reason = states[(i + tid) % 3]
                begin, end = i * length, (i + 1) * length
                t.write("guest1,%d,w,%s,%d,%d,%s,%s\n" % (tid, state, begin, end, vcpu, reason))
                o.write("guest1,%d,w,%s,%d,%d,%s,%s\n" % (
                    tid, state, begin + (1 if i else 0), end + (1 if i + 1 < intervals else 0),
                    vcpu, reason))
    return truth, output


def check_large(d):
    threads, intervals, length = 40, 5000, 100
    truth, output = large(d, threads, intervals, length)
    expected = 1 - Fraction(intervals - 1, intervals * length)
    start = time.monotonic()
    result = truthcmp.compare_threads(truth, output)
    elapsed = time.monotonic() - start
    expect("large agreement", result.fraction, expected)
    expect("large keys", result.keys, threads)
    print("%d intervals a side merged in %.2f s: %.4f%% agreement, as expected" % (
        threads * intervals, elapsed, result.percent))
    # Reversed row order, sorted externally in runs of 20000 rows.
    for path in (output,):
        with open(path) as f:
            header, rows = f.readline(), f.readlines()
        with open(path, "w") as f:
            f.write(header + "".join(reversed(rows)))
    start = time.monotonic()
    result = truthcmp.compare_threads(truth, output, chunk=20000)
    expect("large agreement, external sort", result.fraction, expected)
    print("the same, output reversed and sorted in 20000-row runs: %.2f s" % (
        time.monotonic() - start))


def main():
    vmtest.skip_under_valgrind("the truth comparison only")
    d = tempfile.mkdtemp(prefix="test-truthcmp-")
    try:
        check_identical(d)
        result = check_threads(d)
        print("threads: %.4f%% agreement, as worked out by hand (67/75)" % result.percent)
        print(result.summary())
        for seed in range(5):
            check_threads(d, chunk=2, seed=seed)
            check_threads(d, seed=seed)
        print("threads: the same figures from shuffled rows (in memory and external sort)")
        check_vcpus(d)
        check_exits(d)
        check_bad_input(d)
        check_command_line(d)
        check_large(d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("truthcmp: all checks passed")


if __name__ == "__main__":
    main()
