#include <check.h>
#include <glib.h>
#include <stdlib.h>

#include "test-writer-helpers.h"

static void feed_threads(struct vm_writer *w)
{
	const struct vm_thread_interval exit = {
		"guest1", 42, "worker", "hypervisor", 2500, 2600, 1, 48, 1, NULL, -1,
	};
	const struct vm_thread_interval waiting = {
		"guest1", 43, "", "blocked", 0, 9000, -1, -1, 1, NULL, -1,
	};

	vm_writer_thread_interval(w, &exit);
	vm_writer_thread_interval(w, &waiting);
}

START_TEST(threads_lines)
{
	char *s = write_to_string(VM_WRITER_JSON, VM_WRITER_THREADS, feed_threads);

	ck_assert_str_eq(s,
		"{\"machine\":\"guest1\",\"tid\":42,\"comm\":\"worker\",\"state\":\"hypervisor\","
		"\"begin_ns\":2500,\"end_ns\":2600,\"vcpu\":1,\"reason\":48,"
		"\"container\":null,\"vtid\":null,"
		"\"dur_ns\":100,\"begin_ns_str\":\"2500\",\"end_ns_str\":\"2600\"}\n"
		"{\"machine\":\"guest1\",\"tid\":43,\"comm\":\"\",\"state\":\"blocked\","
		"\"begin_ns\":0,\"end_ns\":9000,\"vcpu\":null,\"reason\":null,"
		"\"container\":null,\"vtid\":null,"
		"\"dur_ns\":9000,\"begin_ns_str\":\"0\",\"end_ns_str\":\"9000\"}\n");
	free(s);
}
END_TEST

static void feed_vcpus(struct vm_writer *w)
{
	const struct vm_vcpu_interval halted = {
		"vm", 2, "blocked", 20, 35, -1, -1, 12, 1,
	};

	vm_writer_vcpu_interval(w, &halted);
}

START_TEST(vcpus_lines)
{
	char *s = write_to_string(VM_WRITER_JSON, VM_WRITER_VCPUS, feed_vcpus);

	ck_assert_str_eq(s,
		"{\"machine\":\"vm\",\"vcpu\":2,\"mode\":\"blocked\",\"begin_ns\":20,"
		"\"end_ns\":35,\"host_tid\":null,\"pcpu\":null,\"reason\":12,"
		"\"dur_ns\":15,\"begin_ns_str\":\"20\",\"end_ns_str\":\"35\"}\n");
	free(s);
}
END_TEST

static void feed_epoch_vcpu(struct vm_writer *w)
{
	/* 2^53 < begin: a double holds neither end, nor their difference. */
	const struct vm_vcpu_interval run = {
		"vm", 0, "guest", 1700000000000250001, 1700000000000270000, 7, 1, -1, 1,
	};

	vm_writer_vcpu_interval(w, &run);
}

START_TEST(epoch_times_exact_for_doubles)
{
	char *s = write_to_string(VM_WRITER_JSON, VM_WRITER_VCPUS, feed_epoch_vcpu);

	ck_assert_str_eq(s,
		"{\"machine\":\"vm\",\"vcpu\":0,\"mode\":\"guest\","
		"\"begin_ns\":1700000000000250001,\"end_ns\":1700000000000270000,"
		"\"host_tid\":7,\"pcpu\":1,\"reason\":null,\"dur_ns\":19999,"
		"\"begin_ns_str\":\"1700000000000250001\","
		"\"end_ns_str\":\"1700000000000270000\"}\n");
	free(s);
}
END_TEST

static void feed_exits(struct vm_writer *w)
{
	const struct vm_exit_stat io = { "g", 0, 30, 1, 4, 10, 1, 4 };
	const struct vm_exit_stat unnamed = { "g", 1, 4242, 2, 1, 5, 5, 5 };

	vm_writer_exit_stat(w, &io);
	vm_writer_exit_stat(w, &unnamed);
}

START_TEST(exits_lines)
{
	char *s = write_to_string(VM_WRITER_JSON, VM_WRITER_EXITS, feed_exits);

	ck_assert_str_eq(s,
		"{\"machine\":\"g\",\"vcpu\":0,\"reason\":30,\"name\":\"IO_INSTRUCTION\","
		"\"count\":4,\"total_ns\":10,\"min_ns\":1,\"max_ns\":4,\"mean_ns\":2}\n"
		"{\"machine\":\"g\",\"vcpu\":1,\"reason\":4242,\"name\":\"4242\","
		"\"count\":1,\"total_ns\":5,\"min_ns\":5,\"max_ns\":5,\"mean_ns\":5}\n");
	free(s);
}
END_TEST

static const char *escaped_comm;

static void feed_escaped_comm(struct vm_writer *w)
{
	const struct vm_thread_interval iv = {
		"m", 1, escaped_comm, "running", 0, 1, -1, -1, 1, NULL, -1,
	};

	vm_writer_thread_interval(w, &iv);
}

/* The "comm" member of the line written for a thread named `comm`. */
static void check_comm_written_as(const char *comm, const char *expected)
{
	char *s;
	char *line;

	escaped_comm = comm;
	s = write_to_string(VM_WRITER_JSON, VM_WRITER_THREADS, feed_escaped_comm);
	line = g_strdup_printf("{\"machine\":\"m\",\"tid\":1,\"comm\":%s,"
		"\"state\":\"running\",\"begin_ns\":0,\"end_ns\":1,"
		"\"vcpu\":null,\"reason\":null,"
		"\"container\":null,\"vtid\":null,\"dur_ns\":1,\"begin_ns_str\":\"0\","
		"\"end_ns_str\":\"1\"}\n", expected);
	ck_assert_str_eq(s, line);
	g_free(line);
	free(s);
}

START_TEST(escapes_quotes_and_backslashes)
{
	check_comm_written_as("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
}
END_TEST

START_TEST(escapes_control_characters)
{
	check_comm_written_as("\t\n\r\b\f\x01\x1f\x7f",
		"\"\\t\\n\\r\\b\\f\\u0001\\u001f\x7f\"");
}
END_TEST

START_TEST(keeps_valid_utf8)
{
	/* é, €, U+10348 */
	check_comm_written_as("\xc3\xa9\xe2\x82\xac\xf0\x90\x8d\x88",
		"\"\xc3\xa9\xe2\x82\xac\xf0\x90\x8d\x88\"");
}
END_TEST

START_TEST(replaces_invalid_utf8)
{
	/* lone continuation, truncated sequence at the end */
	check_comm_written_as("a\x80z\xe2\x82", "\"a\\ufffdz\\ufffd\\ufffd\"");
	/* overlong '/', UTF-16 surrogate, above U+10FFFF, 0xff */
	check_comm_written_as("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	check_comm_written_as("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	check_comm_written_as("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	check_comm_written_as("x\xffy", "\"x\\ufffdy\"");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer-json");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, threads_lines);
	tcase_add_test(tc, vcpus_lines);
	tcase_add_test(tc, epoch_times_exact_for_doubles);
	tcase_add_test(tc, exits_lines);
	tcase_add_test(tc, escapes_quotes_and_backslashes);
	tcase_add_test(tc, escapes_control_characters);
	tcase_add_test(tc, keeps_valid_utf8);
	tcase_add_test(tc, replaces_invalid_utf8);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
