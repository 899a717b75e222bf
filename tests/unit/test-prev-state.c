#include <check.h>
#include <stdlib.h>

#include "prev-state.h"

START_TEST(running_is_runnable)
{
	ck_assert(vm_prev_state_is_runnable(0));
}
END_TEST

START_TEST(preemption_markers_are_runnable)
{
	/* TASK_REPORT_MAX / TASK_STATE_MAX of several kernel versions. */
	ck_assert(vm_prev_state_is_runnable(0x100));
	ck_assert(vm_prev_state_is_runnable(0x200));
	ck_assert(vm_prev_state_is_runnable(0x400));
	ck_assert(vm_prev_state_is_runnable(0x800));
	ck_assert(vm_prev_state_is_runnable(0x1000));
}
END_TEST

START_TEST(waiting_states_are_not_runnable)
{
	ck_assert(!vm_prev_state_is_runnable(1));     /* S */
	ck_assert(!vm_prev_state_is_runnable(2));     /* D */
	ck_assert(!vm_prev_state_is_runnable(4));     /* T */
	ck_assert(!vm_prev_state_is_runnable(8));     /* t */
	ck_assert(!vm_prev_state_is_runnable(0x10));  /* X */
	ck_assert(!vm_prev_state_is_runnable(0x20));  /* Z */
	ck_assert(!vm_prev_state_is_runnable(0x40));  /* P */
	ck_assert(!vm_prev_state_is_runnable(0x80));  /* I */
	ck_assert(!vm_prev_state_is_runnable(0x402)); /* D + marker */
	ck_assert(!vm_prev_state_is_runnable(0x101));
	ck_assert(!vm_prev_state_is_runnable(-1));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("prev-state");
	TCase *tc = tcase_create("rule");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, running_is_runnable);
	tcase_add_test(tc, preemption_markers_are_runnable);
	tcase_add_test(tc, waiting_states_are_not_runnable);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
