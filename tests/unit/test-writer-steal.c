/* what=steal in every format: the exact CSV and JSON, the text table's grouping. */

#include <glib.h>

#include "test-writer-helpers.h"

static const struct vm_steal_interval rows[] = {
	{ "g1", 0, 300, "app", 100, 250, 0, "vcpu", "g2", 1, 2002, "CPU 1/KVM" },
	{ "g1", 0, 300, "app", 250, 300, 0, "vmm", "g2", -1, 2005, "IO" },
	{ "g1", 1, 0, "", 400, 500, 1, "host", NULL, -1, 500, "bash" },
	{ "g1", 1, -1, "", 500, 550, -1, "unknown", NULL, -1, -1, NULL },
	{ "g2", 0, 7, "a,b", 10, 20, 3, "idle", NULL, -1, -1, NULL },
};

static void feed_steal(struct vm_writer *w)
{
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++)
		vm_writer_steal_interval(w, &rows[i]);
	/* Other records are not steal's. */
	vm_writer_thread_interval(w, &(struct vm_thread_interval) {
		"g1", 300, "app", "preempted", 100, 300, 0, -1, 0, NULL, -1 });
}

START_TEST(csv_rows)
{
	char *out = write_to_string(VM_WRITER_CSV, VM_WRITER_STEAL, feed_steal);

	assert_output_eq(out,
		"machine,vcpu,tid,comm,begin_ns,end_ns,pcpu,culprit_kind,culprit_machine,"
		"culprit_vcpu,culprit_tid,culprit_comm\n"
		"g1,0,300,app,100,250,0,vcpu,g2,1,2002,CPU 1/KVM\n"
		"g1,0,300,app,250,300,0,vmm,g2,,2005,IO\n"
		"g1,1,0,,400,500,1,host,,,500,bash\n"
		"g1,1,,,500,550,,unknown,,,,\n"
		"g2,0,7,\"a,b\",10,20,3,idle,,,,\n");
	free(out);
}
END_TEST

START_TEST(json_rows)
{
	char *out = write_to_string(VM_WRITER_JSON, VM_WRITER_STEAL, feed_steal);
	char **lines = g_strsplit(out, "\n", -1);

	ck_assert_str_eq(lines[0], "{\"machine\":\"g1\",\"vcpu\":0,\"tid\":300,"
		"\"comm\":\"app\",\"begin_ns\":100,\"end_ns\":250,\"pcpu\":0,"
		"\"culprit_kind\":\"vcpu\",\"culprit_machine\":\"g2\",\"culprit_vcpu\":1,"
		"\"culprit_tid\":2002,\"culprit_comm\":\"CPU 1/KVM\",\"dur_ns\":150,"
		"\"begin_ns_str\":\"100\",\"end_ns_str\":\"250\"}");
	ck_assert_str_eq(lines[3], "{\"machine\":\"g1\",\"vcpu\":1,\"tid\":null,"
		"\"comm\":\"\",\"begin_ns\":500,\"end_ns\":550,\"pcpu\":null,"
		"\"culprit_kind\":\"unknown\",\"culprit_machine\":null,\"culprit_vcpu\":null,"
		"\"culprit_tid\":null,\"culprit_comm\":null,\"dur_ns\":50,"
		"\"begin_ns_str\":\"500\",\"end_ns_str\":\"550\"}");
	ck_assert_str_eq(lines[5], "");
	g_strfreev(lines);
	free(out);
}
END_TEST

/* A VM's vCPU and QEMU threads make one culprit; largest first per machine. */
START_TEST(text_table)
{
	char *out = write_to_string(VM_WRITER_TEXT, VM_WRITER_STEAL, feed_steal);

	assert_output_eq(out,
		"Steal by culprit (who ran on the host CPU a preempted vCPU waited for; "
		"% of the machine's steal)\n"
		"  machine  culprit     kind       time       %\n"
		"  -------  ----------  -------  ------  ------\n"
		"  g1       g2          vm       200 ns   57.1%\n"
		"  g1       bash (500)  host     100 ns   28.6%\n"
		"  g1       unknown     unknown   50 ns   14.3%\n"
		"  g2       idle        idle      10 ns  100.0%\n");
	free(out);
}
END_TEST

static void feed_nothing(struct vm_writer *w)
{
	(void) w;
}

START_TEST(text_table_empty)
{
	char *out = write_to_string(VM_WRITER_TEXT, VM_WRITER_STEAL, feed_nothing);

	ck_assert(strstr(out, "Steal by culprit") != NULL);
	ck_assert(strstr(out, "(none)") != NULL);
	free(out);
}
END_TEST

/* The summary shows the table only when some vCPU was preempted. */
START_TEST(summary_only_with_steal)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct vm_writer *w = vm_writer_create_summary(out);

	ck_assert(vm_writer_wants(w, VM_WRITER_STEAL));
	ck_assert(vm_writer_finish(w));
	vm_writer_destroy(w);
	fclose(out);
	ck_assert(strstr(buf, "Steal by culprit") == NULL);
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	w = vm_writer_create_summary(out);
	feed_steal(w);
	ck_assert(vm_writer_finish(w));
	vm_writer_destroy(w);
	fclose(out);
	ck_assert(strstr(buf, "\n\nSteal by culprit") != NULL);
	free(buf);
}
END_TEST

START_TEST(chrome_args_name_culprit)
{
	char *out = write_to_string(VM_WRITER_CHROME, VM_WRITER_STEAL, feed_steal);

	ck_assert(strstr(out, "\"name\":\"g2 vCPU 1\",\"args\":{\"tid\":300,\"pcpu\":0,"
		"\"culprit_kind\":\"vcpu\",\"culprit_machine\":\"g2\",\"culprit_vcpu\":1,"
		"\"culprit_tid\":2002,\"culprit_comm\":\"CPU 1/KVM\"}") != NULL);
	ck_assert(strstr(out, "\"name\":\"preempted\",\"args\":{\"vcpu\":1,\"pcpu\":1,"
		"\"culprit_kind\":\"host\",\"culprit_tid\":500,\"culprit_comm\":\"bash\"}") == NULL);
	ck_assert(strstr(out, "\"name\":\"bash (500)\"") != NULL);
	ck_assert(strstr(out, "\"name\":\"preempted\",\"args\":{\"vcpu\":0,\"pcpu\":0,"
		"\"culprit_kind\":\"vmm\",\"culprit_machine\":\"g2\",\"culprit_tid\":2005,"
		"\"culprit_comm\":\"IO\"}") != NULL);
	free(out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer-steal");
	TCase *tc = tcase_create("formats");

	tcase_add_test(tc, csv_rows);
	tcase_add_test(tc, json_rows);
	tcase_add_test(tc, text_table);
	tcase_add_test(tc, text_table_empty);
	tcase_add_test(tc, summary_only_with_steal);
	tcase_add_test(tc, chrome_args_name_culprit);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
