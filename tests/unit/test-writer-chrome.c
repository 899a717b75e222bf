#include <check.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-writer-helpers.h"

/*
 * Checks, in Python's json module, that the text parses and has the shape
 * trace viewers need: every event on a track named before it, numeric
 * ts/dur, the closing displayTimeUnit.
 */
static const char chrome_shape_check[] =
	"import json, sys\n"
	"doc = json.load(sys.stdin)\n"
	"assert doc['displayTimeUnit'] == 'ns'\n"
	"procs, tracks, ends_by_track = set(), set(), {}\n"
	"for e in doc['traceEvents']:\n"
	"    if e['ph'] == 'M' and e['name'] == 'process_name':\n"
	"        procs.add(e['pid'])\n"
	"    elif e['ph'] == 'M' and e['name'] == 'thread_name':\n"
	"        tracks.add((e['pid'], e['tid']))\n"
	"    else:\n"
	"        assert e['ph'] == 'X', e\n"
	"        assert e['pid'] in procs and (e['pid'], e['tid']) in tracks, e\n"
	"        assert isinstance(e['ts'], (int, float)) and e['dur'] >= 0, e\n"
	/* Slices of a track must not overlap, or viewers drop them; 0.5 ns of
	 * slack for the float sum. */
	"        ends = ends_by_track.setdefault((e['pid'], e['tid']), [])\n"
	"        ends.append((e['ts'], e['ts'] + e['dur']))\n"
	"for ends in ends_by_track.values():\n"
	"    ends.sort()\n"
	"    for (_, end), (begin, _) in zip(ends, ends[1:]):\n"
	"        assert begin >= end - 0.0005, (end, begin)\n";

