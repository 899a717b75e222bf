"""sink.vm.threads' `path`: a failed run leaves the previous output file as it
was, a good one replaces it whole, and neither leaves a temporary file
behind; a `path` that cannot be created fails at initialization, naming
`path`, and so does one that must not be replaced (a symbolic link to
nothing; as root: another user's read-only file, another user's file in a
sticky directory); SIGTERM and SIGINT leave no temporary file behind; a
full standard output (no `path`) is an error that blames no `path`.

The unit test output-file checks the same rules on lib/writers alone, plus
a final rename that fails (the output is then kept, and named)."""

import json
import os
import pwd
import shutil
import signal
import stat
import subprocess
import time

import truthdata
import vmtest
import threads_common as tc

OLD = "the previous run's output\n"

# A later error of the graph: correlate only knows the machines once it reads.
FAILING = ["-c", "filter.vm.correlate", "-p", 'reference="nope"']
GOOD = ["-c", "filter.vm.correlate"]


def run(traces, correlate, sink_params, check=True, stdout=None):
    return vmtest.babeltrace2(list(traces) + correlate + [
        "-c", "filter.vm.state", "-c", "sink.vm.threads", "-p", sink_params],
        check=check, stdout=stdout)


def check_parses(fmt, text):
    if fmt == "csv":
        tc.parse_csv(text, "threads")
    elif fmt == "json":
        tc.parse_json_lines(text, "threads")
    elif fmt == "chrome":
        tc.check_chrome(text)
    elif not text.startswith("Threads") and not text.startswith("Guest threads"):
        vmtest.fail("text output does not start with its threads table:\n" + text)


def only_file(folder, name):
    entries = sorted(os.listdir(folder))
    if entries != [name]:
        vmtest.fail("%s holds %s, expected only %s (a temporary file left "
                    "behind?)" % (folder, entries, name))


def read(path):
    with open(path) as f:
        return f.read()


def check_format(traces, fmt, folder):
    path = os.path.join(folder, "out." + fmt)
    with open(path, "w") as f:
        f.write(OLD)
    os.chmod(path, 0o640)
    params = 'format="%s",path="%s"' % (fmt, path)
    failed = run(traces, FAILING, params, check=False)
    # 1: babeltrace2's error; valgrind's errors exit with 99, crashes < 0.
    if failed.returncode != 1:
        vmtest.fail("reference=\"nope\": exit status %d, not 1:\n%s" % (
            failed.returncode, failed.stderr[-5000:]))
    if "`reference`" not in failed.stderr:
        vmtest.fail("the run failed for another reason:\n" + failed.stderr)
    if read(path) != OLD:
        vmtest.fail("format=%s: a failed run changed the previous output to %r"
                    % (fmt, read(path)[:200]))
    only_file(folder, os.path.basename(path))

    expected = run(traces, GOOD, 'format="%s"' % fmt).stdout
    check_parses(fmt, expected)
    good = run(traces, GOOD, params)
    if good.stdout:
        vmtest.fail("path given, yet output on stdout:\n" + good.stdout)
    if read(path) != expected:
        vmtest.fail("format=%s: the file holds\n%s\nnot the run's output\n%s" % (
            fmt, read(path)[:2000], expected[:2000]))
    only_file(folder, os.path.basename(path))
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode != 0o640:
        vmtest.fail("format=%s: the replaced file has mode %o, not its previous "
                    "0640" % (fmt, mode))


def check_new_file_mode(traces, folder):
    """A new file gets the mode fopen() would give it (0666 less the umask),
    not a temporary file's 0600."""
    path = os.path.join(folder, "new.csv")
    old_umask = os.umask(0o022)
    try:
        run(traces, GOOD, 'format="csv",path="%s"' % path)
    finally:
        os.umask(old_umask)
    mode = stat.S_IMODE(os.stat(path).st_mode)
    if mode != 0o644:
        vmtest.fail("a new output file has mode %o, not 0644 (umask 022)" % mode)
    os.remove(path)


