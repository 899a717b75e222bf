"""The built plugin loads in babeltrace2 and declares what SPEC names."""

import vmtest

out = vmtest.babeltrace2(["list-plugins"]).stdout
if "vm:" not in out or "babeltrace-plugin-vm.so" not in out:
    vmtest.fail("plugin vm not listed:\n" + out)
info = vmtest.babeltrace2(["help", "vm"]).stdout
for word in ("Version: 0.1.0", "License: MIT", "Author:", "Description:"):
    if word not in info:
        vmtest.fail("`babeltrace2 help vm` lacks %r:\n%s" % (word, info))
for cls in ("filter.vm.correlate", "filter.vm.state", "sink.vm.threads"):
    if "'%s':" % cls not in out:
        vmtest.fail("list-plugins does not show %s:\n%s" % (cls, out))
print("plugin vm loads with its three component classes")
