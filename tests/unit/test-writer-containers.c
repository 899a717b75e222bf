/* The container outputs of the writers (SPEC, Containers). */

#include <glib.h>

#include "test-writer-helpers.h"

#define SHOP_INUM INT64_C(4026532500)

/*
 * g1's app (300) runs, then is preempted in container `shop` (100-300),
 * then preempted again once out of it (300-400); db (301) is in `shop`
 * with no known vtid; init (1) is in no container.
 */
static const struct vm_thread_interval threads[] = {
	{ "g1", 300, "app", "running", 0, 100, 0, -1, 1, "shop", 7 },
	{ "g1", 300, "app", "preempted", 100, 300, 0, -1, 1, "shop", 7 },
	{ "g1", 300, "app", "preempted", 300, 400, 0, -1, 1, NULL, -1 },
	{ "g1", 301, "db", "blocked", 0, 400, -1, -1, 1, "shop", -1 },
	{ "g1", 1, "init", "blocked", 0, 400, -1, -1, 1, NULL, -1 },
};

/* Who stole app's time: only 100-300 is the container's. */
static const struct vm_steal_interval steals[] = {
	{ "g1", 0, 300, "app", 100, 250, 0, "vcpu", "g2", 1, 2002, "CPU 1/KVM" },
	{ "g1", 0, 300, "app", 250, 350, 0, "host", NULL, -1, 500, "bash" },
	{ "g1", 0, 300, "app", 350, 400, 0, "idle", NULL, -1, -1, NULL },
};

static const struct vm_container_total shop = {
	"g1", "shop", SHOP_INUM, 2, { 100, 0, 200, 0, 0, 400, 0 },
};

static void feed_all(struct vm_writer *w)
{
	/* Steal rows may come before the intervals they split. */
	for (size_t i = 0; i < G_N_ELEMENTS(steals); i++)
		vm_writer_steal_interval(w, &steals[i]);
	for (size_t i = 0; i < G_N_ELEMENTS(threads); i++)
		vm_writer_thread_interval(w, &threads[i]);
	vm_writer_container_total(w, &shop);
}

START_TEST(csv_thread_columns)
{
	char *out = write_to_string(VM_WRITER_CSV, VM_WRITER_THREADS, feed_all);

	assert_output_eq(out,
		"machine,tid,comm,state,begin_ns,end_ns,vcpu,reason,container,vtid\n"
		"g1,300,app,running,0,100,0,,shop,7\n"
		"g1,300,app,preempted,100,300,0,,shop,7\n"
		"g1,300,app,preempted,300,400,0,,,\n"
		"g1,301,db,blocked,0,400,,,shop,\n"
		"g1,1,init,blocked,0,400,,,,\n");
	free(out);
}
END_TEST

START_TEST(csv_containers)
{
	char *out = write_to_string(VM_WRITER_CSV, VM_WRITER_CONTAINERS, feed_all);

	assert_output_eq(out,
		"machine,container,ns_inum,threads,running_ns,hypervisor_ns,preempted_ns,"
		"vcpu_blocked_ns,runnable_ns,blocked_ns,unknown_ns\n"
		"g1,shop,4026532500,2,100,0,200,0,0,400,0\n");
	free(out);
}
END_TEST

START_TEST(json_containers)
{
	char *out = write_to_string(VM_WRITER_JSON, VM_WRITER_CONTAINERS, feed_all);

	assert_output_eq(out,
		"{\"machine\":\"g1\",\"container\":\"shop\",\"ns_inum\":4026532500,"
		"\"threads\":2,\"running_ns\":100,\"hypervisor_ns\":0,\"preempted_ns\":200,"
		"\"vcpu_blocked_ns\":0,\"runnable_ns\":0,\"blocked_ns\":400,"
		"\"unknown_ns\":0}\n");
	free(out);
}
END_TEST