def check_symlink(traces, folder):
    """Through a symbolic link, the target is replaced, the link stays."""
    target = os.path.join(folder, "target.csv")
    link = os.path.join(folder, "link.csv")
    with open(target, "w") as f:
        f.write(OLD)
    os.symlink("target.csv", link)
    run(traces, GOOD, 'format="csv",path="%s"' % link)
    if not os.path.islink(link):
        vmtest.fail("the symbolic link given as `path` was replaced by a file")
    tc.parse_csv(read(target), "threads")
    if sorted(os.listdir(folder)) != ["link.csv", "target.csv"]:
        vmtest.fail("after writing through a link: %s" % sorted(os.listdir(folder)))
    os.remove(link)
    os.remove(target)


def check_not_a_regular_file(traces):
    """A device is written to, not replaced."""
    out = run(traces, GOOD, 'format="csv",path="/dev/stdout"')
    tc.parse_csv(out.stdout, "threads")


def check_full_stdout(traces):
    """No `path`, a standard output that cannot be written (> /dev/full):
    the error says so, and blames no `path` that was never given."""
    with open("/dev/full", "w") as full:
        proc = run(traces, GOOD, 'format="csv"', check=False, stdout=full)
    flat = " ".join(proc.stderr.split())
    if proc.returncode != 1 or "Cannot write the output to the standard output" not in flat:
        vmtest.fail("> /dev/full: exit status %d, error:\n%s" % (proc.returncode,
                                                               proc.stderr[-3000:]))
    if "given by parameter `path`" in flat:
        vmtest.fail("> /dev/full: the error blames a `path` never given:\n" + proc.stderr)


def check_cannot_create(traces, folder):
    a_file = os.path.join(folder, "plain-file")
    with open(a_file, "w") as f:
        f.write(OLD)
    paths = [os.path.join(folder, "no-such-dir", "out.csv"),
             os.path.join(a_file, "out.csv")]
    read_only = os.path.join(folder, "read-only")
    os.mkdir(read_only)
    os.chmod(read_only, 0o555)
    # root writes anywhere: a read-only directory only stops other users.
    if os.geteuid() != 0:
        paths.append(os.path.join(read_only, "out.csv"))
    for path in paths:
        # No correlate: the error must come from the sink's initialization.
        proc = vmtest.babeltrace2(list(traces) + [
            "-c", "sink.vm.threads", "-p", 'format="csv",path="%s"' % path],
            check=False)
        if proc.returncode != 1:
            vmtest.fail("path=%s: exit status %d, not 1 (an error):\n%s" % (
                path, proc.returncode, proc.stderr[-5000:]))
        for word in ("`path`", path, "initialization"):
            if word not in proc.stderr:
                vmtest.fail("error for path=%s does not say %s:\n%s" % (
                    path, word, proc.stderr))
    if os.listdir(read_only):
        vmtest.fail("files left in the read-only directory")
    os.chmod(read_only, 0o755)
    if read(a_file) != OLD:
        vmtest.fail("a failed initialization changed a file")


def init_error(traces, path, words):
    """A sink run with `path` fails at initialization, saying `words`."""
    proc = vmtest.babeltrace2(list(traces) + [
        "-c", "sink.vm.threads", "-p", 'format="csv",path="%s"' % path], check=False)
    if proc.returncode != 1:
        vmtest.fail("path=%s: exit status %d, not 1 (an error):\n%s" % (
            path, proc.returncode, proc.stderr[-5000:]))
    flat = " ".join(proc.stderr.split())
    for word in ["`path`", "initialization"] + words:
        if word not in flat:
            vmtest.fail("error for path=%s does not say %s:\n%s" % (path, word,
                                                                  proc.stderr))


def check_dangling_link(traces, folder):
    """A link to nothing: an error naming where it points, nothing created."""
    folder = os.path.join(folder, "dangling")
    os.mkdir(folder)
    link = os.path.join(folder, "dangling.csv")
    os.symlink("gone/out.csv", link)
    init_error(traces, link, ['"gone/out.csv", which does not exist'])
    only_file(folder, "dangling.csv")
    shutil.rmtree(folder)


