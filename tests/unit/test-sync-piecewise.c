/*
 * The piecewise-linear maps of one machine pair, against clocks whose truth
 * the test knows: a line (the result must be Trace Compass's, to the last
 * digit) and an NTP-like clock whose frequency steps every few seconds;
 * read whole (lib/sync/segments.h, after a sync pass) and in one pass with
 * a bounded look-ahead (lib/sync/online.h).
 */
#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "sync/online.h"
#include "sync/segments.h"
#include "sync/formula.h"
#include "sync/prepared.h"
#include "sync/hull.h"

#define BASE_NS INT64_C(1600000000000000000)
#define MS INT64_C(1000000)

/* The other machine's clock: piecewise linear in true (ref) time. */
struct slewed_clock {
	int64_t offset_ns;
	int count;
	int64_t begin[64];      /* true time of each frequency step */
	double ppm[64];
	double at_begin[64];    /* clock reading at begin, ns (relative to BASE_NS) */
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state = rng_state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return rng_state >> 33;
}

static void make_clock(struct slewed_clock *clock, int64_t duration, int64_t period,
		double ppm_step)
{
	int64_t t = 0;
	double reading = (double) clock->offset_ns;

	clock->count = 0;
	while (t < duration && clock->count < 64) {
		int i = clock->count++;

		clock->begin[i] = t;
		clock->ppm[i] = ppm_step * ((double) (rng() % 2001) / 1000.0 - 1.0);
		clock->at_begin[i] = reading;
		reading += (double) period * (1.0 + clock->ppm[i] * 1e-6);
		t += period;
	}
}

/* The other clock's reading at true time t (ns since BASE_NS). */
static int64_t other_at(const struct slewed_clock *clock, int64_t t)
{
	int i = clock->count - 1;

	while (i > 0 && clock->begin[i] > t)
		i--;
	return BASE_NS + (int64_t) (clock->at_begin[i] +
		(double) (t - clock->begin[i]) * (1.0 + clock->ppm[i] * 1e-6) + 0.5);
}

struct message {
	int64_t available;  /* true time at which the reader knows both ends */
	bool sent_by_ref;
	int64_t ref_ts;
	int64_t other_ts;
};

static int by_available(const void *a, const void *b)
{
	const struct message *x = a, *y = b;

	return (x->available > y->available) - (x->available < y->available);
}

/* One message each way per millisecond, latencies 400 ns to 2.4 us. */
static GArray *exchange(const struct slewed_clock *clock, int64_t duration)
{
	GArray *messages = g_array_new(FALSE, FALSE, sizeof(struct message));
	int64_t t;

	for (t = MS / 2; t < duration; t += MS) {
		int64_t latency = 400 + (int64_t) (rng() % 2000);
		struct message to_other = { t + latency, true, BASE_NS + t,
			other_at(clock, t + latency) };
		int64_t back = t + MS / 2;
		struct message to_ref = { back + latency, false, BASE_NS + back + latency,
			other_at(clock, back) };

		g_array_append_val(messages, to_other);
		g_array_append_val(messages, to_ref);
	}
	g_array_sort(messages, by_available);
	return messages;
}

static int compare_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;

	return (x > y) - (x < y);
}

/* Median and maximum |error| of one line over the trace, sampled every 100 us. */
static void errors(const struct slewed_clock *clock, int64_t duration,
		const struct vm_sync_formula *line, int64_t *median, int64_t *max)
{
	GArray *errs = g_array_new(FALSE, FALSE, sizeof(int64_t));
	int64_t t;

	for (t = 0; t < duration; t += 100000) {
		int64_t o = other_at(clock, t);
		int64_t err = vm_sync_formula_apply(line, o) - (BASE_NS + t);

		err = err < 0 ? -err : err;
		g_array_append_val(errs, err);
	}
	g_array_sort(errs, compare_i64);
	*median = g_array_index(errs, int64_t, errs->len / 2);
	*max = g_array_index(errs, int64_t, errs->len - 1);
	g_array_free(errs, TRUE);
}

/* A map that starts at INT64_MIN, continuous (1 ns) and increasing at every junction. */
static void check_continuous(const struct vm_sync_segment *map, unsigned int count)
{
	ck_assert_int_eq(map[0].begin, INT64_MIN);
	for (unsigned int i = 1; i < count; i++) {
		int64_t jump = vm_sync_formula_apply(&map[i].formula, map[i].begin) -
			vm_sync_formula_apply(&map[i - 1].formula, map[i].begin);

		ck_assert_int_gt(map[i].begin, map[i - 1].begin);
		ck_assert(map[i].formula.slope > 0);
		ck_assert_int_le(jump < 0 ? -jump : jump, 1);
	}
}