/* A container with an unknown vtid: the string, then null. */
START_TEST(json_thread_members)
{
	char *out = write_to_string(VM_WRITER_JSON, VM_WRITER_THREADS, feed_all);
	char **lines = g_strsplit(out, "\n", -1);

	ck_assert_ptr_nonnull(strstr(lines[0], "\"reason\":null,\"container\":\"shop\","
		"\"vtid\":7,\"dur_ns\":100,"));
	ck_assert_ptr_nonnull(strstr(lines[3], "\"container\":\"shop\",\"vtid\":null,"));
	ck_assert_ptr_nonnull(strstr(lines[4], "\"container\":null,\"vtid\":null,"));
	g_strfreev(lines);
	free(out);
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

/*
 * The thread table's container column (app's latest interval is in none),
 * the Containers table, and the culprits of the container's 200 ns of
 * steal: g2 for 150 ns, bash for the 50 ns of its row before 300.
 */
START_TEST(text_summary)
{
	char *out = summary_of(feed_all);
	const char *threads_table = strstr(out, "Guest threads");
	const char *containers = strstr(out, "Containers:");

	ck_assert_ptr_nonnull(threads_table);
	ck_assert_ptr_nonnull(strstr(threads_table,
		"  machine  tid  comm  container  running"));
	ck_assert_ptr_nonnull(strstr(threads_table, "  g1       301  db    shop    "));
	ck_assert_ptr_nonnull(strstr(threads_table, "  g1       300  app            "));
	ck_assert_ptr_nonnull(containers);
	assert_output_eq(containers,
		"Containers: time of their threads in each state (% of the container's "
		"time; steal is `preempted`)\n"
		"  machine  container     ns_inum  threads  running      %  hypervisor  %  "
		"preempted      %  vcpu-blocked  %  runnable  %  blocked      %   total\n"
		"  -------  ---------  ----------  -------  -------  -----  ----------  -  "
		"---------  -----  ------------  -  --------  -  -------  -----  ------\n"
		"  g1       shop       4026532500        2   100 ns  14.3%           -  -  "
		"   200 ns  28.6%             -  -         -  -   400 ns  57.1%  700 ns\n"
		"\n"
		"Container steal by culprit (who ran on the host CPU while a container's "
		"thread was preempted; % of the container's steal)\n"
		"  container  culprit     kind    time      %\n"
		"  ---------  ----------  ----  ------  -----\n"
		"  g1/shop    g2          vm    150 ns  75.0%\n"
		"  g1/shop    bash (500)  host   50 ns  25.0%\n");
	free(out);
}
END_TEST

static void feed_no_container(struct vm_writer *w)
{
	vm_writer_thread_interval(w, &threads[4]);
}

/* Inputs without containers print what they always did. */
START_TEST(text_summary_without_containers)
{
	char *out = summary_of(feed_no_container);

	ck_assert_ptr_null(strstr(out, "container"));
	ck_assert_ptr_null(strstr(out, "Containers"));
	free(out);
}
END_TEST

START_TEST(text_containers_alone)
{
	char *out = write_to_string(VM_WRITER_TEXT, VM_WRITER_CONTAINERS, feed_no_container);

	assert_output_eq(out, "Containers: time of their threads in each state (% of "
		"the container's time; steal is `preempted`)\n  (none)\n");
	free(out);
}
END_TEST

/* The container's threads have their tracks in a process of their own. */
START_TEST(chrome_groups)
{
	char *out = write_to_string(VM_WRITER_CHROME, VM_WRITER_THREADS, feed_all);

	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"M\",\"pid\":1,\"tid\":0,"
		"\"name\":\"process_name\",\"args\":{\"name\":\"g1\"}}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"M\",\"pid\":2,\"tid\":0,"
		"\"name\":\"process_name\",\"args\":{\"name\":\"g1/shop\"}}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":2,\"tid\":300,"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":2,\"tid\":301,"));
	/* Out of the container again, and init, which never was in one. */
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":1,\"tid\":300,"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":1,\"tid\":1,"));
	ck_assert_ptr_null(strstr(out, "{\"ph\":\"X\",\"pid\":2,\"tid\":1,"));
	free(out);
}
END_TEST

START_TEST(chrome_totals)
{
	char *out = write_to_string(VM_WRITER_CHROME, VM_WRITER_CONTAINERS, feed_all);

	ck_assert_ptr_nonnull(strstr(out, "\"name\":\"process_name\",\"args\":{\"name\":"
		"\"g1/shop\"}}"));
	ck_assert_ptr_nonnull(strstr(out, "{\"ph\":\"X\",\"pid\":2,\"tid\":0,\"ts\":0.100,"
		"\"dur\":0.200,\"name\":\"preempted\",\"args\":{\"ns_inum\":4026532500,"
		"\"threads\":2,\"total_ns\":200}}"));
	free(out);
}
END_TEST

START_TEST(what_parses)
{
	enum vm_writer_what what;

	ck_assert(vm_writer_what_from_string("containers", &what));
	ck_assert_int_eq(what, VM_WRITER_CONTAINERS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer-containers");
	TCase *tc = tcase_create("containers");

	tcase_add_test(tc, csv_thread_columns);
	tcase_add_test(tc, csv_containers);
	tcase_add_test(tc, json_containers);
	tcase_add_test(tc, json_thread_members);
	tcase_add_test(tc, text_summary);
	tcase_add_test(tc, text_summary_without_containers);
	tcase_add_test(tc, text_containers_alone);
	tcase_add_test(tc, chrome_groups);
	tcase_add_test(tc, chrome_totals);
	tcase_add_test(tc, what_parses);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
