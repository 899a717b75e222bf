#ifndef VM_CORRELATE_MACHINES_H
#define VM_CORRELATE_MACHINES_H

/*
 * The machine and stream registries of filter.vm.correlate: what it knows
 * about each machine (struct machine_info) and each stream (struct
 * stream_state), created on first sight.
 */

#include "correlate/context.h"

/* The machine info of `machine`, created (identity) on first call. */
struct machine_info *correlate_machine_info(struct correlate_iter *iter,
		struct machine *machine);
void correlate_machine_info_destroy(gpointer data);

/* The state of a stream, registering its machine on first sight. */
struct stream_state *correlate_stream_state(struct correlate_iter *iter,
		const bt_stream *stream);
void correlate_stream_state_destroy(gpointer data);

/* The same, through the cache of the upstream the message came from. */
struct stream_state *correlate_upstream_stream_state(struct correlate_iter *iter,
		struct upstream_bound *bound, const bt_stream *stream);

/*
 * The machine of a message (its stream's, or its clock class's for an
 * inactivity message), NULL for none; `*state`: its stream's state, NULL
 * without a stream. A machine met after the others were named joins here.
 */
struct machine *correlate_message_machine(struct correlate_iter *iter,
		struct upstream_bound *bound, const bt_message *msg, const struct msg_time *time,
		struct stream_state **state);

/* A machine met after the others were named: it joins with what it has (a warning). */
void correlate_welcome_late_machine(struct correlate_iter *iter, struct machine *machine);

/* The machine whose clock is the time base, NULL before it is chosen. */
struct machine *correlate_reference_machine(struct correlate_iter *iter);

/* Drops every stream state (a seek makes streams start over). */
void correlate_forget_streams(struct correlate_iter *iter);

#endif /* VM_CORRELATE_MACHINES_H */
