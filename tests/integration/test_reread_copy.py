"""Issue 8, point 4: one machine registry. A copy of correlate's output
(with filter.vm.state's vm-state trace), written by sink.ctf.fs and read
back, has the same machines: the vm-state trace belongs to the host, no
phantom `host#2`, no warning, and the analysis gives the same results.

For the bundled two-guests stub and a generated workload, in both graph
forms (convert: babeltrace2's muxer first; run: each source straight into
the first filter):

1. ORIGINAL: traces -> correlate -> state -> sink.vm.threads (csv, each
   `what`), and COPY: traces -> correlate -> state -> sink.ctf.fs;
2. the copy read back through correlate -> state, state alone, correlate
   alone and nothing (sink.vm.threads only) gives exactly ORIGINAL's rows,
   without a warning;
3. the copy through correlate -> state -> sink.ctf.fs again: the same
   trace directories, every `vm_machine` one of the original machines, the
   vm-state trace the host's (`vm_machine`, `vm_role`);
4. the copy re-based on a guest (`reference`) is an error naming the way
   (correlate on the original traces); on its own reference it runs;
5. the real TCP pair of ../shared (when present): its copy read back
   through correlate prints the very same timeline (correlate keeps the
   time base of its own output instead of fitting it again).
"""

import os
import re
import shutil
import tempfile

import vmtest
import threads_common as tc
import truthdata

WHATS = ("threads", "vcpus", "exits")
CHAINS = {
    "correlate+state": [("filter.vm.correlate", None), ("filter.vm.state", None)],
    "state": [("filter.vm.state", None)],
    "correlate": [("filter.vm.correlate", None)],
    "threads only": [],
}


def graph(form, traces, filters, sink, sink_params):
    if form == "convert":
        return truthdata.convert_form(traces, filters, sink, sink_params)
    # Only correlate takes every source straight in: the others, like
    # babeltrace2's own, have one input port behind a muxer.
    if not filters or filters[0][0] != "filter.vm.correlate":
        filters = [("filter.utils.muxer", None)] + filters
    return truthdata.run_form(traces, filters, sink, sink_params)


def thread_rows(form, traces, filters, label, whats=WHATS):
    """{what: csv text} of sink.vm.threads for each of `whats`; fails on any
    warning."""
    result = {}
    for what in whats:
        proc = vmtest.babeltrace2(graph(form, traces, filters, "sink.vm.threads",
                                        {"format": "csv", "what": what}))
        tc.parse_csv(proc.stdout, what)
        warnings = tc.unexpected_warnings_of(proc.stderr)
        if warnings:
            vmtest.fail("%s (%s form): unexpected warnings:\n%s" % (
                label, form, "\n".join(warnings)))
        result[what] = proc.stdout
    return result


def write_copy(form, traces, out, label):
    vmtest.babeltrace2(graph(form, traces, CHAINS["correlate+state"], "sink.ctf.fs",
                             {"path": out, "quiet": ("true",)}))
    copy = {name: os.path.join(out, name) for name in sorted(os.listdir(out))}
    if not copy:
        vmtest.fail("%s: sink.ctf.fs wrote nothing in %s" % (label, out))
    return copy


def env_of(trace_dir):
    """The env block of a CTF 1.8 metadata file written by sink.ctf.fs."""
    with open(os.path.join(trace_dir, "metadata")) as f:
        text = f.read()
    block = re.search(r"^env \{(.*?)^\};", text, re.S | re.M)
    if not block:
        vmtest.fail("no env block in %s/metadata" % trace_dir)
    return dict(re.findall(r'^\s*(\w+) = "?(.*?)"?;$', block.group(1), re.M))


def check_copy_env(copy, machines, label):
    if set(copy) != set(machines) | {"vm-state"}:
        vmtest.fail("%s: the copy holds %s, expected %s and vm-state" % (
            label, sorted(copy), sorted(machines)))
    for name, path in copy.items():
        env = env_of(path)
        expected = "host" if name == "vm-state" else name
        if env.get("vm_machine") != expected:
            vmtest.fail("%s: trace %s has vm_machine %r, expected %r" % (
                label, name, env.get("vm_machine"), expected))
    state_env = env_of(copy["vm-state"])
    if state_env.get("vm_role") != "host" or state_env.get("hostname") != "host":
        vmtest.fail("%s: the vm-state trace's env is %s: it should carry the "
                    "host's hostname and vm_role" % (label, state_env))


def whats_to_read_back(chain_index, form_index):
    """Every `what` of a copy read back, or under valgrind (20x to 50x
    slower) one that rotates with the chain and the form: each chain still
    reads back two of the three, and every `what` is read back by three
    chains, on the same code paths (the plain run compares them all)."""
    if not vmtest.under_valgrind():
        return WHATS
    return (WHATS[(chain_index + form_index) % len(WHATS)],)


