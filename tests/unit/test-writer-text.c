#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test-writer-helpers.h"
#include "writers/text-table.h"
#include "writers/text-units.h"

static void check_duration(int64_t ns, const char *expected)
{
	char buf[VM_TEXT_UNITS_BUF];

	vm_text_duration(ns, buf);
	ck_assert_str_eq(buf, expected);
}

START_TEST(durations_pick_a_unit)
{
	check_duration(0, "0 ns");
	check_duration(999, "999 ns");
	check_duration(1000, "1.000 us");
	check_duration(12345, "12.345 us");
	check_duration(1500000, "1.500 ms");
	check_duration(2000000000, "2.000 s");
	check_duration(-2500, "-2.500 us");
	/* INT64_MAX ns is about 292 years: seconds stay the largest unit. */
	check_duration(INT64_MAX, "9223372036.855 s");
}
END_TEST

START_TEST(durations_round_to_three_decimals)
{
	check_duration(1234567, "1.235 ms");
	check_duration(1234499, "1.234 ms");
	/* Rounding up into the next unit moves to it. */
	check_duration(999999, "999.999 us");
	check_duration(999999600, "1.000 s");
}
END_TEST

static void check_percent(int64_t part, int64_t total, const char *expected)
{
	char buf[VM_TEXT_UNITS_BUF];

	vm_text_percent(part, total, buf);
	ck_assert_str_eq(buf, expected);
}

START_TEST(percentages)
{
	check_percent(1, 3, "33.3%");
	check_percent(2, 3, "66.7%");
	check_percent(5, 5, "100.0%");
	check_percent(0, 0, "0.0%");
}
END_TEST

/* Text output of `feed`: the whole summary (summary), else the table of `what`. */
static char *text_of(bool summary, enum vm_writer_what what, bool no_host,
		feed_records_fn feed)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct vm_writer *w;

	ck_assert_ptr_nonnull(out);
	w = summary ? vm_writer_create_summary(out) :
		vm_writer_create(VM_WRITER_TEXT, what, out);
	ck_assert_ptr_nonnull(w);
	feed(w);
	vm_writer_set_no_host(w, no_host);
	ck_assert(vm_writer_finish(w));
	vm_writer_destroy(w);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

static void feed_summary(struct vm_writer *w)
{
	const struct vm_thread_interval worker_runs = {
		.machine = "guest1", .tid = 42, .comm = "worker", .state = "running",
		.begin_ns = 0, .end_ns = 3000000, .vcpu = 0, .reason = -1,
	};
	const struct vm_thread_interval worker_exits = {
		.machine = "guest1", .tid = 42, .comm = "worker", .state = "hypervisor",
		.begin_ns = 3000000, .end_ns = 4000000, .vcpu = 0, .reason = 48,
	};
	const struct vm_thread_interval sleeper = {
		.machine = "guest1", .tid = 7, .comm = "k\xc3\xa4" "fer", .state = "blocked",
		.begin_ns = 0, .end_ns = 1500000000, .vcpu = -1, .reason = -1,
	};
	const struct vm_thread_interval other_vm = {
		.machine = "a-vm", .tid = 100, .comm = "x", .state = "runnable",
		.begin_ns = 0, .end_ns = 10, .vcpu = -1, .reason = -1,
	};
	const struct vm_vcpu_interval in_guest = {
		.machine = "guest1", .vcpu = 0, .mode = "guest", .begin_ns = 0,
		.end_ns = 750, .host_tid = 9, .pcpu = 1, .reason = -1,
	};
	const struct vm_vcpu_interval halted = {
		.machine = "guest1", .vcpu = 0, .mode = "blocked", .begin_ns = 750,
		.end_ns = 1000, .host_tid = 9, .pcpu = -1, .reason = -1,
	};
	const struct vm_exit_stat hlt = { "guest1", 0, 12, 1, 3, 1000, 100, 600 };
	const struct vm_exit_stat ept = { "guest1", 0, 48, 1, 10, 25000, 1000, 9000 };
	/* Same total as hlt: machine, then vCPU, decide. */
	const struct vm_exit_stat npf = { "guest1", 1, 0x400, 2, 1, 1000, 1000, 1000 };

	/* Out of order on purpose: the tables are sorted. */
	vm_writer_thread_interval(w, &worker_runs);
	vm_writer_exit_stat(w, &hlt);
	vm_writer_thread_interval(w, &sleeper);
	vm_writer_vcpu_interval(w, &halted);
	vm_writer_thread_interval(w, &worker_exits);
	vm_writer_exit_stat(w, &ept);
	vm_writer_exit_stat(w, &npf);
	vm_writer_vcpu_interval(w, &in_guest);
	vm_writer_thread_interval(w, &other_vm);
}