/* Matches that fit one line, read whole: one segment, Trace Compass's line. */
START_TEST(segments_of_one_line)
{
	struct slewed_clock clock = { .offset_ns = -3 * MS };
	struct vm_sync_hull *hull = vm_sync_hull_create();
	struct vm_sync_segments *segments = vm_sync_segments_create();
	const struct vm_sync_segment *map;
	struct vm_sync_formula expected;
	unsigned int count;
	GArray *messages;
	guint i;

	rng_state = 5;
	make_clock(&clock, 4000 * MS, 4000 * MS, 40);
	messages = exchange(&clock, 4000 * MS);
	for (i = 0; i < messages->len; i++) {
		const struct message *m = &g_array_index(messages, struct message, i);

		vm_sync_segments_add(segments, m->sent_by_ref, m->ref_ts, m->other_ts);
		vm_sync_hull_add_match(hull, m->sent_by_ref,
			m->sent_by_ref ? m->ref_ts : m->other_ts,
			m->sent_by_ref ? m->other_ts : m->ref_ts);
	}
	expected = vm_sync_hull_formula(hull);
	map = vm_sync_segments_map(segments, &count);
	ck_assert_uint_eq(count, 1);
	ck_assert_int_eq(map[0].begin, INT64_MIN);
	ck_assert(map[0].formula.slope == expected.slope);
	ck_assert(map[0].formula.offset_ns == expected.offset_ns);
	ck_assert_int_eq(map[0].quality, vm_sync_hull_quality(hull));
	ck_assert_uint_eq(map[0].matches, messages->len);
	ck_assert(map[0].accuracy == vm_sync_hull_accuracy(hull));
	g_array_free(messages, TRUE);
	vm_sync_hull_destroy(hull);
	vm_sync_segments_destroy(segments);
}
END_TEST

/*
 * A clean line, then one stray match that no line of the window fits (as a
 * misattributed guest event gives the vCPU method): it opens a window of
 * one match, whose line nothing determines. The map keeps the clean line
 * over the stray's time too, never a line through that window (an
 * identity placeholder, or a bridge with a slope no clock has).
 */
START_TEST(segments_ignore_undetermined_window)
{
	struct slewed_clock clock = { .offset_ns = -48 * MS };
	struct vm_sync_segments *segments = vm_sync_segments_create();
	const struct vm_sync_segment *map;
	unsigned int count;
	GArray *messages;
	int64_t last_other = 0, stray_other;

	rng_state = 11;
	make_clock(&clock, 200 * MS, 200 * MS, 20);
	messages = exchange(&clock, 200 * MS);
	for (guint i = 0; i < messages->len; i++) {
		const struct message *m = &g_array_index(messages, struct message, i);

		vm_sync_segments_add(segments, m->sent_by_ref, m->ref_ts, m->other_ts);
		last_other = MAX(last_other, m->other_ts);
	}
	/* Received, by its timestamps, 5 ms before it was sent. */
	stray_other = last_other + MS;
	vm_sync_segments_add(segments, true, BASE_NS + 200 * MS + 5 * MS, stray_other);
	ck_assert_uint_eq(vm_sync_segments_window_count(segments), 2);
	map = vm_sync_segments_map(segments, &count);
	ck_assert_uint_eq(count, 1);
	ck_assert_int_eq(map[0].quality, VM_SYNC_ACCURATE);
	ck_assert(vm_sync_slope_plausible(map[0].formula.slope));
	g_array_free(messages, TRUE);
	vm_sync_segments_destroy(segments);
}
END_TEST

/* The plausible slopes: within a few percent of 1, never 0 or below. */
START_TEST(slope_plausibility)
{
	ck_assert(vm_sync_slope_plausible(1.0L));
	ck_assert(vm_sync_slope_plausible(1.0001L));
	ck_assert(vm_sync_slope_plausible(0.98L));
	ck_assert(!vm_sync_slope_plausible(0.277L));
	ck_assert(!vm_sync_slope_plausible(-0.204L));
	ck_assert(!vm_sync_slope_plausible(0.0L));
	ck_assert(!vm_sync_slope_plausible(2.0L));
}
END_TEST

