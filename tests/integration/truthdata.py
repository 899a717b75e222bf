"""Workloads with ground truth for the truth tests.

generate() runs vm-workload once per set of arguments (the output is
deterministic, so a directory whose stamp records the same arguments and an
unchanged generator is reused), ctf_traces() converts every machine's stub
into a CTF trace, and run_form() / convert_form() build the two graph forms
of SPEC's pipeline around them.
"""

import csv
import json
import os
import shutil
import subprocess
from fractions import Fraction

import vmtest


def _stamp(args):
    return json.dumps({"args": list(args), "generator": os.path.getmtime(vmtest.WORKLOAD)})


def generate(name, args, base=None):
    """vm-workload --out BASE/NAME ARGS, reused while ARGS and the generator
    are unchanged; returns the output directory."""
    if not os.path.exists(vmtest.WORKLOAD):
        vmtest.fail("no workload generator at " + vmtest.WORKLOAD)
    out = os.path.join(base or vmtest.WORK_DIR, name)
    stamp_path = os.path.join(out, ".stamp")
    stamp = _stamp(args)
    with vmtest.cache_lock(out):
        if os.path.exists(stamp_path):
            with open(stamp_path) as f:
                if f.read() == stamp:
                    return out
        shutil.rmtree(out, ignore_errors=True)
        cmd = [vmtest.WORKLOAD, "--out", out] + [str(a) for a in args]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            vmtest.fail("%s failed (%d):\n%s" % (" ".join(cmd), proc.returncode, proc.stderr))
        with open(stamp_path, "w") as f:
            f.write(stamp)
    return out


def machines(out):
    """The rows of truth/machines.csv, host first."""
    with open(os.path.join(out, "truth", "machines.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    return sorted(rows, key=lambda r: (r["role"] != "host", r["machine"]))


def timemap(out):
    """{machine: (slope, offset)} as exact fractions: t_true = slope * t + offset."""
    with open(os.path.join(out, "truth", "timemap.csv"), newline="") as f:
        return {r["machine"]: (Fraction(r["slope"]), Fraction(r["offset_ns"]))
                for r in csv.DictReader(f)}


def event_count(out):
    with open(os.path.join(out, "truth", "counts.csv"), newline="") as f:
        return sum(int(r["count"]) for r in csv.DictReader(f))


def ctf_traces(out):
    """{machine: CTF trace directory}, host first (insertion order)."""
    return {m["machine"]: vmtest.stub_to_ctf(os.path.join(out, m["machine"] + ".stub"),
                                             os.path.join(out, "ctf", m["machine"]))
            for m in machines(out)}


def quote(text):
    """A babeltrace2 CLI string parameter value."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def params(values):
    """KEY=VALUE,... for --params; strings are quoted, other values verbatim
    (so maps and typed numbers can be passed as prepared text)."""
    parts = []
    for key, value in values.items():
        parts.append("%s=%s" % (key, quote(value) if isinstance(value, str) else value[0]))
    return ",".join(parts)


def run_form(traces, filters, sink, sink_params=None):
    """`babeltrace2 run` arguments: one src.ctf.fs per trace, each connected
    straight to the first filter, the filters chained, then the sink.
    FILTERS is a list of (component class, params dict)."""
    args = ["run"]
    names = []
    for i, path in enumerate(traces.values()):
        name = "src%d" % i
        names.append(name)
        args += ["--component=%s:src.ctf.fs" % name,
                 "--params=inputs=[%s]" % quote(path)]
    chain = []
    for i, (cls, values) in enumerate(filters):
        name = "flt%d" % i
        chain.append(name)
        args.append("--component=%s:%s" % (name, cls))
        if values:
            args.append("--params=" + params(values))
    args.append("--component=out:" + sink)
    if sink_params:
        args.append("--params=" + params(sink_params))
    chain.append("out")
    for name in names:
        args.append("--connect=%s:%s" % (name, chain[0]))
    for a, b in zip(chain, chain[1:]):
        args.append("--connect=%s:%s" % (a, b))
    return args


def convert_form(traces, filters, sink, sink_params=None):
    """The convert form: babeltrace2 TRACE... --component=... (babeltrace2
    puts its own muxer before the first filter)."""
    args = list(traces.values())
    for cls, values in filters:
        args.append("--component=" + cls)
        if values:
            args.append("--params=" + params(values))
    args.append("--component=" + sink)
    if sink_params:
        args.append("--params=" + params(sink_params))
    return args
