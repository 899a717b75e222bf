/*
 * The pure policy of correlate's read-once strategy: the order events are
 * fed in (sync/feed-order.h) and its budgets (sync/read-once-policy.h).
 */
#include <check.h>
#include <glib.h>
#include <stdlib.h>

#include "sync/feed-order.h"
#include "sync/precedence.h"
#include "sync/read-once-policy.h"

static struct vm_sync_feed_event event(int64_t ts, const char *machine, unsigned int protocol,
		enum vm_sync_role role, uint64_t a, uint64_t b, uint64_t c)
{
	return (struct vm_sync_feed_event) { ts, machine, protocol, role, { a, b, c } };
}

static gint compare(gconstpointer a, gconstpointer b)
{
	return vm_sync_feed_compare(a, b);
}

START_TEST(feed_order_time_first)
{
	struct vm_sync_feed_event early = event(10, "zz", 1, VM_SYNC_RECEIVE, 9, 9, 9);
	struct vm_sync_feed_event late = event(11, "aa", 0, VM_SYNC_SEND, 0, 0, 0);

	ck_assert_int_lt(vm_sync_feed_compare(&early, &late), 0);
	ck_assert_int_gt(vm_sync_feed_compare(&late, &early), 0);
}
END_TEST

START_TEST(feed_order_ties_by_machine_protocol_role_key)
{
	struct vm_sync_feed_event base = event(5, "guest1", 0, VM_SYNC_SEND, 1, 2, 3);
	struct vm_sync_feed_event other_machine = event(5, "guest2", 0, VM_SYNC_SEND, 0, 0, 0);
	struct vm_sync_feed_event other_protocol = event(5, "guest1", 1, VM_SYNC_SEND, 0, 0, 0);
	struct vm_sync_feed_event other_role = event(5, "guest1", 0, VM_SYNC_RECEIVE, 0, 0, 0);
	struct vm_sync_feed_event key_a = event(5, "guest1", 0, VM_SYNC_SEND, 2, 0, 0);
	struct vm_sync_feed_event key_b = event(5, "guest1", 0, VM_SYNC_SEND, 1, 3, 0);
	struct vm_sync_feed_event key_c = event(5, "guest1", 0, VM_SYNC_SEND, 1, 2, 4);
	struct vm_sync_feed_event same = event(5, "guest1", 0, VM_SYNC_SEND, 1, 2, 3);

	ck_assert_int_lt(vm_sync_feed_compare(&base, &other_machine), 0);
	ck_assert_int_lt(vm_sync_feed_compare(&base, &other_protocol), 0);
	ck_assert_int_lt(vm_sync_feed_compare(&base, &other_role), 0);
	ck_assert_int_lt(vm_sync_feed_compare(&base, &key_a), 0);
	ck_assert_int_lt(vm_sync_feed_compare(&base, &key_b), 0);
	ck_assert_int_lt(vm_sync_feed_compare(&base, &key_c), 0);
	ck_assert_int_gt(vm_sync_feed_compare(&key_c, &base), 0);
	ck_assert_int_eq(vm_sync_feed_compare(&base, &same), 0);
	/* Keys compare as unsigned 64-bit values. */
	struct vm_sync_feed_event high = event(5, "guest1", 0, VM_SYNC_SEND, UINT64_MAX, 0, 0);

	ck_assert_int_gt(vm_sync_feed_compare(&high, &key_a), 0);
}
END_TEST