/* Median and maximum |error| of a segment array, sampled every 100 us. */
static void map_errors(const struct slewed_clock *clock, int64_t duration,
		const struct vm_sync_segment *map, unsigned int count, int64_t *median, int64_t *max)
{
	GArray *errs = g_array_new(FALSE, FALSE, sizeof(int64_t));
	int64_t t;

	for (t = 0; t < duration; t += 100000) {
		int64_t o = other_at(clock, t);
		unsigned int k = 0;
		int64_t err;

		while (k + 1 < count && map[k + 1].begin <= o)
			k++;
		err = vm_sync_formula_apply(&map[k].formula, o) - (BASE_NS + t);
		err = err < 0 ? -err : err;
		g_array_append_val(errs, err);
	}
	g_array_sort(errs, compare_i64);
	*median = g_array_index(errs, int64_t, errs->len / 2);
	*max = g_array_index(errs, int64_t, errs->len - 1);
	g_array_free(errs, TRUE);
}

/*
 * 30 s of a clock whose frequency steps by up to +-50 ppm every 3 s, read
 * whole: within 1 us (median) and 10 us (max) of the truth, continuous and
 * increasing, far better than one line.
 */
START_TEST(segments_of_slewed_clock)
{
	const int64_t duration = 30000 * MS;
	struct slewed_clock clock = { .offset_ns = 1500 * MS };
	struct vm_sync_segments *segments = vm_sync_segments_create();
	struct vm_sync_hull *hull = vm_sync_hull_create();
	const struct vm_sync_segment *map;
	struct vm_sync_formula line;
	int64_t median, max, line_median, line_max;
	unsigned int count;
	GArray *messages;
	guint i;

	rng_state = (uint64_t) _i + 31;
	make_clock(&clock, duration, 3000 * MS, 50);
	messages = exchange(&clock, duration);
	for (i = 0; i < messages->len; i++) {
		const struct message *m = &g_array_index(messages, struct message, i);

		vm_sync_segments_add(segments, m->sent_by_ref, m->ref_ts, m->other_ts);
		vm_sync_hull_add_match(hull, m->sent_by_ref,
			m->sent_by_ref ? m->ref_ts : m->other_ts,
			m->sent_by_ref ? m->other_ts : m->ref_ts);
	}
	map = vm_sync_segments_map(segments, &count);
	map_errors(&clock, duration, map, count, &median, &max);
	line = vm_sync_hull_formula(hull);
	errors(&clock, duration, &line, &line_median, &line_max);
	fprintf(stderr, "seed %d, read whole: %u windows, %u segments, error median %"
		G_GINT64_FORMAT " max %" G_GINT64_FORMAT " ns; one line: median %"
		G_GINT64_FORMAT " max %" G_GINT64_FORMAT " ns\n", _i,
		vm_sync_segments_window_count(segments), count, median, max, line_median, line_max);
	ck_assert_int_le(median, 1000);
	ck_assert_int_le(max, 10000);
	ck_assert_int_gt(line_max, 10 * max);
	ck_assert_uint_gt(count, 1);
	check_continuous(map, count);
	g_array_free(messages, TRUE);
	vm_sync_hull_destroy(hull);
	vm_sync_segments_destroy(segments);
}
END_TEST

/*
 * The one-pass map: commits `lag` behind the reader once the open window has
 * `first` matches each way.
 */
static struct vm_sync_online *read_online(const struct slewed_clock *clock, GArray *messages,
		int64_t lag, uint64_t first)
{
	struct vm_sync_online *online = vm_sync_online_create();

	for (guint i = 0; i < messages->len; i++) {
		const struct message *m = &g_array_index(messages, struct message, i);

		vm_sync_online_add(online, m->sent_by_ref, m->ref_ts, m->other_ts);
		if (m->available > lag && (vm_sync_online_committed(online) ||
				vm_sync_online_fewest_each_way(online) >= first))
			vm_sync_online_commit(online, other_at(clock, m->available - lag));
	}
	return online;
}

