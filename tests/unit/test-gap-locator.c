/*
 * The gap locator (lib/loss): where a discarded-events message's gap goes
 * in the time order, with lttng-modules' packet layout, and that nothing is
 * lost, duplicated or reordered on the way.
 */
#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "loss/gap-locator.h"

struct record {
	GString *out;
};

static void on_release(void *cookie, void *data)
{
	struct record *r = data;

	g_string_append_printf(r->out, "%s ", (const char *) cookie);
}

static void on_gap(const struct vm_gap *gap, void *data)
{
	struct record *r = data;

	g_string_append_printf(r->out, "gap(%" G_GUINT64_FORMAT ",%" G_GINT64_FORMAT
		",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT "%s) ", gap->stream, gap->begin,
		gap->end, gap->count, gap->packets ? ",p" : "");
}

static struct vm_gap_locator *make(struct record *r, uint64_t max_held, int64_t span)
{
	struct vm_gap_locator_callbacks cb = { on_release, on_gap, r };

	r->out = g_string_new(NULL);
	return vm_gap_locator_create(&cb, max_held, span);
}

static void check_and_free(struct record *r, struct vm_gap_locator *loc,
		const char *expected)
{
	vm_gap_locator_destroy(loc);
	ck_assert_str_eq(r->out->str, expected);
	g_string_free(r->out, TRUE);
}

START_TEST(no_loss_goes_straight_through)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 0, 0);

	vm_gap_locator_push(loc, 1, 10, true, "a");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 0);
	vm_gap_locator_push(loc, 2, 11, true, "b");
	vm_gap_locator_push(loc, UINT64_MAX, 12, false, "c");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 0);
	ck_assert_str_eq(r.out->str, "a b c ");
	check_and_free(&r, loc, "a b c ");
}
END_TEST

/*
 * src.ctf.fs' order: the discarded-events message before the packet whose
 * counter grew, range [previous packet end, this packet end]; the gap is at
 * the end of that packet, after its last event (30).
 */
START_TEST(lttng_layout_gap_after_last_event)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 0, 0);

	vm_gap_locator_push(loc, 1, 10, true, "a");
	vm_gap_locator_push(loc, 1, 15, false, "end15");
	vm_gap_locator_push_loss(loc, 1, 15, 40, 3, false, "lost");
	vm_gap_locator_push(loc, 1, 15, false, "begin15");
	vm_gap_locator_push(loc, 1, 20, true, "b");
	vm_gap_locator_push(loc, 2, 25, true, "c");
	vm_gap_locator_push(loc, 1, 30, true, "d");
	ck_assert_str_eq(r.out->str, "a end15 lost begin15 b c d ");
	vm_gap_locator_push(loc, 2, 35, true, "e");
	/* e waits: stream 1 may still record an event before 40. */
	ck_assert_uint_eq(vm_gap_locator_held(loc), 1);
	vm_gap_locator_push(loc, 2, 40, true, "e40");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 2);
	vm_gap_locator_push(loc, 1, 40, false, "end40");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 0);
	vm_gap_locator_push(loc, 1, 40, false, "begin40");
	vm_gap_locator_push(loc, 1, 41, true, "f");
	check_and_free(&r, loc,
		"a end15 lost begin15 b c d gap(1,30,40,3) e e40 end40 begin40 f ");
}
END_TEST

/* A packet with no event before its end: the gap is the whole range. */
START_TEST(no_event_in_range)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 0, 0);

	vm_gap_locator_push_loss(loc, 3, 100, 200, -1, true, "lost");
	vm_gap_locator_push(loc, 4, 150, true, "x");
	vm_gap_locator_push(loc, 4, 201, true, "y");
	check_and_free(&r, loc, "lost gap(3,100,200,-1,p) x y ");
}
END_TEST

/* The first event after the gap, at the range's end, is not in the gap. */
START_TEST(event_at_range_end_follows_gap)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 0, 0);

	vm_gap_locator_push_loss(loc, 1, 0, 50, 7, false, "lost");
	vm_gap_locator_push(loc, 1, 10, true, "a");
	vm_gap_locator_push(loc, 1, 50, true, "b");
	check_and_free(&r, loc, "lost a gap(1,10,50,7) b ");
}
END_TEST

