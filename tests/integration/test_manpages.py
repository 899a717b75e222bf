"""The manual pages as built (build/doc/man/): each renders without any
warning of `man --warnings`, has babeltrace2's sections and describes every
parameter its component's help lists (see manpages.py). Each component's
help, from the build tree, names a page that exists there (in the build
directory) besides the installed path (test_install.py checks that one)."""

import os
import re

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

# The build-tree place the help names (plugin/common/man-page.h).
BUILD_PLACE = re.compile(r"in a build directory: (doc/man/\S+\.7),")
for component in manpages.COMPONENTS:
    text = " ".join(vmtest.babeltrace2(["help", component]).stdout.split())
    page = "babeltrace2-%s.7" % component
    places = BUILD_PLACE.findall(text)
    if places != ["doc/man/" + page]:
        vmtest.fail("help of %s names no page of the build tree (%s):\n%s" % (
            component, places, text))
    if not os.path.exists(os.path.join(vmtest.BUILD_DIR, places[0])):
        vmtest.fail("help of %s names %s, which the build tree lacks" % (component,
                                                                       places[0]))
    print("help of %s: %s in the build directory" % (component, places[0]))
