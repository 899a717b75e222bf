/* DIR/truth/timemap-segments.csv: the exact piecewise inverse of every
 * slewed guest clock (guest-clock.h), one row per segment. Written only
 * with --slew-ppm > 0: without slewing timemap.csv is exact and the output
 * stays what it was before slewing existed. */
#ifndef VM_WORKLOAD_TIMEMAP_SEGMENTS_H
#define VM_WORKLOAD_TIMEMAP_SEGMENTS_H

#include "model.h"

/* True when nothing is to be written or all went well; false (and a
 * message) on I/O error. Call after the run: a slewed clock's segments
 * are drawn as time reaches them. */
bool wl_timemap_segments_write(wl_sim *sim);

#endif
