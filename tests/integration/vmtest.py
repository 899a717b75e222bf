"""Shared helpers of the integration tests.

The tests run the real `babeltrace2` CLI with the freshly built plugin, on
CTF traces generated from the stubs of stub-traces/ (or by the workload
generator), exactly as a user would. meson passes the locations through the
environment (see tests/integration/meson.build).

Exit codes follow meson: 0 pass, 77 skip, anything else fails.
"""

import contextlib
import fcntl
import os
import shlex
import subprocess
import sys

SOURCE_DIR = os.environ.get("VM_SOURCE_DIR", os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..")))
BUILD_DIR = os.environ.get("VM_BUILD_DIR", os.path.join(SOURCE_DIR, "build"))
PLUGIN_DIR = os.environ.get("VM_PLUGIN_DIR", os.path.join(BUILD_DIR, "plugin"))
STUBGEN_PLUGIN_DIR = os.environ.get(
    "VM_STUBGEN_PLUGIN_DIR", os.path.join(BUILD_DIR, "tests", "stubgen"))
WORKLOAD = os.environ.get(
    "VM_WORKLOAD", os.path.join(BUILD_DIR, "tests", "workload", "vm-workload"))
STUB_DIR = os.path.join(SOURCE_DIR, "stub-traces")
# Where generated traces are cached between tests of one build.
WORK_DIR = os.environ.get("VM_TEST_WORK_DIR", os.path.join(BUILD_DIR, "test-work"))

SKIP = 77


def skip(reason):
    print("SKIP: " + reason)
    sys.exit(SKIP)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def shared_dir():
    """The read-only ../shared material, or None when this checkout has none."""
    path = os.environ.get("VM_SHARED_DIR",
                          os.path.join(SOURCE_DIR, "..", "shared"))
    return path if os.path.isdir(path) else None


def shared_path(*parts):
    """A path under ../shared, skipping the test when it is absent."""
    base = shared_dir()
    if base is None:
        skip("../shared is not present")
    path = os.path.join(base, *parts)
    if not os.path.exists(path):
        skip(path + " is not present")
    return path


def _wrapper():
    """Valgrind (or nothing) around babeltrace2 runs that load the plugin."""
    return shlex.split(os.environ.get("VM_BT_WRAPPER", ""))


def under_valgrind():
    """Whether plugin runs go through valgrind (meson test --setup=valgrind).

    Valgrind costs 20x to 50x: tests then keep their big inputs for the plain
    run, which checks results; the valgrind run checks memory on small ones."""
    return bool(_wrapper())


def skip_under_valgrind(why):
    """Skips a test that has no run of the plugin valgrind could check (WHY:
    its graphs are built in Python in its own process, or it runs no plugin
    at all): under --setup=valgrind it would only repeat the plain run."""
    if under_valgrind():
        skip("nothing of it runs under valgrind (%s): the plain and sanitized runs "
             "check it" % why)


def small_inputs():
    """Whether the heaviest generated workloads should be made smaller.

    True under valgrind and in sanitized builds (meson sets VM_TEST_SMALL
    there, tests/integration/meson.build): those runs look for memory errors
    and undefined behaviour, which a smaller input of the same shape finds
    on the same code paths at a fraction of the cost. The plain build
    always runs the full sizes, so every result is still checked at full
    size in one configuration."""
    return under_valgrind() or os.environ.get("VM_TEST_SMALL", "") not in ("", "0")


@contextlib.contextmanager
def cache_lock(path):
    """Holds an exclusive lock on the cache entry PATH (a file or directory
    that may not exist yet) while the block runs.

    Integration tests run in parallel and share cached traces (the stub
    scenarios, generated workloads): the first test makes an entry while
    the others wait, instead of deleting each other's half-written files."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path.rstrip("/") + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def sanitizer_runtime_first():
    """For a test that loads the plugin into its own process (python3-bt2
    graphs): in a sanitized build, runs the test again with the sanitizer
    runtime preloaded, which must come first in the process. Call it before
    importing bt2."""
    if os.environ.get("VM_BT_PRELOAD") and "LD_PRELOAD" not in os.environ:
        os.execve(sys.executable, [sys.executable] + sys.argv,
                  dict(os.environ, LD_PRELOAD=os.environ["VM_BT_PRELOAD"]))


def _env():
    env = dict(os.environ)
    preload = os.environ.get("VM_BT_PRELOAD")
    if preload:
        # A sanitized plugin inside a plain babeltrace2: the sanitizer runtime
        # must come first in the process.
        env["LD_PRELOAD"] = preload
    return env


# Component classes whose code is the product's: the plugin's own, and the
# test harness filter.vmtest.mirror, which runs filter.vm.correlate's mirror.
PRODUCT_CLASS_PREFIXES = ("filter.vm.", "sink.vm.", "filter.vmtest.mirror")


def runs_product_code(args):
    """Whether a babeltrace2 command line instantiates (or asks for the help
    of) one of the product's component classes.

    Only those runs are worth valgrind's time (about 1.5 s of start-up
    each): a stock graph over a copy (src.ctf.fs -> sink.text.details),
    or the test-only stub source alone, runs no line of the plugin."""
    return any(prefix in arg for arg in args for prefix in PRODUCT_CLASS_PREFIXES)


def _command(args, plugin_paths=None, wrap=True):
    paths = plugin_paths if plugin_paths is not None else [PLUGIN_DIR]
    cmd = ["babeltrace2"]
    if paths:
        cmd.append("--plugin-path=" + ":".join(paths))
    cmd += list(args)
    if wrap and paths and runs_product_code(args):
        cmd = _wrapper() + cmd
    return cmd


def popen_babeltrace2(args, **kwargs):
    """Starts babeltrace2 with the plugin, as babeltrace2() runs it, for a
    test that acts on the running process; returns the Popen."""
    return subprocess.Popen(_command(args), env=_env(), **kwargs)


def babeltrace2(args, check=True, plugin_paths=None, wrap=True, stdout=None):
    """Runs babeltrace2 with the plugin; returns the CompletedProcess."""
    cmd = _command(args, plugin_paths, wrap)
    proc = subprocess.run(cmd, stdout=stdout if stdout is not None else subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=_env())
    if check and proc.returncode != 0:
        fail("command failed (%d): %s\n--- stderr ---\n%s" % (
            proc.returncode, " ".join(shlex.quote(c) for c in cmd), proc.stderr[-20000:]))
    return proc


def stub_to_ctf(stub_path, out_dir=None):
    """Converts one stub file into a CTF trace directory (cached); returns it."""
    stub_path = os.path.abspath(stub_path)
    if out_dir is None:
        rel = os.path.relpath(stub_path, STUB_DIR)
        if rel.startswith(".."):
            # Not a bundled stub: named after its own path, so that two
            # tests' `host.stub` never share (and overwrite) one CTF copy.
            rel = os.path.join("other", os.path.abspath(stub_path).strip(os.sep))
        out_dir = os.path.join(WORK_DIR, "stub-ctf", rel[:-len(".stub")]
                               if rel.endswith(".stub") else rel)
    stamp = os.path.join(out_dir, ".stamp")
    with cache_lock(out_dir):
        if os.path.exists(stamp) and os.path.getmtime(stamp) >= os.path.getmtime(stub_path):
            return out_dir
        subprocess.run(["rm", "-rf", out_dir], check=True)
        proc = subprocess.run(
            [os.path.join(SOURCE_DIR, "tests", "tools", "stub2ctf"), stub_path, out_dir],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=dict(os.environ, VM_STUBGEN_PLUGIN_DIR=STUBGEN_PLUGIN_DIR))
        if proc.returncode != 0:
            fail("stub2ctf %s failed:\n%s" % (stub_path, proc.stderr[-20000:]))
        with open(stamp, "w"):
            pass
    return out_dir


def scenario(name):
    """All machines of a stub scenario as CTF dirs: {machine file stem: dir}."""
    folder = os.path.join(STUB_DIR, name)
    result = {}
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".stub"):
            result[entry[:-5]] = stub_to_ctf(os.path.join(folder, entry))
    if not result:
        fail("no .stub file in " + folder)
    return result
