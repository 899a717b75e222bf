#ifndef VM_CORRELATE_MIRROR_H
#define VM_CORRELATE_MIRROR_H

/*
 * The output trace IR of filter.vm.correlate: for each upstream trace, a
 * mirror trace (same trace class content: environment, stream classes, event
 * classes and every field class) whose streams all share one default clock
 * class, the reference time base. Upstream messages are immutable, so each
 * one is re-created on the mirror with its times converted.
 */

#include <stdbool.h>
#include <stdint.h>
#include <babeltrace2/babeltrace.h>

struct mirror;

/*
 * The reference time (ns since the Unix epoch) of `ns_from_origin`, a time
 * of `upstream_clock_class`: the component's conversion, the only one (the
 * mirror converts nothing itself). False, with an error cause appended,
 * when there is none: the clock class belongs to no known machine, or the
 * time maps out of the output clock's range (0 to INT64_MAX ns).
 */
typedef bool (*mirror_time_fn)(void *data, const bt_clock_class *upstream_clock_class,
		int64_t ns_from_origin, int64_t *ref_ns);

/*
 * Called once per upstream trace, right after its mirror trace is created
 * and before any message of it is returned: the component adds its `vm_*`
 * environment entries to the output trace (its trace class is `output`'s).
 * Returns false, with an error cause appended, to fail the message.
 * (babeltrace2 has no generic component status type, hence a bool.)
 */
typedef bool (*mirror_trace_created_fn)(void *data,
		const bt_trace *upstream_trace, bt_trace *output_trace);

struct mirror *mirror_create(bt_self_message_iterator *self_msg_iter,
		bt_self_component *self_comp, bt_logging_level log_level,
		mirror_time_fn time_fn, mirror_trace_created_fn created_fn,
		void *data);

void mirror_destroy(struct mirror *mirror);

/*
 * The message that mirrors `in` with converted times, or NULL with an error
 * cause appended. Handles every message type: stream beginning/end (with
 * their default clock snapshots), packet beginning/end, events (every field
 * copied), discarded events/packets (time range and count), message iterator
 * inactivity. Mappings (upstream stream -> output stream, ...) live as long
 * as the mirror, so a seek to the beginning of the upstreams needs nothing
 * special.
 */
bt_message *mirror_convert(struct mirror *mirror, const bt_message *in);

/*
 * The same, for a caller that already converted the message's time:
 * `ref_ns` is what `time_fn` gives for its default clock snapshot (the
 * beginning one for discarded events/packets), and the output message
 * carries it without asking again.
 */
bt_message *mirror_convert_at(struct mirror *mirror, const bt_message *in,
		int64_t ref_ns);

/*
 * The converted time (ns since the Unix epoch, reference base) that the
 * output message for `in` carries, for ordering; false when `in` has no time.
 */
bool mirror_message_time(struct mirror *mirror, const bt_message *in,
		int64_t *ref_ns);

/*
 * An event message kept as a compact record while it waits (read once, the
 * look-ahead): mirror-parked.c says why. mirror_park() copies what the
 * mirror needs out of `in` (an event message; the caller keeps its
 * reference, and may put it at once) and takes references to its stream and
 * packet; `own_ns` is its own time, for error messages. NULL, with an error
 * cause appended, on failure.
 */
struct mirror_parked;

struct mirror_parked *mirror_park(struct mirror *mirror, const bt_message *in,
		int64_t own_ns);

/* The output event message of a parked event, at `ref_ns`; NULL with an error cause. */
bt_message *mirror_convert_parked(struct mirror *mirror, const struct mirror_parked *parked,
		bool has_time, int64_t ref_ns);

const bt_stream *mirror_parked_stream(const struct mirror_parked *parked);
void mirror_parked_destroy(struct mirror_parked *parked);

/* The output clock class (the reference time base), borrowed. */
bt_clock_class *mirror_borrow_clock_class(struct mirror *mirror);

#endif /* VM_CORRELATE_MIRROR_H */
