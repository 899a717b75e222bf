/* A machine's clock as a function of true time (the host clock).
 *
 * machine_ns(t) = t + offset_ns + round((t - origin_ns) * drift_ppb / 1e9),
 * rounded to the nearest nanosecond (halves up), so the inverse map that
 * timemap.csv prints lands back on t within one nanosecond. */
#ifndef VM_WORKLOAD_GUEST_CLOCK_H
#define VM_WORKLOAD_GUEST_CLOCK_H

#include <stdint.h>

typedef struct wl_clock {
	uint64_t origin_ns;
	int64_t offset_ns;
	int64_t drift_ppb;
} wl_clock;

/* The machine's own reading, ns since the epoch, at true time t >= origin. */
uint64_t wl_clock_read(const wl_clock *clock, uint64_t t);
/* t_true = slope * t_machine + offset (the inverse of wl_clock_read). */
void wl_clock_inverse(const wl_clock *clock, long double *slope, long double *offset);

#endif
