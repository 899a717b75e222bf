#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/fifo.h"

/* A struct element, to check copies of more than a pointer. */
struct item {
	uint64_t seq;
	int32_t tag;
};

static void push_item(struct vm_fifo *fifo, uint64_t seq)
{
	struct item *slot = vm_fifo_push(fifo);

	slot->seq = seq;
	slot->tag = (int32_t) (seq * 7);
}

static void pop_expect(struct vm_fifo *fifo, uint64_t seq)
{
	const struct item *oldest = vm_fifo_pop(fifo);

	ck_assert_ptr_nonnull(oldest);
	ck_assert_uint_eq(oldest->seq, seq);
	ck_assert_int_eq(oldest->tag, (int32_t) (seq * 7));
}

START_TEST(empty_queue_gives_nothing)
{
	struct vm_fifo fifo;

	vm_fifo_init(&fifo, sizeof(struct item));
	ck_assert(vm_fifo_is_empty(&fifo));
	ck_assert_ptr_null(vm_fifo_peek(&fifo));
	ck_assert_ptr_null(vm_fifo_pop(&fifo));
	vm_fifo_fini(&fifo);
}
END_TEST

START_TEST(elements_leave_in_order)
{
	struct vm_fifo fifo;
	uint64_t seq;

	vm_fifo_init(&fifo, sizeof(struct item));
	for (seq = 0; seq < 10; seq++)
		push_item(&fifo, seq);
	ck_assert_uint_eq(vm_fifo_length(&fifo), 10);
	ck_assert_uint_eq(((const struct item *) vm_fifo_peek(&fifo))->seq, 0);
	ck_assert_uint_eq(((const struct item *) vm_fifo_at(&fifo, 9))->seq, 9);
	for (seq = 0; seq < 10; seq++)
		pop_expect(&fifo, seq);
	ck_assert(vm_fifo_is_empty(&fifo));
	vm_fifo_fini(&fifo);
}
END_TEST

/*
 * The ring is full with its oldest element in the middle of the storage
 * when it grows: the elements that wrapped around must keep their order.
 */
START_TEST(growing_a_wrapped_ring_keeps_the_order)
{
	struct vm_fifo fifo;
	uint64_t next_in = 0, next_out = 0;
	int round;

	vm_fifo_init(&fifo, sizeof(struct item));
	for (round = 0; round < 12; round++) {
		size_t target = (size_t) 40 << round;
		size_t keep = target / 3;

		while (vm_fifo_length(&fifo) < target)
			push_item(&fifo, next_in++);
		/* Moves the head forward so that the next pushes wrap. */
		while (vm_fifo_length(&fifo) > keep)
			pop_expect(&fifo, next_out++);
	}
	while (!vm_fifo_is_empty(&fifo))
		pop_expect(&fifo, next_out++);
	ck_assert_uint_eq(next_in, next_out);
	vm_fifo_fini(&fifo);
}
END_TEST

/*
 * A backlog that has gone gives its memory back: the ring halves at the
 * pushes that find it less than an eighth full, down to its first
 * capacity, and the elements (wrapped around or not) keep their order.
 */
START_TEST(a_gone_backlog_shrinks_the_ring)
{
	struct vm_fifo fifo;
	uint64_t next_in = 0, next_out = 0;

	vm_fifo_init(&fifo, sizeof(struct item));
	while (vm_fifo_length(&fifo) < 5000)
		push_item(&fifo, next_in++);
	ck_assert_uint_eq(fifo.slots->len, 8192);
	/* The head in the middle, then pushes that wrap, with few elements left. */
	while (vm_fifo_length(&fifo) > 10)
		pop_expect(&fifo, next_out++);
	for (int i = 0; i < 3000; i++) {
		push_item(&fifo, next_in++);
		pop_expect(&fifo, next_out++);
	}
	ck_assert_uint_eq(fifo.slots->len, VM_FIFO_FIRST_CAPACITY);
	while (!vm_fifo_is_empty(&fifo))
		pop_expect(&fifo, next_out++);
	ck_assert_uint_eq(next_in, next_out);
	vm_fifo_fini(&fifo);
}
END_TEST

START_TEST(clear_forgets_everything)
{
	struct vm_fifo fifo;

	vm_fifo_init(&fifo, sizeof(struct item));
	push_item(&fifo, 1);
	push_item(&fifo, 2);
	vm_fifo_clear(&fifo);
	ck_assert(vm_fifo_is_empty(&fifo));
	push_item(&fifo, 3);
	pop_expect(&fifo, 3);
	vm_fifo_fini(&fifo);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fifo");
	TCase *tc = tcase_create("queue");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, empty_queue_gives_nothing);
	tcase_add_test(tc, elements_leave_in_order);
	tcase_add_test(tc, growing_a_wrapped_ring_keeps_the_order);
	tcase_add_test(tc, a_gone_backlog_shrinks_the_ring);
	tcase_add_test(tc, clear_forgets_everything);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