def check_case(label, traces, work):
    machines = sorted(traces)
    for form_index, form in enumerate(("convert", "run")):
        tag = "%s, %s form" % (label, form)
        original = thread_rows(form, traces, CHAINS["correlate+state"], tag + ", original")
        if all(len(text.splitlines()) < 2 for text in original.values()):
            vmtest.fail(tag + ": the original output has no rows at all")
        copy = write_copy(form, traces, os.path.join(work, label, form, "copy"), tag)
        for chain_index, (chain_name, chain) in enumerate(CHAINS.items()):
            got = thread_rows(form, copy, chain, "%s, copy via %s" % (tag, chain_name),
                              whats_to_read_back(chain_index, form_index))
            for what in got:
                if got[what] != original[what]:
                    vmtest.fail("%s: the copy read via %s gives other %s rows:\n"
                                "--- original ---\n%s\n--- copy ---\n%s" % (
                                    tag, chain_name, what, original[what][:3000],
                                    got[what][:3000]))
        check_copy_env(copy, machines, tag + ", copy")
        check_rebase(form, copy, machines, tag)
        again = write_copy(form, copy, os.path.join(work, label, form, "again"), tag)
        check_copy_env(again, machines, tag + ", copy of the copy")
    print("%s: the copy reads back as the same machines, same results" % label)


def check_rebase(form, copy, machines, label):
    """A copy keeps its run's time base, not each machine's clock: re-basing
    it on a guest is an error that says how to get that base; naming its
    own reference is fine."""
    guest = next(m for m in machines if m != "host")
    proc = vmtest.babeltrace2(graph(form, copy, [("filter.vm.correlate",
                                                  {"reference": guest})],
                                    "sink.utils.dummy", None), check=False)
    if proc.returncode == 0:
        vmtest.fail("%s: a copy re-based on `%s` was accepted (its times would stay in "
                    "the host's base)" % (label, guest))
    for word in ("`reference`", "cannot be re-based on `%s`" % guest, "original traces"):
        if word not in proc.stderr:
            vmtest.fail("%s: re-basing error lacks %r:\n%s" % (label, word, proc.stderr[-3000:]))
    vmtest.babeltrace2(graph(form, copy, [("filter.vm.correlate", {"reference": "host"})],
                             "sink.utils.dummy", None))


def check_real_pair():
    """The real Trace Compass pair (TCP sync, LTTng 2.1: run form only, the
    stock muxer fails on it): the copy read back through correlate prints
    exactly the original timeline, every time kept (a new fit on the copy
    would move them within its accuracy)."""
    if vmtest.under_valgrind():
        print("under valgrind, the real pair is left to the plain run")
        return
    base = vmtest.shared_dir()
    pair = os.path.join(base, "traces", "tc-synctraces") if base else None
    if not pair or not os.path.isdir(pair):
        print("../shared/traces/tc-synctraces absent: real pair not checked")
        return
    traces = {name: os.path.join(pair, name) for name in sorted(os.listdir(pair))}
    correlate = [("filter.vm.correlate", None)]
    pretty = {"clock-seconds": ("true",)}
    original = vmtest.babeltrace2(truthdata.run_form(traces, correlate, "sink.text.pretty",
                                                     pretty)).stdout
    out = os.path.join(work, "tc-synctraces")
    vmtest.babeltrace2(truthdata.run_form(traces, correlate, "sink.ctf.fs",
                                          {"path": out, "quiet": ("true",)}))
    copy = {name: os.path.join(out, name) for name in sorted(os.listdir(out))}
    proc = vmtest.babeltrace2(truthdata.run_form(copy, correlate, "sink.text.pretty", pretty))
    if proc.stdout != original or not original:
        vmtest.fail("tc-synctraces: the copy read back through correlate prints "
                    "another timeline (%d lines against %d)" % (
                        len(proc.stdout.splitlines()), len(original.splitlines())))
    if tc.warnings_of(proc.stderr):
        vmtest.fail("tc-synctraces copy: unexpected warnings:\n" + proc.stderr[-3000:])
    print("tc-synctraces: the copy reads back as the same timeline")


tc.require_component("filter.vm.state")
work = tempfile.mkdtemp(prefix="vm-reread-")
try:
    check_case("two-guests", vmtest.scenario("two-guests"), work)
    if vmtest.under_valgrind():
        # The same code paths as the stub's, 34 more runs: the plain run
        # checks the results, the stub case the memory.
        print("under valgrind, the generated workload is left to the plain run")
    else:
        out = truthdata.generate("reread-copy", ["--seed", 11, "--guests", 3, "--vcpus", 2,
                                                 "--duration-ms", 60])
        check_case("workload", truthdata.ctf_traces(out), work)
    check_real_pair()
finally:
    shutil.rmtree(work, ignore_errors=True)