/* Everything read before the first commit: Trace Compass's line, exactly. */
START_TEST(online_read_whole_is_trace_compass_result)
{
	struct slewed_clock clock = { .offset_ns = 2 * MS };
	struct vm_sync_hull *hull = vm_sync_hull_create();
	struct vm_sync_online *online;
	const struct vm_sync_segment *map;
	struct vm_sync_formula expected;
	unsigned int count;
	GArray *messages;

	rng_state = 9;
	make_clock(&clock, 3000 * MS, 3000 * MS, 40);
	messages = exchange(&clock, 3000 * MS);
	online = read_online(&clock, messages, INT64_MAX / 2, UINT64_MAX);
	for (guint i = 0; i < messages->len; i++) {
		const struct message *m = &g_array_index(messages, struct message, i);

		vm_sync_hull_add_match(hull, m->sent_by_ref,
			m->sent_by_ref ? m->ref_ts : m->other_ts,
			m->sent_by_ref ? m->other_ts : m->ref_ts);
	}
	ck_assert(!vm_sync_online_committed(online));
	vm_sync_online_commit(online, INT64_MAX);
	expected = vm_sync_hull_formula(hull);
	map = vm_sync_online_map(online, &count);
	ck_assert_uint_eq(count, 1);
	ck_assert(map[0].formula.slope == expected.slope);
	ck_assert(map[0].formula.offset_ns == expected.offset_ns);
	ck_assert_uint_eq(map[0].matches, messages->len);
	g_array_free(messages, TRUE);
	vm_sync_hull_destroy(hull);
	vm_sync_online_destroy(online);
}
END_TEST

/*
 * 30 s of a clock stepping by up to +-50 ppm every 3 s, read once with
 * 50 ms of lag: within 1 us (median) and 10 us (max) of the truth,
 * continuous and increasing.
 */
START_TEST(online_slewed_clock)
{
	const int64_t duration = 30000 * MS;
	struct slewed_clock clock = { .offset_ns = -700 * MS };
	struct vm_sync_online *online;
	const struct vm_sync_segment *map;
	int64_t median, max;
	unsigned int count;
	GArray *messages;

	rng_state = (uint64_t) _i + 51;
	make_clock(&clock, duration, 3000 * MS, 50);
	messages = exchange(&clock, duration);
	online = read_online(&clock, messages, 50 * MS, 64);
	map = vm_sync_online_map(online, &count);
	map_errors(&clock, duration, map, count, &median, &max);
	fprintf(stderr, "seed %d, one pass: %u segments, error median %" G_GINT64_FORMAT
		" max %" G_GINT64_FORMAT " ns\n", _i, count, median, max);
	ck_assert_int_le(median, 1000);
	ck_assert_int_le(max, 10000);
	check_continuous(map, count);
	g_array_free(messages, TRUE);
	vm_sync_online_destroy(online);
}
END_TEST

/* Odd input: times at the ends of their range, horizons going back. */
START_TEST(online_extremes)
{
	struct vm_sync_online *online = vm_sync_online_create();
	const struct vm_sync_segment *map;
	unsigned int count;

	vm_sync_online_add(online, true, INT64_MAX, INT64_MIN);
	vm_sync_online_add(online, false, INT64_MIN, INT64_MAX);
	vm_sync_online_commit(online, 0);
	vm_sync_online_commit(online, -5);
	ck_assert_int_eq(vm_sync_online_horizon(online), 0);
	vm_sync_online_add(online, true, INT64_MAX, 1);
	vm_sync_online_add(online, false, INT64_MIN, 2);
	vm_sync_online_add(online, true, 0, INT64_MAX);
	vm_sync_online_commit(online, INT64_MAX);
	vm_sync_online_add(online, false, 0, INT64_MAX);
	map = vm_sync_online_map(online, &count);
	ck_assert_uint_ge(count, 1);
	ck_assert_int_eq(map[0].begin, INT64_MIN);
	for (unsigned int i = 1; i < count; i++)
		ck_assert_int_gt(map[i].begin, map[i - 1].begin);
	ck_assert_ptr_nonnull(vm_sync_online_formula_at(online, INT64_MIN));
	ck_assert_ptr_nonnull(vm_sync_online_formula_at(online, INT64_MAX));
	vm_sync_online_destroy(online);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sync-piecewise");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, segments_of_one_line);
	tcase_add_test(tc, segments_ignore_undetermined_window);
	tcase_add_test(tc, slope_plausibility);
	tcase_add_loop_test(tc, segments_of_slewed_clock, 0, 4);
	tcase_add_test(tc, online_read_whole_is_trace_compass_result);
	tcase_add_loop_test(tc, online_slewed_clock, 0, 4);
	tcase_add_test(tc, online_extremes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
