#ifndef VM_CORRELATE_FORMULA_RANGE_H
#define VM_CORRELATE_FORMULA_RANGE_H

/*
 * A machine's formula must map its times into what the output clock holds:
 * nanoseconds from the Unix epoch, 0 to INT64_MAX (a clock value is
 * unsigned, and downstream reads it back as signed 64-bit nanoseconds from
 * origin). Nothing is clamped: a formula that maps a time out of it (given
 * by `transforms`, or computed by the synchronization) fails the message
 * iterator with an error cause that names the machine and what to change.
 *
 * It is checked as soon as the machine's times are known: at the end of the
 * sync pass over its whole span, else at the first conversion that does not
 * fit.
 */

#include <stdbool.h>
#include <stdint.h>

#include "correlate/context.h"

/* The output clock's range, in ns from the Unix epoch. */
#define CORRELATE_OUTPUT_MIN_NS INT64_C(0)
#define CORRELATE_OUTPUT_MAX_NS INT64_MAX

/*
 * After the sync pass: every machine's formula over the span of its times;
 * false with an error cause for the first one that does not fit.
 */
bool correlate_check_formula_spans(struct correlate_iter *iter);

/*
 * The converted time of `ns` (the machine's own clock) with its prepared
 * formula; false with an error cause when it does not fit.
 */
bool correlate_convert_time(struct correlate_iter *iter, struct machine *machine,
		const struct vm_sync_prepared *prepared, int64_t ns, int64_t *converted);

/*
 * The mirror's time function (mirror.h's mirror_time_fn): the reference
 * time of a time of `clock_class`, with the same map and the same errors
 * as correlate_convert_time().
 */
bool correlate_clock_time(void *data, const bt_clock_class *clock_class,
		int64_t ns_from_origin, int64_t *ref_ns);

/* A time whose ns from origin overflow: an error cause naming the machine. */
void correlate_overflow_error(struct correlate_iter *iter, const struct machine *machine,
		uint64_t clock_value);

/*
 * A lower bound of vm_sync_formula_apply(formula, t), cheaply (the merge's
 * bounds, computed on every message).
 */
int64_t correlate_formula_lower_bound(const struct vm_sync_formula *formula, int64_t t);

#endif /* VM_CORRELATE_FORMULA_RANGE_H */