#define SUMMARY_THREADS_TABLE \
	"Guest threads: time in each state (% of the thread's time)\n" \
	"  machine  tid  comm     running      %  hypervisor      %  preempted  %  vcpu-blocked  %  runnable       %  blocked       %     total\n" \
	"  -------  ---  ------  --------  -----  ----------  -----  ---------  -  ------------  -  --------  ------  -------  ------  --------\n" \
	"  a-vm     100  x              -      -           -      -          -  -             -  -     10 ns  100.0%        -       -     10 ns\n" \
	"  guest1     7  k\xc3\xa4" "fer          -      -           -      -          -  -             -  -         -       -  1.500 s  100.0%   1.500 s\n" \
	"  guest1    42  worker  3.000 ms  75.0%    1.000 ms  25.0%          -  -             -  -         -       -        -       -  4.000 ms\n"

#define SUMMARY_VCPUS_TABLE \
	"vCPUs: time in each mode (% of the vCPU's time)\n" \
	"  machine  vcpu   guest      %  hypervisor  %  preempted  %  blocked      %     total\n" \
	"  -------  ----  ------  -----  ----------  -  ---------  -  -------  -----  --------\n" \
	"  guest1      0  750 ns  75.0%           -  -          -  -   250 ns  25.0%  1.000 us\n"

#define SUMMARY_EXITS_TABLE \
	"Top exit reasons by total time (3 of 3)\n" \
	"  machine  vcpu  reason  name           count      total      mean       max\n" \
	"  -------  ----  ------  -------------  -----  ---------  --------  --------\n" \
	"  guest1      0      48  EPT_VIOLATION     10  25.000 us  2.500 us  9.000 us\n" \
	"  guest1      0      12  HLT                3   1.000 us    333 ns    600 ns\n" \
	"  guest1      1    1024  npf                1   1.000 us  1.000 us  1.000 us\n"

START_TEST(summary_tables)
{
	char *s = text_of(true, VM_WRITER_THREADS, false, feed_summary);

	assert_output_eq(s, SUMMARY_THREADS_TABLE "\n" SUMMARY_VCPUS_TABLE "\n"
		SUMMARY_EXITS_TABLE);
	free(s);
}
END_TEST

/* With `what`, the table of `what` alone (SPEC: a per-thread summary table). */
START_TEST(what_picks_one_table)
{
	char *threads = text_of(false, VM_WRITER_THREADS, false, feed_summary);
	char *vcpus = text_of(false, VM_WRITER_VCPUS, false, feed_summary);
	char *exits = text_of(false, VM_WRITER_EXITS, false, feed_summary);

	assert_output_eq(threads, SUMMARY_THREADS_TABLE);
	assert_output_eq(vcpus, SUMMARY_VCPUS_TABLE);
	assert_output_eq(exits, SUMMARY_EXITS_TABLE);
	free(threads);
	free(vcpus);
	free(exits);
}
END_TEST

/* Without a host, the threads are no guest's: the title does not say so. */
START_TEST(own_view_title)
{
	char *summary = text_of(true, VM_WRITER_THREADS, true, feed_summary);
	char *threads = text_of(false, VM_WRITER_THREADS, true, feed_summary);

	ck_assert_ptr_null(strstr(summary, "Guest"));
	ck_assert_ptr_eq(strstr(summary,
		"Threads: time in each state (% of the thread's time)\n"), summary);
	ck_assert_str_eq(threads + strlen("Threads"),
		&SUMMARY_THREADS_TABLE[strlen("Guest threads")]);
	free(summary);
	free(threads);
}
END_TEST

static void feed_nothing(struct vm_writer *w)
{
	(void) w;
}

START_TEST(empty_sections_say_so)
{
	char *s = text_of(true, VM_WRITER_THREADS, false, feed_nothing);

	assert_output_eq(s,
		"Guest threads: time in each state (% of the thread's time)\n"
		"  (none)\n"
		"\n"
		"vCPUs: time in each mode (% of the vCPU's time)\n"
		"  (none)\n"
		"\n"
		"Top exit reasons by total time (0 of 0)\n"
		"  (none)\n");
	free(s);
}
END_TEST

