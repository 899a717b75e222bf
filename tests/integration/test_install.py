"""`meson install --destdir D` installs what a distribution package would,
and nothing else: the plugin, with the default prefix, in babeltrace2's
system plugin directory (<libdir of pkg-config babeltrace2>/babeltrace2/
plugins), where babeltrace2 finds it without --plugin-path; vm-lami in
bindir; the four manual pages in <mandir>/man7; the guides of doc/ in
<datadir>/doc/vm; none of the test plugins. The installed plugin and vm-lami then run on a bundled stub, each
component's help names its installed page, and each installed page renders
without warnings (manpages.py).

With another prefix (a user's install, no root), the plugin goes under it,
<prefix>/<libdir>/babeltrace2/plugins, and -Dplugindir=DIR puts it in DIR:
checked on builds only configured for it (`meson introspect --installed`,
vm-lami's and the plugin page's directory), since building them again
would cost minutes."""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile

import manpages
import vmtest

libdir = subprocess.run(["pkg-config", "--variable=libdir", "babeltrace2"],
                        stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
bt2_plugin_dir = os.path.join(libdir, "babeltrace2", "plugins")


def build_options(build=vmtest.BUILD_DIR):
    proc = subprocess.run(["meson", "introspect", "--buildoptions", build],
                          stdout=subprocess.PIPE, text=True, check=True)
    return {o["name"]: o["value"] for o in json.loads(proc.stdout)}


def under_prefix(options, name):
    return os.path.join(options["prefix"], options[name])


def bt2_variable(name):
    return subprocess.run(["pkg-config", "--variable=" + name, "babeltrace2"],
                          stdout=subprocess.PIPE, text=True, check=True).stdout.strip()


def configured_plugin_dir(options):
    """Where the options say the plugin goes (README.md, Building)."""
    if options.get("plugindir"):
        return os.path.join(options["prefix"], options["plugindir"])
    if options["prefix"] in ("/usr/local", bt2_variable("prefix")):
        return bt2_plugin_dir
    return os.path.join(under_prefix(options, "libdir"), "babeltrace2", "plugins")


def check_other_prefixes(work):
    """A configured build with another prefix, then with -Dplugindir."""
    prefix = os.path.join(work, "prefix")
    custom = os.path.join(work, "custom", "plugins")
    for label, options, want in (
            ("--prefix", [], None),
            ("-Dplugindir", ["-Dplugindir=" + custom], custom)):
        build = os.path.join(work, "build-" + label.strip("-"))
        proc = subprocess.run(["meson", "setup", build, vmtest.SOURCE_DIR,
                               "--prefix=" + prefix, "-Dtests=disabled"] + options,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            vmtest.fail("meson setup %s failed:\n%s" % (label, proc.stdout[-5000:]))
        got_options = build_options(build)
        if want is None:
            want = os.path.join(prefix, got_options["libdir"], "babeltrace2", "plugins")
        installed = json.loads(subprocess.run(
            ["meson", "introspect", "--installed", build], stdout=subprocess.PIPE,
            text=True, check=True).stdout)
        plugin = [dest for src, dest in installed.items()
                  if os.path.basename(src) == "babeltrace-plugin-vm.so"]
        if plugin != [os.path.join(want, "babeltrace-plugin-vm.so")]:
            vmtest.fail("%s %s: the plugin is installed as %s, not in %s" % (
                label, " ".join(options), plugin, want))
        if configured_plugin_dir(got_options) != want:
            vmtest.fail("%s: this test's own rule gives %s" % (label, want))
        for made in (os.path.join(build, "tools", "vm-lami"),
                     os.path.join(build, "doc", "man", "babeltrace2-plugin-vm.7")):
            with open(made) as f:
                if want not in f.read():
                    vmtest.fail("%s: %s does not name %s" % (label, made, want))
        print("%s: the plugin goes to %s" % (label, want))


def expected_files(options):
    """{installed path: what it is}, from the source tree and the options."""
    expected = {os.path.join(plugin_dir, "babeltrace-plugin-vm.so"): "the plugin",
                os.path.join(under_prefix(options, "bindir"), "vm-lami"): "vm-lami"}
    man7 = os.path.join(under_prefix(options, "mandir"), "man7")
    for page in manpages.PAGES:
        expected[os.path.join(man7, page)] = "a manual page"
    doc_dir = os.path.join(under_prefix(options, "datadir"), "doc", "vm")
    source_doc = os.path.join(vmtest.SOURCE_DIR, "doc")
    for entry in sorted(os.listdir(source_doc)):
        if entry.endswith(".md"):
            expected[os.path.join(doc_dir, entry)] = "a guide"
    for entry in sorted(os.listdir(os.path.join(source_doc, "examples"))):
        expected[os.path.join(doc_dir, "examples", entry)] = "an example"
    return expected


def check_file_set(destdir, expected):
    installed = []
    for root, _, files in os.walk(destdir):
        installed += [os.path.join(root, f)[len(destdir):] for f in files]
    missing = sorted(set(expected) - set(installed))
    extra = sorted(set(installed) - set(expected))
    if missing or extra:
        vmtest.fail("meson install: missing %r, not expected %r" % (missing, extra))


def check_lami(destdir, lami):
    """The installed vm-lami, pointed at the plugin installed in DESTDIR."""
    path = destdir + lami
    if not os.access(path, os.X_OK):
        vmtest.fail("the installed %s is not executable" % lami)
    env = dict(os.environ)
    if os.environ.get("VM_BT_PRELOAD"):
        env["LD_PRELOAD"] = os.environ["VM_BT_PRELOAD"]
    run = subprocess.run([path, "--plugin-path", destdir + plugin_dir] +
                         list(vmtest.scenario("halted-vcpu").values()),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if run.returncode != 0 or '"class": "vm-steal"' not in run.stdout:
        vmtest.fail("the installed vm-lami failed (%d):\n%s%s" % (
            run.returncode, run.stdout[-2000:], run.stderr[-3000:]))
    with open(path) as f:
        if plugin_dir not in f.read():
            vmtest.fail("the installed vm-lami does not look for the plugin in " + plugin_dir)


def check_plugin_run(destdir):
    """The whole chain of the installed plugin on a bundled stub."""
    traces = vmtest.scenario("halted-vcpu")
    out = vmtest.babeltrace2(list(traces.values()) + [
        "-c", "filter.vm.correlate", "-c", "filter.vm.state",
        "-c", "sink.vm.threads", "-p", 'format="csv",what="vcpus"'],
        plugin_paths=[destdir + plugin_dir]).stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    if not any(r["mode"] == "blocked" for r in rows):
        vmtest.fail("the installed plugin gives no blocked vCPU on halted-vcpu:\n" + out)


def check_help(destdir, cls, expected):
    """The help names the component's page and its installed path."""
    help_text = vmtest.babeltrace2(["help", cls], plugin_paths=[destdir + plugin_dir]).stdout
    page = "babeltrace2-%s" % cls
    if "See the %s(7) manual page." % page not in help_text:
        vmtest.fail("help of %s does not name %s(7):\n%s" % (cls, page, help_text))
    paths = re.findall(r"Manual page: (\S+)", help_text)
    if len(paths) != 1 or os.path.basename(paths[0]) != page + ".7":
        vmtest.fail("help of %s names no manual page of its own:\n%s" % (cls, help_text))
    if expected.get(paths[0]) != "a manual page":
        vmtest.fail("help of %s names %s, which is not an installed page" % (cls, paths[0]))
    # The build directory's place (test_manpages.py) is no source path.
    source_paths = re.findall(r"(?<!share/)(?<!build directory: )\bdoc/\S+",
                              " ".join(help_text.split()))
    if source_paths:
        vmtest.fail("help of %s names a path of the source tree: %s" % (cls, source_paths))


# Where this build installs the plugin (babeltrace2's directory with the
# default prefix).
plugin_dir = configured_plugin_dir(build_options())
destdir = tempfile.mkdtemp(prefix="vm-install-")
try:
    proc = subprocess.run(["meson", "install", "-C", vmtest.BUILD_DIR, "--no-rebuild",
                           "--destdir", destdir],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        vmtest.fail("meson install failed:\n" + proc.stdout[-5000:])
    options = build_options()
    expected = expected_files(options)
    check_file_set(destdir, expected)
    check_lami(destdir, os.path.join(under_prefix(options, "bindir"), "vm-lami"))
    listed = vmtest.babeltrace2(["list-plugins"],
                                plugin_paths=[destdir + plugin_dir]).stdout
    for cls in manpages.COMPONENTS:
        if "'%s':" % cls not in listed:
            vmtest.fail("installed plugin does not list %s:\n%s" % (cls, listed))
        check_help(destdir, cls, expected)
    check_plugin_run(destdir)
    pages = sorted(p for p, kind in expected.items() if kind == "a manual page")
    if shutil.which("man") is None:
        print("man is not installed: the installed pages are not rendered")
    else:
        manpages.self_check()
        man_root = destdir + under_prefix(options, "mandir")
        for page in pages:
            manpages.check(destdir + page, destdir + plugin_dir)
            # As a user would ask for it: by name, in section 7.
            name = os.path.basename(page)[:-len(".7")]
            where = subprocess.run(["man", "-M", man_root, "-w", "7", name],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if where.returncode != 0 or where.stdout.strip() != destdir + page:
                vmtest.fail("man -M %s -w 7 %s finds %r, not %s (%s)" % (
                    man_root, name, where.stdout.strip(), destdir + page, where.stderr))
    print("installed:\n  " + "\n  ".join(sorted(expected)))
    check_other_prefixes(destdir)
finally:
    shutil.rmtree(destdir, ignore_errors=True)