static int python_exit_status(const char *text)
{
	char script_path[] = "/tmp/test-writer-chrome-XXXXXX";
	int fd = mkstemp(script_path);
	FILE *script;
	FILE *python;
	char *command;
	int status;

	ck_assert_int_ge(fd, 0);
	script = fdopen(fd, "w");
	ck_assert_ptr_nonnull(script);
	fputs(chrome_shape_check, script);
	ck_assert_int_eq(fclose(script), 0);
	command = g_strdup_printf("/usr/bin/python3 %s", script_path);
	python = popen(command, "w");
	ck_assert_ptr_nonnull(python);
	fputs(text, python);
	status = pclose(python);
	unlink(script_path);
	g_free(command);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void feed_threads(struct vm_writer *w)
{
	const struct vm_thread_interval running = {
		.machine = "guest1", .tid = 42, .comm = "worker", .state = "running",
		.begin_ns = 1000, .end_ns = 2500, .vcpu = 1, .reason = -1,
	};
	const struct vm_thread_interval in_kvm = {
		.machine = "guest1", .tid = 42, .comm = "worker", .state = "hypervisor",
		.begin_ns = 2500, .end_ns = 2600, .vcpu = 1, .reason = 48, .isa = 1,
	};
	const struct vm_thread_interval waiting = {
		.machine = "guest2", .tid = 7, .comm = "say \"hi\"", .state = "blocked",
		.begin_ns = 5000, .end_ns = 6001, .vcpu = -1, .reason = -1,
	};
	const struct vm_thread_interval renamed = {
		.machine = "guest1", .tid = 42, .comm = "sh", .state = "runnable",
		.begin_ns = 2600, .end_ns = 2601, .vcpu = -1, .reason = -1,
	};

	vm_writer_thread_interval(w, &running);
	vm_writer_thread_interval(w, &in_kvm);
	vm_writer_thread_interval(w, &waiting);
	vm_writer_thread_interval(w, &renamed);
}

START_TEST(threads_events)
{
	char *s = write_to_string(VM_WRITER_CHROME, VM_WRITER_THREADS, feed_threads);

	assert_output_eq(s,
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"guest1\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":42,\"name\":\"thread_name\",\"args\":{\"name\":\"worker (42)\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":42,\"ts\":1.000,\"dur\":1.500,\"name\":\"running\",\"args\":{\"vcpu\":1}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1073741825,\"name\":\"thread_name\",\"args\":{\"name\":\"vCPU 1\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1073741825,\"ts\":1.000,\"dur\":1.500,\"name\":\"worker (42)\",\"args\":{\"tid\":42,\"state\":\"running\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":42,\"ts\":2.500,\"dur\":0.100,\"name\":\"hypervisor\",\"args\":{\"vcpu\":1,\"reason\":48,\"exit\":\"EPT_VIOLATION\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1073741825,\"ts\":2.500,\"dur\":0.100,\"name\":\"worker (42)\",\"args\":{\"tid\":42,\"state\":\"hypervisor\",\"reason\":48,\"exit\":\"EPT_VIOLATION\"}},\n"
		"{\"ph\":\"M\",\"pid\":2,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"guest2\"}},\n"
		"{\"ph\":\"M\",\"pid\":2,\"tid\":7,\"name\":\"thread_name\",\"args\":{\"name\":\"say \\\"hi\\\" (7)\"}},\n"
		"{\"ph\":\"X\",\"pid\":2,\"tid\":7,\"ts\":5.000,\"dur\":1.001,\"name\":\"blocked\",\"args\":{}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":42,\"name\":\"thread_name\",\"args\":{\"name\":\"sh (42)\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":42,\"ts\":2.600,\"dur\":0.001,\"name\":\"runnable\",\"args\":{}}\n"
		"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"ts_origin_unix_ns\":\"0\"}}\n");
	ck_assert_int_eq(python_exit_status(s), 0);
	free(s);
}
END_TEST

static void feed_vcpus(struct vm_writer *w)
{
	const struct vm_vcpu_interval guest = {
		.machine = "vm", .vcpu = 0, .mode = "guest", .begin_ns = 10,
		.end_ns = 20, .host_tid = 1234, .pcpu = 3, .reason = -1,
	};
	const struct vm_vcpu_interval npf = {
		.machine = "vm", .vcpu = 0, .mode = "hypervisor", .begin_ns = 20,
		.end_ns = 35, .host_tid = 1234, .pcpu = -1, .reason = 0x400, .isa = 2,
	};

	vm_writer_vcpu_interval(w, &guest);
	vm_writer_vcpu_interval(w, &npf);
}

START_TEST(vcpus_events)
{
	char *s = write_to_string(VM_WRITER_CHROME, VM_WRITER_VCPUS, feed_vcpus);

	assert_output_eq(s,
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"vm\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1073741824,\"name\":\"thread_name\",\"args\":{\"name\":\"vCPU 0\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1073741824,\"ts\":0.010,\"dur\":0.010,\"name\":\"guest\",\"args\":{\"host_tid\":1234,\"pcpu\":3}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1073741824,\"ts\":0.020,\"dur\":0.015,\"name\":\"hypervisor\",\"args\":{\"host_tid\":1234,\"reason\":1024,\"exit\":\"npf\"}}\n"
		"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"ts_origin_unix_ns\":\"0\"}}\n");
	ck_assert_int_eq(python_exit_status(s), 0);
	free(s);
}
END_TEST

static void feed_exits(struct vm_writer *w)
{
	const struct vm_exit_stat hlt = { "vm", 0, 12, 1, 3, 1000, 100, 600 };
	const struct vm_exit_stat io = { "vm", 0, 30, 1, 2, 500, 200, 300 };
	const struct vm_exit_stat other = { "vm", 1, 4242, 1, 1, 5, 5, 5 };

	vm_writer_exit_stat(w, &hlt);
	vm_writer_exit_stat(w, &io);
	vm_writer_exit_stat(w, &other);
}

/* Exit statistics: bars laid end to end on each vCPU's track. */
START_TEST(exits_as_bars)
{
	char *s = write_to_string(VM_WRITER_CHROME, VM_WRITER_EXITS, feed_exits);

	assert_output_eq(s,
		"{\"traceEvents\":[\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"vm\"}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1073741824,\"name\":\"thread_name\",\"args\":{\"name\":\"vCPU 0\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1073741824,\"ts\":0.000,\"dur\":1.000,\"name\":\"HLT\",\"args\":{\"reason\":12,\"count\":3,\"total_ns\":1000,\"min_ns\":100,\"max_ns\":600,\"mean_ns\":333}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1073741824,\"ts\":1.000,\"dur\":0.500,\"name\":\"IO_INSTRUCTION\",\"args\":{\"reason\":30,\"count\":2,\"total_ns\":500,\"min_ns\":200,\"max_ns\":300,\"mean_ns\":250}},\n"
		"{\"ph\":\"M\",\"pid\":1,\"tid\":1073741825,\"name\":\"thread_name\",\"args\":{\"name\":\"vCPU 1\"}},\n"
		"{\"ph\":\"X\",\"pid\":1,\"tid\":1073741825,\"ts\":0.000,\"dur\":0.005,\"name\":\"4242\",\"args\":{\"reason\":4242,\"count\":1,\"total_ns\":5,\"min_ns\":5,\"max_ns\":5,\"mean_ns\":5}}\n"
		"],\"displayTimeUnit\":\"ns\",\"otherData\":{\"ts_origin_unix_ns\":\"0\"}}\n");
	ck_assert_int_eq(python_exit_status(s), 0);
	free(s);
}
END_TEST

static void feed_epoch_times(struct vm_writer *w)
{
	/* Written when they end: the second begins before the first. */
	const struct vm_thread_interval first = {
		.machine = "g", .tid = 5, .comm = "a", .state = "running",
		.begin_ns = 1700000000123456789, .end_ns = 1700000000123457790,
		.vcpu = 0, .reason = -1,
	};
	const struct vm_thread_interval earlier = {
		.machine = "g", .tid = 6, .comm = "b", .state = "running",
		.begin_ns = 1700000000123455788, .end_ns = 1700000000123456789,
		.vcpu = 0, .reason = -1,
	};
	const struct vm_thread_interval after = {
		.machine = "g", .tid = 5, .comm = "a", .state = "hypervisor",
		.begin_ns = 1700000000123457790, .end_ns = 1700000000123457791,
		.vcpu = 0, .reason = -1,
	};

	vm_writer_thread_interval(w, &first);
	vm_writer_thread_interval(w, &earlier);
	vm_writer_thread_interval(w, &after);
}

/*
 * 1700000000123456789 ns is 2023-11-14 22:13:20.123456789 UTC; the origin is
 * the UTC midnight a day before that day's: 2023-11-13 00:00.
 */
START_TEST(epoch_times_keep_nanoseconds)
{
	char *s = write_to_string(VM_WRITER_CHROME, VM_WRITER_THREADS, feed_epoch_times);

	ck_assert_ptr_nonnull(strstr(s, "\"tid\":5,\"ts\":166400123456.789,\"dur\":1.001,"));
	ck_assert_ptr_nonnull(strstr(s, "\"tid\":6,\"ts\":166400123455.788,\"dur\":1.001,"));
	ck_assert_ptr_nonnull(strstr(s, "\"tid\":5,\"ts\":166400123457.790,\"dur\":0.001,"));
	ck_assert_ptr_nonnull(strstr(s,
		"\"otherData\":{\"ts_origin_unix_ns\":\"1699833600000000000\"}}\n"));
	/* Back to back on the vCPU track, to the nanosecond, once parsed. */
	ck_assert_int_eq(python_exit_status(s), 0);
	free(s);
}
END_TEST

static void feed_nothing(struct vm_writer *w)
{
	(void) w;
}

START_TEST(empty_trace_is_valid_json)
{
	char *s = write_to_string(VM_WRITER_CHROME, VM_WRITER_THREADS, feed_nothing);

	ck_assert_str_eq(s, "{\"traceEvents\":[\n],\"displayTimeUnit\":\"ns\","
		"\"otherData\":{\"ts_origin_unix_ns\":\"0\"}}\n");
	ck_assert_int_eq(python_exit_status(s), 0);
	free(s);
}
END_TEST

static void feed_awkward_names(struct vm_writer *w)
{
	const struct vm_thread_interval iv = {
		.machine = "m\x01\xff", .tid = 3, .comm = "tab\there\xc3", .state = "running",
		.begin_ns = 0, .end_ns = 1, .vcpu = 2, .reason = -1,
	};

	vm_writer_thread_interval(w, &iv);
}

START_TEST(awkward_names_stay_valid_json)
{
	char *s = write_to_string(VM_WRITER_CHROME, VM_WRITER_THREADS, feed_awkward_names);

	ck_assert_ptr_nonnull(strstr(s, "\"name\":\"m\\u0001\\ufffd\""));
	ck_assert_ptr_nonnull(strstr(s, "\"name\":\"tab\\there\\ufffd (3)\""));
	ck_assert_int_eq(python_exit_status(s), 0);
	free(s);
}
END_TEST

/* The check itself must reject what is not a trace. */
START_TEST(shape_check_rejects_broken_output)
{
	ck_assert_int_ne(python_exit_status("{\"traceEvents\":[\n"), 0);
	ck_assert_int_ne(python_exit_status(
		"{\"traceEvents\":[{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":1,"
		"\"name\":\"x\"}],\"displayTimeUnit\":\"ns\"}"), 0);
}
END_TEST

START_TEST(full_disk_reported)
{
	FILE *out = fopen("/dev/full", "w");
	struct vm_writer *w;

	ck_assert_ptr_nonnull(out);
	w = vm_writer_create(VM_WRITER_CHROME, VM_WRITER_THREADS, out);
	feed_threads(w);
	ck_assert(!vm_writer_finish(w));
	vm_writer_destroy(w);
	fclose(out);
}
END_TEST

/* A writer destroyed without a finish (the graph failed mid-way) still
 * leaves a whole document with the events written so far. */
START_TEST(destroyed_unfinished_is_closed)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct vm_writer *w;

	ck_assert_ptr_nonnull(out);
	w = vm_writer_create(VM_WRITER_CHROME, VM_WRITER_THREADS, out);
	ck_assert_ptr_nonnull(w);
	feed_threads(w);
	vm_writer_destroy(w);
	ck_assert_int_eq(fclose(out), 0);
	ck_assert_int_eq(python_exit_status(buf), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"running\""));
	ck_assert_ptr_nonnull(strstr(buf, "\"name\":\"blocked\""));
	free(buf);
}
END_TEST

/* A finished writer is closed once, not again at its destruction. */
START_TEST(finished_is_closed_once)
{
	char *s = write_to_string(VM_WRITER_CHROME, VM_WRITER_THREADS, feed_nothing);
	gchar **parts = g_strsplit(s, "displayTimeUnit", -1);

	ck_assert_uint_eq(g_strv_length(parts), 2);
	g_strfreev(parts);
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer-chrome");
	TCase *tc = tcase_create("chrome");

	tcase_add_test(tc, threads_events);
	tcase_add_test(tc, vcpus_events);
	tcase_add_test(tc, exits_as_bars);
	tcase_add_test(tc, epoch_times_keep_nanoseconds);
	tcase_add_test(tc, empty_trace_is_valid_json);
	tcase_add_test(tc, awkward_names_stay_valid_json);
	tcase_add_test(tc, shape_check_rejects_broken_output);
	tcase_add_test(tc, full_disk_reported);
	tcase_add_test(tc, destroyed_unfinished_is_closed);
	tcase_add_test(tc, finished_is_closed_once);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
