#include <check.h>
#include <stdlib.h>

#include "test-writer-helpers.h"

static void feed_threads(struct vm_writer *w)
{
	const struct vm_thread_interval running = {
		"guest1", 42, "worker", "running", 1000, 2500, 1, -1, 1, NULL, -1,
	};
	const struct vm_thread_interval exit = {
		"guest1", 42, "worker", "hypervisor", 2500, 2600, 1, 48, 1, NULL, -1,
	};
	const struct vm_thread_interval waiting = {
		"guest1", 43, "", "blocked", 0, 9000, -1, -1, 1, NULL, -1,
	};

	vm_writer_thread_interval(w, &running);
	vm_writer_thread_interval(w, &exit);
	vm_writer_thread_interval(w, &waiting);
}

START_TEST(threads_rows)
{
	char *s = write_to_string(VM_WRITER_CSV, VM_WRITER_THREADS, feed_threads);

	ck_assert_str_eq(s,
		"machine,tid,comm,state,begin_ns,end_ns,vcpu,reason,container,vtid\n"
		"guest1,42,worker,running,1000,2500,1,,,\n"
		"guest1,42,worker,hypervisor,2500,2600,1,48,,\n"
		"guest1,43,,blocked,0,9000,,,,\n");
	free(s);
}
END_TEST

static void feed_awkward_comms(struct vm_writer *w)
{
	const char *comms[] = {
		"a,b", "say \"hi\"", "two\nlines", " lead", "trail ", "in side",
	};

	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		const struct vm_thread_interval iv = {
			"g", (int64_t) i + 1, comms[i], "runnable", 1, 2, -1, -1, 1,
			NULL, -1,
		};

		vm_writer_thread_interval(w, &iv);
	}
}

START_TEST(quoting)
{
	char *s = write_to_string(VM_WRITER_CSV, VM_WRITER_THREADS, feed_awkward_comms);

	ck_assert_str_eq(s,
		"machine,tid,comm,state,begin_ns,end_ns,vcpu,reason,container,vtid\n"
		"g,1,\"a,b\",runnable,1,2,,,,\n"
		"g,2,\"say \"\"hi\"\"\",runnable,1,2,,,,\n"
		"g,3,\"two\nlines\",runnable,1,2,,,,\n"
		"g,4,\" lead\",runnable,1,2,,,,\n"
		"g,5,\"trail \",runnable,1,2,,,,\n"
		"g,6,in side,runnable,1,2,,,,\n");
	free(s);
}
END_TEST

static void feed_utf8_comms(struct vm_writer *w)
{
	const char *comms[] = {
		"k\xc3\xa4" "fer",                  /* well-formed: kept */
		"\xe6\xbc\xa2\xe5\xad\x97",           /* well-formed CJK: kept */
		"a\xff" "b\xc3",                    /* stray bytes */
		"x,\xc0\xaf",                       /* an overlong '/', to be quoted */
		"\xed\xa0\x80-long-enough-for-words", /* a surrogate, past 8 bytes */
	};

	for (size_t i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		const struct vm_thread_interval iv = {
			"g", (int64_t) i + 1, comms[i], "runnable", 1, 2, -1, -1, 1,
			NULL, -1,
		};

		vm_writer_thread_interval(w, &iv);
	}
}

/* Bytes that are not well-formed UTF-8 become U+FFFD, as in json and text. */
START_TEST(invalid_utf8_replaced)
{
	char *s = write_to_string(VM_WRITER_CSV, VM_WRITER_THREADS, feed_utf8_comms);

	ck_assert_str_eq(s,
		"machine,tid,comm,state,begin_ns,end_ns,vcpu,reason,container,vtid\n"
		"g,1,k\xc3\xa4" "fer,runnable,1,2,,,,\n"
		"g,2,\xe6\xbc\xa2\xe5\xad\x97,runnable,1,2,,,,\n"
		"g,3,a\xef\xbf\xbd" "b\xef\xbf\xbd,runnable,1,2,,,,\n"
		"g,4,\"x,\xef\xbf\xbd\xef\xbf\xbd\",runnable,1,2,,,,\n"
		"g,5,\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd-long-enough-for-words,runnable,1,2,,,,\n");
	free(s);
}
END_TEST

static void feed_vcpus(struct vm_writer *w)
{
	const struct vm_vcpu_interval guest = {
		"vm,1", 0, "guest", 10, 20, 1234, 3, -1, 1,
	};
	const struct vm_vcpu_interval halted = {
		"vm,1", 0, "blocked", 20, 35, 1234, -1, 12, 1,
	};

	vm_writer_vcpu_interval(w, &guest);
	vm_writer_vcpu_interval(w, &halted);
}

START_TEST(vcpus_rows)
{
	char *s = write_to_string(VM_WRITER_CSV, VM_WRITER_VCPUS, feed_vcpus);

	ck_assert_str_eq(s,
		"machine,vcpu,mode,begin_ns,end_ns,host_tid,pcpu,reason\n"
		"\"vm,1\",0,guest,10,20,1234,3,\n"
		"\"vm,1\",0,blocked,20,35,1234,,12\n");
	free(s);
}
END_TEST

static void feed_exits(struct vm_writer *w)
{
	const struct vm_exit_stat hlt = { "g", 0, 12, 1, 3, 1000, 100, 600 };
	const struct vm_exit_stat npf = { "g", 1, 0x400, 2, 2, 7, 3, 4 };
	const struct vm_exit_stat unnamed = { "g", 1, 999, 1, 1, 5, 5, 5 };

	vm_writer_exit_stat(w, &hlt);
	vm_writer_exit_stat(w, &npf);
	vm_writer_exit_stat(w, &unnamed);
}

START_TEST(exits_rows)
{
	char *s = write_to_string(VM_WRITER_CSV, VM_WRITER_EXITS, feed_exits);

	/* mean rounded down: 1000 / 3 = 333, 7 / 2 = 3 */
	ck_assert_str_eq(s,
		"machine,vcpu,reason,name,count,total_ns,min_ns,max_ns,mean_ns\n"
		"g,0,12,HLT,3,1000,100,600,333\n"
		"g,1,1024,npf,2,7,3,4,3\n"
		"g,1,999,999,1,5,5,5,5\n");
	free(s);
}
END_TEST

static void feed_every_kind(struct vm_writer *w)
{
	feed_threads(w);
	feed_vcpus(w);
	feed_exits(w);
}

START_TEST(only_records_of_what)
{
	char *s = write_to_string(VM_WRITER_CSV, VM_WRITER_VCPUS, feed_every_kind);

	ck_assert_str_eq(s,
		"machine,vcpu,mode,begin_ns,end_ns,host_tid,pcpu,reason\n"
		"\"vm,1\",0,guest,10,20,1234,3,\n"
		"\"vm,1\",0,blocked,20,35,1234,,12\n");
	free(s);
}
END_TEST

static void feed_nothing(struct vm_writer *w)
{
	(void) w;
}

START_TEST(header_without_records)
{
	char *s = write_to_string(VM_WRITER_CSV, VM_WRITER_EXITS, feed_nothing);

	ck_assert_str_eq(s,
		"machine,vcpu,reason,name,count,total_ns,min_ns,max_ns,mean_ns\n");
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer-csv");
	TCase *tc = tcase_create("csv");

	tcase_add_test(tc, threads_rows);
	tcase_add_test(tc, quoting);
	tcase_add_test(tc, invalid_utf8_replaced);
	tcase_add_test(tc, vcpus_rows);
	tcase_add_test(tc, exits_rows);
	tcase_add_test(tc, only_records_of_what);
	tcase_add_test(tc, header_without_records);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
