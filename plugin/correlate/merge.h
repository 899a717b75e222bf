#ifndef VM_CORRELATE_MERGE_H
#define VM_CORRELATE_MERGE_H

/*
 * The merge: every message goes into the reorder buffer at its converted
 * time, and leaves once no upstream (and nothing the strategy holds) can
 * still give an earlier one. The bound is computed here only, over the
 * strategy's floors (strategy.h).
 */

#include "correlate/context.h"
#include "correlate/mirror/mirror.h"

/* Into the reorder buffer, which then owns `msg`; false: the caller keeps it. */
bool correlate_push(struct correlate_iter *iter, guint upstream_index, const bt_message *msg,
		const struct msg_time *time);

/* The same for a parked event (read once), which it then owns; false: the caller keeps it. */
bool correlate_push_parked(struct correlate_iter *iter, guint upstream_index,
		struct mirror_parked *parked, const struct msg_time *time);

/* Computes the bound again (after `bound_valid` was cleared). */
void correlate_merge_compute_bound(struct correlate_iter *iter);

/* Whether the oldest message in the buffer can leave. */
bool correlate_merge_can_release(struct correlate_iter *iter);

/* The oldest message, on the output trace, into `msgs[*count]`. */
bt_message_iterator_class_next_method_status correlate_merge_release(
		struct correlate_iter *iter, bt_message_array_const msgs, uint64_t *count);

/* Empties the buffer and the pending messages; the upstream bounds start over. */
void correlate_merge_reset(struct correlate_iter *iter);

#endif /* VM_CORRELATE_MERGE_H */
