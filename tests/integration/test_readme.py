"""README.md shows real output: its `tools/vm-demo` block must be what the
same graph prints today on the one-qemu-kvm stub scenario."""

import os
import re

import vmtest

traces = vmtest.scenario("one-qemu-kvm")
# tools/vm-demo passes the scenario's traces in file name order.
args = [traces[name] for name in sorted(traces)] + [
    "--component=filter.vm.correlate", "--component=filter.vm.state",
    "--component=sink.vm.threads"]
output = vmtest.babeltrace2(args).stdout
if vmtest.under_valgrind():
    # Valgrind runs x87 long double in double precision: the guest's formula
    # then moves times by up to a few hundred ns. The plain run compares.
    print("under valgrind: the run is checked for memory errors only")
    raise SystemExit(0)

with open(os.path.join(vmtest.SOURCE_DIR, "README.md")) as f:
    readme = f.read()
section = readme.split("## What it prints", 1)
if len(section) != 2:
    vmtest.fail("README.md has no `## What it prints` section")
blocks = re.findall(r"```\n(.*?)```", section[1], flags=re.S)
if not blocks:
    vmtest.fail("README.md's `What it prints` section has no output block")
if blocks[0] != output:
    vmtest.fail("README.md's demo output is stale; the graph now prints:\n" + output)
print("README.md shows the real output of the demo")
