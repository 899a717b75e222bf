#ifndef VM_SYNC_FORMULA_H
#define VM_SYNC_FORMULA_H

/*
 * The linear maps between machine clocks, in ns since the Unix epoch
 * (signed 64-bit), kept with enough precision to map a timestamp to the
 * nanosecond. No babeltrace2 types here.
 */

#include <stdbool.h>
#include <stdint.h>

/*
 * A linear map from one machine's clock to the reference clock:
 * t_ref = slope * t + offset_ns.
 */
struct vm_sync_formula {
	long double slope;
	long double offset_ns;
};

/* The identity: slope 1, offset 0. */
struct vm_sync_formula vm_sync_formula_identity(void);

/*
 * How far from 1 the slope of a map between two real clocks can be: crystal
 * clocks drift by parts per million, a guest clock a little more while NTP
 * slews it. Wider than any clock, narrow enough to refuse a line fit to
 * a handful of misplaced matches (slopes like 0.3 or negative ones).
 */
#define VM_SYNC_PLAUSIBLE_RATE 0.05L

/* Whether `slope` is within VM_SYNC_PLAUSIBLE_RATE of 1. */
bool vm_sync_slope_plausible(long double slope);

/*
 * Maps t, rounding to the nearest nanosecond, halves upward (saturates on
 * overflow). Fast: hardware long double where that decides the rounding.
 */
int64_t vm_sync_formula_apply(const struct vm_sync_formula *formula, int64_t t);

/*
 * The same map, false when its exact result is no int64_t (*result is then
 * saturated, as vm_sync_formula_apply() gives it).
 */
bool vm_sync_formula_apply_checked(const struct vm_sync_formula *formula, int64_t t,
		int64_t *result);

/*
 * Whether the formula maps every time of [first, last] into [low, high]
 * without overflow. A linear map takes a span's ends to its image's ends,
 * so the two ends decide; their images (saturated) are given back for
 * messages.
 */
bool vm_sync_formula_maps_span(const struct vm_sync_formula *formula,
		int64_t first, int64_t last, int64_t low, int64_t high,
		int64_t *mapped_first, int64_t *mapped_last);

/*
 * The same map always evaluated in 113-bit precision (emulated in software:
 * slow). vm_sync_formula_apply() gives the same result; tests hold it to it.
 */
int64_t vm_sync_formula_apply_exact(const struct vm_sync_formula *formula, int64_t t);

/* f(g(t)): first g, then f. */
struct vm_sync_formula vm_sync_formula_compose(const struct vm_sync_formula *f,
		const struct vm_sync_formula *g);

/* The inverse map (slope must not be 0). */
struct vm_sync_formula vm_sync_formula_invert(const struct vm_sync_formula *f);

#endif /* VM_SYNC_FORMULA_H */
