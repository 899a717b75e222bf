/*
 * The writers on lost events (SPEC, Lost events): `unknown` intervals in
 * every threads output (vcpu and reason empty), and in the text format an
 * `unknown` column and a table of each machine's losses, both only when
 * something was lost, so that loss-free outputs stay as they were.
 */

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "test-writer-helpers.h"

static const struct vm_thread_interval runs = {
	.machine = "m", .tid = 5, .comm = "w", .state = "running",
	.begin_ns = 0, .end_ns = 600, .vcpu = 1, .reason = -1,
};
static const struct vm_thread_interval lost = {
	.machine = "m", .tid = 5, .comm = "w", .state = "unknown",
	.begin_ns = 600, .end_ns = 1000, .vcpu = -1, .reason = -1,
};
static const struct vm_machine_losses m_losses = {
	.machine = "m", .events = 12, .events_uncounted = true, .packets = 0,
	.packets_uncounted = false, .gaps = 3, .affected_ns = 45,
};
static const struct vm_machine_losses n_losses = {
	.machine = "n", .events = 0, .events_uncounted = false, .packets = 0,
	.packets_uncounted = true, .gaps = 1, .affected_ns = 1000,
};

static void feed_unknown(struct vm_writer *w)
{
	vm_writer_thread_interval(w, &runs);
	vm_writer_thread_interval(w, &lost);
}

static void feed_unknown_and_losses(struct vm_writer *w)
{
	feed_unknown(w);
	/* Out of order: the table is sorted by machine. */
	vm_writer_machine_losses(w, &n_losses);
	vm_writer_machine_losses(w, &m_losses);
}

static void feed_known(struct vm_writer *w)
{
	vm_writer_thread_interval(w, &runs);
}

START_TEST(csv_unknown_row)
{
	char *s = write_to_string(VM_WRITER_CSV, VM_WRITER_THREADS, feed_unknown_and_losses);

	/* The losses are the text summary's only. */
	assert_output_eq(s,
		"machine,tid,comm,state,begin_ns,end_ns,vcpu,reason,container,vtid\n"
		"m,5,w,running,0,600,1,,,\n"
		"m,5,w,unknown,600,1000,,,,\n");
	free(s);
}
END_TEST

START_TEST(json_unknown_line)
{
	char *s = write_to_string(VM_WRITER_JSON, VM_WRITER_THREADS, feed_unknown_and_losses);

	assert_output_eq(s,
		"{\"machine\":\"m\",\"tid\":5,\"comm\":\"w\",\"state\":\"running\",\"begin_ns\":0,"
		"\"end_ns\":600,\"vcpu\":1,\"reason\":null,\"container\":null,"
		"\"vtid\":null,\"dur_ns\":600,\"begin_ns_str\":\"0\","
		"\"end_ns_str\":\"600\"}\n"
		"{\"machine\":\"m\",\"tid\":5,\"comm\":\"w\",\"state\":\"unknown\",\"begin_ns\":600,"
		"\"end_ns\":1000,\"vcpu\":null,\"reason\":null,\"container\":null,\"vtid\":null,\"dur_ns\":400,"
		"\"begin_ns_str\":\"600\",\"end_ns_str\":\"1000\"}\n");
	free(s);
}
END_TEST

START_TEST(chrome_unknown_slice_off_vcpu_tracks)
{
	char *s = write_to_string(VM_WRITER_CHROME, VM_WRITER_THREADS, feed_unknown_and_losses);

	/* On the thread's track only: no vCPU is known to run it. */
	assert_output_eq(s,
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"m\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":5,\"name\":\"thread_name\",\"args\":{\"name\":\"w (5)\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":0.000,\"dur\":0.600,\"name\":\"running\",\"args\":{\"vcpu\":1}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1073741825,\"name\":\"thread_name\",\"args\":{\"name\":\"vCPU 1\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1073741825,\"ts\":0.000,\"dur\":0.600,\"name\":\"w (5)\",\"args\":{\"tid\":5,\"state\":\"running\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":5,\"ts\":0.600,\"dur\":0.400,\"name\":\"unknown\",\"args\":{}}\n"
		"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"ts_origin_unix_ns\":\"0\"}}\n");
	free(s);
}
END_TEST

#define UNKNOWN_THREADS_TABLE \
	"Guest threads: time in each state (% of the thread's time)\n" \
	"  machine  tid  comm  running      %  hypervisor  %  preempted  %  vcpu-blocked  %  runnable  %  blocked  %  unknown      %     total\n" \
	"  -------  ---  ----  -------  -----  ----------  -  ---------  -  ------------  -  --------  -  -------  -  -------  -----  --------\n" \
	"  m          5  w      600 ns  60.0%           -  -          -  -             -  -         -  -        -  -   400 ns  40.0%  1.000 us\n"

#define LOSSES_TABLE \
	"Lost events (time affected: the sum of the gaps' durations over the machine's CPUs)\n" \
	"  machine         events lost   packets lost  gaps  time affected\n" \
	"  -------  ------------------  -------------  ----  -------------\n" \
	"  m        12 + unknown count              -     3          45 ns\n" \
	"  n                         -  unknown count     1       1.000 us\n"

START_TEST(text_unknown_column)
{
	char *s = write_to_string(VM_WRITER_TEXT, VM_WRITER_THREADS, feed_unknown);

	assert_output_eq(s, UNKNOWN_THREADS_TABLE);
	free(s);
}
END_TEST

START_TEST(text_losses_table)
{
	char *s = write_to_string(VM_WRITER_TEXT, VM_WRITER_THREADS, feed_unknown_and_losses);

	assert_output_eq(s, UNKNOWN_THREADS_TABLE "\n" LOSSES_TABLE);
	free(s);
}
END_TEST

static char *summary_of(feed_records_fn feed)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct vm_writer *w = vm_writer_create_summary(out);

	feed(w);
	ck_assert(vm_writer_finish(w));
	vm_writer_destroy(w);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

START_TEST(summary_ends_with_losses)
{
	char *s = summary_of(feed_unknown_and_losses);

	assert_output_eq(s, UNKNOWN_THREADS_TABLE "\n"
		"vCPUs: time in each mode (% of the vCPU's time)\n"
		"  (none)\n"
		"\n"
		"Top exit reasons by total time (0 of 0)\n"
		"  (none)\n"
		"\n" LOSSES_TABLE);
	free(s);
}
END_TEST

START_TEST(no_unknown_column_without_losses)
{
	char *s = write_to_string(VM_WRITER_TEXT, VM_WRITER_THREADS, feed_known);

	ck_assert_ptr_null(strstr(s, "unknown"));
	ck_assert_ptr_null(strstr(s, "Lost events"));
	/* The header ends as it always did. */
	ck_assert_ptr_nonnull(strstr(s, "  blocked  %   total\n"));
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer-losses");
	TCase *tc = tcase_create("losses");

	tcase_add_test(tc, csv_unknown_row);
	tcase_add_test(tc, json_unknown_line);
	tcase_add_test(tc, chrome_unknown_slice_off_vcpu_tracks);
	tcase_add_test(tc, text_unknown_column);
	tcase_add_test(tc, text_losses_table);
	tcase_add_test(tc, summary_ends_with_losses);
	tcase_add_test(tc, no_unknown_column_without_losses);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