def check_other_users_files(traces, folder):
    """As root (the kernel lets root replace anything): another user's
    read-only file, and another user's file in a sticky directory, are
    errors at initialization and stay as they were, owner included."""
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        nobody = None
    if os.geteuid() != 0 or nobody is None:
        print("other users' files: skipped (needs root and user nobody)")
        return
    plain = os.path.join(folder, "users")
    sticky = os.path.join(folder, "sticky")
    os.mkdir(plain)
    os.mkdir(sticky)
    os.chmod(sticky, 0o1777)
    cases = ((os.path.join(plain, "read-only.csv"), 0o444, ["not writable"]),
             (os.path.join(sticky, "theirs.csv"), 0o666, ["sticky directory"]))
    for path, mode, words in cases:
        with open(path, "w") as f:
            f.write(OLD)
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
        os.chmod(path, mode)
        init_error(traces, path, [path] + words)
        st = os.stat(path)
        if read(path) != OLD or st.st_uid != nobody.pw_uid:
            vmtest.fail("%s was changed (owner uid %d)" % (path, st.st_uid))
        only_file(os.path.dirname(path), os.path.basename(path))
        os.remove(path)
    os.rmdir(plain)
    os.rmdir(sticky)
    print("other users' files: refused at initialization, left as they were")


def signalled_run(traces, path, sig):
    """The run stopped once its temporary file exists (so mid-run), given
    `sig`, then resumed; returns its exit status, or None when it ended
    before it could be stopped."""
    cmd = list(traces) + ["-c", "filter.vm.correlate", "-c", "filter.vm.state",
                          "-c", "sink.vm.threads", "-p", 'format="csv",path="%s"' % path]
    folder, name = os.path.split(path)
    proc = vmtest.popen_babeltrace2(cmd, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
    while proc.poll() is None and not any(
            f.startswith(name + ".") for f in os.listdir(folder)):
        time.sleep(0.001)
    proc.send_signal(signal.SIGSTOP)
    if proc.poll() is not None:
        return None
    proc.send_signal(sig)
    proc.send_signal(signal.SIGCONT)
    return proc.wait()


def check_signals(folder):
    """SIGTERM kills babeltrace2 (the temporary file goes with it), SIGINT
    stops its graph (the sink's finalization removes it): either way the
    previous output stays and no temporary file is left."""
    out = truthdata.generate("output-file-signals", ["--seed", 5, "--guests", 1,
                                                     "--duration-ms", 3000])
    traces = list(truthdata.ctf_traces(out).values())
    folder = os.path.join(folder, "signals")
    os.mkdir(folder)
    path = os.path.join(folder, "signalled.csv")
    for sig in (signal.SIGTERM, signal.SIGINT):
        with open(path, "w") as f:
            f.write(OLD)
        for _ in range(5):
            status = signalled_run(traces, path, sig)
            if status is not None:
                break
            with open(path, "w") as f:
                f.write(OLD)
        else:
            vmtest.fail("the run always ended before it could be signalled")
        if status == 0:
            vmtest.fail("%s: the run completed" % sig.name)
        if read(path) != OLD:
            vmtest.fail("%s: the previous output was changed" % sig.name)
        only_file(folder, os.path.basename(path))
        print("%s: exit status %d, no temporary file left" % (sig.name, status))
    os.remove(path)


def main():
    tc.require_component("filter.vm.state")
    ctf = vmtest.scenario("one-qemu-kvm")
    traces = [ctf["host"], ctf["guest"]]
    root = os.path.join(vmtest.WORK_DIR, "threads-output-file")
    shutil.rmtree(root, ignore_errors=True)
    for fmt in ("text", "csv", "json", "chrome"):
        folder = os.path.join(root, fmt)
        os.makedirs(folder)
        check_format(traces, fmt, folder)
    others = os.path.join(root, "others")
    os.makedirs(others)
    check_new_file_mode(traces, others)
    check_symlink(traces, others)
    check_not_a_regular_file(traces)
    check_full_stdout(traces)
    check_cannot_create(traces, others)
    check_dangling_link(traces, others)
    check_other_users_files(traces, others)
    check_signals(others)
    shutil.rmtree(root, ignore_errors=True)
    print("sink.vm.threads: `path` replaced only by a complete output")


main()
