"""sink.vm.threads on real LTTng kernel traces without a host: every format
and `what` works without warnings other than "no host", and each thread's
intervals cover exactly its observed lifetime, from its first sched_switch
or wakeup to the last event of the trace, as read here with python3-bt2."""

import bt2

import vmtest
import threads_common as tc

TRACES = [("traces", "tc-many-threads"),
          ("traces", "bt-lttng-tracefile-rotation", "kernel")]

WAKEUPS = ("sched_wakeup", "sched_waking", "sched_wakeup_new")


def observed_lifetimes(path):
    """{tid: first appearance}, last event time, tids forked again."""
    first = {}
    reused = set()
    last = None
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is not bt2._EventMessageConst:
            continue
        ts = msg.default_clock_snapshot.ns_from_origin
        last = ts if last is None else max(last, ts)
        ev = msg.event
        if ev.name == "sched_switch":
            tids = [int(ev.payload_field["prev_tid"]), int(ev.payload_field["next_tid"])]
        elif ev.name in WAKEUPS:
            tids = [int(ev.payload_field["tid"])]
        elif ev.name == "sched_process_fork":
            child = int(ev.payload_field["child_tid"])
            if child in first:
                reused.add(child)
            tids = []
        else:
            tids = []
        for tid in tids:
            if tid != 0 and tid not in first:
                first[tid] = ts
    return first, last, reused


def run_sink(path, params):
    proc = vmtest.babeltrace2([path, "-c", "filter.vm.state", "-c", "sink.vm.threads",
                               "-p", params])
    warnings = tc.warnings_of(proc.stderr)
    ours = [w for w in warnings if "sink.vm.threads" in w]
    others = [w for w in warnings if "no host" not in w.lower()]
    if len(ours) != 1 or "no host" not in ours[0] or others:
        vmtest.fail("%s with %s: expecting no warning but 'no host' ones, and one "
                    "of sink.vm.threads:\n%s" % (path, params, proc.stderr))
    return proc.stdout


def check_lifetimes(path, rows):
    first, last, reused = observed_lifetimes(path)
    spans = tc.check_threads_tile(rows)
    reported = {int(tid) for _, tid in spans}
    if reported != set(first):
        vmtest.fail("%s: threads reported but never seen: %s; seen but not reported: %s"
                    % (path, sorted(reported - set(first))[:20],
                       sorted(set(first) - reported)[:20]))
    for (machine, tid), (begin, end, total) in spans.items():
        if int(tid) in reused:
            continue
        if begin != first[int(tid)] or total != last - first[int(tid)] or end != last:
            vmtest.fail("%s: thread %s covers [%d, %d) for %d ns; observed from %d "
                        "to the end %d" % (path, tid, begin, end, total,
                                           first[int(tid)], last))
    for row in rows:
        if row["state"] not in ("running", "runnable", "blocked") or row["vcpu"] or \
                row["reason"]:
            vmtest.fail("%s: not an own-view row: %s" % (path, row))
    return len(spans)


def check_trace(path):
    rows = tc.parse_csv(run_sink(path, 'format="csv"'), "threads")
    if not rows:
        vmtest.fail(path + ": no thread interval at all")
    threads = check_lifetimes(path, rows)
    json_rows = tc.parse_json_lines(run_sink(path, 'format="json"'), "threads")
    if len(json_rows) != len(rows):
        vmtest.fail("%s: %d json rows for %d csv rows" % (path, len(json_rows), len(rows)))
    tc.check_chrome(run_sink(path, 'format="chrome"'))
    if not run_sink(path, 'format="text"').strip():
        vmtest.fail(path + ": empty text summary")
    for what in ("vcpus", "exits"):
        if tc.parse_csv(run_sink(path, 'format="csv",what="%s"' % what), what):
            vmtest.fail("%s: what=%s rows without any host" % (path, what))
        run_sink(path, 'format="json",what="%s"' % what)
        tc.check_chrome(run_sink(path, 'format="chrome",what="%s"' % what))
    print("%s: %d threads, %d intervals" % (path, threads, len(rows)))


def main():
    paths = [vmtest.shared_path(*parts) for parts in TRACES]
    tc.require_component("filter.vm.state")
    for path in paths:
        if vmtest.under_valgrind() and "tc-many-threads" in path:
            # Minutes under valgrind: the plain run checks its results, the
            # rotation trace gives valgrind the same code paths.
            print("under valgrind, skipped (checked by the plain run): " + path)
            continue
        check_trace(path)


main()
