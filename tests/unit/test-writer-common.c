/* Parts shared by every format: option parsing, exit names, I/O errors. */

#include <check.h>
#include <stdlib.h>

#include "test-writer-helpers.h"

START_TEST(formats_parse)
{
	enum vm_writer_format f;

	ck_assert(vm_writer_format_from_string("text", &f));
	ck_assert_int_eq(f, VM_WRITER_TEXT);
	ck_assert(vm_writer_format_from_string("csv", &f));
	ck_assert_int_eq(f, VM_WRITER_CSV);
	ck_assert(vm_writer_format_from_string("json", &f));
	ck_assert_int_eq(f, VM_WRITER_JSON);
	ck_assert(vm_writer_format_from_string("chrome", &f));
	ck_assert_int_eq(f, VM_WRITER_CHROME);
}
END_TEST

START_TEST(unknown_formats_rejected)
{
	enum vm_writer_format f = VM_WRITER_JSON;

	ck_assert(!vm_writer_format_from_string("CSV", &f));
	ck_assert(!vm_writer_format_from_string("xml", &f));
	ck_assert(!vm_writer_format_from_string("", &f));
	ck_assert(!vm_writer_format_from_string("csv ", &f));
	ck_assert(!vm_writer_format_from_string(NULL, &f));
	ck_assert_int_eq(f, VM_WRITER_JSON);
}
END_TEST

START_TEST(whats_parse)
{
	enum vm_writer_what w;

	ck_assert(vm_writer_what_from_string("threads", &w));
	ck_assert_int_eq(w, VM_WRITER_THREADS);
	ck_assert(vm_writer_what_from_string("vcpus", &w));
	ck_assert_int_eq(w, VM_WRITER_VCPUS);
	ck_assert(vm_writer_what_from_string("exits", &w));
	ck_assert_int_eq(w, VM_WRITER_EXITS);
	ck_assert(vm_writer_what_from_string("steal", &w));
	ck_assert_int_eq(w, VM_WRITER_STEAL);
}
END_TEST

START_TEST(unknown_whats_rejected)
{
	enum vm_writer_what w = VM_WRITER_EXITS;

	ck_assert(!vm_writer_what_from_string("thread", &w));
	ck_assert(!vm_writer_what_from_string("Threads", &w));
	ck_assert(!vm_writer_what_from_string("", &w));
	ck_assert(!vm_writer_what_from_string(NULL, &w));
	ck_assert_int_eq(w, VM_WRITER_EXITS);
}
END_TEST

START_TEST(create_rejects_bad_arguments)
{
	ck_assert_ptr_null(vm_writer_create(VM_WRITER_CSV, (enum vm_writer_what) 99, stdout));
	ck_assert_ptr_null(vm_writer_create((enum vm_writer_format) 9, VM_WRITER_THREADS, stdout));
	ck_assert_ptr_null(vm_writer_create(VM_WRITER_TEXT, VM_WRITER_THREADS, NULL));
}
END_TEST

