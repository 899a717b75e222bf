"""`meson install` puts the plugin in babeltrace2's system plugin directory
(<libdir of pkg-config babeltrace2>/babeltrace2/plugins), where babeltrace2
finds it without --plugin-path, and installs none of the test plugins."""

import os
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
    if installed != [expected]:
        vmtest.fail("installed %r, expected exactly [%r]" % (installed, expected))
    listed = vmtest.babeltrace2(["list-plugins"],
                                plugin_paths=[destdir + plugin_dir]).stdout
    for cls in ("filter.vm.correlate", "filter.vm.state", "sink.vm.threads"):
        if "'%s':" % cls not in listed:
            vmtest.fail("installed plugin does not list %s:\n%s" % (cls, listed))
    print("installed " + expected)
finally:
    shutil.rmtree(destdir, ignore_errors=True)
