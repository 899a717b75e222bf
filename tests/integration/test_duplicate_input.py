"""filter.vm.correlate warns once when the same trace comes in twice (two
src.ctf.fs on one trace directory in a `babeltrace2 run` graph): its events
come out twice, and nothing said so. No such warning when each trace comes
once."""

import vmtest
import btlog

WORDS = "Two inputs give the same trace"


def run(sources):
    args = ["run"]
    for i, trace in enumerate(sources):
        args += ["--component=src%d:src.ctf.fs" % i, '--params=inputs=["%s"]' % trace,
                 "--connect=src%d:correlate" % i]
    args += ["--component=correlate:filter.vm.correlate",
             "--component=out:sink.vm.threads", '--params=format="csv"',
             "--connect=correlate:out"]
    proc = vmtest.babeltrace2(args)
    return [w for w in btlog.warnings(proc.stderr) if WORDS in w]


stub = vmtest.scenario("two-guests")
once = [stub["host"], stub["guest1"], stub["guest2"]]
if run(once):
    vmtest.fail("each trace once, yet warned: %s" % run(once))
twice = run(once + [stub["guest1"]])
if len(twice) != 1 or "of trace `guest1`" not in twice[0]:
    vmtest.fail("guest1 given twice: %d warnings, want one naming it: %s" % (
        len(twice), twice))
print("the same trace given twice: one warning (%s)" % twice[0].split("] ", 1)[1][:90])