/* Any arrival order of the same events sorts to one sequence: the graph's shape does not show. */
START_TEST(feed_order_does_not_depend_on_arrival)
{
	const char *machines[] = { "host", "guest1", "guest2" };
	GArray *first = g_array_new(FALSE, FALSE, sizeof(struct vm_sync_feed_event));
	GRand *rand = g_rand_new_with_seed(7);

	for (int i = 0; i < 200; i++) {
		struct vm_sync_feed_event e = event(g_rand_int_range(rand, 0, 20),
			machines[g_rand_int_range(rand, 0, 3)], g_rand_int_range(rand, 0, 2),
			g_rand_boolean(rand) ? VM_SYNC_SEND : VM_SYNC_RECEIVE,
			g_rand_int_range(rand, 0, 4), g_rand_int_range(rand, 0, 4), i);

		g_array_append_val(first, e);
	}

	for (int round = 0; round < 5; round++) {
		GArray *shuffled = g_array_copy(first);

		for (guint i = shuffled->len - 1; i > 0; i--) {
			guint j = g_rand_int_range(rand, 0, i + 1);
			struct vm_sync_feed_event tmp =
				g_array_index(shuffled, struct vm_sync_feed_event, i);

			g_array_index(shuffled, struct vm_sync_feed_event, i) =
				g_array_index(shuffled, struct vm_sync_feed_event, j);
			g_array_index(shuffled, struct vm_sync_feed_event, j) = tmp;
		}

		g_array_sort(shuffled, compare);
		if (round == 0) {
			g_array_sort(first, compare);
		}

		for (guint i = 0; i < first->len; i++) {
			ck_assert_int_eq(vm_sync_feed_compare(
				&g_array_index(first, struct vm_sync_feed_event, i),
				&g_array_index(shuffled, struct vm_sync_feed_event, i)), 0);
		}

		g_array_free(shuffled, TRUE);
	}

	g_rand_free(rand);
	g_array_free(first, TRUE);
}
END_TEST

START_TEST(first_wait_ends_on_time_or_memory)
{
	struct vm_sync_wait short_wait = { VM_SYNC_FIRST_WAIT_NS - 1, VM_SYNC_FIRST_WAIT_MESSAGES - 1 };
	struct vm_sync_wait long_wait = { VM_SYNC_FIRST_WAIT_NS, 0 };
	struct vm_sync_wait full = { 0, VM_SYNC_FIRST_WAIT_MESSAGES };

	ck_assert(!vm_sync_first_wait_spent(&short_wait));
	ck_assert(vm_sync_first_wait_spent(&long_wait));
	ck_assert(vm_sync_first_wait_spent(&full));
}
END_TEST

START_TEST(no_match_wait_is_shorter)
{
	struct vm_sync_wait a_second = { VM_SYNC_NO_MATCH_WAIT_NS, 0 };
	struct vm_sync_wait before = { VM_SYNC_NO_MATCH_WAIT_NS - 1, VM_SYNC_NO_MATCH_WAIT_MESSAGES - 1 };
	struct vm_sync_wait held = { 0, VM_SYNC_NO_MATCH_WAIT_MESSAGES };

	ck_assert(VM_SYNC_NO_MATCH_WAIT_NS < VM_SYNC_FIRST_WAIT_NS);
	ck_assert(vm_sync_no_match_wait_spent(&a_second));
	ck_assert(!vm_sync_first_wait_spent(&a_second));
	ck_assert(!vm_sync_no_match_wait_spent(&before));
	ck_assert(vm_sync_no_match_wait_spent(&held));
}
END_TEST

START_TEST(first_width_limit_is_twice_the_spread_capped)
{
	ck_assert(vm_sync_first_width_limit(0) == VM_SYNC_FIRST_WIDTH_SLACK_NS);
	ck_assert(vm_sync_first_width_limit(100) == 200 + VM_SYNC_FIRST_WIDTH_SLACK_NS);
	ck_assert(vm_sync_first_width_limit(1e6L) == VM_SYNC_FIRST_WIDTH_MAX_NS);
}
END_TEST

