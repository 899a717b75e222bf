#ifndef VM_CORRELATE_INPUTS_H
#define VM_CORRELATE_INPUTS_H

/*
 * The upstream message iterators of filter.vm.correlate: one owner for
 * creating, reading, priming and seeking them, and for the scan of the
 * upstream read the least far.
 */

#include "correlate/context.h"

/* An upstream iterator on every connected input port (false: error cause). */
bool correlate_inputs_create(struct correlate_iter *iter,
		bt_self_component_filter *self_comp, bool *can_seek_forward);

/* The next message of upstream `index` (packets that overlap repaired, warned once). */
enum upstream_status correlate_pull(struct correlate_iter *iter, guint index,
		const bt_message **msg, struct msg_time *time);

/* The next method's status for an upstream status other than OK and END. */
bt_message_iterator_class_next_method_status correlate_status_of(struct correlate_iter *iter,
		enum upstream_status status, guint index);

/*
 * Reads each upstream up to its first timed message (and the beginnings
 * of the same time), into `pending`: after it, every machine is known.
 */
bt_message_iterator_class_next_method_status correlate_inputs_prime(
		struct correlate_iter *iter);

/*
 * What priming read goes into a strategy as if read now: what each upstream
 * showed and each stream's state are learnt again as it goes in.
 */
void correlate_inputs_forget_primes(struct correlate_iter *iter);

/* Seeks every upstream to its beginning; false with an error cause. */
bool correlate_seek_upstreams(struct correlate_iter *iter);

/*
 * The upstream read the least far (own clocks; ties to the lowest index),
 * -1 when all ended, and (returned) how far it was read: the frontier.
 * correlate_inputs_read_on() and correlate_inputs_ended() keep it cheap.
 */
int64_t correlate_inputs_least_read(struct correlate_iter *iter);
int correlate_inputs_pick(struct correlate_iter *iter);
void correlate_inputs_read_on(struct correlate_iter *iter, guint index);
void correlate_inputs_ended(struct correlate_iter *iter, guint index);
void correlate_inputs_forget_scan(struct correlate_iter *iter);

#endif /* VM_CORRELATE_INPUTS_H */
