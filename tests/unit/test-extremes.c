/*
 * What the fuzz target (tests/fuzz) found: times and numbers at the ends of
 * their range. Each case once overflowed a signed difference or sum
 * (undefined behaviour: the sanitizer build aborts, a plain build computes
 * nonsense that the assertions below catch) or took an impossible vCPU
 * number for real.
 */
#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "model/registry.h"
#include "util/time-span.h"
#include "vcpu/tracker.h"
#include "writers/writer.h"
#include "test-threads-helpers.h"

START_TEST(time_span_helpers)
{
	ck_assert(vm_time_span_exceeds(INT64_MAX, INT64_MIN, 1000));
	ck_assert(!vm_time_span_exceeds(INT64_MIN, INT64_MAX, 1000));
	ck_assert(!vm_time_span_exceeds(5, 5, 0));
	ck_assert(vm_time_span_exceeds(6, 5, 0));
	ck_assert(!vm_time_span_exceeds(1005, 5, 1000));
	ck_assert_int_eq(vm_time_span(INT64_MAX, -10), INT64_MAX);
	ck_assert_int_eq(vm_time_span(INT64_MIN, 10), INT64_MIN);
	ck_assert_int_eq(vm_time_span(30, 10), 20);
	ck_assert_int_eq(vm_time_sum(INT64_MAX - 1, 5), INT64_MAX);
	ck_assert_int_eq(vm_time_sum(INT64_MIN + 1, -5), INT64_MIN);
	ck_assert_int_eq(vm_time_sum(2, 3), 5);
}
END_TEST

static void count_release(void *user, void *cookie)
{
	(void) cookie;
	(*(int *) user)++;
}

static void ignore_change(void *user, const struct vm_vcpu_change *change)
{
	(void) user, (void) change;
}

/*
 * The look-ahead releases what is older than its window: an input at the
 * very beginning of time and one at its end are more than a window apart,
 * however the difference is computed.
 */
START_TEST(look_ahead_across_the_whole_range)
{
	static const struct vm_vcpu_callbacks callbacks = {
		.release = count_release, .mode_change = ignore_change,
	};
	struct vm_vcpu_limits limits = { 1000, 1000, 1000, 1000 };
	struct vm_model *model = vm_model_create(vm_model_registry_find("kvm"));
	int released = 0;
	struct vm_vcpu_tracker *tracker =
		vm_vcpu_tracker_create(model, &limits, &callbacks, &released);
	struct vm_event early = { .kind = VM_EVENT_KVM_ENTRY, .ts = INT64_MIN + 10,
		.machine = 0, .cpu = 0, .u.kvm_entry.vcpu_id = 0 };
	struct vm_event late = { .kind = VM_EVENT_OTHER, .ts = INT64_MAX - 10,
		.machine = 0, .cpu = 0 };

	vm_vcpu_tracker_add_machine(tracker, 0);
	vm_vcpu_tracker_push(tracker, &early, &early);
	vm_vcpu_tracker_push(tracker, &late, &late);
	ck_assert_int_ge(released, 1);
	vm_vcpu_tracker_flush(tracker);
	ck_assert_int_eq(released, 2);
	vm_vcpu_tracker_destroy(tracker, NULL);
	vm_model_destroy(model);
}
END_TEST

/* A guest CPU is a vCPU: a cpu_id no vCPU can have is no CPU. */
START_TEST(guest_cpu_out_of_range)
{
	struct recorder r;

	recorder_init(&r);
	vm_threads_add_machine(r.threads, 0, "solo", VM_THREADS_ROLE_UNKNOWN);
	feed_switch(&r, 0, 10, INT64_MAX, "swapper", 0, 0, "a", 100);
	feed_switch(&r, 0, 20, -5, "a", 100, 1, "b", 200);
	feed_other(&r, 0, 30);
	vm_threads_finish(r.threads);
	ck_assert_uint_eq(r.thread_rows->len, 0);
	ck_assert_str_eq(r.warnings->pdata[0], "no-cpu:solo");
	recorder_clear(&r);
}
END_TEST

/* A '-' right before a digit: text tables print only durations and shares. */
static bool has_negative_number(const char *text)
{
	for (const char *p = strchr(text, '-'); p; p = strchr(p + 1, '-'))
		if (g_ascii_isdigit(p[1]))
			return true;
	return false;
}

/* Intervals that span more than the int64_t range in every writer. */
START_TEST(writers_with_huge_spans)
{
	static const enum vm_writer_format formats[] = {
		VM_WRITER_TEXT, VM_WRITER_CSV, VM_WRITER_JSON, VM_WRITER_CHROME,
	};
	struct vm_thread_interval thread = { .machine = "g", .tid = 1, .comm = "a",
		.state = "running", .begin_ns = INT64_MIN + 5, .end_ns = INT64_MAX - 5,
		.vcpu = 0, .reason = -1 };
	struct vm_vcpu_interval vcpu = { .machine = "g", .vcpu = 0, .mode = "guest",
		.begin_ns = INT64_MIN + 5, .end_ns = INT64_MAX - 5, .host_tid = -1,
		.pcpu = -1, .reason = -1 };
	struct vm_exit_stat stat = { .machine = "g", .vcpu = 0, .reason = 1, .isa = 1,
		.count = 2, .total_ns = INT64_MAX - 1, .min_ns = 1, .max_ns = INT64_MAX - 2 };

	for (unsigned int f = 0; f < G_N_ELEMENTS(formats); f++) {
		for (unsigned int what = VM_WRITER_THREADS; what <= VM_WRITER_EXITS; what++) {
			char *text = NULL;
			size_t size = 0;
			FILE *out = open_memstream(&text, &size);
			struct vm_writer *w = vm_writer_create(formats[f], what, out);

			vm_writer_thread_interval(w, &thread);
			vm_writer_thread_interval(w, &thread);
			vm_writer_vcpu_interval(w, &vcpu);
			vm_writer_vcpu_interval(w, &vcpu);
			vm_writer_exit_stat(w, &stat);
			vm_writer_exit_stat(w, &stat);
			ck_assert(vm_writer_finish(w));
			vm_writer_destroy(w);
			fclose(out);
			/* Durations and totals are never negative. */
			if (formats[f] == VM_WRITER_TEXT)
				ck_assert_msg(!has_negative_number(text),
					"what %u:\n%s", what, text);
			if (formats[f] == VM_WRITER_CHROME)
				ck_assert_msg(!strstr(text, "\"dur\":-"), "%s", text);
			free(text);
		}
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("extremes");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, time_span_helpers);
	tcase_add_test(tc, look_ahead_across_the_whole_range);
	tcase_add_test(tc, guest_cpu_out_of_range);
	tcase_add_test(tc, writers_with_huge_spans);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
