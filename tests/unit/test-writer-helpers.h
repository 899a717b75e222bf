#ifndef TEST_WRITER_HELPERS_H
#define TEST_WRITER_HELPERS_H

/* Runs a writer into memory so that tests compare its exact output. */

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writers/writer.h"

typedef void (*feed_records_fn)(struct vm_writer *w);

/* Output of format/what fed by `feed`, finished; the caller frees it. */
static inline char *write_to_string(enum vm_writer_format format,
		enum vm_writer_what what, feed_records_fn feed)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	struct vm_writer *w;

	ck_assert_ptr_nonnull(out);
	w = vm_writer_create(format, what, out);
	ck_assert_ptr_nonnull(w);
	feed(w);
	ck_assert(vm_writer_finish(w));
	vm_writer_destroy(w);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

/* Like ck_assert_str_eq, for outputs longer than check's message limit:
 * both texts go to stderr, the failure message stays short. */
static inline void assert_output_eq(const char *actual, const char *expected)
{
	if (strcmp(actual, expected) == 0)
		return;
	fprintf(stderr, "--- expected:\n%s--- actual:\n%s---\n", expected, actual);
	ck_abort_msg("output differs from the expected text (see stderr)");
}

static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* TEST_WRITER_HELPERS_H */
