"""Checks of the manual pages (doc/man/), as built or as installed.

A page passes when `man --warnings -l PAGE` renders it at 80 columns
without any message on the standard error stream (groff's warnings: an
undefined macro, a line that cannot be broken, a bad escape...), with the
sections of babeltrace2's own pages in their order, a NAME line that
whatis(1) and apropos(1) can index, a header line that fits, no configure
variable nor Markdown quote left, for a component class, every parameter
that its help lists described under INITIALIZATION PARAMETERS, and for the
plugin, a pointer to the guide on recording traces (tracing.md)."""

import os
import re
import shutil
import subprocess
import tempfile

import vmtest

COMPONENTS = ("filter.vm.correlate", "filter.vm.state", "sink.vm.threads")
PAGES = ["babeltrace2-plugin-vm.7"] + ["babeltrace2-%s.7" % c for c in COMPONENTS]

PLUGIN_SECTIONS = ["NAME", "DESCRIPTION", "COMPONENT CLASSES", "SEE ALSO"]
COMPONENT_SECTIONS = ["NAME", "DESCRIPTION", "INITIALIZATION PARAMETERS", "PORTS",
                      "EXAMPLES", "SEE ALSO"]


def require_man():
    if shutil.which("man") is None:
        vmtest.skip("man (man-db) is not installed")


def render(path):
    """The page as `man --warnings -l` prints it at 80 columns: (text, stderr)."""
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
    env.pop("MANPAGER", None)
    env.pop("PAGER", None)
    proc = subprocess.run(["man", "--warnings", "-l", path], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env)
    if proc.returncode != 0:
        vmtest.fail("man -l %s failed (%d):\n%s" % (path, proc.returncode, proc.stderr))
    return proc.stdout, proc.stderr


def self_check():
    """`man --warnings` must report a broken page, or the checks below
    would pass on anything."""
    with tempfile.TemporaryDirectory(prefix="vm-man-") as tmp:
        bad = os.path.join(tmp, "broken.7")
        with open(bad, "w") as f:
            f.write(".TH BROKEN 7\n.SH NAME\nbroken \\- x\n.NOSUCHMACRO\n")
        if not render(bad)[1].strip():
            vmtest.fail("man --warnings reports nothing on a page with an undefined macro")


def sections(text):
    """{heading: body} of a rendered page, and the headings in order."""
    found = {}
    order = []
    current = None
    for line in text.splitlines()[1:]:
        if line and not line[0].isspace():
            if re.fullmatch(r"[A-Z][A-Z ]*", line):
                current = line
                order.append(line)
                found[line] = []
                continue
            current = None     # the footer
        elif current is not None:
            found[current].append(line)
    return {k: "\n".join(v) for k, v in found.items()}, order


def help_parameters(component, plugin_dir):
    """The parameter names that `babeltrace2 help COMPONENT` lists."""
    text = vmtest.babeltrace2(["help", component], plugin_paths=[plugin_dir]).stdout
    names = re.findall(r"(?m)^  ([a-z][a-z-]*)=", text)
    if not names:
        vmtest.fail("help of %s lists no parameter:\n%s" % (component, text))
    return names


def check(path, plugin_dir):
    """Fails unless the page at `path` renders cleanly and is complete."""
    name = os.path.basename(path)[:-len(".7")]
    text, errors = render(path)
    if errors.strip():
        vmtest.fail("man --warnings -l %s:\n%s" % (path, errors))
    if "`" in text:
        vmtest.fail("%s keeps Markdown code quotes: %r" % (
            path, [line for line in text.splitlines() if "`" in line]))
    leftover = re.findall(r"@[A-Z_]+@", text)
    if leftover:
        vmtest.fail("%s keeps configure variables: %s" % (path, leftover))
    header = text.splitlines()[0] if text else ""
    if not re.fullmatch(r"(\S+\(7\)) .* \1|(\S+\(7\)) +\2", header):
        vmtest.fail("%s: the header line is garbled at 80 columns: %r" % (path, header))
    found, order = sections(text)
    component = name[len("babeltrace2-"):]
    want = COMPONENT_SECTIONS if component in COMPONENTS else PLUGIN_SECTIONS
    if [s for s in order if s in want] != want:
        vmtest.fail("%s: sections %r, want %r in this order" % (path, order, want))
    summary = " ".join(found["NAME"].split())
    if not summary.startswith(name + " - ") or len(summary) <= len(name) + 3:
        vmtest.fail("%s: NAME is %r, want '%s - SUMMARY'" % (path, summary, name))
    if component in COMPONENTS:
        described = found["INITIALIZATION PARAMETERS"]
        for param in help_parameters(component, plugin_dir):
            if not re.search(r"(?m)^ {7}%s\b" % re.escape(param), described):
                vmtest.fail("%s does not describe the parameter %s that its help lists"
                            % (path, param))
    elif any(("babeltrace2-%s(7)" % c) not in text for c in COMPONENTS):
        vmtest.fail("%s does not name the page of every component class" % path)
    elif not re.search(r"\S*/tracing\.md\b", found["DESCRIPTION"]) or \
            "lttng list -k | grep kvm_x86" not in " ".join(found["DESCRIPTION"].split()):
        vmtest.fail("%s: its DESCRIPTION does not point to tracing.md (how to record "
                    "the traces) and to `lttng list -k | grep kvm_x86`" % path)
    return order
