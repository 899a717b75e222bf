/* The last check before correlate adopts a synchronized map (sync/map-check.h). */
#include <check.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "sync/map-check.h"

#define EPOCH_NS INT64_C(1700000000000000000)

static struct vm_sync_segment segment(int64_t begin, long double slope, long double offset)
{
	return (struct vm_sync_segment) {
		.begin = begin,
		.formula = { slope, offset },
		.quality = VM_SYNC_ACCURATE,
		.matches = 10,
	};
}

/* Whether the refusal names `words`; false when the map is adopted. */
static bool refused_for(const struct vm_sync_segment *map, unsigned int count, const char *words)
{
	char *reason = vm_sync_map_refusal(map, count);
	bool found = reason && strstr(reason, words);

	g_free(reason);
	return found;
}

START_TEST(a_clock_line_is_adopted)
{
	struct vm_sync_segment line = segment(INT64_MIN, 1.00004L, -3000000.0L);

	ck_assert_ptr_null(vm_sync_map_refusal(&line, 1));
}
END_TEST

START_TEST(non_positive_and_implausible_slopes_are_refused)
{
	struct vm_sync_segment negative = segment(INT64_MIN, -0.204L, 2e18L);
	struct vm_sync_segment flat = segment(INT64_MIN, 0.0L, 5.0L);
	struct vm_sync_segment slow = segment(INT64_MIN, 0.28L, 0.0L);
	struct vm_sync_segment fast = segment(INT64_MIN, 1.06L, 0.0L);

	ck_assert(refused_for(&negative, 1, "must increase"));
	ck_assert(refused_for(&flat, 1, "must increase"));
	ck_assert(refused_for(&slow, 1, "no clock runs at that rate"));
	ck_assert(refused_for(&fast, 1, "no clock runs at that rate"));
}
END_TEST

START_TEST(joined_segments_are_adopted)
{
	/* Two lines that meet at EPOCH_NS: 1.00001 before, 0.99999 after. */
	long double at = (long double) EPOCH_NS;
	struct vm_sync_segment map[2] = {
		segment(INT64_MIN, 1.00001L, 0.0L),
		segment(EPOCH_NS, 0.99999L, 1.00001L * at - 0.99999L * at),
	};

	ck_assert_ptr_null(vm_sync_map_refusal(map, 2));
}
END_TEST

START_TEST(a_jump_between_segments_is_refused)
{
	struct vm_sync_segment map[3] = {
		segment(INT64_MIN, 1.0L, 0.0L),
		segment(EPOCH_NS, 1.0L, 1.0L),
		segment(EPOCH_NS + 1000, 1.0L, 500.0L),
	};

	/* 1 ns at the first join is rounding; 499 ns at the second is a jump. */
	ck_assert(refused_for(map, 3, "segments 2 and 3 disagree by 499 ns"));
}
END_TEST

START_TEST(segments_out_of_order_are_refused)
{
	struct vm_sync_segment map[2] = {
		segment(EPOCH_NS, 1.0L, 0.0L),
		segment(EPOCH_NS, 1.0L, 0.0L),
	};

	ck_assert(refused_for(map, 2, "not after the one before it"));
}
END_TEST

START_TEST(a_bad_later_segment_is_named)
{
	struct vm_sync_segment map[2] = {
		segment(INT64_MIN, 1.0L, 0.0L),
		segment(EPOCH_NS, -1.0L, 2.0L * (long double) EPOCH_NS),
	};

	ck_assert(refused_for(map, 2, "segment 2 has slope -1"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sync-map-check");
	TCase *tc = tcase_create("map-check");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, a_clock_line_is_adopted);
	tcase_add_test(tc, non_positive_and_implausible_slopes_are_refused);
	tcase_add_test(tc, joined_segments_are_adopted);
	tcase_add_test(tc, a_jump_between_segments_is_refused);
	tcase_add_test(tc, segments_out_of_order_are_refused);
	tcase_add_test(tc, a_bad_later_segment_is_named);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
