#include <check.h>
#include <glib.h>
#include <stdlib.h>

#include "util/machine-name.h"

START_TEST(dash_spells_the_numbered_names)
{
	ck_assert(vm_machine_name_is_alias("guest1-2", "guest1#2"));
	ck_assert(vm_machine_name_is_alias("guest1-12", "guest1#12"));
	ck_assert(vm_machine_name_is_alias("a-b-3", "a-b#3"));
	/* The last `#` is the suffix: a hostname may hold one. */
	ck_assert(vm_machine_name_is_alias("a#b-2", "a#b#2"));
}
END_TEST

START_TEST(other_spellings_are_not_aliases)
{
	ck_assert(!vm_machine_name_is_alias("guest1#2", "guest1#2"));
	ck_assert(!vm_machine_name_is_alias("guest1-3", "guest1#2"));
	ck_assert(!vm_machine_name_is_alias("guest2-2", "guest1#2"));
	ck_assert(!vm_machine_name_is_alias("guest1-02", "guest1#2"));
	ck_assert(!vm_machine_name_is_alias("guest1-2", "guest1"));
	ck_assert(!vm_machine_name_is_alias("guest1_2", "guest1#2"));
	ck_assert(!vm_machine_name_is_alias("guest1-", "guest1#"));
	ck_assert(!vm_machine_name_is_alias("guest1-x", "guest1#x"));
	ck_assert(!vm_machine_name_is_alias("guest1-02", "guest1#02"));
	ck_assert(!vm_machine_name_is_alias("guest1-1", "guest1#1"));
	ck_assert(!vm_machine_name_is_alias("-2", "#2"));
}
END_TEST

START_TEST(match_takes_exact_names_first)
{
	const char *const names[] = { "guest1#2", "host", "guest1-2", "guest1" };
	const char *const numbered[] = { "guest1", "host", "guest1#2", "guest1#3" };

	/* A machine really named `guest1-2` wins over `guest1#2`'s spelling. */
	ck_assert_int_eq(vm_machine_name_match("guest1-2", names, 4), 2);
	ck_assert_int_eq(vm_machine_name_match("guest1#2", names, 4), 0);
	ck_assert_int_eq(vm_machine_name_match("guest1-2", numbered, 4), 2);
	ck_assert_int_eq(vm_machine_name_match("guest1-3", numbered, 4), 3);
	ck_assert_int_eq(vm_machine_name_match("guest1#3", numbered, 4), 3);
	ck_assert_int_eq(vm_machine_name_match("guest1", numbered, 4), 0);
	ck_assert_int_eq(vm_machine_name_match("guest1-4", numbered, 4), -1);
	ck_assert_int_eq(vm_machine_name_match("guest1-1", numbered, 4), -1);
	ck_assert_int_eq(vm_machine_name_match("x", numbered, 0), -1);
}
END_TEST

static void expect_param(const char *name, const char *const *names,
		unsigned int count, const char *expected)
{
	char *spelled = vm_machine_name_for_param(name, names, count);

	ck_assert_str_eq(spelled, expected);
	g_free(spelled);
}

START_TEST(parameters_spell_numbered_names_with_a_dash)
{
	const char *const numbered[] = { "guest1", "host", "guest1#2", "a#b#3" };
	const char *const taken[] = { "guest1", "guest1-2", "guest1#2" };

	expect_param("guest1#2", numbered, 4, "guest1-2");
	expect_param("a#b#3", numbered, 4, "a#b-3");
	expect_param("guest1", numbered, 4, "guest1");
	expect_param("host", numbered, 4, "host");
	expect_param("odd#02", numbered, 4, "odd#02");
	/* `guest1-2` names the other machine: only the exact name is left. */
	expect_param("guest1#2", taken, 3, "guest1#2");
	expect_param("guest1-2", taken, 3, "guest1-2");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("machine-name");
	TCase *tc = tcase_create("spellings");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, dash_spells_the_numbered_names);
	tcase_add_test(tc, other_spellings_are_not_aliases);
	tcase_add_test(tc, match_takes_exact_names_first);
	tcase_add_test(tc, parameters_spell_numbered_names_with_a_dash);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