/* A record without machine name must not crash any format. */
static void check_missing_names_tolerated(enum vm_writer_format format,
		enum vm_writer_what what)
{
	const struct vm_thread_interval t = {
		.tid = 1, .begin_ns = 0, .end_ns = 1, .vcpu = 0, .reason = -1,
	};
	const struct vm_vcpu_interval v = {
		.vcpu = 0, .begin_ns = 0, .end_ns = 1, .host_tid = -1, .pcpu = -1,
		.reason = -1,
	};
	const struct vm_exit_stat e = { .vcpu = 0, .reason = 12, .count = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct vm_writer *w = vm_writer_create(format, what, out);

	vm_writer_thread_interval(w, &t);
	vm_writer_vcpu_interval(w, &v);
	vm_writer_exit_stat(w, &e);
	ck_assert(vm_writer_finish(w));
	vm_writer_destroy(w);
	fclose(out);
	ck_assert_uint_gt(len, 0);
	free(buf);
}

START_TEST(missing_names_tolerated)
{
	for (int f = VM_WRITER_TEXT; f <= VM_WRITER_CHROME; f++) {
		for (int what = VM_WRITER_THREADS; what <= VM_WRITER_EXITS; what++)
			check_missing_names_tolerated((enum vm_writer_format) f,
				(enum vm_writer_what) what);
	}
}
END_TEST

START_TEST(vmx_exit_names)
{
	ck_assert_str_eq(vm_exit_reason_name(1, 0), "EXCEPTION_NMI");
	ck_assert_str_eq(vm_exit_reason_name(1, 1), "EXTERNAL_INTERRUPT");
	ck_assert_str_eq(vm_exit_reason_name(1, 12), "HLT");
	ck_assert_str_eq(vm_exit_reason_name(1, 18), "VMCALL");
	ck_assert_str_eq(vm_exit_reason_name(1, 28), "CR_ACCESS");
	ck_assert_str_eq(vm_exit_reason_name(1, 30), "IO_INSTRUCTION");
	ck_assert_str_eq(vm_exit_reason_name(1, 31), "MSR_READ");
	ck_assert_str_eq(vm_exit_reason_name(1, 32), "MSR_WRITE");
	ck_assert_str_eq(vm_exit_reason_name(1, 48), "EPT_VIOLATION");
	ck_assert_str_eq(vm_exit_reason_name(1, 49), "EPT_MISCONFIG");
	ck_assert_str_eq(vm_exit_reason_name(1, 52), "PREEMPTION_TIMER");
	ck_assert_str_eq(vm_exit_reason_name(1, 75), "NOTIFY");
	ck_assert_str_eq(vm_exit_reason_name(1, 85), "MSR_WRITE_IMM");
}
END_TEST

START_TEST(unknown_isa_is_vmx)
{
	ck_assert_str_eq(vm_exit_reason_name(0, 12), "HLT");
	ck_assert_str_eq(vm_exit_reason_name(7, 48), "EPT_VIOLATION");
}
END_TEST

START_TEST(vmx_gaps_have_no_name)
{
	/* Numbers the VMX table skips, and numbers out of its range. */
	ck_assert_ptr_null(vm_exit_reason_name(1, 5));
	ck_assert_ptr_null(vm_exit_reason_name(1, 11));
	ck_assert_ptr_null(vm_exit_reason_name(1, 35));
	ck_assert_ptr_null(vm_exit_reason_name(1, 76));
	ck_assert_ptr_null(vm_exit_reason_name(1, 1000));
	ck_assert_ptr_null(vm_exit_reason_name(1, -1));
	/* An SVM-only number. */
	ck_assert_ptr_null(vm_exit_reason_name(1, 0x400));
}
END_TEST

START_TEST(svm_exit_names)
{
	ck_assert_str_eq(vm_exit_reason_name(2, 0x000), "read_cr0");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x04e), "PF excp");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x060), "interrupt");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x072), "cpuid");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x078), "hlt");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x07b), "io");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x07c), "msr");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x081), "hypercall");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x400), "npf");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x401), "avic_incomplete_ipi");
	ck_assert_str_eq(vm_exit_reason_name(2, 0x80000010), "vmgexit_page_state_change");
	ck_assert_str_eq(vm_exit_reason_name(2, 0xffffffff), "invalid_guest_state");
}
END_TEST

START_TEST(svm_gaps_have_no_name)
{
	ck_assert_ptr_null(vm_exit_reason_name(2, 0x001));
	ck_assert_ptr_null(vm_exit_reason_name(2, 0x042));  /* NMI vector: not intercepted */
	ck_assert_ptr_null(vm_exit_reason_name(2, 0x08c));
	ck_assert_ptr_null(vm_exit_reason_name(2, 0x500));
	ck_assert_ptr_null(vm_exit_reason_name(2, -1));
}
END_TEST