START_TEST(vcpu_tries_double)
{
	struct vm_sync_vcpu_tries tries;

	vm_sync_vcpu_tries_init(&tries);
	ck_assert(!vm_sync_vcpu_try_due(&tries, VM_SYNC_VCPU_FIRST_TRY_NS - 1,
		VM_SYNC_VCPU_FIRST_TRY_MESSAGES - 1, false));
	ck_assert(vm_sync_vcpu_try_due(&tries, VM_SYNC_VCPU_FIRST_TRY_NS, 0, false));
	ck_assert(vm_sync_vcpu_try_due(&tries, 0, VM_SYNC_VCPU_FIRST_TRY_MESSAGES, false));
	ck_assert(vm_sync_vcpu_try_due(&tries, 0, 0, true));

	/* A failed try at 300 ms and 100 k events: the next at 600 ms or 200 k. */
	vm_sync_vcpu_tries_failed(&tries, 300000000, 100000);
	ck_assert_int_eq(tries.next_span_ns, 600000000);
	ck_assert_uint_eq(tries.next_notes, 200000);
	ck_assert(!vm_sync_vcpu_try_due(&tries, 599999999, 199999, false));

	/* A failed try on little data waits at least for the first try's amounts. */
	vm_sync_vcpu_tries_failed(&tries, 1000, 10);
	ck_assert_int_eq(tries.next_span_ns, VM_SYNC_VCPU_FIRST_TRY_NS);
	ck_assert_uint_eq(tries.next_notes, VM_SYNC_VCPU_FIRST_TRY_MESSAGES);
}
END_TEST

START_TEST(vcpu_budget_shorter_when_something_else_can_pair)
{
	ck_assert(!vm_sync_vcpu_budget_spent(VM_SYNC_VCPU_SEEK_BUDGET_NS, 0, 0, false));
	ck_assert(vm_sync_vcpu_budget_spent(VM_SYNC_VCPU_SEEK_BUDGET_NS, 0, 0, true));
	ck_assert(vm_sync_vcpu_budget_spent(0, VM_SYNC_VCPU_SEEK_BUDGET_MESSAGES, 0, true));
	ck_assert(!vm_sync_vcpu_budget_spent(0, VM_SYNC_VCPU_SEEK_BUDGET_MESSAGES, 0, false));
	ck_assert(vm_sync_vcpu_budget_spent(VM_SYNC_FIRST_WAIT_NS, 0, 0, false));
	/* Memory ends every wait. */
	ck_assert(vm_sync_vcpu_budget_spent(0, 0, VM_SYNC_FIRST_WAIT_MESSAGES, false));
}
END_TEST

START_TEST(host_ahead_budget)
{
	ck_assert(!vm_sync_host_ahead_spent(VM_SYNC_HOST_AHEAD_MESSAGES - 1,
		VM_SYNC_HOST_AHEAD_NS - 1));
	ck_assert(vm_sync_host_ahead_spent(VM_SYNC_HOST_AHEAD_MESSAGES, 0));
	ck_assert(vm_sync_host_ahead_spent(0, VM_SYNC_HOST_AHEAD_NS));
}
END_TEST

/*
 * Over the held budget the look-ahead is scaled by budget / held, so that
 * held messages (about rate x look-ahead) come back to the budget; under
 * it, it grows back by one commit step per step, up to the parameter; it
 * never goes under one step.
 */
START_TEST(look_ahead_follows_the_held_budget)
{
	const int64_t max = INT64_C(50000000);
	int64_t now = max;
	/* A steady rate: held messages are rate x look-ahead. */
	const long double per_ns = 2e6L / 1e9L;

	ck_assert(!vm_sync_held_over_budget(VM_SYNC_HELD_BUDGET));
	ck_assert(vm_sync_held_over_budget(VM_SYNC_HELD_BUDGET + 1));
	ck_assert_int_eq(vm_sync_next_look_ahead(max, max, 0), max);
	ck_assert_int_eq(vm_sync_next_look_ahead(max, max, VM_SYNC_HELD_BUDGET * 4), max / 4);
	ck_assert_int_eq(vm_sync_next_look_ahead(max / 4, max, 10),
			 max / 4 + VM_SYNC_COMMIT_STEP_NS);
	ck_assert_int_eq(vm_sync_next_look_ahead(max, max, G_MAXUINT32), VM_SYNC_COMMIT_STEP_NS);
	ck_assert_int_eq(vm_sync_next_look_ahead(500, 500, G_MAXUINT32), 500);
	for (int step = 0; step < 200; step++)
		now = vm_sync_next_look_ahead(now, max, (uint64_t) (per_ns * now));
	/*
	 * Settled between the budget's look-ahead (2 ms at 2 M events/s) and
	 * one step above it (it grows by a step, then is scaled back), within
	 * the microsecond that the truncations may add up to.
	 */
	int64_t target = (int64_t) (VM_SYNC_HELD_BUDGET / per_ns);

	ck_assert_int_ge(now, target - 1000);
	ck_assert_int_le(now, target + VM_SYNC_COMMIT_STEP_NS + 1000);
}
END_TEST

