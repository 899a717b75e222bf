/*
 * Runs the fuzz target (fuzz-analysis.c) once on every file of the
 * directories given: the seed corpus and the inputs that once crashed,
 * replayed in every build (and under the sanitizers in CI) as a regression
 * test, without libFuzzer.
 */

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	gchar *contents;
	gsize length;
	GError *error = NULL;

	if (!g_file_get_contents(path, &contents, &length, &error)) {
		fprintf(stderr, "fuzz-replay: %s\n", error->message);
		g_error_free(error);
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *) contents, length);
	g_free(contents);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		GDir *dir = g_dir_open(argv[i], 0, NULL);
		const char *name;

		if (!dir) {
			failed |= replay_file(argv[i]);
			count++;
			continue;
		}
		while ((name = g_dir_read_name(dir))) {
			gchar *path = g_build_filename(argv[i], name, NULL);

			failed |= replay_file(path);
			count++;
			g_free(path);
		}
		g_dir_close(dir);
	}
	printf("%u inputs replayed\n", count);
	return failed || count == 0;
}
