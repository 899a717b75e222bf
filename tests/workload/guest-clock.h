/* A machine's clock as a function of true time (the host clock).
 *
 * machine_ns(t) = t + offset_ns + round(acc(t) / 1e9), rounded to the
 * nearest nanosecond (halves up), where acc(t), in ppb x ns, is the drift
 * accumulated since origin_ns. Without slewing acc(t) = (t - origin_ns) *
 * drift_ppb: one line, whose inverse timemap.csv prints. With slewing (as
 * NTP's frequency corrections do) the drift changes at random times:
 * segment k, from true time begin_ns, has its own drift_ppb, and acc is
 * continuous, so the clock is a continuous, increasing, piecewise-linear
 * function of t and each segment has its own exact inverse line
 * (timemap-segments.csv). The inverses land back on t within one
 * nanosecond. */
#ifndef VM_WORKLOAD_GUEST_CLOCK_H
#define VM_WORKLOAD_GUEST_CLOCK_H

#include <glib.h>
#include <stdint.h>

#include "rng.h"

/* One linear piece of a slewed clock. */
typedef struct wl_clock_segment {
	uint64_t begin_ns, end_ns; /* true times, [begin, end) */
	int64_t drift_ppb;
	__int128 acc; /* acc(begin_ns), ppb x ns */
} wl_clock_segment;

/* The segments of a slewed clock, drawn as true time reaches them from an
 * RNG of their own, so slewing changes no other random choice of a run. */
typedef struct wl_clock_slew {
	wl_rng rng;
	int64_t base_ppb; /* the clock's drift_ppb */
	int64_t step_ppb; /* each segment's drift is base +- up to this */
	uint64_t min_ns, max_ns; /* segment lengths */
	GArray *segments; /* of wl_clock_segment, begin_ns order */
} wl_clock_slew;

typedef struct wl_clock {
	uint64_t origin_ns;
	int64_t offset_ns;
	int64_t drift_ppb;
	/* NULL: one line (drift_ppb throughout). */
	wl_clock_slew *slew;
} wl_clock;

/* The inverse of one segment: t_true = slope * t_machine + offset, for
 * machine readings from machine_begin_ns (the reading at true_begin_ns)
 * until the next segment's. */
typedef struct wl_clock_piece {
	uint64_t true_begin_ns;
	uint64_t machine_begin_ns;
	int64_t drift_ppb;
	long double slope, offset;
} wl_clock_piece;

/* Makes CLOCK slewed: from its origin, segments of min_ns..max_ns of true
 * time (min_ns >= 1), each with drift drift_ppb + a uniform step in
 * [-step_ppb, step_ppb]; the draws are seeded by SEED alone. */
void wl_clock_slew_start(wl_clock *clock, uint64_t seed, int64_t step_ppb, uint64_t min_ns,
			 uint64_t max_ns);
/* Releases the segments (the clock is a line again). */
void wl_clock_slew_clear(wl_clock *clock);

/* The machine's own reading, ns since the epoch, at true time t >= origin.
 * The clock is logically const: a slewed clock draws its next segments
 * when t reaches them, which depends on nothing but its seed. */
uint64_t wl_clock_read(const wl_clock *clock, uint64_t t);
/* t_true = slope * t_machine + offset (the inverse of wl_clock_read; of its
 * first segment when slewed). */
void wl_clock_inverse(const wl_clock *clock, long double *slope, long double *offset);
/* Segments drawn so far (1 for a line), and the inverse of segment I. */
guint wl_clock_pieces(const wl_clock *clock);
wl_clock_piece wl_clock_piece_at(const wl_clock *clock, guint i);

#endif