static void feed_renamed_thread(struct vm_writer *w)
{
	/* Given latest first: the name of the latest interval still wins. */
	const struct vm_thread_interval after_exec = {
		.machine = "m", .tid = 5, .comm = "sh", .state = "runnable",
		.begin_ns = 20, .end_ns = 30, .vcpu = -1, .reason = -1,
	};
	const struct vm_thread_interval before_exec = {
		.machine = "m", .tid = 5, .comm = "bash", .state = "running",
		.begin_ns = 0, .end_ns = 20, .vcpu = 3, .reason = -1,
	};
	const struct vm_thread_interval nameless = {
		.machine = "m", .tid = 5, .comm = "", .state = "blocked",
		.begin_ns = 30, .end_ns = 40, .vcpu = -1, .reason = -1,
	};

	vm_writer_thread_interval(w, &after_exec);
	vm_writer_thread_interval(w, &before_exec);
	vm_writer_thread_interval(w, &nameless);
}

START_TEST(thread_named_by_latest_comm)
{
	char *s = write_to_string(VM_WRITER_TEXT, VM_WRITER_THREADS, feed_renamed_thread);

	ck_assert_ptr_nonnull(strstr(s, "\n  m          5  sh   "));
	ck_assert_ptr_null(strstr(s, "bash"));
	free(s);
}
END_TEST

static void feed_control_chars(struct vm_writer *w)
{
	const struct vm_thread_interval iv = {
		.machine = "m", .tid = 5, .comm = "a\nb\tc\xff", .state = "running",
		.begin_ns = 0, .end_ns = 1, .vcpu = 0, .reason = -1,
	};

	vm_writer_thread_interval(w, &iv);
}

START_TEST(control_chars_cannot_break_rows)
{
	char *s = write_to_string(VM_WRITER_TEXT, VM_WRITER_THREADS, feed_control_chars);

	ck_assert_ptr_nonnull(strstr(s, "  m          5  a?b?c\xef\xbf\xbd  "));
	free(s);
}
END_TEST

/*
 * Columns line up on a terminal: a CJK character or an emoji takes two
 * columns, a combining accent none, an accented letter one.
 */
START_TEST(wide_characters_keep_columns_aligned)
{
	static const char *comms[] = {
		"ab",
		"\xe6\xbc\xa2\xe5\xad\x97",   /* two CJK ideographs: 4 columns */
		"\xf0\x9f\x90\xb3x",            /* an emoji and x: 3 columns */
		"e\xcc\x81t\xc3\xa9",            /* e + combining acute, t, e-acute: 3 */
	};
	struct vm_text_table *t = vm_text_table_new("lr");
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	vm_text_table_begin_row(t);
	vm_text_table_add(t, "comm");
	vm_text_table_add(t, "tid");
	for (size_t i = 0; i < G_N_ELEMENTS(comms); i++) {
		vm_text_table_begin_row(t);
		vm_text_table_add(t, comms[i]);
		vm_text_table_addf(t, "%zu", i);
	}
	vm_text_table_print(t, out);
	fclose(out);
	assert_output_eq(buf,
		"  comm  tid\n"
		"  ----  ---\n"
		"  ab      0\n"
		"  \xe6\xbc\xa2\xe5\xad\x97    1\n"
		"  \xf0\x9f\x90\xb3x     2\n"
		"  e\xcc\x81t\xc3\xa9     3\n");
	free(buf);
	vm_text_table_free(t);
}
END_TEST

START_TEST(full_disk_reported)
{
	FILE *out = fopen("/dev/full", "w");
	struct vm_writer *w;

	ck_assert_ptr_nonnull(out);
	w = vm_writer_create_summary(out);
	feed_summary(w);
	ck_assert(!vm_writer_finish(w));
	vm_writer_destroy(w);
	fclose(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer-text");
	TCase *units = tcase_create("units");
	TCase *tables = tcase_create("tables");

	tcase_add_test(units, durations_pick_a_unit);
	tcase_add_test(units, durations_round_to_three_decimals);
	tcase_add_test(units, percentages);
	tcase_add_test(tables, summary_tables);
	tcase_add_test(tables, what_picks_one_table);
	tcase_add_test(tables, own_view_title);
	tcase_add_test(tables, empty_sections_say_so);
	tcase_add_test(tables, thread_named_by_latest_comm);
	tcase_add_test(tables, control_chars_cannot_break_rows);
	tcase_add_test(tables, wide_characters_keep_columns_aligned);
	tcase_add_test(tables, full_disk_reported);
	suite_add_tcase(s, units);
	suite_add_tcase(s, tables);
	return run_suite(s);
}
