#!/usr/bin/python3
"""filter.vm.correlate refuses formulas that do not fit, and a formula for
the reference.

- A `transforms` formula that maps a machine's times out of the output
  clock's range (0 to 2^63 - 1 ns from the Unix epoch) fails the graph with
  an error cause naming the machine and `transforms`: nothing is clamped,
  and the components downstream (filter.vm.state, sink.vm.threads) do not
  abort on a leftover error. Both with the sync pass (two passes: the
  machine's whole span is checked at its end) and without (one pass: the
  first conversion that does not fit), above and below the range.
- A `transforms` formula for the reference machine is refused, naming
  `transforms`, the machine and `reference`; the identity is accepted.
- Formulas are written as one writes them: a negative offset as `- 1000 ns`,
  never `+ -1000 ns` (the error above, the INFO summary line). (Under
  valgrind, long doubles are doubles: the last digits of a large offset
  differ, so only its first ones are compared.)
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402
import correlate_check as cc  # noqa: E402


def causes(stderr):
    """The error causes, unwrapped (the CLI wraps them at 80 columns)."""
    return " ".join(stderr.split())


def refused(traces, params, what, words, downstream=True):
    args = traces + ["--component=filter.vm.correlate", "--params=" + params]
    if downstream:
        args += ["--component=filter.vm.state", "--component=sink.vm.threads"]
    else:
        args += ["--component=sink.text.details"]
    proc = vmtest.babeltrace2(args, check=False)
    # 1: the graph failed (an abort is -6, valgrind's own errors 99).
    if proc.returncode != 1:
        vmtest.fail("%s: exit status %d, expected 1:\n%s"
                    % (what, proc.returncode, proc.stderr[-5000:]))
    text = causes(proc.stderr)
    for word in words:
        if word not in text:
            vmtest.fail("%s: no error cause says %r:\n%s" % (what, word, proc.stderr[-5000:]))
    print("%s: refused (%s)" % (what, ", ".join(words)))


def check_summary_signs(traces):
    """The INFO summary writes a negative offset with `-`, never `+ -`."""
    proc = vmtest.babeltrace2(["--log-level=INFO"] + cc.convert_args(
        traces, "transforms={guest1={offset-ns=-1000}}", "sink.utils.dummy"))
    lines = cc.summary_lines(proc.stderr)
    if "t_ref = 1 * t - 1000 ns;" not in lines.get("guest1", ""):
        vmtest.fail("guest1's summary does not write t_ref = 1 * t - 1000 ns: %r"
                    % lines.get("guest1"))
    signs = [m for m, line in lines.items() if "+ -" in line]
    if signs:
        vmtest.fail("summaries with `+ -`: %s" % [lines[m] for m in signs])
    print("formulas: a negative offset written `- 1000 ns`")


def main():
    traces = list(vmtest.scenario("two-guests").values())
    range_words = ["machine `guest1`", "parameter `transforms`",
                   "out of the output clock's range"]
    # guest2 is synchronized: a sync pass, then the span check.
    refused(traces, "transforms={guest1={slope=10.0}}", "slope 10, two passes",
            range_words)
    # sync="none": one pass, the first conversion decides.
    refused(traces, 'sync="none",transforms={guest1={slope=10.0}}', "slope 10, one pass",
            range_words)
    refused(traces, 'sync="none",transforms={guest1={offset-ns=-1600000000000011600}}',
            "before the epoch, one pass", range_words + ["(t_ref = 1 * t - 160000000000001"])
    refused(traces, "transforms={guest1={offset-ns=-1600000000000011600}}",
            "before the epoch, two passes", range_words)
    # A formula for the reference (by default the host, or named).
    reference_words = ["parameter `transforms`", "machine `host` is the reference",
                       "reference=\"OTHER\""]
    refused(traces, "transforms={host={slope=2.0}}", "formula for the default reference",
            reference_words, downstream=False)
    refused(traces, 'reference="host",transforms={host={offset-ns=5}}',
            "formula for the named reference", reference_words, downstream=False)
    # The identity for the reference changes nothing: accepted.
    plain = cc.run(cc.convert_args(traces), "two-guests").stdout
    same = cc.run(cc.convert_args(traces, "transforms={host={slope=1,offset-ns=0}}"),
                  "two-guests, identity for the host").stdout
    if [t for _, t in cc.times(plain)] != [t for _, t in cc.times(same)]:
        vmtest.fail("the identity for the reference changed times")
    # Another reference: the host may then have a formula.
    cc.run(cc.convert_args(traces, 'reference="guest1",transforms={host={offset-ns=5}}'),
           "two-guests, reference guest1")
    print("identity for the reference accepted; another reference lets the host move")
    check_summary_signs(traces)
    print("PASS")


if __name__ == "__main__":
    main()
