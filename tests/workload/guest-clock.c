#include "guest-clock.h"

#define NS_PER_S 1000000000

/* floor(num / den) for den > 0. */
static __int128 floor_div(__int128 num, __int128 den)
{
	__int128 q = num / den;

	return (num % den != 0 && num < 0) ? q - 1 : q;
}

/* The reading at t on the line through (begin, acc) with slope drift. */
static uint64_t line_read(const wl_clock *clock, uint64_t begin, __int128 acc, int64_t drift,
			  uint64_t t)
{
	__int128 total = acc + ((__int128)t - begin) * drift;
	/* round(x / 1e9) = floor((2x + 1e9) / 2e9) */
	__int128 rounded = floor_div(2 * total + NS_PER_S, 2 * (__int128)NS_PER_S);

	return (uint64_t)((__int128)t + clock->offset_ns + rounded);
}

static void line_inverse(const wl_clock *clock, uint64_t begin, __int128 acc, int64_t drift,
			 long double *slope, long double *offset)
{
	/* m = t * (1 + k) + offset + (acc - k' * begin) / 1e9 with k = ppb / 1e9
	 * and k' = ppb, hence t = (m - offset + (k' * begin - acc) / 1e9) / (1 + k). */
	long double k_begin = (long double)((__int128)drift * begin - acc) / NS_PER_S;

	*slope = (long double)NS_PER_S / ((long double)NS_PER_S + drift);
	*offset = (k_begin - clock->offset_ns) * *slope;
}

static wl_clock_segment *last_segment(const wl_clock_slew *slew)
{
	return &g_array_index(slew->segments, wl_clock_segment, slew->segments->len - 1);
}

/* Draws the segment that starts at BEGIN, whose accumulated drift is ACC. */
static void add_segment(wl_clock_slew *slew, uint64_t begin, __int128 acc)
{
	uint64_t step = wl_rng_range(&slew->rng, 0, 2 * (uint64_t)slew->step_ppb);
	wl_clock_segment segment = {
		.begin_ns = begin,
		.drift_ppb = slew->base_ppb + (int64_t)step - slew->step_ppb,
		.acc = acc,
	};

	segment.end_ns = begin + wl_rng_range(&slew->rng, slew->min_ns, slew->max_ns);
	g_array_append_val(slew->segments, segment);
}

void wl_clock_slew_start(wl_clock *clock, uint64_t seed, int64_t step_ppb, uint64_t min_ns,
			 uint64_t max_ns)
{
	wl_clock_slew *slew = g_new0(wl_clock_slew, 1);

	wl_rng_seed(&slew->rng, seed);
	slew->base_ppb = clock->drift_ppb;
	slew->step_ppb = step_ppb;
	slew->min_ns = MAX(min_ns, 1);
	slew->max_ns = MAX(max_ns, slew->min_ns);
	slew->segments = g_array_new(FALSE, FALSE, sizeof(wl_clock_segment));
	add_segment(slew, clock->origin_ns, 0);
	clock->slew = slew;
}

void wl_clock_slew_clear(wl_clock *clock)
{
	if (!clock->slew)
		return;
	g_array_unref(clock->slew->segments);
	g_free(clock->slew);
	clock->slew = NULL;
}

/* The segment holding t, drawing the segments up to it first. */
static const wl_clock_segment *segment_at(wl_clock_slew *slew, uint64_t t)
{
	for (;;) {
		const wl_clock_segment *last = last_segment(slew);

		if (t < last->end_ns)
			break;
		add_segment(slew, last->end_ns,
			    last->acc + (__int128)(last->end_ns - last->begin_ns) * last->drift_ppb);
	}
	/* Readings mostly go forward: the segment is nearly always the last. */
	for (guint i = slew->segments->len; i-- > 0;) {
		const wl_clock_segment *s = &g_array_index(slew->segments, wl_clock_segment, i);

		if (s->begin_ns <= t)
			return s;
	}
	return &g_array_index(slew->segments, wl_clock_segment, 0);
}

uint64_t wl_clock_read(const wl_clock *clock, uint64_t t)
{
	if (!clock->slew)
		return line_read(clock, clock->origin_ns, 0, clock->drift_ppb, t);

	const wl_clock_segment *s = segment_at(clock->slew, t);

	return line_read(clock, s->begin_ns, s->acc, s->drift_ppb, t);
}

void wl_clock_inverse(const wl_clock *clock, long double *slope, long double *offset)
{
	wl_clock_piece first = wl_clock_piece_at(clock, 0);

	*slope = first.slope;
	*offset = first.offset;
}

guint wl_clock_pieces(const wl_clock *clock)
{
	return clock->slew ? clock->slew->segments->len : 1;
}

wl_clock_piece wl_clock_piece_at(const wl_clock *clock, guint i)
{
	wl_clock_segment line = { clock->origin_ns, UINT64_MAX, clock->drift_ppb, 0 };
	const wl_clock_segment *s = clock->slew && i < clock->slew->segments->len ?
		&g_array_index(clock->slew->segments, wl_clock_segment, i) : &line;
	wl_clock_piece piece = {
		.true_begin_ns = s->begin_ns,
		.machine_begin_ns = line_read(clock, s->begin_ns, s->acc, s->drift_ppb, s->begin_ns),
		.drift_ppb = s->drift_ppb,
	};

	line_inverse(clock, s->begin_ns, s->acc, s->drift_ppb, &piece.slope, &piece.offset);
	return piece;
}
