/* The guest clock and the time map printed in timemap.csv are inverses
 * within one nanosecond, over hours of drift and any sign of offset. */
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
			wl_clock clock = { ORIGIN, offsets[o], drifts[d] };

			check_round_trip(&clock, ORIGIN);
			for (int i = 0; i < 2000; i++)
				check_round_trip(&clock, ORIGIN + wl_rng_range(&rng, 0, 24 * HOUR_NS));
		}
}
END_TEST

START_TEST(test_reading_follows_drift)
{
	/* +40 ppm: one second of true time reads as 1 s + 40 us. */
	wl_clock clock = { ORIGIN, 5, 40000 };
	uint64_t second = 1000000000;

	ck_assert_uint_eq(wl_clock_read(&clock, ORIGIN), ORIGIN + 5);
	ck_assert_uint_eq(wl_clock_read(&clock, ORIGIN + second), ORIGIN + second + 5 + 40000);
	/* rounding to the nearest: 12.5 ns of drift reads as 13 */
	ck_assert_uint_eq(wl_clock_read(&clock, ORIGIN + 312500), ORIGIN + 312500 + 5 + 13);
}
END_TEST

START_TEST(test_reading_never_goes_back)
{
	wl_clock clock = { ORIGIN, -7, -10000000 };
	uint64_t previous = wl_clock_read(&clock, ORIGIN);

	for (uint64_t t = ORIGIN + 1; t < ORIGIN + 100000; t++) {
		uint64_t reading = wl_clock_read(&clock, t);

		ck_assert_uint_ge(reading, previous);
		previous = reading;
	}
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("guest-clock");
	TCase *tcase = tcase_create("core");

	tcase_add_test(tcase, test_round_trip);
	tcase_add_test(tcase, test_reading_follows_drift);
	tcase_add_test(tcase, test_reading_never_goes_back);
	suite_add_tcase(suite, tcase);

	SRunner *runner = srunner_create(suite);

	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);

	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
