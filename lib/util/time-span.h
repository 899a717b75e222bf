#ifndef VM_UTIL_TIME_SPAN_H
#define VM_UTIL_TIME_SPAN_H

/*
 * Comparisons of time differences that cannot overflow. Timestamps are
 * int64_t ns and traces (or fuzzed input) may hold any of them: `later -
 * earlier` overflows as soon as the two are more than 2^63 ns apart.
 */

#include <stdbool.h>
#include <stdint.h>

/* Whether `later` is more than `span` (>= 0) after `earlier`. */
static inline bool vm_time_span_exceeds(int64_t later, int64_t earlier, int64_t span)
{
	if (later <= earlier) {
		return false;
	}
	return (uint64_t) later - (uint64_t) earlier > (uint64_t) span;
}

/* `later - earlier`, saturated to the int64_t range. */
static inline int64_t vm_time_span(int64_t later, int64_t earlier)
{
	if (earlier < 0 && later > INT64_MAX + earlier) {
		return INT64_MAX;
	}
	if (earlier > 0 && later < INT64_MIN + earlier) {
		return INT64_MIN;
	}
	return later - earlier;
}

/* `a + b`, saturated to the int64_t range (sums of durations). */
static inline int64_t vm_time_sum(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b) {
		return INT64_MAX;
	}
	if (b < 0 && a < INT64_MIN - b) {
		return INT64_MIN;
	}
	return a + b;
}

#endif /* VM_UTIL_TIME_SPAN_H */
