/*
 * The reorder buffer of filter.vm.correlate (plugin/correlate/reorder.c):
 * whatever goes through the per-stream queues or the heap, every pop gives
 * the smallest entry inside, as a linear scan finds it.
 */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "correlate/reorder.h"

#define STREAMS 5

/* Not in the order of the queues: ties must compare the keys. */
static const char *const keys[STREAMS] = { "c/4", "a/1", "b/0", "a/0", "c/3" };

/* The entries inside, to find the smallest by a scan; `msg` carries an id. */
static GArray *inside;

static uint64_t id_of(const bt_message *msg)
{
	return (uint64_t) (uintptr_t) msg;
}

static void push(struct reorder *reorder, guint queue, const char *key, int64_t time,
		uint64_t seq, uint64_t id)
{
	struct reorder_entry entry = {
		.time = time,
		.has_time = true,
		.stream_key = key,
		.seq = seq,
		.msg = (const bt_message *) (uintptr_t) id,
		.queue = queue,
	};

	reorder_push(reorder, &entry);
	g_array_append_val(inside, entry);
}

static void pop_expect_smallest(struct reorder *reorder)
{
	guint best = 0;

	ck_assert_uint_eq(reorder_size(reorder), inside->len);
	for (guint i = 1; i < inside->len; i++) {
		if (reorder_entry_less(&g_array_index(inside, struct reorder_entry, i),
				&g_array_index(inside, struct reorder_entry, best))) {
			best = i;
		}
	}

	ck_assert_uint_eq(id_of(reorder_peek(reorder)->msg),
		id_of(g_array_index(inside, struct reorder_entry, best).msg));
	ck_assert_uint_eq(id_of(reorder_pop(reorder)),
		id_of(g_array_index(inside, struct reorder_entry, best).msg));
	g_array_remove_index_fast(inside, best);
}

/* Random pushes and pops; `back` in 1000: entries whose time goes back. */
static void run_random(unsigned int seed, int back, int own)
{
	struct reorder *reorder = reorder_create(NULL);
	guint queues[STREAMS];
	int64_t last[STREAMS] = { 0 };
	uint64_t seq[STREAMS] = { 0 };
	uint64_t id = 1;

	srand(seed);
	inside = g_array_new(FALSE, FALSE, sizeof(struct reorder_entry));
	for (int s = 0; s < STREAMS; s++) {
		queues[s] = reorder_queue_new(reorder);
	}

	for (int step = 0; step < 20000; step++) {
		if (rand() % 100 < 55) {
			int s = rand() % STREAMS;
			/* Few distinct times: ties between streams are common. */
			int64_t time = last[s] + rand() % 3;

			if (rand() % 1000 < back) {
				time = last[s] - 1 - rand() % 5;
			}

			last[s] = time > last[s] ? time : last[s];
			if (rand() % 1000 < own) {
				push(reorder, 0, "", time, id, id);
			} else {
				push(reorder, queues[s], keys[s], time, seq[s]++, id);
			}
			id++;
		} else if (!reorder_is_empty(reorder)) {
			pop_expect_smallest(reorder);
		}
	}

	while (!reorder_is_empty(reorder)) {
		pop_expect_smallest(reorder);
	}

	ck_assert_uint_eq(inside->len, 0);
	g_array_free(inside, TRUE);
	reorder_destroy(reorder);
}

START_TEST(streams_in_order_come_out_in_order)
{
	run_random(1 + _i, 0, 0);
}
END_TEST

START_TEST(times_that_go_back_keep_the_order)
{
	run_random(100 + _i, 30, 0);
}
END_TEST

START_TEST(entries_of_no_stream_keep_the_order)
{
	run_random(200 + _i, 10, 100);
}
END_TEST

START_TEST(queues_are_forgotten_only_when_empty)
{
	struct reorder *reorder = reorder_create(NULL);
	guint queue = reorder_queue_new(reorder);

	inside = g_array_new(FALSE, FALSE, sizeof(struct reorder_entry));
	push(reorder, queue, "a", 5, 0, 1);
	reorder_forget_queues(reorder);
	/* Still there: the entry names it. */
	push(reorder, queue, "a", 6, 1, 2);
	pop_expect_smallest(reorder);
	pop_expect_smallest(reorder);
	reorder_forget_queues(reorder);
	queue = reorder_queue_new(reorder);
	ck_assert_uint_eq(queue, 1);
	push(reorder, queue, "b", 1, 0, 3);
	push(reorder, 0, "", 1, 0, 4);
	pop_expect_smallest(reorder);
	pop_expect_smallest(reorder);
	ck_assert(reorder_is_empty(reorder));
	g_array_free(inside, TRUE);
	reorder_destroy(reorder);
}
END_TEST

int main(void)
{
	Suite *suite = suite_create("reorder");
	TCase *tc = tcase_create("order");
	SRunner *runner;
	int failed;

	tcase_add_loop_test(tc, streams_in_order_come_out_in_order, 0, 4);
	tcase_add_loop_test(tc, times_that_go_back_keep_the_order, 0, 4);
	tcase_add_loop_test(tc, entries_of_no_stream_keep_the_order, 0, 4);
	tcase_add_test(tc, queues_are_forgotten_only_when_empty);
	suite_add_tcase(suite, tc);
	runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
