/* The guest clock and the time map printed in timemap.csv are inverses
 * within one nanosecond, over hours of drift and any sign of offset; so
 * are a slewed clock and its segments (timemap-segments.csv), which are
 * continuous, within the drift and length bounds asked for, and the same
 * for the same seed whatever the order of the readings. */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "guest-clock.h"
#include "rng.h"

#define ORIGIN UINT64_C(1750000000000000000)
#define HOUR_NS (UINT64_C(3600) * 1000000000)

static void check_round_trip(const wl_clock *clock, uint64_t t)
{
	long double slope, offset;

	wl_clock_inverse(clock, &slope, &offset);
	uint64_t reading = wl_clock_read(clock, t);
	long double back = slope * (long double)reading + offset;

	ck_assert_msg(fabsl(back - (long double)t) <= 1.0L,
		      "offset %lld drift %lld ppb t %llu: mapped back to %.3Lf",
		      (long long)clock->offset_ns, (long long)clock->drift_ppb,
		      (unsigned long long)t, back);
}

START_TEST(test_round_trip)
{
	static const int64_t offsets[] = { 0, 3000000, -4500000, 3600LL * 1000000000 };
	static const int64_t drifts[] = { 0, 40000, -53333, 10000000, -10000000 };
	wl_rng rng;

	wl_rng_seed(&rng, 42);
	for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++)
		for (size_t d = 0; d < sizeof(drifts) / sizeof(drifts[0]); d++) {
			wl_clock clock = { ORIGIN, offsets[o], drifts[d], NULL };

			check_round_trip(&clock, ORIGIN);
			for (int i = 0; i < 2000; i++)
				check_round_trip(&clock, ORIGIN + wl_rng_range(&rng, 0, 24 * HOUR_NS));
		}
}
END_TEST

START_TEST(test_reading_follows_drift)
{
	/* +40 ppm: one second of true time reads as 1 s + 40 us. */
	wl_clock clock = { ORIGIN, 5, 40000, NULL };
	uint64_t second = 1000000000;

	ck_assert_uint_eq(wl_clock_read(&clock, ORIGIN), ORIGIN + 5);
	ck_assert_uint_eq(wl_clock_read(&clock, ORIGIN + second), ORIGIN + second + 5 + 40000);
	/* rounding to the nearest: 12.5 ns of drift reads as 13 */
	ck_assert_uint_eq(wl_clock_read(&clock, ORIGIN + 312500), ORIGIN + 312500 + 5 + 13);
}
END_TEST

START_TEST(test_reading_never_goes_back)
{
	wl_clock clock = { ORIGIN, -7, -10000000, NULL };
	uint64_t previous = wl_clock_read(&clock, ORIGIN);

	for (uint64_t t = ORIGIN + 1; t < ORIGIN + 100000; t++) {
		uint64_t reading = wl_clock_read(&clock, t);

		ck_assert_uint_ge(reading, previous);
		previous = reading;
	}
}
END_TEST

/* The inverse line of the segment holding READING: the last one whose
 * machine_begin_ns is at most READING (the rule timemap-segments.csv
 * documents). */
static wl_clock_piece piece_for(const wl_clock *clock, uint64_t reading)
{
	guint lo = 0, hi = wl_clock_pieces(clock);

	/* invariant: piece lo starts at or before READING, piece hi after */
	while (hi - lo > 1) {
		guint mid = lo + (hi - lo) / 2;

		if (wl_clock_piece_at(clock, mid).machine_begin_ns <= reading)
			lo = mid;
		else
			hi = mid;
	}
	return wl_clock_piece_at(clock, lo);
}

static void check_slewed_round_trip(const wl_clock *clock, uint64_t t)
{
	uint64_t reading = wl_clock_read(clock, t);
	wl_clock_piece p = piece_for(clock, reading);
	long double back = p.slope * (long double)reading + p.offset;

	ck_assert_msg(fabsl(back - (long double)t) <= 1.0L,
		      "slewed, offset %lld t %llu: mapped back to %.3Lf",
		      (long long)clock->offset_ns, (unsigned long long)t, back);
}

START_TEST(test_slewed_round_trip)
{
	static const int64_t offsets[] = { 0, -4500000, 3600LL * 1000000000 };
	static const int64_t drifts[] = { 0, 53333, -10000000 };
	wl_rng rng;

	wl_rng_seed(&rng, 7);
	for (size_t o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++)
		for (size_t d = 0; d < sizeof(drifts) / sizeof(drifts[0]); d++) {
			wl_clock clock = { ORIGIN, offsets[o], drifts[d], NULL };

			/* 0.5 to 2 s segments: thousands in an hour */
			wl_clock_slew_start(&clock, o * 10 + d, 100000, 500000000, 2000000000);
			check_slewed_round_trip(&clock, ORIGIN);
			for (int i = 0; i < 3000; i++)
				check_slewed_round_trip(&clock, ORIGIN + wl_rng_range(&rng, 0, HOUR_NS));
			/* around every boundary, where the wrong line is likeliest */
			for (guint k = 1; k < wl_clock_pieces(&clock); k++) {
				uint64_t begin = wl_clock_piece_at(&clock, k).true_begin_ns;

				for (uint64_t t = begin - 3; t <= begin + 3; t++)
					check_slewed_round_trip(&clock, t);
			}
			wl_clock_slew_clear(&clock);
		}
}
END_TEST

