#!/usr/bin/python3
"""lib/sync on a real trace pair: Trace Compass's scp_src / scp_dest.

Each trace is read with a graph of its own (the stock muxer refuses these
LTTng 2.1 traces: their packets overlap), its TCP events are fed in time
order to the sync-replay tool, and the result must match what Trace Compass's
TmfExperimentSyncTest expects for this pair.
"""

import os
import subprocess
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest  # noqa: E402

# Trace Compass's expected transform of the scp_src trace (VM1), with scp_dest
# (VM3) the identity.
TC_SLOPE = "0.9999413783703139011056845831168394"
TC_OFFSET = "79796507913179.33347660124688298171"
TC_MATCHES = 46
SIGNIFICANT = 1e-12

TCP = 1
SENDERS = ("inet_sock_local_out",)
RECEIVERS = ("inet_sock_local_in",)

try:
    import bt2
except ImportError:
    vmtest.skip("python3-bt2 is not importable")


class _Collect(bt2._UserSinkComponent):
    """Drains every input port, one after the other, into a Python list."""

    def __init__(self, config, params, obj):
        self._ports = [self._add_input_port(name) for name in obj["ports"]]
        self._sink = obj["sink"]
        self._iterators = []

    def _user_graph_is_configured(self):
        self._iterators = [self._create_message_iterator(p) for p in self._ports]

    def _user_consume(self):
        if not self._iterators:
            raise bt2.Stop
        try:
            message = next(self._iterators[0])
        except StopIteration:
            self._iterators.pop(0)
            return
        self._sink(message)


def read_trace(path):
    """(hostname, clock UUID, [(ts, role, seq, ack_seq, flags)]) of one trace."""
    found = {"hostname": None, "uuid": None, "events": []}

    def sink(message):
        if isinstance(message, bt2._StreamBeginningMessageConst):
            found["hostname"] = str(message.stream.trace.environment["hostname"])
            return
        if not isinstance(message, bt2._EventMessageConst):
            return
        event = message.event
        if event.name in SENDERS:
            role = "send"
        elif event.name in RECEIVERS:
            role = "receive"
        else:
            return
        snapshot = message.default_clock_snapshot
        found["uuid"] = str(snapshot.clock_class.uuid)
        payload = event.payload_field
        found["events"].append((snapshot.ns_from_origin, role, int(payload["seq"]),
                                int(payload["ack_seq"]), int(payload["flags"])))

    graph = bt2.Graph()
    source = graph.add_component(bt2.find_plugin("ctf").source_component_classes["fs"],
                                 "source", {"inputs": [path]})
    names = ["in%d" % i for i in range(len(source.output_ports))]
    sink_component = graph.add_component(_Collect, "sink",
                                         obj={"ports": names, "sink": sink})
    for name, port in zip(names, source.output_ports.values()):
        graph.connect_ports(port, sink_component.input_ports[name])
    graph.run()
    return found["hostname"], found["uuid"], found["events"]


