#ifndef VM_CORRELATE_HOST_AHEAD_H
#define VM_CORRELATE_HOST_AHEAD_H

/*
 * Read once, when several machines declare KVM entries: reads on (into
 * `pending`) until the entries counted tell the host, or a budget is
 * spent. Called again after AGAIN; OK once done.
 */

#include "correlate/context.h"

bt_message_iterator_class_next_method_status correlate_read_ahead_for_host(
		struct correlate_iter *iter);

/* Forgets what was counted (a seek). */
void correlate_host_ahead_reset(struct correlate_iter *iter);

#endif /* VM_CORRELATE_HOST_AHEAD_H */