/* Two streams lose events at once; each gap goes after its own stream's event. */
START_TEST(two_pending_losses)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 0, 0);

	vm_gap_locator_push_loss(loc, 1, 0, 100, 1, false, "l1");
	vm_gap_locator_push_loss(loc, 2, 5, 60, 2, false, "l2");
	vm_gap_locator_push(loc, 1, 10, true, "a1");
	vm_gap_locator_push(loc, 2, 20, true, "a2");
	vm_gap_locator_push(loc, 3, 30, true, "x");
	vm_gap_locator_push(loc, 1, 40, true, "b1");
	vm_gap_locator_push(loc, 3, 50, true, "y");
	/* Passes stream 2's end: its gap goes after a2, before x. */
	vm_gap_locator_push(loc, 3, 70, true, "z");
	ck_assert_str_eq(r.out->str, "l1 l2 a1 a2 gap(2,20,60,2) x b1 ");
	vm_gap_locator_push(loc, 1, 100, false, "end1");
	check_and_free(&r, loc, "l1 l2 a1 a2 gap(2,20,60,2) x b1 gap(1,40,100,1) y z end1 ");
}
END_TEST

/* A second loss of a stream before the first is located places the first. */
START_TEST(second_loss_of_stream)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 0, 0);

	vm_gap_locator_push_loss(loc, 1, 0, 100, 1, false, "l1");
	vm_gap_locator_push(loc, 1, 10, true, "a");
	vm_gap_locator_push(loc, 2, 20, true, "x");
	vm_gap_locator_push_loss(loc, 1, 30, 90, 2, false, "l2");
	vm_gap_locator_push(loc, 2, 95, true, "y");
	check_and_free(&r, loc, "l1 a gap(1,10,100,1) x l2 gap(1,30,90,2) y ");
}
END_TEST

START_TEST(limits_locate_early)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 2, 0);
	int i;

	vm_gap_locator_push_loss(loc, 1, 0, 1000, 1, false, "lost");
	vm_gap_locator_push(loc, 1, 1, true, "a");
	vm_gap_locator_push(loc, 2, 2, true, "b");
	vm_gap_locator_push(loc, 2, 3, true, "c");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 2);
	vm_gap_locator_push(loc, 2, 4, true, "d");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 0);
	ck_assert_str_eq(r.out->str, "lost a gap(1,1,1000,1) b c d ");
	check_and_free(&r, loc, "lost a gap(1,1,1000,1) b c d ");

	/* The time span limit. */
	loc = make(&r, 0, 100);
	vm_gap_locator_push_loss(loc, 1, 0, 1000000, 1, false, "lost");
	for (i = 0; i < 3; i++)
		vm_gap_locator_push(loc, 2, 50 * (i + 1), true, "x");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 3);
	vm_gap_locator_push(loc, 2, 200, true, "x");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 0);
	check_and_free(&r, loc, "lost gap(1,0,1000000,1) x x x x ");
}
END_TEST

START_TEST(flush_and_destroy_release_everything)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 0, 0);

	vm_gap_locator_push_loss(loc, 1, 0, 100, 1, false, "lost");
	vm_gap_locator_push(loc, 1, 10, true, "a");
	vm_gap_locator_push(loc, 2, 20, true, "b");
	vm_gap_locator_flush(loc);
	ck_assert_str_eq(r.out->str, "lost a gap(1,10,100,1) b ");
	ck_assert_uint_eq(vm_gap_locator_held(loc), 0);
	vm_gap_locator_push(loc, 2, 200, true, "c");
	check_and_free(&r, loc, "lost a gap(1,10,100,1) b c ");

	loc = make(&r, 0, 0);
	vm_gap_locator_push_loss(loc, 1, 0, 100, 1, false, "lost");
	vm_gap_locator_push(loc, 1, 10, true, "a");
	vm_gap_locator_push(loc, 2, 20, true, "b");
	check_and_free(&r, loc, "lost a gap(1,10,100,1) b ");
}
END_TEST

/* Broken input: ranges backwards, times going back, extreme values. */
START_TEST(bad_input)
{
	struct record r;
	struct vm_gap_locator *loc = make(&r, 0, 0);

	vm_gap_locator_push_loss(loc, 1, 50, 10, -5, false, "back");
	vm_gap_locator_push(loc, 1, 5, true, "old");
	vm_gap_locator_push(loc, 2, INT64_MIN, true, "min");
	vm_gap_locator_push_loss(loc, 2, INT64_MIN, INT64_MAX, 1, false, "huge");
	vm_gap_locator_push(loc, 2, INT64_MAX, true, "max");
	vm_gap_locator_push(loc, 1, INT64_MAX, true, "max1");
	check_and_free(&r, loc, "back old gap(1,50,50,-1) min huge "
		"gap(2,-9223372036854775808,9223372036854775807,1) max max1 ");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("gap-locator");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, no_loss_goes_straight_through);
	tcase_add_test(tc, lttng_layout_gap_after_last_event);
	tcase_add_test(tc, no_event_in_range);
	tcase_add_test(tc, event_at_range_end_follows_gap);
	tcase_add_test(tc, two_pending_losses);
	tcase_add_test(tc, second_loss_of_stream);
	tcase_add_test(tc, limits_locate_early);
	tcase_add_test(tc, flush_and_destroy_release_everything);
	tcase_add_test(tc, bad_input);
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