START_TEST(test_slewed_segments)
{
	wl_clock clock = { ORIGIN, 1000, 40000, NULL };
	int64_t lowest = INT64_MAX, highest = INT64_MIN;

	wl_clock_slew_start(&clock, 3, 50000, 2000000, 6000000);
	(void)wl_clock_read(&clock, ORIGIN + 10 * 1000000000ULL);
	ck_assert_uint_ge(wl_clock_pieces(&clock), 10000 / 6);
	ck_assert_uint_le(wl_clock_pieces(&clock), 10000 / 2 + 1);
	ck_assert_uint_eq(wl_clock_piece_at(&clock, 0).true_begin_ns, ORIGIN);
	for (guint k = 0; k < wl_clock_pieces(&clock); k++) {
		wl_clock_piece p = wl_clock_piece_at(&clock, k);

		lowest = MIN(lowest, p.drift_ppb);
		highest = MAX(highest, p.drift_ppb);
		/* a segment starts at the reading of its true begin */
		ck_assert_uint_eq(p.machine_begin_ns, wl_clock_read(&clock, p.true_begin_ns));
		if (k == 0)
			continue;
		wl_clock_piece q = wl_clock_piece_at(&clock, k - 1);
		uint64_t length = p.true_begin_ns - q.true_begin_ns;

		ck_assert_uint_ge(length, 2000000);
		ck_assert_uint_le(length, 6000000);
		/* continuous: the previous line reaches the new begin too */
		long double from_prev = q.slope * (long double)p.machine_begin_ns + q.offset;

		ck_assert_msg(fabsl(from_prev - (long double)p.true_begin_ns) <= 1.0L,
			      "segment %u: previous line gives %.3Lf for %llu", k, from_prev,
			      (unsigned long long)p.true_begin_ns);
	}
	ck_assert_int_ge(lowest, 40000 - 50000);
	ck_assert_int_le(highest, 40000 + 50000);
	/* the steps do spread over the range */
	ck_assert_int_lt(lowest, 40000 - 25000);
	ck_assert_int_gt(highest, 40000 + 25000);
	wl_clock_slew_clear(&clock);
}
END_TEST

START_TEST(test_slewed_never_goes_back)
{
	wl_clock clock = { ORIGIN, -7, -100000, NULL };

	wl_clock_slew_start(&clock, 11, 1000000, 1000, 5000);
	uint64_t previous = wl_clock_read(&clock, ORIGIN);

	for (uint64_t t = ORIGIN + 1; t < ORIGIN + 200000; t++) {
		uint64_t reading = wl_clock_read(&clock, t);

		ck_assert_uint_ge(reading, previous);
		/* two events are at least 2 ns apart: their readings differ */
		if (t >= ORIGIN + 2)
			ck_assert_uint_gt(reading, wl_clock_read(&clock, t - 2));
		previous = reading;
	}
	wl_clock_slew_clear(&clock);
}
END_TEST

START_TEST(test_slewed_same_seed)
{
	/* Read in opposite orders, two clocks of one seed agree. */
	wl_clock a = { ORIGIN, 0, 40000, NULL }, b = a;
	uint64_t span = 1000000000;

	wl_clock_slew_start(&a, 5, 30000, 1000000, 3000000);
	wl_clock_slew_start(&b, 5, 30000, 1000000, 3000000);
	uint64_t late = wl_clock_read(&b, ORIGIN + span);

	for (uint64_t t = ORIGIN; t <= ORIGIN + span; t += 999983)
		ck_assert_uint_eq(wl_clock_read(&a, t), wl_clock_read(&b, t));
	ck_assert_uint_eq(wl_clock_read(&a, ORIGIN + span), late);
	ck_assert_uint_eq(wl_clock_pieces(&a), wl_clock_pieces(&b));
	wl_clock_slew_clear(&a);
	wl_clock_slew_clear(&b);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("guest-clock");
	TCase *tcase = tcase_create("core");

	/* check's default is 4 s per test: the slewed round trip takes 2 to 3 s
	 * plain, five times that in a sanitized build on a busy machine. */
	tcase_set_timeout(tcase, 120);

	tcase_add_test(tcase, test_round_trip);
	tcase_add_test(tcase, test_reading_follows_drift);
	tcase_add_test(tcase, test_reading_never_goes_back);
	tcase_add_test(tcase, test_slewed_round_trip);
	tcase_add_test(tcase, test_slewed_segments);
	tcase_add_test(tcase, test_slewed_never_goes_back);
	tcase_add_test(tcase, test_slewed_same_seed);
	suite_add_tcase(suite, tcase);

	SRunner *runner = srunner_create(suite);

	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);

	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
