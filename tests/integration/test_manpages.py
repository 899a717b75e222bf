"""The manual pages as built (build/doc/man/): each renders without any
warning of `man --warnings`, has babeltrace2's sections and describes every
parameter its component's help lists (see manpages.py)."""

import os

import manpages
import vmtest

manpages.require_man()
manpages.self_check()
for page in manpages.PAGES:
    path = os.path.join(vmtest.BUILD_DIR, "doc", "man", page)
    if not os.path.exists(path):
        vmtest.fail(path + " was not built")
    order = manpages.check(path, vmtest.PLUGIN_DIR)
    print("%s: %s" % (page, ", ".join(order)))