START_TEST(precedence_vmsync_vcpu_tcp)
{
	struct vm_sync_offer all = { .vmsync = true, .vmsync_line = true, .vcpu = true,
		.tcp = true, .tcp_line = true };
	struct vm_sync_offer no_vmsync_line = { .vmsync = true, .vcpu = true, .tcp = true,
		.tcp_line = true };
	struct vm_sync_offer tcp_over_one_way_vmsync = { .vmsync = true, .tcp = true,
		.tcp_line = true };
	struct vm_sync_offer one_way_both = { .vmsync = true, .tcp = true };
	struct vm_sync_offer one_way_tcp = { .tcp = true };
	struct vm_sync_offer nothing = { 0 };

	ck_assert_int_eq(vm_sync_precedence(&all), VM_SYNC_SOURCE_VMSYNC);
	ck_assert_int_eq(vm_sync_precedence(&no_vmsync_line), VM_SYNC_SOURCE_VCPU);
	ck_assert_int_eq(vm_sync_precedence(&tcp_over_one_way_vmsync), VM_SYNC_SOURCE_TCP);
	/* Both one way: vmsync's matches, warned as having no line. */
	ck_assert_int_eq(vm_sync_precedence(&one_way_both), VM_SYNC_SOURCE_VMSYNC);
	ck_assert_int_eq(vm_sync_precedence(&one_way_tcp), VM_SYNC_SOURCE_TCP);
	ck_assert_int_eq(vm_sync_precedence(&nothing), VM_SYNC_SOURCE_NONE);
	ck_assert_str_eq(vm_sync_source_name(VM_SYNC_SOURCE_TCP), "tcp");
	ck_assert_str_eq(vm_sync_source_name(VM_SYNC_SOURCE_WAIT), "none");
}
END_TEST

START_TEST(precedence_read_once_waits_for_better)
{
	/* vmsync through another machine (a sync pass composes it) before direct TCP. */
	struct vm_sync_offer elsewhere = { .tcp = true, .tcp_line = true,
		.vmsync_elsewhere = true };
	/* A guest the vCPU method may still fit: not TCP yet. */
	struct vm_sync_offer pending = { .tcp = true, .tcp_line = true, .vcpu_pending = true };
	struct vm_sync_offer pending_alone = { .vcpu_pending = true };
	/* A vmsync line wins at once, whatever else is pending. */
	struct vm_sync_offer line = { .vmsync = true, .vmsync_line = true, .vcpu_pending = true,
		.vmsync_elsewhere = true };

	ck_assert_int_eq(vm_sync_precedence(&elsewhere), VM_SYNC_SOURCE_WAIT);
	ck_assert_int_eq(vm_sync_precedence(&pending), VM_SYNC_SOURCE_WAIT);
	ck_assert_int_eq(vm_sync_precedence(&pending_alone), VM_SYNC_SOURCE_WAIT);
	ck_assert_int_eq(vm_sync_precedence(&line), VM_SYNC_SOURCE_VMSYNC);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sync-policy");
	TCase *tc = tcase_create("policy");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, feed_order_time_first);
	tcase_add_test(tc, feed_order_ties_by_machine_protocol_role_key);
	tcase_add_test(tc, feed_order_does_not_depend_on_arrival);
	tcase_add_test(tc, first_wait_ends_on_time_or_memory);
	tcase_add_test(tc, no_match_wait_is_shorter);
	tcase_add_test(tc, first_width_limit_is_twice_the_spread_capped);
	tcase_add_test(tc, vcpu_tries_double);
	tcase_add_test(tc, vcpu_budget_shorter_when_something_else_can_pair);
	tcase_add_test(tc, host_ahead_budget);
	tcase_add_test(tc, look_ahead_follows_the_held_budget);
	tcase_add_test(tc, precedence_vmsync_vcpu_tcp);
	tcase_add_test(tc, precedence_read_once_waits_for_better);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
