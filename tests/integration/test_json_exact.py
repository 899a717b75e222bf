"""sink.vm.threads format="json": the members that readers whose numbers
are doubles (JavaScript, jq 1.6) can use exactly.

A ns timestamp since the epoch (~1.6e18) is beyond 2^53: a double rounds it
to 256 ns steps, and end_ns - begin_ns computed from the rounded values is
off (19968 instead of 19977 ns). Each interval has `dur_ns`, its exact
duration, and `begin_ns_str` / `end_ns_str`, its exact times as strings.

Checked on the halted-vcpu stub, read once exactly (Python's integers) and
once as a JavaScript reader does (every number a double): the double-read
`dur_ns` is the exact duration on every row, the strings are the exact
times, and the input does round (some double-read end - begin is wrong,
else this test could not fail). With jq installed, jq gives the same."""

import json
import shutil
import subprocess

import vmtest

stub = vmtest.scenario("halted-vcpu")
checked = rounded = 0
for what in ("threads", "vcpus"):
    proc = vmtest.babeltrace2([stub["host"], stub["guest"], "-c", "filter.vm.correlate",
                               "-c", "filter.vm.state", "-c", "sink.vm.threads",
                               "-p", 'format="json",what="%s"' % what])
    lines = proc.stdout.splitlines()
    for line in lines:
        exact = json.loads(line)
        double = json.loads(line, parse_int=float)
        duration = exact["end_ns"] - exact["begin_ns"]
        if double["dur_ns"] != duration:
            vmtest.fail("%s: dur_ns read as a double is %r, not %d: %s" % (
                what, double["dur_ns"], duration, line))
        if (double["begin_ns_str"], double["end_ns_str"]) != (
                str(exact["begin_ns"]), str(exact["end_ns"])):
            vmtest.fail("%s: the string times are not the exact ones: %s" % (what, line))
        rounded += double["end_ns"] - double["begin_ns"] != duration
        checked += 1
    if shutil.which("jq"):
        jq = subprocess.run(["jq", "-c", "[.dur_ns, .begin_ns_str, .end_ns_str]"],
                            input=proc.stdout, stdout=subprocess.PIPE, text=True,
                            check=True).stdout.splitlines()
        want = [json.dumps([r["end_ns"] - r["begin_ns"], str(r["begin_ns"]),
                            str(r["end_ns"])], separators=(",", ":"))
                for r in map(json.loads, lines)]
        if jq != want:
            vmtest.fail("%s: jq reads %s, not %s" % (what, jq[:5], want[:5]))
if not rounded:
    vmtest.fail("no interval whose double-read times give a wrong duration: the "
                "input does not show the problem")
print("%d intervals: dur_ns and the string times exact when read as doubles "
      "(%d durations wrong from the rounded integers)" % (checked, rounded))