def replay(traces, naming, reference):
    """Runs sync-replay on the traces' events merged in time order, machines
    named by `naming` ("hostname" or "uuid"); returns {name: result fields}."""
    merged = []
    for trace in traces:
        name = trace[naming]
        merged += [(ts, name, role, seq, ack, flags)
                   for ts, role, seq, ack, flags in trace["events"]]
    merged.sort(key=lambda e: (e[0], e[1]))
    lines = "".join("%s %s %d %d %d %d %d\n" % (name, role, TCP, seq, ack, flags, ts)
                    for ts, name, role, seq, ack, flags in merged)
    tool = os.path.join(vmtest.BUILD_DIR, "tests", "unit", "sync-replay")
    proc = subprocess.run([tool, reference], input=lines, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        vmtest.fail("sync-replay failed: " + proc.stderr)
    results = {}
    for line in proc.stdout.splitlines():
        name, quality, slope, offset, accuracy, matches, parent = line.split()
        results[name] = {"quality": quality, "slope": float(slope), "offset": float(offset),
                         "accuracy": float(accuracy), "matches": int(matches),
                         "parent": parent, "slope_text": slope, "offset_text": offset}
    return results


def match_messages(vm1_events, vm3_events):
    """[(sender, send ts, receive ts)]: first unmatched send and receive of
    each key on different machines, like lib/sync (sender "VM1" or "VM3")."""
    waiting = {}
    messages = []
    merged = sorted([(e[0], "VM1", e) for e in vm1_events] +
                    [(e[0], "VM3", e) for e in vm3_events], key=lambda m: (m[0], m[1]))
    for ts, machine, (_, role, seq, ack, flags) in merged:
        queue = waiting.setdefault((seq, ack, flags), [])
        partner = next((w for w in queue if w[1] != role and w[0] != machine), None)
        if partner is None:
            queue.append((machine, role, ts))
            continue
        queue.remove(partner)
        send, receive = ((machine, ts), partner) if role == "send" else (partner, (machine, ts))
        messages.append((send[0], send[-1], receive[-1]))
    return messages


def causality_errors(label, fit, messages):
    """Messages that the VM1 -> VM3 map makes arrive before they left."""
    slope = Fraction(fit["slope_text"])
    offset = Fraction(fit["offset_text"])
    errors = []
    for sender, send_ts, receive_ts in messages:
        if sender == "VM1":
            early = slope * send_ts + offset - receive_ts
        else:
            early = send_ts - (slope * receive_ts + offset)
        if early > 1:
            errors.append("%s order: a message from %s arrives %.0f ns before it left"
                          % (label, sender, float(early)))
    return errors


def close(value, expected_text):
    expected = float(expected_text)
    return abs(value - expected) <= SIGNIFICANT * abs(expected)


def main():
    base = vmtest.shared_path("traces", "tc-synctraces")
    traces = []
    for folder, hostname in (("scp_src", "VM1"), ("scp_dest", "VM3")):
        found_host, uuid, events = read_trace(os.path.join(base, folder))
        if found_host != hostname:
            vmtest.fail("%s: hostname %r, expected %r" % (folder, found_host, hostname))
        if not events or uuid is None:
            vmtest.fail(folder + ": no TCP event")
        traces.append({"hostname": hostname, "uuid": uuid, "events": events})
    vm1, vm3 = traces

    # Trace Compass names a machine by its clock UUID; VM3's is the smaller
    # one, so VM3 is the pair's ref side and VM1 gets t / a - b / a.
    if not vm3["uuid"] < vm1["uuid"]:
        vmtest.fail("clock UUIDs do not order VM3 first: %s %s" % (vm3["uuid"], vm1["uuid"]))
    results = replay(traces, "uuid", vm3["uuid"])
    got = results[vm1["uuid"]]
    print("VM1 -> VM3 (UUID order): %s slope %s offset %s accuracy %g matches %d" % (
        got["quality"], got["slope_text"], got["offset_text"], got["accuracy"],
        got["matches"]))
    print("Trace Compass:                     slope %s offset %s" % (TC_SLOPE, TC_OFFSET))
    errors = []
    if got["matches"] != TC_MATCHES:
        errors.append("matches %d, expected %d" % (got["matches"], TC_MATCHES))
    if got["quality"] != "accurate":
        errors.append("quality " + got["quality"])
    if not close(got["slope"], TC_SLOPE):
        errors.append("slope %s, expected %s" % (got["slope_text"], TC_SLOPE))
    if not close(got["offset"], TC_OFFSET):
        errors.append("offset %s, expected %s" % (got["offset_text"], TC_OFFSET))
    reference = results[vm3["uuid"]]
    if (reference["quality"], reference["slope"], reference["offset"],
            reference["matches"]) != ("absent", 1.0, 0.0, 0):
        errors.append("reference VM3 is not the identity: %r" % reference)

    # Named by hostname, VM1 becomes the pair's ref side: the hull has the
    # other orientation and its bisector differs (the hull is wide with 46
    # messages), but any fit of an accurate hull lies between two lines that
    # separate the messages, so both maps must keep every message causal.
    by_host = replay(traces, "hostname", "VM3")["VM1"]
    print("VM1 -> VM3 (hostname order): %s slope %s offset %s matches %d" % (
        by_host["quality"], by_host["slope_text"], by_host["offset_text"],
        by_host["matches"]))
    if by_host["matches"] != TC_MATCHES or by_host["quality"] != "accurate":
        errors.append("hostname order: %r" % by_host)
    messages = match_messages(vm1["events"], vm3["events"])
    if len(messages) != TC_MATCHES:
        errors.append("%d messages matched here, expected %d" % (len(messages), TC_MATCHES))
    for label, fit in (("UUID", got), ("hostname", by_host)):
        errors += causality_errors(label, fit, messages)
    if errors:
        vmtest.fail("; ".join(errors))
    print("PASS")


if __name__ == "__main__":
    main()
