"""README.md shows real output, and tools/vm-demo runs every bundled scenario.

- its `tools/vm-demo` block must be what the demo prints today on the
  one-qemu-kvm stub scenario;
- tools/vm-demo (its graph in the run form, each source straight into
  correlate) runs every folder of stub-traces/, old-lttng-packets included
  (whose old LTTng packets babeltrace2's own muxer refuses: the convert form
  failed there), and prints the threads table.

Under valgrind the demo's graph on one-qemu-kvm runs through VM_BT_WRAPPER
(the demo itself runs babeltrace2 plainly) and only memory is checked."""

import os
import re
import subprocess

import vmtest

DEMO = os.path.join(vmtest.SOURCE_DIR, "tools", "vm-demo")


def demo(scenario):
    """tools/vm-demo SCENARIO on this build (no install, no build step)."""
    env = dict(vmtest._env(), VM_DEMO_NO_SETUP="1", VM_BUILD_DIR=vmtest.BUILD_DIR,
               VM_STUBGEN_PLUGIN_DIR=vmtest.STUBGEN_PLUGIN_DIR)
    proc = subprocess.run([DEMO, scenario], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        vmtest.fail("tools/vm-demo %s: exit status %d\n%s" % (
            scenario, proc.returncode, proc.stderr[-5000:]))
    if not re.match(r"(Guest t|T)hreads: time in each state", proc.stdout):
        vmtest.fail("tools/vm-demo %s prints no threads table:\n%s" % (
            scenario, proc.stdout[:2000]))
    return proc.stdout


if vmtest.under_valgrind():
    # Valgrind runs x87 long double in double precision: the guest's formula
    # then moves times by up to a few hundred ns. The plain run compares.
    traces = vmtest.scenario("one-qemu-kvm")
    vmtest.babeltrace2(["run"] + [
        arg for i, name in enumerate(sorted(traces)) for arg in (
            "--component=src%d:src.ctf.fs" % i,
            '--params=inputs=["%s"]' % traces[name], "--connect=src%d:correlate" % i)] + [
        "--component=correlate:filter.vm.correlate", "--component=state:filter.vm.state",
        "--component=sink:sink.vm.threads", "--connect=correlate:state",
        "--connect=state:sink"])
    print("under valgrind: the demo's graph is checked for memory errors only")
    raise SystemExit(0)

scenarios = sorted(e for e in os.listdir(vmtest.STUB_DIR)
                   if os.path.isdir(os.path.join(vmtest.STUB_DIR, e)))
outputs = {name: demo(name) for name in scenarios}
print("tools/vm-demo runs every scenario: " + ", ".join(scenarios))

with open(os.path.join(vmtest.SOURCE_DIR, "README.md")) as f:
    readme = f.read()
section = readme.split("## What it prints", 1)
if len(section) != 2:
    vmtest.fail("README.md has no `## What it prints` section")
blocks = re.findall(r"```\n(.*?)```", section[1], flags=re.S)
if not blocks:
    vmtest.fail("README.md's `What it prints` section has no output block")
if blocks[0] != outputs["one-qemu-kvm"]:
    vmtest.fail("README.md's demo output is stale; the demo now prints:\n" +
                outputs["one-qemu-kvm"])
print("README.md shows the real output of the demo")