static void feed_one_of_each(struct vm_writer *w)
{
	const struct vm_thread_interval t = { "g", 1, "c", "running", 0, 1, 0, -1, 1, NULL, -1 };
	const struct vm_vcpu_interval v = { "g", 0, "guest", 0, 1, 7, 0, -1, 1 };
	const struct vm_exit_stat e = { "g", 0, 12, 1, 1, 1, 1, 1 };

	vm_writer_thread_interval(w, &t);
	vm_writer_vcpu_interval(w, &v);
	vm_writer_exit_stat(w, &e);
}

/* Every format reports a failed write: /dev/full accepts the open but no
 * byte. */
static void check_full_disk_reported(enum vm_writer_format format,
		enum vm_writer_what what)
{
	FILE *out = fopen("/dev/full", "w");
	struct vm_writer *w;

	ck_assert_ptr_nonnull(out);
	w = vm_writer_create(format, what, out);
	ck_assert_ptr_nonnull(w);
	feed_one_of_each(w);
	ck_assert(!vm_writer_finish(w));
	vm_writer_destroy(w);
	fclose(out);
}

START_TEST(full_disk_csv)
{
	check_full_disk_reported(VM_WRITER_CSV, VM_WRITER_THREADS);
	check_full_disk_reported(VM_WRITER_CSV, VM_WRITER_VCPUS);
	check_full_disk_reported(VM_WRITER_CSV, VM_WRITER_EXITS);
}
END_TEST

START_TEST(full_disk_json)
{
	check_full_disk_reported(VM_WRITER_JSON, VM_WRITER_THREADS);
	check_full_disk_reported(VM_WRITER_JSON, VM_WRITER_EXITS);
}
END_TEST

START_TEST(full_disk_chrome_and_text)
{
	check_full_disk_reported(VM_WRITER_CHROME, VM_WRITER_VCPUS);
	check_full_disk_reported(VM_WRITER_CHROME, VM_WRITER_EXITS);
	check_full_disk_reported(VM_WRITER_TEXT, VM_WRITER_THREADS);
}
END_TEST

/* Finishing twice writes the trailer once. */
START_TEST(finish_is_idempotent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct vm_writer *w = vm_writer_create(VM_WRITER_CHROME, VM_WRITER_THREADS, out);

	ck_assert(vm_writer_finish(w));
	ck_assert(vm_writer_finish(w));
	vm_writer_destroy(w);
	fclose(out);
	ck_assert_str_eq(buf, "{\"traceEvents\":[\n],\"displayTimeUnit\":\"ns\","
		"\"otherData\":{\"ts_origin_unix_ns\":\"0\"}}\n");
	free(buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer-common");
	TCase *parsing = tcase_create("parsing");
	TCase *names = tcase_create("exit-names");
	TCase *errors = tcase_create("io-errors");

	tcase_add_test(parsing, formats_parse);
	tcase_add_test(parsing, unknown_formats_rejected);
	tcase_add_test(parsing, whats_parse);
	tcase_add_test(parsing, unknown_whats_rejected);
	tcase_add_test(parsing, create_rejects_bad_arguments);
	tcase_add_test(parsing, missing_names_tolerated);
	tcase_add_test(names, vmx_exit_names);
	tcase_add_test(names, unknown_isa_is_vmx);
	tcase_add_test(names, vmx_gaps_have_no_name);
	tcase_add_test(names, svm_exit_names);
	tcase_add_test(names, svm_gaps_have_no_name);
	tcase_add_test(errors, full_disk_csv);
	tcase_add_test(errors, full_disk_json);
	tcase_add_test(errors, full_disk_chrome_and_text);
	tcase_add_test(errors, finish_is_idempotent);
	suite_add_tcase(s, parsing);
	suite_add_tcase(s, names);
	suite_add_tcase(s, errors);
	return run_suite(s);
}
