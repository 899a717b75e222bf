"""`meson install` puts the plugin in babeltrace2's system plugin directory
(<libdir of pkg-config babeltrace2>/babeltrace2/plugins), where babeltrace2
finds it without --plugin-path, and the manual pages that each component's
help names, and installs none of the test plugins."""

import os
import re
import shutil
import subprocess
import tempfile

import vmtest

libdir = subprocess.run(["pkg-config", "--variable=libdir", "babeltrace2"],
                        stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
plugin_dir = os.path.join(libdir, "babeltrace2", "plugins")

destdir = tempfile.mkdtemp(prefix="vm-install-")
try:
    proc = subprocess.run(["meson", "install", "-C", vmtest.BUILD_DIR, "--no-rebuild",
                           "--destdir", destdir],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        vmtest.fail("meson install failed:\n" + proc.stdout[-5000:])
    installed = []
    for root, _, files in os.walk(destdir):
        installed += [os.path.join(root, f)[len(destdir):] for f in files]
    expected = os.path.join(plugin_dir, "babeltrace-plugin-vm.so")
    docs = sorted(f for f in installed if f.endswith(".md"))
    programs = [f for f in installed if f.endswith("/bin/vm-lami")]
    if len(programs) != 1 or sorted(installed) != sorted([expected] + docs + programs):
        vmtest.fail("installed %r, expected the plugin %r, vm-lami in bindir and "
                    "manual pages only" % (installed, expected))
    # The installed vm-lami, pointed at the plugin installed in DESTDIR.
    lami = destdir + programs[0]
    if not os.access(lami, os.X_OK):
        vmtest.fail("the installed %s is not executable" % programs[0])
    env = dict(os.environ)
    if os.environ.get("VM_BT_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["VM_BT_PRELOAD"]
    run = subprocess.run([lami, "--plugin-path", destdir + plugin_dir] +
                         list(vmtest.scenario("halted-vcpu").values()),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if run.returncode != 0 or '"class": "vm-steal"' not in run.stdout:
        vmtest.fail("the installed vm-lami failed (%d):\n%s%s" % (
            run.returncode, run.stdout[-2000:], run.stderr[-3000:]))
    with open(lami) as f:
        if plugin_dir not in f.read():
            vmtest.fail("the installed vm-lami does not look for the plugin in " + plugin_dir)
    listed = vmtest.babeltrace2(["list-plugins"],
                                plugin_paths=[destdir + plugin_dir]).stdout
    for cls in ("filter.vm.correlate", "filter.vm.state", "sink.vm.threads"):
        if "'%s':" % cls not in listed:
            vmtest.fail("installed plugin does not list %s:\n%s" % (cls, listed))
        # The help names the component's installed manual page.
        help_text = vmtest.babeltrace2(["help", cls],
                                       plugin_paths=[destdir + plugin_dir]).stdout
        pages = re.findall(r"Manual page: (\S+)", help_text)
        if len(pages) != 1 or not pages[0].endswith("/%s.7.md" % cls):
            vmtest.fail("help of %s names no manual page of its own:\n%s" % (
                cls, help_text))
        if pages[0] not in installed:
            vmtest.fail("help of %s names %s, which is not installed (%r)" % (
                cls, pages[0], installed))
        with open(destdir + pages[0]) as f:
            if not f.read().startswith("# %s(7)" % cls):
                vmtest.fail("%s is not the manual page of %s" % (pages[0], cls))
        source_paths = re.findall(r"(?<!share/)\bdoc/\S+", help_text)
        if source_paths:
            vmtest.fail("help of %s names a path of the source tree: %s" % (
                cls, source_paths))
    print("installed %s and %s" % (expected, ", ".join(docs)))
finally:
    shutil.rmtree(destdir, ignore_errors=True)
